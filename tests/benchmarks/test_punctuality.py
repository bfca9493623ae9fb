"""The scale benchmark's judge of punctuality: due slots, late and missed polls, from scrapes."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from punctuality import JobKey, collect_polls, expected_offsets, judge, parse_metrics

T0 = 1_800_000_000.0
STATUS: JobKey = ("svc-0", "", "status")
WALLETS: list[JobKey] = [("svc-0", f"t{i}", "wallet") for i in range(4)]
INTERVALS = {STATUS: 30.0, **dict.fromkeys(WALLETS, 60.0)}


def on_grid(cutoff: float) -> dict[JobKey, list[float]]:
    """Every slot of every job, started exactly when due, up to `cutoff`."""
    offsets = expected_offsets(INTERVALS)
    polls: dict[JobKey, list[float]] = {}
    for key, interval in INTERVALS.items():
        due = T0 + offsets[key]
        while due <= cutoff:
            polls.setdefault(key, []).append(due + 0.001)
            due += interval
    return polls


def test_polls_on_their_grid_are_all_on_time() -> None:
    verdict = judge(on_grid(T0 + 125), INTERVALS, T0 + 125)

    assert (verdict.missed, verdict.late, verdict.extra) == (0, 0, 0)
    # Staggered like the scheduler: status at 0, 30, .., 120; wallets start at 0, 15, 30, 45 s
    # and come back every 60 s, so 3 + 2 + 2 + 2 slots are due by 125 s.
    assert verdict.on_time == verdict.due == 5 + 3 + 2 + 2 + 2
    assert verdict.lateness_max == pytest.approx(0.0, abs=1e-6)


@pytest.mark.parametrize(
    ("delay", "late"), [(1.9, 0), (2.5, 1), (14.0, 1)], ids=["under-2s", "over-2s", "very-late"]
)
def test_a_poll_started_after_its_slot_is_late_beyond_the_limit(delay: float, late: int) -> None:
    polls = on_grid(T0 + 125)
    polls[WALLETS[1]][1] += delay

    verdict = judge(polls, INTERVALS, T0 + 125)

    assert verdict.late == late
    assert verdict.missed == 0
    assert verdict.lateness_max == pytest.approx(delay, abs=0.01)


def test_a_slot_without_a_poll_is_missed() -> None:
    polls = on_grid(T0 + 125)
    del polls[STATUS][2]

    verdict = judge(polls, INTERVALS, T0 + 125)

    assert verdict.missed == 1
    assert verdict.on_time == verdict.due - 1


def test_a_job_never_seen_misses_every_slot() -> None:
    polls = on_grid(T0 + 125)
    del polls[WALLETS[3]]

    verdict = judge(polls, INTERVALS, T0 + 125)

    assert verdict.missed == 2  # its slots at 45 and 105 s


def test_a_constant_delay_of_every_poll_is_late_too() -> None:
    # T0 is anchored on the least-late poll of all jobs, so one job lagging throughout shows.
    polls = on_grid(T0 + 125)
    polls[WALLETS[2]] = [start + 5.0 for start in polls[WALLETS[2]]]

    verdict = judge(polls, INTERVALS, T0 + 125)

    assert verdict.late == 2  # both of its slots, at 30 and 90 s


def test_scrapes_are_parsed_and_merged_into_distinct_poll_starts() -> None:
    text = "\n".join(
        [
            "# HELP tqe_last_poll_timestamp_seconds Unix time of the last poll attempt.",
            'tqe_last_poll_timestamp_seconds{endpoint="wallet",service="svc-0",target="t1"} 1.5e9',
            'tqe_last_poll_timestamp_seconds{endpoint="status",service="svc-0",target=""} 1.6e9',
            'tqe_poll_duration_seconds_bucket{endpoint="wallet",le="2.5",service="svc-0"} 9.0',
            'tqe_poll_duration_seconds_count{endpoint="wallet",service="svc-0"} 10.0',
            'tqe_poll_overruns_total{endpoint="wallet",service="svc-0"} 2.0',
            'tqe_poll_errors_total{endpoint="wallet",reason="timeout",service="svc-0"} 1.0',
        ]
    )
    later = text.replace("1.5e9", "1.50000006e9")

    first, second = parse_metrics(text), parse_metrics(later)
    polls = collect_polls([first.last_poll, second.last_poll])

    assert first.totals == {
        "polls:wallet": 10.0,
        "slow:wallet": 1.0,
        "overruns:wallet": 2.0,
        "errors:wallet": 1.0,
    }
    assert polls[("svc-0", "t1", "wallet")] == [1.5e9, 1.50000006e9]
    assert polls[("svc-0", "", "status")] == [1.6e9]
