"""The dispatcher over a real SQLite outbox, with fake channels and a clock the test moves."""

from __future__ import annotations

import itertools
import sqlite3
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from prometheus_client import CollectorRegistry

from tqe_monitor.notify import (
    Channel,
    Dispatcher,
    NotificationMetrics,
    Planner,
    Router,
    SendResult,
)
from tqe_monitor.store import SqliteStore
from tqe_monitor.tracking.conditions import ConditionKey, ConditionKind, Severity, Transition

T0 = datetime(2026, 1, 2, 12, 0, tzinfo=UTC)
GROUP_WAIT = 10.0
DEGRADED = ConditionKey(ConditionKind.COMPONENT_DEGRADED, "tqe", "", "ai_service")


@dataclass
class Clock:
    now: datetime = T0

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)

    def offset(self) -> float:
        return (self.now - T0).total_seconds()


@dataclass
class FakeChannel:
    """Accepts messages while `ok`; remembers every attempt (clock offset, title, body)."""

    name: str
    clock: Clock
    ok: bool = True
    tags: frozenset[str] = frozenset()
    attempts: list[tuple[float, str, str, bool]] = field(default_factory=list)

    async def send(self, title: str, body: str, notify_type: str) -> SendResult:
        self.attempts.append((self.clock.offset(), title, body, self.ok))
        return SendResult(True) if self.ok else SendResult(False, "1 of 1 endpoint(s) failed")

    @property
    def accepted(self) -> list[str]:
        return [body for _, _, body, ok in self.attempts if ok]

    @property
    def attempt_times(self) -> list[float]:
        return [when for when, _, _, _ in self.attempts]


@dataclass
class Rig:
    store: SqliteStore
    clock: Clock
    channels: dict[str, FakeChannel]
    registry: CollectorRegistry
    dispatcher: Dispatcher

    def sample(self, name: str, **labels: str) -> float:
        return self.registry.get_sample_value(name, labels) or 0.0

    def outcome(self, channel: str, outcome: str) -> float:
        return self.sample("tqe_notifications_total", channel=channel, outcome=outcome)

    async def run_until(self, seconds: float, step: float = 1.0) -> None:
        """Tick every `step` seconds of fake time until the clock reaches `seconds`."""
        while self.clock.offset() < seconds:
            self.clock.advance(step)
            await self.dispatcher.tick()


def raise_degraded(store: SqliteStore, when: datetime = T0) -> None:
    store.commit(
        transitions=[
            Transition(DEGRADED, Severity.WARNING, True, when, when, {"state": "degraded"})
        ]
    )


def delivery_states(path: Path) -> dict[str, str]:
    """channel -> delivery state, read through a separate connection (what is on disk)."""
    with sqlite3.connect(path) as db:
        return dict(db.execute("SELECT channel, state FROM deliveries").fetchall())


def build(
    store: SqliteStore,
    clock: Clock,
    channels: Mapping[str, FakeChannel],
    *,
    configured: Mapping[str, Channel] | None = None,
    max_delivery_age: float = 3600.0,
    retry_initial: float = 5.0,
    retry_max: float = 20.0,
    repeat_interval: float = 86400.0,
) -> Rig:
    """A dispatcher for `channels` (routing everything everywhere); `configured` replaces the
    channels the dispatcher can deliver to (a channel removed from the config)."""
    registry = CollectorRegistry()
    counter = itertools.count(1)
    router = Router(
        {name: frozenset() for name in channels},
        [],
        repeat_interval=repeat_interval,
        send_resolved=True,
    )
    planner = Planner(router, group_wait=GROUP_WAIT, new_id=lambda: f"n{next(counter)}")
    deliverable = dict(channels) if configured is None else dict(configured)
    dispatcher = Dispatcher(
        store,
        planner,
        deliverable,
        NotificationMetrics(registry, sorted(deliverable)),
        clock=clock,
        max_delivery_age=max_delivery_age,
        retry_initial=retry_initial,
        retry_max=retry_max,
        reminder_check_every=1.0,
    )
    return Rig(store, clock, dict(channels), registry, dispatcher)


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    return tmp_path / "store.db"


@pytest.fixture
def store(store_path: Path) -> Iterator[SqliteStore]:
    opened = SqliteStore(store_path)
    yield opened
    opened.close()


@pytest.fixture
def clock() -> Clock:
    return Clock()


async def test_nothing_is_sent_before_group_wait_then_exactly_once(
    store: SqliteStore, clock: Clock
) -> None:
    rig = build(store, clock, {"slack": FakeChannel("slack", clock)})
    raise_degraded(store)
    await rig.run_until(GROUP_WAIT - 1)
    assert rig.channels["slack"].attempts == []
    await rig.run_until(GROUP_WAIT + 60)
    [(when, title, body, _)] = rig.channels["slack"].attempts
    assert when == GROUP_WAIT
    assert title == "[WARNING] tqe: AI service degraded"
    assert body.endswith("ref: n1")
    assert rig.outcome("slack", "sent") == 1
    assert rig.outcome("slack", "failed") == 0
    assert store.outbox.queue_depth() == 0


async def test_a_failed_delivery_is_retried_with_exponential_backoff_capped(
    store: SqliteStore, clock: Clock
) -> None:
    slack = FakeChannel("slack", clock, ok=False)
    rig = build(store, clock, {"slack": slack}, retry_initial=5, retry_max=20)
    raise_degraded(store)
    await rig.run_until(GROUP_WAIT + 80)
    first = GROUP_WAIT
    # backoff after attempt n: min(20, 5 * 2**(n-1)) -> 5, 10, 20, 20, ...
    assert slack.attempt_times == [first + d for d in (0, 5, 15, 35, 55, 75)]
    assert rig.outcome("slack", "failed") == 6
    assert rig.outcome("slack", "retried") == 5
    assert rig.outcome("slack", "sent") == 0
    slack.ok = True
    await rig.run_until(GROUP_WAIT + 120)
    assert slack.attempt_times[-1] == first + 95
    assert len(slack.accepted) == 1
    assert rig.outcome("slack", "sent") == 1
    assert store.outbox.queue_depth() == 0


async def test_a_delivery_is_dropped_after_max_delivery_age(
    store: SqliteStore, store_path: Path, clock: Clock
) -> None:
    slack = FakeChannel("slack", clock, ok=False)
    rig = build(store, clock, {"slack": slack}, max_delivery_age=60, retry_initial=5)
    raise_degraded(store)
    await rig.run_until(GROUP_WAIT + 200)
    created = GROUP_WAIT
    assert slack.attempt_times == [created + d for d in (0, 5, 15, 35, 55)]
    assert rig.outcome("slack", "dropped") == 1
    assert delivery_states(store_path) == {"slack": "dropped"}
    assert store.outbox.queue_depth() == 0
    assert rig.sample("tqe_notification_queue_depth") == 0


async def test_each_channel_gets_a_notification_at_most_once_while_another_retries(
    store: SqliteStore, store_path: Path, clock: Clock
) -> None:
    good, bad = FakeChannel("good", clock), FakeChannel("bad", clock, ok=False)
    rig = build(store, clock, {"good": good, "bad": bad})
    raise_degraded(store)
    await rig.run_until(GROUP_WAIT + 60)
    assert len(good.attempts) == 1
    assert len(bad.attempts) > 2
    bad.ok = True
    await rig.run_until(GROUP_WAIT + 300)
    assert len(good.attempts) == 1
    assert len(bad.accepted) == 1
    assert good.accepted == bad.accepted  # the same notification, ref and all
    assert delivery_states(store_path) == {"good": "sent", "bad": "sent"}


async def test_planning_a_channel_twice_for_one_notification_makes_one_delivery(
    store: SqliteStore, clock: Clock
) -> None:
    from tqe_monitor.store.outbox import PlannedNotification

    twice = PlannedNotification(
        "dup1", T0, T0, "tqe", "event", "info", "title", "body", ("slack", "slack")
    )
    store.outbox.plan([twice], {})
    slack = FakeChannel("slack", clock)
    rig = build(store, clock, {"slack": slack})
    await rig.run_until(30)
    assert slack.accepted == ["body"]


async def test_a_channel_removed_from_the_config_is_dropped(
    store: SqliteStore, store_path: Path, clock: Clock
) -> None:
    kept, removed = FakeChannel("kept", clock, ok=False), FakeChannel("gone", clock, ok=False)
    before = build(store, clock, {"kept": kept, "gone": removed})
    raise_degraded(store)
    await before.run_until(GROUP_WAIT)
    kept.ok = True
    after = build(store, clock, {"kept": kept, "gone": removed}, configured={"kept": kept})
    await after.run_until(GROUP_WAIT + 60)
    assert len(kept.accepted) == 1
    assert removed.accepted == []
    assert len(removed.attempts) == 1  # only the one before the config changed
    assert after.outcome("gone", "dropped") == 1
    assert delivery_states(store_path) == {"kept": "sent", "gone": "dropped"}


async def test_queue_depth_counts_pending_deliveries(store: SqliteStore, clock: Clock) -> None:
    a, b = FakeChannel("a", clock, ok=False), FakeChannel("b", clock, ok=False)
    rig = build(store, clock, {"a": a, "b": b})
    await rig.run_until(1)
    assert rig.sample("tqe_notification_queue_depth") == 0
    raise_degraded(store, clock.now)
    await rig.run_until(1 + GROUP_WAIT)
    assert rig.sample("tqe_notification_queue_depth") == 2
    a.ok = True
    await rig.run_until(60)
    assert rig.sample("tqe_notification_queue_depth") == 1
    b.ok = True
    await rig.run_until(120)
    assert rig.sample("tqe_notification_queue_depth") == 0


async def test_delivery_seconds_measures_from_the_condition_change(
    store: SqliteStore, clock: Clock
) -> None:
    slack = FakeChannel("slack", clock, ok=False)
    rig = build(store, clock, {"slack": slack}, retry_initial=5)
    raise_degraded(store)
    await rig.run_until(GROUP_WAIT + 4)
    slack.ok = True
    await rig.run_until(GROUP_WAIT + 30)
    assert rig.sample("tqe_notification_delivery_seconds_count", channel="slack") == 1
    # raised at 0, first attempt at GROUP_WAIT failed, the retry 5 s later was accepted
    assert rig.sample("tqe_notification_delivery_seconds_sum", channel="slack") == GROUP_WAIT + 5
    assert rig.sample("tqe_notification_delivery_seconds_bucket", channel="slack", le="15.0") == 1
    assert rig.sample("tqe_notification_delivery_seconds_bucket", channel="slack", le="10.0") == 0


async def test_pending_deliveries_survive_reopening_the_store(
    store_path: Path, clock: Clock
) -> None:
    first_store = SqliteStore(store_path)
    failing = {"a": FakeChannel("a", clock, ok=False), "b": FakeChannel("b", clock, ok=False)}
    first = build(first_store, clock, failing)
    raise_degraded(first_store)
    await first.run_until(GROUP_WAIT + 10)
    assert all(c.attempts and not c.accepted for c in failing.values())
    first_store.close()

    reopened = SqliteStore(store_path)
    try:
        working = {"a": FakeChannel("a", clock), "b": FakeChannel("b", clock)}
        second = build(reopened, clock, working)
        await second.run_until(GROUP_WAIT + 120)
        assert [len(c.accepted) for c in working.values()] == [1, 1]
        assert working["a"].accepted == working["b"].accepted
        assert working["a"].accepted[0].endswith("ref: n1")  # planned by the first run
        assert reopened.outbox.queue_depth() == 0
    finally:
        reopened.close()


async def test_a_reminder_goes_out_every_repeat_interval_while_active(
    store: SqliteStore, clock: Clock
) -> None:
    slack = FakeChannel("slack", clock)
    rig = build(store, clock, {"slack": slack}, repeat_interval=100)
    raise_degraded(store)
    await rig.run_until(GROUP_WAIT + 250)
    assert [when for when, _, _, _ in slack.attempts] == [
        GROUP_WAIT,
        GROUP_WAIT + 100,
        GROUP_WAIT + 200,
    ]
    titles = [title for _, title, _, _ in slack.attempts]
    assert titles[1:] == ["[WARNING] tqe: still AI service degraded"] * 2
    assert len({body for _, _, body, _ in slack.attempts}) == 3  # each with its own ref
