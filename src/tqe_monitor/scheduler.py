"""Runs every poll on its own interval with APScheduler, without pile-ups or lost shutdowns.

APScheduler facts this module is built around (3.11):
- the AsyncIOScheduler must be started inside the running loop;
- an IntervalTrigger without a start date first fires one interval late, so every job gets an
  explicit start date: now + its stagger offset, which also spreads thousands of jobs evenly
  over their interval instead of firing them in the same second (`jitter` would only delay);
- with `max_instances=1` an overrun is skipped, not queued: we count those skips;
- `shutdown()` cancels running coroutine jobs, so in-flight polls are drained first.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from itertools import groupby

from apscheduler.events import EVENT_JOB_MAX_INSTANCES, EVENT_JOB_MISSED, JobEvent
from apscheduler.schedulers.asyncio import AsyncIOScheduler
from apscheduler.triggers.interval import IntervalTrigger

from tqe_monitor.logging_setup import get_logger

log = get_logger(__name__)


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


class PollScheduler:
    """Owns the APScheduler instance and the polls it runs."""

    def __init__(
        self,
        jobs: Sequence[PollJob],
        *,
        on_overrun: Callable[[PollJob], None],
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self._jobs = {job.id: job for job in jobs}
        self._on_overrun = on_overrun
        self._clock = clock
        self._inflight: set[asyncio.Task[object]] = set()
        self._scheduler: AsyncIOScheduler | None = None

    @property
    def running(self) -> bool:
        """True while the scheduler is started and not shut down (for /healthz)."""
        return self._scheduler is not None and bool(self._scheduler.running)

    @property
    def inflight(self) -> int:
        """How many polls are running now."""
        return len(self._inflight)

    async def start(self) -> None:
        """Schedule every job, first runs staggered from now. Call inside the running loop."""
        scheduler = AsyncIOScheduler(event_loop=asyncio.get_running_loop(), timezone=UTC)
        scheduler.add_listener(self._skipped, EVENT_JOB_MAX_INSTANCES | EVENT_JOB_MISSED)
        now = self._clock()
        for job_id, offset in stagger_offsets(self._jobs.values()).items():
            job = self._jobs[job_id]
            first_run = now + timedelta(seconds=offset)
            scheduler.add_job(
                self._fire,
                IntervalTrigger(seconds=job.interval, start_date=first_run, timezone=UTC),
                args=[job.id],
                id=job.id,
                # Explicit: by the time the scheduler starts, a start date of "now" is already
                # in the past and the trigger alone would first fire one interval late.
                next_run_time=first_run,
                max_instances=1,
                coalesce=True,
                misfire_grace_time=max(1, int(job.interval)),
            )
        scheduler.start()
        self._scheduler = scheduler

    async def stop(self, grace: float = 5.0) -> None:
        """Stop firing, let in-flight polls finish for up to `grace` seconds, then cancel."""
        if self._scheduler is None:
            return
        self._scheduler.pause()
        if self._inflight:
            log.info("draining", inflight=len(self._inflight), grace_seconds=grace)
            _, pending = await asyncio.wait(set(self._inflight), timeout=grace)
            for task in pending:
                task.cancel()
            if pending:
                await asyncio.wait(pending, timeout=1.0)
                log.warning("drain_timeout", cancelled=len(pending))
        self._scheduler.shutdown(wait=False)
        self._scheduler = None

    async def _fire(self, job_id: str) -> None:
        job = self._jobs[job_id]
        task = asyncio.current_task()
        if task is not None:
            self._inflight.add(task)
        try:
            async with asyncio.timeout(job.deadline):
                await job.run()
        except TimeoutError:
            log.warning("poll_deadline_exceeded", job=job.id, deadline_seconds=job.deadline)
        except Exception:
            # A poll must never kill its job: log it (tracebacks carry no locals) and go on.
            log.exception("poll_crashed", job=job.id)
        finally:
            if task is not None:
                self._inflight.discard(task)

    def _skipped(self, event: JobEvent) -> None:
        job = self._jobs.get(event.job_id)
        if job is not None:
            self._on_overrun(job)
