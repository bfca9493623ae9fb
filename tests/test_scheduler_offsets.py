"""Start offsets spread each interval's jobs evenly, deterministically."""

from __future__ import annotations

from tqe_monitor.scheduler import PollJob, stagger_offsets


async def _noop() -> None:
    return None


def job(job_id: str, interval: float) -> PollJob:
    return PollJob(job_id, "svc", "wallet", interval, interval, _noop)


def test_jobs_of_one_interval_are_spread_evenly_across_it() -> None:
    jobs = [job(f"wallet:t{i:02d}", 60) for i in range(12)]
    offsets = stagger_offsets(jobs)
    assert sorted(offsets.values()) == [5.0 * i for i in range(12)]


def test_each_interval_is_spread_on_its_own() -> None:
    jobs = [job("status:a", 30), job("status:b", 30), job("wallet:x", 60)]
    assert stagger_offsets(jobs) == {"status:a": 0.0, "status:b": 15.0, "wallet:x": 0.0}


def test_offsets_do_not_depend_on_the_order_jobs_are_given_in() -> None:
    jobs = [job(f"wallet:t{i}", 10) for i in range(7)]
    assert stagger_offsets(jobs) == stagger_offsets(list(reversed(jobs)))


def test_ten_thousand_targets_never_share_a_second_more_than_the_rate_needs() -> None:
    jobs = [job(f"wallet:t{i:05d}", 60) for i in range(10_000)]
    per_second: dict[int, int] = {}
    for offset in stagger_offsets(jobs).values():
        per_second[int(offset)] = per_second.get(int(offset), 0) + 1
    assert max(per_second.values()) <= 10_000 // 60 + 1
