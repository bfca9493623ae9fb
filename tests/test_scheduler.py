"""The poll scheduler: a fixed grid per job, overruns skipped and counted, a draining stop.

The loop tests use short real intervals but assert no durations: they wait (with a generous
timeout) for something to happen, then check what happened.
"""

from __future__ import annotations

import asyncio
from collections import Counter

import pytest

from tqe_monitor.scheduler import SLOT_SECONDS, PollJob, PollScheduler, slots, stagger_offsets

INTERVAL = 0.02
PATIENCE = 10.0  # how long a test waits for something that should happen within milliseconds


def test_slots_group_each_interval_by_second_and_keep_every_offset() -> None:
    async def run() -> None:
        return None

    jobs = [PollJob(f"wallet:t{i:03d}", "svc", "wallet", 60.0, 60.0, run) for i in range(300)]
    jobs += [PollJob(f"status:s{i}", f"s{i}", "status", 30.0, 30.0, run) for i in range(3)]
    grouped = slots(jobs)
    offsets = stagger_offsets(jobs)
    assert len([s for s in grouped if s.interval == 60.0]) == 60  # one APScheduler job a second
    assert len([s for s in grouped if s.interval == 30.0]) == 3
    seen = {}
    for slot in grouped:
        for within, job in slot.polls:
            assert 0 <= within < SLOT_SECONDS
            seen[job.id] = slot.start + within
    assert seen.keys() == offsets.keys()
    for job_id, offset in offsets.items():
        assert seen[job_id] == pytest.approx(offset)


class Recorder:
    """Counts runs and overruns per job; runs can be made to wait."""

    def __init__(self) -> None:
        self.runs: Counter[str] = Counter()
        self.overruns: Counter[str] = Counter()
        self.running = 0
        self.most_at_once = 0
        self.changed = asyncio.Event()

    def job(self, name: str, action: object = None, deadline: float = PATIENCE) -> PollJob:
        async def run() -> None:
            self.runs[name] += 1
            self.running += 1
            self.most_at_once = max(self.most_at_once, self.running)
            self.changed.set()
            try:
                if isinstance(action, asyncio.Event):
                    await action.wait()
                elif isinstance(action, BaseException):
                    raise action
            finally:
                self.running -= 1

        return PollJob(f"wallet:{name}", "svc", "wallet", INTERVAL, deadline, run)

    def overrun(self, job: PollJob) -> None:
        self.overruns[job.id] += 1
        self.changed.set()

    async def until(self, condition: object) -> None:
        async with asyncio.timeout(PATIENCE):
            while not condition():  # type: ignore[operator]
                self.changed.clear()
                await self.changed.wait()


async def test_every_job_runs_again_and_again() -> None:
    record = Recorder()
    scheduler = PollScheduler([record.job(n) for n in "abc"], on_overrun=record.overrun)
    await scheduler.start()
    try:
        await record.until(lambda: all(record.runs[n] >= 3 for n in "abc"))
        assert scheduler.running
    finally:
        await scheduler.stop()
    assert not scheduler.running


async def test_a_poll_still_running_when_due_again_is_skipped_and_counted() -> None:
    record, release = Recorder(), asyncio.Event()
    scheduler = PollScheduler([record.job("slow", release)], on_overrun=record.overrun)
    await scheduler.start()
    try:
        await record.until(lambda: record.overruns["wallet:slow"] >= 2)
        assert record.runs["slow"] == 1
        assert scheduler.inflight == 1
    finally:
        release.set()
        await scheduler.stop()
    assert record.most_at_once == 1


@pytest.mark.parametrize(
    "failure", [RuntimeError("boom"), ValueError("bad")], ids=["runtime-error", "value-error"]
)
async def test_a_crashing_poll_does_not_stop_its_job(failure: Exception) -> None:
    record = Recorder()
    scheduler = PollScheduler([record.job("crash", failure)], on_overrun=record.overrun)
    await scheduler.start()
    try:
        await record.until(lambda: record.runs["crash"] >= 3)
    finally:
        await scheduler.stop()


async def test_a_poll_past_its_deadline_is_cancelled_and_the_job_goes_on() -> None:
    record, never = Recorder(), asyncio.Event()
    job = record.job("hung", never, deadline=INTERVAL / 2)
    scheduler = PollScheduler([job], on_overrun=record.overrun)
    await scheduler.start()
    try:
        await record.until(lambda: record.runs["hung"] >= 3)
    finally:
        await scheduler.stop()


async def test_stop_lets_a_poll_in_flight_finish() -> None:
    record, release = Recorder(), asyncio.Event()
    scheduler = PollScheduler([record.job("busy", release)], on_overrun=record.overrun)
    await scheduler.start()
    await record.until(lambda: record.running == 1)

    stopping = asyncio.create_task(scheduler.stop(grace=PATIENCE))
    await asyncio.sleep(0)
    release.set()
    await stopping

    assert record.running == 0
    assert scheduler.inflight == 0
    assert record.runs["busy"] == 1


async def test_stop_cancels_what_does_not_finish_within_the_grace() -> None:
    record, never = Recorder(), asyncio.Event()
    scheduler = PollScheduler([record.job("stuck", never)], on_overrun=record.overrun)
    await scheduler.start()
    await record.until(lambda: record.running == 1)

    await scheduler.stop(grace=0)

    assert record.running == 0
    assert scheduler.inflight == 0


async def test_nothing_runs_after_stop() -> None:
    record = Recorder()
    scheduler = PollScheduler([record.job("a")], on_overrun=record.overrun)
    await scheduler.start()
    await record.until(lambda: record.runs["a"] >= 1)
    await scheduler.stop()
    runs = record.runs["a"]

    await asyncio.sleep(INTERVAL * 5)

    assert record.runs["a"] == runs
