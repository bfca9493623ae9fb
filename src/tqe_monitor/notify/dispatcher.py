"""Moves notifications from condition events to people, durably.

Each tick: plan new messages from events that have waited `group_wait` (written to the outbox
in one transaction), plan reminders, then try every due delivery. A failed channel is retried
with exponential backoff until `max_delivery_age`, then dropped (logged and counted). Because
the outbox lives in the store, pending deliveries survive a crash and go out after the restart.
A crash in the instant between a channel accepting a message and the store recording it is the
one case that can repeat that message once; each body ends with its `ref` so it can be spotted.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from datetime import datetime, timedelta
from functools import partial

from tqe_monitor.logging_setup import get_logger
from tqe_monitor.notify.channels import Channel
from tqe_monitor.notify.notify_metrics import NotificationMetrics
from tqe_monitor.notify.planner import Plan, Planner
from tqe_monitor.store import SqliteStore, StoreError
from tqe_monitor.store.outbox import Delivery

log = get_logger(__name__)


class Dispatcher:
    """Plans and delivers notifications from the store's outbox."""

    def __init__(
        self,
        store: SqliteStore,
        planner: Planner,
        channels: Mapping[str, Channel],
        metrics: NotificationMetrics,
        *,
        clock: Callable[[], datetime],
        max_delivery_age: float,
        retry_initial: float = 5.0,
        retry_max: float = 300.0,
        reminder_check_every: float = 30.0,
        concurrency: int = 8,
    ) -> None:
        self._store = store
        self._outbox = store.outbox
        self._planner = planner
        self._channels = dict(channels)
        self._metrics = metrics
        self._clock = clock
        self._max_age = timedelta(seconds=max_delivery_age)
        self._retry_initial = retry_initial
        self._retry_max = retry_max
        self._reminder_every = timedelta(seconds=reminder_check_every)
        self._last_reminder_check: datetime | None = None
        self._limit = asyncio.Semaphore(concurrency)
        self._inflight: dict[tuple[str, str], asyncio.Task[None]] = {}
        self.wake = asyncio.Event()

    async def run(self, stop: asyncio.Event, tick: float = 1.0) -> None:
        """Tick until `stop` is set (woken early by `wake` when conditions change).

        Deliveries run as background tasks, so one slow or unreachable channel never holds
        back the planning of new messages or the deliveries to other channels.
        """
        while not stop.is_set():
            try:
                self.plan(self._clock())
                self._start_due(self._clock())
                self._metrics.queue_depth.set(self._outbox.queue_depth())
            except StoreError as exc:
                log.error("outbox_failed", error=str(exc))
            except Exception:
                # Never let one bad round end notifications for good: log it, go on.
                log.exception("notifier_tick_failed")
            self.wake.clear()
            waiters = {asyncio.create_task(stop.wait()), asyncio.create_task(self.wake.wait())}
            _, pending = await asyncio.wait(waiters, timeout=tick, return_when="FIRST_COMPLETED")
            for task in pending | waiters:
                task.cancel()
        if self._inflight:  # let deliveries under way finish; the rest stay pending in the outbox
            await asyncio.wait(set(self._inflight.values()), timeout=5.0)

    async def tick(self) -> None:
        """One round: plan, then deliver what is due and wait for those deliveries."""
        now = self._clock()
        self.plan(now)
        await asyncio.gather(*self._start_due(now))
        self._metrics.queue_depth.set(self._outbox.queue_depth())

    def plan(self, now: datetime) -> None:
        events = self._outbox.pending_events(since=now - self._max_age)
        active = self._store.active_conditions()
        plan = self._planner.events(events, self._outbox.announced(), active, now)
        if plan:
            self._outbox.plan(plan.notifications, plan.consumed, plan.announce, plan.unannounce)
        due = (
            self._last_reminder_check is None
            or now - self._last_reminder_check >= self._reminder_every
        )
        reminders = Plan()
        if due:
            self._last_reminder_check = now
            reminders = self._planner.reminders(active, self._outbox.announced(), now)
            if reminders:
                self._outbox.plan(reminders.notifications, {}, reminders.announce, [])
        for notification in [*plan.notifications, *reminders.notifications]:
            log.info(
                "notification_planned",
                ref=notification.id,
                service=notification.service,
                channels=list(notification.channels),
                title=notification.title,
            )

    def _start_due(self, now: datetime) -> list[asyncio.Task[None]]:
        """Start a task for every due delivery that is not already under way."""
        started = []
        for delivery in self._outbox.due(now):
            key = (delivery.notification_id, delivery.channel)
            if key in self._inflight:
                continue
            task = asyncio.create_task(self._deliver_one(delivery, now))
            self._inflight[key] = task
            task.add_done_callback(partial(self._finished, key))
            started.append(task)
        return started

    def _finished(self, key: tuple[str, str], _: asyncio.Task[None]) -> None:
        self._inflight.pop(key, None)

    async def _deliver_one(self, delivery: Delivery, now: datetime) -> None:
        channel = self._channels.get(delivery.channel)
        if channel is None or now - delivery.created_at > self._max_age:
            why = "channel no longer configured" if channel is None else "max_delivery_age passed"
            self._outbox.record_attempt(delivery, state="dropped", at=now, error=why)
            self._metrics.outcome(delivery.channel, "dropped")
            log.error(
                "notification_dropped",
                ref=delivery.notification_id,
                channel=delivery.channel,
                attempts=delivery.attempts,
                reason=why,
            )
            return
        if delivery.attempts > 0:
            self._metrics.outcome(delivery.channel, "retried")
        async with self._limit:
            result = await channel.send(delivery.title, delivery.body, delivery.notify_type)
        done = self._clock()
        if result.ok:
            self._outbox.record_attempt(delivery, state="sent", at=done)
            self._metrics.outcome(delivery.channel, "sent")
            latency = (done - delivery.first_event_at).total_seconds()
            self._metrics.delivery_seconds.labels(delivery.channel).observe(max(0.0, latency))
            log.info(
                "notification_sent",
                ref=delivery.notification_id,
                channel=delivery.channel,
                attempts=delivery.attempts + 1,
            )
            return
        backoff = min(self._retry_max, self._retry_initial * 2**delivery.attempts)
        self._outbox.record_attempt(
            delivery,
            state="pending",
            at=done,
            next_attempt_at=done + timedelta(seconds=backoff),
            error=result.error,
        )
        self._metrics.outcome(delivery.channel, "failed")
        log.warning(
            "notification_failed",
            ref=delivery.notification_id,
            channel=delivery.channel,
            attempts=delivery.attempts + 1,
            retry_in_seconds=backoff,
            error=result.error,
        )
