"""`tqe-monitor history` end to end: a YAML config with `${VAR}` keys, a store filled through
`SqliteStore.commit`, the real CLI. What is checked is what a user sees: the lines or the JSON,
the filters, the exit code, and that a store it cannot use is reported, not replaced."""

from __future__ import annotations

import json
import random
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from tqe_monitor.cli import main
from tqe_monitor.models import Component, ComponentState
from tqe_monitor.poller import utc_now
from tqe_monitor.store import SqliteStore
from tqe_monitor.tracking import StateChange
from tqe_monitor.tracking.conditions import ConditionKey, ConditionKind, Severity, Transition

SERVICE = "tqe"
KEY_A = "hist-A-key-5c1e9b7d3f2a8e6c"
KEY_B = "hist-B-key-0d4f8a2c6e1b9d3f"


def config_text(db: Path) -> str:
    return f"""
storage:
  path: "{db}"
targets:
  team-a:
    base_url: "https://tqe.example.com/v2"
    service: {SERVICE}
    api_key: "${{TQE_HIST_TEAM_A_KEY}}"
  team-b:
    base_url: "https://tqe.example.com/v2"
    service: {SERVICE}
    api_key: "${{TQE_HIST_TEAM_B_KEY}}"
"""


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "data" / "tqe-monitor.db"


@pytest.fixture
def config(tmp_path: Path, db_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("TQE_HIST_TEAM_A_KEY", KEY_A)
    monkeypatch.setenv("TQE_HIST_TEAM_B_KEY", KEY_B)
    path = tmp_path / "tqe-monitor.yaml"
    path.write_text(config_text(db_path))
    return path


@pytest.fixture
def filled(db_path: Path) -> None:
    """Relative to the real clock, since the command measures `--since` from now:
    3 days ago  team-b wallet_exhausted raised
    2 hours ago tqe ai_service operational -> degraded, ai_service_degraded raised
    1 hour ago  team-a wallet_below_100000 raised
    30 min ago  team-b api_key_rejected raised (its details quote the key: must be masked)"""
    now = utc_now()

    def ago(**delta: float) -> Any:
        return now - timedelta(**delta)

    def raised(key: ConditionKey, severity: Severity, minutes: float, **details: Any) -> Transition:
        at = ago(minutes=minutes)
        return Transition(key, severity, True, at, at, details)

    store = SqliteStore(db_path)
    try:
        store.commit(
            transitions=[
                raised(
                    ConditionKey(ConditionKind.WALLET_EXHAUSTED, SERVICE, "team-b"),
                    Severity.CRITICAL,
                    3 * 24 * 60,
                )
            ]
        )
        store.commit(
            transitions=[
                raised(
                    ConditionKey(ConditionKind.COMPONENT_DEGRADED, SERVICE, "", "ai_service"),
                    Severity.WARNING,
                    120,
                    state="degraded",
                )
            ],
            state_changes=[
                StateChange(
                    SERVICE,
                    Component.AI_SERVICE,
                    ComponentState.OPERATIONAL,
                    ComponentState.DEGRADED,
                    ago(minutes=120),
                )
            ],
        )
        store.commit(
            transitions=[
                raised(
                    ConditionKey(ConditionKind.WALLET_LOW, SERVICE, "team-a", "100000"),
                    Severity.WARNING,
                    60,
                    remaining_words=42_000,
                    threshold_words=100_000,
                )
            ]
        )
        store.commit(
            transitions=[
                raised(
                    ConditionKey(ConditionKind.API_KEY_REJECTED, SERVICE, "team-b"),
                    Severity.CRITICAL,
                    30,
                    message=f"401 for key {KEY_B}",
                )
            ]
        )
    finally:
        store.close()


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["history", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def history_json(capsys: pytest.CaptureFixture[str], config: Path, *args: str) -> Any:
    code, out, err = run(capsys, "--config", str(config), "--json", *args)
    assert code == 0, err
    return json.loads(out)


@pytest.mark.usefixtures("filled")
def test_text_lists_the_last_day_oldest_first(
    config: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "--config", str(config))

    assert code == 0, err
    lines = out.strip().splitlines()
    assert len(lines) == 4, out
    state, degraded, low, rejected = lines
    assert "tqe " in state
    assert "ai_service " in state
    assert state.endswith("operational -> degraded")
    assert "ai_service_degraded" in degraded
    assert degraded.endswith("raised [warning]")
    assert "tqe/team-a" in low
    assert "wallet_below_100000" in low
    assert "tqe/team-b" in rejected
    assert rejected.endswith("raised [critical]")
    assert "wallet_exhausted" not in out  # 3 days old: outside the default 24h


@pytest.mark.usefixtures("filled")
def test_json_carries_every_field(config: Path, capsys: pytest.CaptureFixture[str]) -> None:
    entries = history_json(capsys, config)

    assert [(e["kind"], e["name"], e["change"]) for e in entries] == [
        ("state", "ai_service", "operational -> degraded"),
        ("condition", "ai_service_degraded", "raised"),
        ("condition", "wallet_below_100000", "raised"),
        ("condition", "api_key_rejected", "raised"),
    ]
    state, degraded, low, _ = entries
    assert state["target"] is None
    assert state["severity"] is None
    assert degraded["target"] is None
    assert low == {
        "at": low["at"],
        "service": SERVICE,
        "target": "team-a",
        "kind": "condition",
        "name": "wallet_below_100000",
        "change": "raised",
        "severity": "warning",
        "details": {"remaining_words": 42_000, "threshold_words": 100_000},
    }
    assert [e["at"] for e in entries] == sorted(e["at"] for e in entries)


@pytest.mark.usefixtures("filled")
def test_no_api_key_is_printed_even_when_a_stored_detail_quotes_it(
    config: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for args in ((), ("--json",), ("--json", "--target", "team-b")):
        code, out, err = run(capsys, "--config", str(config), *args)
        assert code == 0, err
        assert KEY_A not in out + err
        assert KEY_B not in out + err
    assert "api_key_rejected" in out


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        pytest.param(
            ("--target", "team-b"),
            ["api_key_rejected"],
            id="target-only-its-conditions",
        ),
        pytest.param(
            ("--target", "team-b", "--since", "7d"),
            ["wallet_exhausted", "api_key_rejected"],
            id="target-and-since",
        ),
        pytest.param(("--target", "nobody"), [], id="unknown-target"),
        pytest.param(
            ("--since", "7d"),
            [
                "wallet_exhausted",
                "ai_service",
                "ai_service_degraded",
                "wallet_below_100000",
                "api_key_rejected",
            ],
            id="since-7d",
        ),
        pytest.param(
            ("--since", "90m"),
            ["wallet_below_100000", "api_key_rejected"],
            id="since-90m",
        ),
        pytest.param(("--since", "10m"), [], id="since-10m"),
        pytest.param(
            ("--since", "1000000d"),
            [
                "wallet_exhausted",
                "ai_service",
                "ai_service_degraded",
                "wallet_below_100000",
                "api_key_rejected",
            ],
            id="since-before-year-one",
        ),
    ],
)
@pytest.mark.usefixtures("filled")
def test_filters(
    config: Path,
    capsys: pytest.CaptureFixture[str],
    args: tuple[str, ...],
    expected: list[str],
) -> None:
    assert [e["name"] for e in history_json(capsys, config, *args)] == expected


def test_an_empty_period_says_so(
    config: Path, db_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    SqliteStore(db_path).close()
    code, out, _ = run(capsys, "--config", str(config))
    assert code == 0
    assert out.strip() == "no history in this period"


def test_a_missing_store_is_not_created(
    config: Path, db_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "--config", str(config))
    assert code == 0
    assert out == ""
    assert f"no store at {db_path} yet" in err
    assert not db_path.exists()


@pytest.mark.parametrize("since", ["yesterday", "-1h", "5 parsecs", ""])
def test_a_bad_since_is_a_usage_error(
    config: Path, capsys: pytest.CaptureFixture[str], since: str
) -> None:
    code, out, err = run(capsys, "--config", str(config), f"--since={since}")
    assert code == 2
    assert out == ""
    assert "usage error: --since" in err


def test_a_corrupt_store_is_a_store_error_and_is_left_alone(
    config: Path, db_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db_path.parent.mkdir(parents=True)
    garbage = random.Random(3).randbytes(32 * 1024)
    db_path.write_bytes(garbage)

    code, out, err = run(capsys, "--config", str(config))

    assert code == 2
    assert out == ""
    assert "store error" in err
    assert str(db_path) in err
    assert db_path.read_bytes() == garbage
