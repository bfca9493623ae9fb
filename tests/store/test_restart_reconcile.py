"""A restart on the same store file: the daemon picks up where it left off.

Each test runs a first "daemon" (a Recorder wired as `app.daemon` wires it, with a real
`SqliteStore` in tmp_path and its own Prometheus registry), stops it, then builds a second one on
the same file, calls `restore(now)` and polls again. Conditions still true must not be raised a
second time, conditions that ended while it was down resolve exactly once on the first poll, the
forecast keeps its window, and a target dropped from the config is forgotten quietly.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from prometheus_client import CollectorRegistry

from tqe_monitor.app.policies import DEFAULT_CONFIRMATIONS
from tqe_monitor.condition_metrics import ConditionMetrics
from tqe_monitor.errors import PollError, PollErrorReason
from tqe_monitor.metrics import MonitorMetrics
from tqe_monitor.models import ComponentState, StatusReading, WalletReading
from tqe_monitor.poller import StatusOutcome, WalletOutcome
from tqe_monitor.recorder import Recorder
from tqe_monitor.store import SqliteStore
from tqe_monitor.tracking import ComponentTracker
from tqe_monitor.tracking.conditions import ConditionBook, Severity, Transition
from tqe_monitor.tracking.tracker import Tracker
from tqe_monitor.tracking.wallet import Threshold, WalletPolicy

T0 = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)
SERVICE = "tqe"
TEAM_A, TEAM_B = "team-a", "team-b"
# team-a's wallet: one low tier; the depletion forecast never fires (forecast_within 0), so the
# only wallet transitions are the tier's, while the burn rate is still computed and published.
POLICY = WalletPolicy(
    thresholds=(Threshold(100_000, Severity.WARNING, "100000"),),
    forecast_window=timedelta(hours=6),
    forecast_within=timedelta(0),
    stale_after=timedelta(hours=1),
)
BOTH = {(SERVICE, TEAM_A): POLICY, (SERVICE, TEAM_B): POLICY}

DEGRADED = "raised ai_service_degraded"
LOW_A = "raised wallet_below_100000 team-a"
REJECTED_B = "raised api_key_rejected team-b"


def minutes(n: float) -> datetime:
    return T0 + timedelta(minutes=n)


def describe(transition: Transition) -> str:
    word = "raised" if transition.raised else "resolved"
    target = f" {transition.key.target}" if transition.key.target else ""
    return f"{word} {transition.key.name}{target}"


@dataclass
class Daemon:
    """One run of the daemon's state machinery, as `app.daemon.run_daemon` wires it."""

    store: SqliteStore
    registry: CollectorRegistry
    recorder: Recorder
    transitions: list[Transition] = field(default_factory=list)

    @classmethod
    def start(
        cls, path: Path, policies: dict[tuple[str, str], WalletPolicy], now: datetime
    ) -> Daemon:
        store = SqliteStore(path)
        registry = CollectorRegistry()
        seen: list[Transition] = []
        recorder = Recorder(
            metrics=MonitorMetrics(registry, "test"),
            condition_metrics=ConditionMetrics(registry),
            components=ComponentTracker(),
            tracker=Tracker(ConditionBook(DEFAULT_CONFIRMATIONS), policies, started=now),
            store=store,
            policies=policies,
            on_transitions=seen.extend,
        )
        return cls(store, registry, recorder, seen)

    def status(self, at: datetime, ai_service: ComponentState) -> None:
        reading = StatusReading(ComponentState.OPERATIONAL, ai_service)
        self.recorder.status(StatusOutcome(SERVICE, TEAM_A, at, 0.01, reading=reading))

    def wallet(self, target: str, at: datetime, words: int) -> None:
        reading = WalletReading(words, at)
        self.recorder.wallet(WalletOutcome(SERVICE, target, at, 0.01, reading=reading))

    def wallet_rejected(self, target: str, at: datetime) -> None:
        error = PollError(PollErrorReason.AUTH, "401 from /wallet", status_code=401)
        self.recorder.wallet(WalletOutcome(SERVICE, target, at, 0.01, error=error))

    def seen(self) -> list[str]:
        """The transitions published so far, described; then forget them."""
        described = sorted(describe(t) for t in self.transitions)
        self.transitions.clear()
        return described

    def active_series(self) -> set[str]:
        """The `tqe_condition_active` series that are 1, as "condition target"."""
        found = set()
        for metric in self.registry.collect():
            if metric.name != "tqe_condition_active":
                continue
            for sample in metric.samples:
                if sample.value == 1:
                    target = sample.labels["target"]
                    found.add(f"{sample.labels['condition']} {target}".strip())
        return found

    def gauge(self, name: str, **labels: str) -> float | None:
        return self.registry.get_sample_value(name, labels)


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "tqe-monitor.db"


@pytest.fixture
def daemons() -> Iterator[list[Daemon]]:
    """Every daemon a test starts; their stores are closed at the end."""
    started: list[Daemon] = []
    yield started
    for daemon in started:
        daemon.store.close()


def first_run(path: Path, daemons: list[Daemon]) -> Daemon:
    """A first run that leaves three conditions active and two wallet samples of team-a."""
    first = Daemon.start(path, BOTH, minutes(0))
    daemons.append(first)
    first.status(minutes(0), ComponentState.DEGRADED)
    first.wallet(TEAM_A, minutes(0), 50_000)
    first.wallet(TEAM_A, minutes(10), 49_000)
    first.wallet_rejected(TEAM_B, minutes(10))
    assert first.seen() == sorted([DEGRADED, LOW_A, REJECTED_B])
    first.store.close()  # the process stops
    return first


def restart(
    path: Path,
    daemons: list[Daemon],
    at: datetime,
    policies: dict[tuple[str, str], WalletPolicy] = BOTH,
) -> Daemon:
    second = Daemon.start(path, policies, at)
    daemons.append(second)
    second.recorder.restore(at)
    return second


def test_conditions_still_true_are_active_at_once_and_never_raised_again(
    db_path: Path, daemons: list[Daemon]
) -> None:
    first_run(db_path, daemons)

    second = restart(db_path, daemons, minutes(20))

    expected_series = {
        "ai_service_degraded",
        "wallet_below_100000 team-a",
        "api_key_rejected team-b",
    }
    assert second.active_series() == expected_series  # before any poll
    assert (
        second.gauge(
            "tqe_wallet_threshold_breached", service=SERVICE, target=TEAM_A, severity="warning"
        )
        == 1
    )
    assert second.recorder.key_rejected(SERVICE, TEAM_B)
    for step in range(3):
        at = minutes(20 + step)
        second.status(at, ComponentState.DEGRADED)
        second.wallet(TEAM_A, at, 48_000 - step)
        second.wallet_rejected(TEAM_B, at)
    assert second.seen() == []
    assert second.active_series() == expected_series
    # The components' states were restored too: the same reading is not a fresh change.
    states = [e for e in second.store.history(since=T0) if e.what == "state"]
    assert len(states) == 3  # platform, ai_service, overall: first sightings of the first run
    assert (
        second.gauge(
            "tqe_service_state",
            service=SERVICE,
            component="ai_service",
            tqe_service_state="degraded",
        )
        == 1
    )


def test_conditions_that_ended_while_down_resolve_exactly_once_on_the_first_poll(
    db_path: Path, daemons: list[Daemon]
) -> None:
    first_run(db_path, daemons)
    second = restart(db_path, daemons, minutes(60))

    second.status(minutes(60), ComponentState.OPERATIONAL)
    second.wallet(TEAM_A, minutes(60), 500_000)  # topped up while the daemon was down
    second.wallet(TEAM_B, minutes(60), 500_000)  # the key works again

    assert second.seen() == [
        "resolved ai_service_degraded",
        "resolved api_key_rejected team-b",
        "resolved wallet_below_100000 team-a",
    ]
    assert second.active_series() == set()
    assert second.store.active_conditions() == []

    second.status(minutes(61), ComponentState.OPERATIONAL)
    second.wallet(TEAM_A, minutes(61), 499_000)
    second.wallet(TEAM_B, minutes(61), 500_000)
    assert second.seen() == []


def test_the_forecast_window_survives_the_restart(db_path: Path, daemons: list[Daemon]) -> None:
    first_run(db_path, daemons)  # team-a: 50 000 at 0 min, 49 000 at 10 min
    second = restart(db_path, daemons, minutes(20))

    second.wallet(TEAM_A, minutes(20), 48_000)  # the third sample in the window: a forecast

    burn = second.gauge("tqe_wallet_burn_rate_words_per_hour", service=SERVICE, target=TEAM_A)
    assert burn == pytest.approx(6_000)  # 1 000 words per 10 minutes
    snapshot = second.recorder.snapshot()
    assert snapshot["wallets"][TEAM_A]["burn_rate_words_per_hour"] == pytest.approx(6_000)

    second.store.close()
    third = restart(db_path, daemons, minutes(25))  # three samples stored: no poll needed
    burn = third.gauge("tqe_wallet_burn_rate_words_per_hour", service=SERVICE, target=TEAM_A)
    assert burn == pytest.approx(6_000)


def test_samples_older_than_the_forecast_window_are_not_restored(
    db_path: Path, daemons: list[Daemon]
) -> None:
    first_run(db_path, daemons)
    second = restart(db_path, daemons, minutes(10 + 7 * 60))  # both samples are 7 h old

    second.wallet(TEAM_A, minutes(10 + 7 * 60), 40_000)

    assert (
        second.gauge("tqe_wallet_burn_rate_words_per_hour", service=SERVICE, target=TEAM_A) is None
    )


def test_a_target_removed_from_the_config_is_forgotten_without_a_transition(
    db_path: Path, daemons: list[Daemon]
) -> None:
    first_run(db_path, daemons)

    second = restart(db_path, daemons, minutes(20), {(SERVICE, TEAM_A): POLICY})

    assert second.seen() == []
    assert second.active_series() == {"ai_service_degraded", "wallet_below_100000 team-a"}
    assert {s.key.target for s in second.store.active_conditions()} == {"", TEAM_A}
    assert [c["target"] for c in second.recorder.snapshot()["conditions"]] == ["", TEAM_A]
    second.status(minutes(20), ComponentState.DEGRADED)
    second.wallet(TEAM_A, minutes(20), 48_000)
    assert second.seen() == []
    # Adding it back later starts it afresh: its old condition does not come back from the dead.
    second.store.close()
    third = restart(db_path, daemons, minutes(30))
    assert "api_key_rejected team-b" not in third.active_series()
    third.wallet_rejected(TEAM_B, minutes(30))
    assert third.seen() == [REJECTED_B]


def test_a_store_that_fails_at_run_time_is_counted_and_monitoring_goes_on(
    db_path: Path, daemons: list[Daemon]
) -> None:
    daemon = Daemon.start(db_path, BOTH, minutes(0))
    daemons.append(daemon)
    daemon.store.close()  # every write from now on fails

    daemon.status(minutes(0), ComponentState.DEGRADED)

    assert daemon.seen() == [DEGRADED]
    assert daemon.active_series() == {"ai_service_degraded"}
    assert daemon.gauge("tqe_store_errors_total") == 1
