"""The SQLite store on a real file: what goes in comes back, a poll commits whole or not at all,
and a database it cannot trust (corrupt, too new, unwritable) stops the start with a clear
`StoreError` instead of being silently replaced by an empty one."""

from __future__ import annotations

import random
import shutil
import sqlite3
import subprocess
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from tqe_monitor.models import Component, ComponentState
from tqe_monitor.store import SqliteStore, Store, StoreError
from tqe_monitor.store.base import WalletSample
from tqe_monitor.store.migrations import CURRENT_VERSION
from tqe_monitor.tracking import StateChange
from tqe_monitor.tracking.conditions import ConditionKey, ConditionKind, Severity, Transition

T0 = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)
SERVICE = "tqe"

DEGRADED = ConditionKey(ConditionKind.COMPONENT_DEGRADED, SERVICE, "", "ai_service")
LOW_A = ConditionKey(ConditionKind.WALLET_LOW, SERVICE, "team-a", "100000")
REJECTED_B = ConditionKey(ConditionKind.API_KEY_REJECTED, SERVICE, "team-b")


def minutes(n: float) -> datetime:
    return T0 + timedelta(minutes=n)


def raised(
    key: ConditionKey,
    at: datetime,
    severity: Severity = Severity.WARNING,
    details: dict[Any, Any] | None = None,  # Any keys: one test stores a bad one
) -> Transition:
    return Transition(key, severity, True, at, at, details or {})


def resolved(key: ConditionKey, at: datetime, since: datetime) -> Transition:
    return Transition(key, Severity.WARNING, False, at, since, {})


def change(
    component: Component,
    previous: ComponentState | None,
    current: ComponentState,
    at: datetime,
    service: str = SERVICE,
) -> StateChange:
    return StateChange(service, component, previous, current, at)


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "state" / "tqe-monitor.db"


@pytest.fixture
def store(db_path: Path) -> Iterator[SqliteStore]:
    opened = SqliteStore(db_path)
    yield opened
    opened.close()


def user_version(path: Path) -> int:
    with sqlite3.connect(path) as db:
        version: int = db.execute("PRAGMA user_version").fetchone()[0]
    return version


def everything(store: Store) -> dict[str, object]:
    """All a store remembers, in one comparable value."""
    return {
        "active": sorted(state.key.id for state in store.active_conditions()),
        "components": store.component_states(),
        "history": store.history(since=datetime.min.replace(tzinfo=UTC)),
        "samples": store.wallet_samples(datetime.min.replace(tzinfo=UTC)),
    }


# --- round trips ------------------------------------------------------------------------------


def test_raised_conditions_come_back_active_with_severity_since_and_details(
    store: SqliteStore,
) -> None:
    details = {"remaining_words": 42_000, "threshold_words": 100_000}
    store.commit(
        transitions=[
            raised(DEGRADED, minutes(0), details={"state": "degraded"}),
            raised(LOW_A, minutes(5), Severity.CRITICAL, details),
        ]
    )

    active = {state.key: state for state in store.active_conditions()}

    assert set(active) == {DEGRADED, LOW_A}
    assert active[LOW_A].active
    assert active[LOW_A].severity is Severity.CRITICAL
    assert active[LOW_A].since == minutes(5)
    assert active[LOW_A].details == details
    assert active[DEGRADED].details == {"state": "degraded"}


def test_resolved_condition_leaves_the_active_set_but_stays_in_history(
    store: SqliteStore,
) -> None:
    store.commit(transitions=[raised(DEGRADED, minutes(0)), raised(LOW_A, minutes(0))])
    store.commit(transitions=[resolved(DEGRADED, minutes(7), since=minutes(0))])

    assert [state.key for state in store.active_conditions()] == [LOW_A]
    entries = [(e.at, e.name, e.change) for e in store.history(since=T0)]
    assert entries == [
        (minutes(0), "ai_service_degraded", "raised"),
        (minutes(0), "wallet_below_100000", "raised"),
        (minutes(7), "ai_service_degraded", "resolved"),
    ]


def test_raising_again_replaces_the_active_condition_instead_of_duplicating_it(
    store: SqliteStore,
) -> None:
    store.commit(transitions=[raised(LOW_A, minutes(0), Severity.WARNING)])
    store.commit(transitions=[raised(LOW_A, minutes(3), Severity.CRITICAL)])

    (state,) = store.active_conditions()
    assert (state.severity, state.since) == (Severity.CRITICAL, minutes(3))


def test_state_changes_come_back_as_current_states_and_as_history(store: SqliteStore) -> None:
    ai, platform = Component.AI_SERVICE, Component.PLATFORM
    store.commit(
        state_changes=[
            change(ai, None, ComponentState.OPERATIONAL, minutes(0)),
            change(platform, None, ComponentState.OPERATIONAL, minutes(0)),
        ]
    )
    store.commit(
        state_changes=[change(ai, ComponentState.OPERATIONAL, ComponentState.DEGRADED, minutes(4))]
    )

    assert sorted(store.component_states()) == sorted(
        [
            (SERVICE, ai, ComponentState.DEGRADED, minutes(4)),
            (SERVICE, platform, ComponentState.OPERATIONAL, minutes(0)),
        ]
    )
    history = [(e.what, e.name, e.change, e.target) for e in store.history(since=T0)]
    assert sorted(history) == sorted(
        [
            ("state", "ai_service", "none -> operational", ""),
            ("state", "platform", "none -> operational", ""),
            ("state", "ai_service", "operational -> degraded", ""),
        ]
    )


def test_wallet_samples_come_back_per_target_oldest_first_from_since(store: SqliteStore) -> None:
    store.commit(
        samples=[
            WalletSample(SERVICE, "team-a", minutes(20), 900),
            WalletSample(SERVICE, "team-a", minutes(0), 1_000),
            WalletSample(SERVICE, "team-a", minutes(10), 950),
            WalletSample(SERVICE, "team-b", minutes(10), 5),
            WalletSample("other", "team-a", minutes(-60), 7),  # older than `since`
        ]
    )

    assert store.wallet_samples(minutes(0)) == {
        (SERVICE, "team-a"): [(minutes(0), 1_000), (minutes(10), 950), (minutes(20), 900)],
        (SERVICE, "team-b"): [(minutes(10), 5)],
    }


@pytest.mark.parametrize(
    ("since", "target", "expected"),
    [
        pytest.param(
            minutes(0),
            None,
            [
                ("ai_service", "none -> degraded"),
                ("ai_service_degraded", "raised"),
                ("wallet_below_100000", "raised"),
                ("api_key_rejected", "raised"),
            ],
            id="everything-oldest-first",
        ),
        pytest.param(
            minutes(0),
            "team-b",
            [("api_key_rejected", "raised")],
            id="target-only-its-conditions",
        ),
        pytest.param(
            minutes(10),
            None,
            [("wallet_below_100000", "raised"), ("api_key_rejected", "raised")],
            id="since-is-inclusive",
        ),
        pytest.param(minutes(31), None, [], id="since-after-everything"),
        pytest.param(minutes(0), "nobody", [], id="unknown-target"),
    ],
)
def test_history_filters_by_since_and_target(
    store: SqliteStore,
    since: datetime,
    target: str | None,
    expected: list[tuple[str, str]],
) -> None:
    store.commit(
        transitions=[raised(DEGRADED, minutes(1))],
        state_changes=[change(Component.AI_SERVICE, None, ComponentState.DEGRADED, minutes(0))],
    )
    store.commit(transitions=[raised(LOW_A, minutes(10))])
    store.commit(transitions=[raised(REJECTED_B, minutes(30), Severity.CRITICAL)])

    entries = store.history(since=since, target=target)

    assert [(e.name, e.change) for e in entries] == expected


# --- retention and forgetting -------------------------------------------------------------------


def test_retain_forgets_the_state_of_unconfigured_services_and_targets(
    store: SqliteStore,
) -> None:
    gone_service = ConditionKey(ConditionKind.SERVICE_UNREACHABLE, "retired", "")
    gone_target = ConditionKey(ConditionKind.WALLET_EXHAUSTED, SERVICE, "team-gone")
    store.commit(
        transitions=[
            raised(DEGRADED, minutes(0)),
            raised(LOW_A, minutes(0)),
            raised(gone_service, minutes(0)),
            raised(gone_target, minutes(0)),
        ],
        state_changes=[
            change(Component.AI_SERVICE, None, ComponentState.DEGRADED, minutes(0)),
            change(Component.AI_SERVICE, None, ComponentState.OPERATIONAL, minutes(0), "retired"),
        ],
    )

    removed = store.retain({SERVICE}, {(SERVICE, "team-a")})

    assert removed > 0
    assert {state.key for state in store.active_conditions()} == {DEGRADED, LOW_A}
    assert {service for service, *_ in store.component_states()} == {SERVICE}
    assert store.retain({SERVICE}, {(SERVICE, "team-a")}) == 0  # nothing left to forget
    # History is what happened; forgetting a target does not rewrite it.
    assert len(store.history(since=T0)) == 6


def test_prune_drops_samples_and_history_older_than_the_cutoff_and_keeps_current_state(
    store: SqliteStore,
) -> None:
    old, new = minutes(-31 * 24 * 60), minutes(0)
    store.commit(
        transitions=[raised(LOW_A, old)],
        state_changes=[change(Component.PLATFORM, None, ComponentState.OPERATIONAL, old)],
        samples=[WalletSample(SERVICE, "team-a", old, 10)],
    )
    store.commit(
        transitions=[raised(DEGRADED, new)],
        samples=[WalletSample(SERVICE, "team-a", new, 9)],
    )

    removed = store.prune(new - timedelta(days=30))

    assert removed == 3  # one sample, one condition entry, one state entry
    assert store.wallet_samples(datetime.min.replace(tzinfo=UTC)) == {
        (SERVICE, "team-a"): [(new, 9)]
    }
    assert [e.name for e in store.history(since=datetime.min.replace(tzinfo=UTC))] == [
        "ai_service_degraded"
    ]
    # What is true now is not history: an old but still active condition stays active.
    assert {state.key for state in store.active_conditions()} == {LOW_A, DEGRADED}
    assert store.component_states() == [
        (SERVICE, Component.PLATFORM, ComponentState.OPERATIONAL, old)
    ]
    assert store.prune(new - timedelta(days=30)) == 0


# --- atomic commits -----------------------------------------------------------------------------


def _refuse_wallet_samples(path: Path) -> None:
    """Make the database itself refuse the last write of a commit (a stand-in for disk full)."""
    with sqlite3.connect(path) as db:
        db.execute(
            "CREATE TRIGGER refuse BEFORE INSERT ON wallet_samples"
            " BEGIN SELECT RAISE(ABORT, 'disk full, say'); END"
        )


def _no_failure(path: Path) -> None:
    return None


GOOD_SAMPLE = WalletSample(SERVICE, "team-a", minutes(1), 500)


@pytest.mark.parametrize(
    ("prepare", "transitions", "samples"),
    [
        pytest.param(
            _no_failure,
            [raised(DEGRADED, minutes(1)), raised(LOW_A, minutes(1), details={("a", "b"): 1})],
            [GOOD_SAMPLE],
            id="details-not-json",
        ),
        pytest.param(
            _no_failure,
            [raised(DEGRADED, minutes(1))],
            [GOOD_SAMPLE, WalletSample(SERVICE, "team-a", minutes(2), 2**70)],
            id="number-too-big-for-sqlite",
        ),
        pytest.param(
            _refuse_wallet_samples,
            [raised(DEGRADED, minutes(1))],
            [GOOD_SAMPLE],
            id="database-refuses-the-last-row",
        ),
    ],
)
def test_a_commit_that_fails_midway_leaves_nothing_behind_and_the_store_usable(
    db_path: Path,
    prepare: Any,
    transitions: list[Transition],
    samples: list[WalletSample],
) -> None:
    store = SqliteStore(db_path)
    try:
        store.commit(transitions=[raised(REJECTED_B, minutes(0))])
        before = everything(store)
        prepare(db_path)

        with pytest.raises(StoreError, match="write failed"):
            store.commit(
                transitions=transitions,
                state_changes=[
                    change(Component.AI_SERVICE, None, ComponentState.DEGRADED, minutes(1))
                ],
                samples=samples,
            )

        assert everything(store) == before  # not even this connection sees half a poll
        store.commit(transitions=[resolved(REJECTED_B, minutes(3), since=minutes(0))])
        assert store.active_conditions() == []
    finally:
        store.close()
    reopened = SqliteStore(db_path)
    try:
        assert [e.change for e in reopened.history(since=T0)] == ["raised", "resolved"]
        assert reopened.component_states() == []
        assert reopened.wallet_samples(T0) == {}
    finally:
        reopened.close()


def test_commit_on_a_closed_store_is_a_store_error(db_path: Path) -> None:
    store = SqliteStore(db_path)
    store.close()
    with pytest.raises(StoreError, match="write failed"):
        store.commit(samples=[GOOD_SAMPLE])


# --- opening: schema versions, WAL --------------------------------------------------------------


def test_a_new_file_is_created_at_the_current_schema_version_in_wal_mode(db_path: Path) -> None:
    SqliteStore(db_path).close()

    assert user_version(db_path) == CURRENT_VERSION
    with sqlite3.connect(db_path) as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"conditions", "condition_history", "component_states", "wallet_samples"} <= tables


def test_reopening_keeps_the_data_and_the_version(db_path: Path) -> None:
    store = SqliteStore(db_path)
    store.commit(transitions=[raised(LOW_A, minutes(0))], samples=[GOOD_SAMPLE])
    kept = everything(store)
    store.close()

    for _ in range(2):
        again = SqliteStore(db_path)
        try:
            assert everything(again) == kept
        finally:
            again.close()
        assert user_version(db_path) == CURRENT_VERSION


def test_a_database_from_a_newer_release_is_refused_and_left_alone(db_path: Path) -> None:
    store = SqliteStore(db_path)
    store.commit(transitions=[raised(LOW_A, minutes(0))])
    store.close()
    with sqlite3.connect(db_path) as db:
        db.execute(f"PRAGMA user_version = {CURRENT_VERSION + 1}")

    with pytest.raises(StoreError, match="newer") as caught:
        SqliteStore(db_path)

    assert str(db_path) in str(caught.value)
    assert user_version(db_path) == CURRENT_VERSION + 1
    with sqlite3.connect(db_path) as db:
        assert db.execute("SELECT count(*) FROM conditions").fetchone()[0] == 1


# --- opening: files it must not use ------------------------------------------------------------


def _random_bytes(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(random.Random(7).randbytes(64 * 1024))


def _damaged_pages(path: Path) -> None:
    """A real store with data, then garbage over pages in the middle (the header stays valid)."""
    store = SqliteStore(path)
    store.commit(
        transitions=[
            raised(ConditionKey(ConditionKind.WALLET_LOW, SERVICE, f"t{n}", "1"), minutes(n))
            for n in range(2_000)
        ]
    )
    store.close()  # the last connection checkpoints the WAL into the file
    size = path.stat().st_size
    assert size > 64 * 4096, "not enough pages to damage"
    with path.open("r+b") as file:
        file.seek(4 * 4096)
        file.write(random.Random(11).randbytes(size // 2))


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(_random_bytes, id="random-bytes"),
        pytest.param(_damaged_pages, id="valid-header-damaged-pages"),
    ],
)
def test_a_corrupt_file_is_a_clear_error_and_is_never_reset(db_path: Path, damage: Any) -> None:
    damage(db_path)
    content = db_path.read_bytes()

    with pytest.raises(StoreError) as caught:
        SqliteStore(db_path)

    message = str(caught.value)
    assert str(db_path) in message
    assert "corrupt" in message or "cannot use" in message
    assert db_path.read_bytes() == content


def _parent_is_a_file(tmp_path: Path) -> Path:
    (tmp_path / "file.txt").write_text("not a directory")
    return tmp_path / "file.txt" / "tqe-monitor.db"


def _path_is_a_directory(tmp_path: Path) -> Path:
    (tmp_path / "tqe-monitor.db").mkdir()
    return tmp_path / "tqe-monitor.db"


@pytest.mark.parametrize(
    "unusable",
    [
        pytest.param(_parent_is_a_file, id="parent-is-a-regular-file"),
        pytest.param(_path_is_a_directory, id="path-is-a-directory"),
    ],
)
def test_an_unusable_location_is_a_clear_error_even_as_root(tmp_path: Path, unusable: Any) -> None:
    path = unusable(tmp_path)
    with pytest.raises(StoreError, match="cannot use") as caught:
        SqliteStore(path)
    assert str(path) in str(caught.value)


@pytest.fixture
def immutable_db(db_path: Path) -> Iterator[Path]:
    """An existing store whose file nobody may write, root included (`chattr +i`)."""
    SqliteStore(db_path).close()
    chattr = shutil.which("chattr")
    if chattr is None:
        pytest.skip("chattr is not installed")
    made = subprocess.run([chattr, "+i", str(db_path)], capture_output=True, check=False)
    if made.returncode != 0:
        pytest.skip("this filesystem or container does not allow immutable files")
    try:
        yield db_path
    finally:
        subprocess.run([chattr, "-i", str(db_path)], check=True)


def test_an_unwritable_file_is_a_clear_error_at_open(immutable_db: Path) -> None:
    with pytest.raises(StoreError, match="cannot use") as caught:
        SqliteStore(immutable_db)
    assert str(immutable_db) in str(caught.value)
