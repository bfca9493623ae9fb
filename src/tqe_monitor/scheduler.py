"""Runs every poll on its own interval with APScheduler, without pile-ups or lost shutdowns.

APScheduler 3 (`AsyncIOScheduler`, started inside the running loop) is the clock. It does not
get one job per target: at 10,000 targets its per-run bookkeeping (job store, trigger, events,
~0.33 ms a run) cost 5% of a core and grew over the run. Instead each interval is cut into
one-second slots and APScheduler fires one job per slot; the slot job starts its polls at their
exact stagger offsets inside the second with the loop's own timers. So a fleet of any size
costs APScheduler at most `interval` runs per interval.

Facts this module is built around (APScheduler 3.11):
- an IntervalTrigger first fires one interval late unless told otherwise: every slot job gets
  an explicit `next_run_time` (now + its slot's offset);
- `jitter` only delays, so spreading comes from the start offsets (`stagger_offsets`);
- with `max_instances=1` and `coalesce` a late slot is skipped, not queued: missed slots are
  counted as overruns of their polls, and so is a poll still running when due again;
- `shutdown()` cancels running coroutine jobs, so polls run as our own tasks and are drained
  before it is called.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from itertools import groupby

from apscheduler.events import EVENT_JOB_MAX_INSTANCES, EVENT_JOB_MISSED, JobEvent
from apscheduler.schedulers.asyncio import AsyncIOScheduler
from apscheduler.triggers.interval import IntervalTrigger

from tqe_monitor.logging_setup import get_logger

log = get_logger(__name__)
SLOT_SECONDS = 1.0


@dataclass(frozen=True)
class PollJob:
    """Something to poll periodically: one service's status or one target's wallet."""

    id: str
    service: str
    endpoint: str
    interval: float
    deadline: float
    run: Callable[[], Awaitable[None]]


def stagger_offsets(jobs: Iterable[PollJob]) -> dict[str, float]:
    """Start offsets that spread jobs of the same interval evenly across that interval.

    Job i of n with interval I starts at I*i/n, so the steady load is n/I polls per second
    with no bursts. Order is by job id, so the same config always gives the same offsets.
    """
    offsets: dict[str, float] = {}
    ordered = sorted(jobs, key=lambda j: (j.interval, j.id))
    for interval, group in groupby(ordered, key=lambda j: j.interval):
        members = list(group)
        for index, job in enumerate(members):
            offsets[job.id] = interval * index / len(members)
    return offsets


@dataclass(frozen=True)
class Slot:
    """The polls of one interval whose offsets fall in the same second."""

    id: str
    interval: float
    start: float  # seconds after the scheduler's start
    polls: tuple[tuple[float, PollJob], ...]  # (offset within the slot, job)


def slots(jobs: Iterable[PollJob]) -> list[Slot]:
    """Group jobs into one-second slots of their interval (see the module docstring)."""
    offsets = stagger_offsets(jobs)
    by_slot: dict[tuple[float, int], list[tuple[float, PollJob]]] = {}
    for job in jobs:
        index = math.floor(offsets[job.id] / SLOT_SECONDS)
        start = index * SLOT_SECONDS
        by_slot.setdefault((job.interval, index), []).append((offsets[job.id] - start, job))
    return [
        Slot(
            f"slot:{interval:g}s:{index}",
            interval,
            index * SLOT_SECONDS,
            tuple(sorted(polls, key=lambda p: (p[0], p[1].id))),
        )
        for (interval, index), polls in sorted(by_slot.items(), key=lambda item: item[0])
    ]


class PollScheduler:
    """Owns the APScheduler instance and the polls it starts."""

    def __init__(
        self,
        jobs: Sequence[PollJob],
        *,
        on_overrun: Callable[[PollJob], None],
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self._jobs = list(jobs)
        self._slots = {slot.id: slot for slot in slots(self._jobs)}
        self._on_overrun = on_overrun
        self._clock = clock
        self._running: dict[str, asyncio.Task[None]] = {}
        self._timers: dict[str, asyncio.TimerHandle] = {}
        self._scheduler: AsyncIOScheduler | None = None

    @property
    def running(self) -> bool:
        """True while the scheduler is started and not stopped (for /healthz)."""
        return self._scheduler is not None and bool(self._scheduler.running)

    @property
    def inflight(self) -> int:
        """How many polls are running now."""
        return len(self._running)

    async def start(self) -> None:
        """Schedule every slot, first runs staggered from now. Call inside the running loop."""
        scheduler = AsyncIOScheduler(event_loop=asyncio.get_running_loop(), timezone=UTC)
        scheduler.add_listener(self._slot_skipped, EVENT_JOB_MAX_INSTANCES | EVENT_JOB_MISSED)
        now = self._clock()
        for slot in self._slots.values():
            first_run = now + timedelta(seconds=slot.start)
            scheduler.add_job(
                self._fire_slot,
                IntervalTrigger(seconds=slot.interval, start_date=first_run, timezone=UTC),
                args=[slot.id],
                id=slot.id,
                next_run_time=first_run,
                max_instances=1,
                coalesce=True,
                misfire_grace_time=max(1, int(slot.interval)),
            )
        scheduler.start()
        self._scheduler = scheduler

    async def stop(self, grace: float = 5.0) -> None:
        """Stop firing, let in-flight polls finish for up to `grace` seconds, then cancel."""
        if self._scheduler is None:
            return
        self._scheduler.pause()
        for timer in self._timers.values():
            timer.cancel()
        self._timers.clear()
        inflight = set(self._running.values())
        if inflight:
            log.info("draining", inflight=len(inflight), grace_seconds=grace)
            _, pending = await asyncio.wait(inflight, timeout=grace)
            for task in pending:
                task.cancel()
            if pending:
                await asyncio.wait(pending, timeout=1.0)
                log.warning("drain_timeout", cancelled=len(pending))
        self._scheduler.shutdown(wait=False)
        self._scheduler = None

    async def _fire_slot(self, slot_id: str) -> None:
        """APScheduler's job: start this second's polls at their offsets, then return."""
        loop = asyncio.get_running_loop()
        for offset, job in self._slots[slot_id].polls:
            if offset <= 0:
                self._due(job)
                continue
            self._timers[job.id] = loop.call_later(offset, self._due_later, job)

    def _due_later(self, job: PollJob) -> None:
        self._timers.pop(job.id, None)
        self._due(job)

    def _due(self, job: PollJob) -> None:
        if self._scheduler is None:
            return
        if job.id in self._running:  # the previous poll is still going: skip this one
            self._on_overrun(job)
            return
        self._running[job.id] = asyncio.get_running_loop().create_task(
            self._fire(job), name=f"poll {job.id}"
        )

    async def _fire(self, job: PollJob) -> None:
        try:
            async with asyncio.timeout(job.deadline):
                await job.run()
        except TimeoutError:
            log.warning("poll_deadline_exceeded", job=job.id, deadline_seconds=job.deadline)
        except Exception:
            # A poll must never kill its job: log it (tracebacks carry no locals) and go on.
            log.exception("poll_crashed", job=job.id)
        finally:
            self._running.pop(job.id, None)

    def _slot_skipped(self, event: JobEvent) -> None:
        slot = self._slots.get(event.job_id)
        if slot is not None:
            for _, job in slot.polls:
                self._on_overrun(job)
