"""Wallet conditions walked through time: tiers with hysteresis, exhaustion, forecast, staleness."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from tqe_monitor.tracking.conditions import ConditionBook, Severity, Transition
from tqe_monitor.tracking.tracker import Tracker
from tqe_monitor.tracking.wallet import Threshold, TopUp, WalletPolicy, WalletWatch

T0 = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)
SERVICE, TARGET = "tqe", "team-a"
HOUR = 60  # steps are in minutes after T0

TIERS = (
    Threshold(100_000, Severity.WARNING, "100000"),
    Threshold(10_000, Severity.CRITICAL, "10000"),
)
TIERS_ONLY = WalletPolicy(thresholds=TIERS, forecast_within=timedelta(0))  # forecast never fires
FORECAST_ONLY = WalletPolicy()  # defaults: 6 h window, within 3 days, stale after 3 minutes

BELOW_100K = "raised wallet_below_100000 warning"
BELOW_10K = "raised wallet_below_10000 critical"
ABOVE_100K = "resolved wallet_below_100000"
ABOVE_10K = "resolved wallet_below_10000"
EXHAUSTED = "raised wallet_exhausted critical"
REFILLED = "resolved wallet_exhausted"
DEPLETING = "raised wallet_depletion_forecast warning"
NOT_DEPLETING = "resolved wallet_depletion_forecast"
STALE = "raised wallet_stale warning"
FRESH = "resolved wallet_stale"

# A step: (minutes after T0, the balance read or None for a failed poll, the transitions expected)
Step = tuple[int, int | None, set[str]]


def describe(transition: Transition) -> str:
    name = transition.key.name
    if transition.raised:
        return f"raised {name} {transition.severity.value}"
    return f"resolved {name}"


def at(minutes: int) -> datetime:
    return T0 + timedelta(minutes=minutes)


def make_tracker(policy: WalletPolicy) -> Tracker:
    return Tracker(ConditionBook(), {(SERVICE, TARGET): policy}, started=T0)


def run_steps(policy: WalletPolicy, steps: list[Step]) -> Tracker:
    tracker = make_tracker(policy)
    for index, (minutes, balance, expected) in enumerate(steps):
        analysis = tracker.wallet(SERVICE, TARGET, balance, at(minutes))
        got = {describe(t) for t in analysis.transitions}
        assert got == expected, f"step {index}: {balance} at {minutes} min"
        for transition in analysis.transitions:
            assert transition.at == at(minutes)
            assert (transition.key.service, transition.key.target) == (SERVICE, TARGET)
    return tracker


THRESHOLD_CASES: dict[str, list[Step]] = {
    "crossing-tiers-downward": [
        (0, 150_000, set()),
        (1, 100_000, set()),  # at the threshold is not below it
        (2, 99_999, {BELOW_100K}),
        (3, 50_000, set()),
        (4, 10_000, set()),
        (5, 9_999, {BELOW_10K}),
        (6, 1, set()),
    ],
    "both-tiers-in-one-drop-both-resolved-by-one-top-up": [
        (0, 150_000, set()),
        (1, 5_000, {BELOW_100K, BELOW_10K}),
        (2, 200_000, {ABOVE_100K, ABOVE_10K}),
    ],
    "first-reading-already-below": [
        (0, 50_000, {BELOW_100K}),
        (1, 49_000, set()),
    ],
    "flapping-around-a-threshold-raises-once": [
        (0, 120_000, set()),
        (1, 99_990, {BELOW_100K}),
        (2, 100_010, set()),
        (3, 99_995, set()),
        (4, 104_000, set()),
        (5, 105_001, {ABOVE_100K}),
        (6, 104_000, set()),  # re-armed: above the threshold is not a condition
        (7, 99_999, {BELOW_100K}),
    ],
    "rearmed-exactly-at-threshold-plus-5-percent": [
        (0, 99_000, {BELOW_100K}),
        (1, 104_999, set()),
        (2, 105_000, {ABOVE_100K}),
    ],
    "each-tier-has-its-own-margin": [
        (0, 9_000, {BELOW_100K, BELOW_10K}),
        (1, 10_499, set()),
        (2, 10_500, {ABOVE_10K}),
        (3, 9_999, {BELOW_10K}),
    ],
    "exhausted-at-zero-resolved-after-top-up": [
        (0, 20_000, {BELOW_100K}),
        (1, 5_000, {BELOW_10K}),
        (2, 0, {EXHAUSTED}),
        (3, 0, set()),
        (4, 250_000, {REFILLED, ABOVE_10K, ABOVE_100K}),
    ],
    "a-small-top-up-ends-exhaustion-but-not-the-tiers": [
        (0, 0, {EXHAUSTED, BELOW_100K, BELOW_10K}),
        (1, 500, {REFILLED}),
    ],
    "negative-balance-is-exhausted": [
        (0, 200_000, set()),
        (1, -5, {EXHAUSTED, BELOW_100K, BELOW_10K}),
    ],
    "a-failed-poll-does-not-touch-the-tiers": [
        (0, 50_000, {BELOW_100K}),
        (1, None, set()),
        (2, 50_000, set()),
    ],
}


@pytest.mark.parametrize("steps", THRESHOLD_CASES.values(), ids=THRESHOLD_CASES.keys())
def test_thresholds(steps: list[Step]) -> None:
    run_steps(TIERS_ONLY, steps)


def test_odd_threshold_is_rearmed_only_above_threshold_plus_margin() -> None:
    """10_001 * 1.05 = 10_501.05: 10_501 is still inside the margin."""
    policy = WalletPolicy(
        thresholds=(Threshold(10_001, Severity.WARNING, "10001"),), forecast_within=timedelta(0)
    )
    run_steps(
        policy,
        [
            (0, 10_000, {"raised wallet_below_10001 warning"}),
            (1, 10_501, set()),
            (2, 10_502, {"resolved wallet_below_10001"}),
        ],
    )


def test_small_threshold_keeps_a_margin() -> None:
    """7 * 1.05 = 7.35: a balance back at 7 is not above the threshold plus the margin."""
    policy = WalletPolicy(
        thresholds=(Threshold(7, Severity.WARNING, "7"),), forecast_within=timedelta(0)
    )
    run_steps(
        policy,
        [
            (0, 6, {"raised wallet_below_7 warning"}),
            (1, 7, set()),
            (2, 6, set()),
            (3, 8, {"resolved wallet_below_7"}),
        ],
    )


FORECAST_CASES: dict[str, list[Step]] = {
    "raised-when-time-to-zero-is-under-3-days": [
        (0, 100_000, set()),
        (1 * HOUR, 98_000, set()),  # two samples: not enough to forecast
        (2 * HOUR, 96_000, {DEPLETING}),  # 2000/h: 48 h left
        (3 * HOUR, 94_000, set()),
    ],
    "not-raised-over-3-days-then-raised-when-the-drain-speeds-up": [
        (0, 75_000, set()),
        (1 * HOUR, 74_000, set()),
        (2 * HOUR, 73_000, set()),  # 1000/h: 73 h left
        (3 * HOUR, 70_000, {DEPLETING}),  # fit: 1600/h, 70_600 on the line: 44 h left
    ],
    "top-up-during-a-forecast-restarts-it": [
        (0, 100_000, set()),
        (1 * HOUR, 98_000, set()),
        (2 * HOUR, 96_000, {DEPLETING}),
        (3 * HOUR, 1_000_000, {NOT_DEPLETING}),
        (4 * HOUR, 998_000, set()),
        (5 * HOUR, 996_000, set()),  # same 2000/h, but 498 h left
        (6 * HOUR, 994_000, set()),
    ],
    "old-samples-leave-the-6-hour-window": [
        (0, 100_000, set()),
        (2 * HOUR, 90_000, set()),
        (4 * HOUR, 80_000, {DEPLETING}),  # 5000/h
        (6 * HOUR, 80_000, set()),  # the drop still weighs: 3500/h, 22 h
        (8 * HOUR, 80_000, set()),  # window from 2 h: 1500/h, 52 h
        (10 * HOUR, 80_000, {NOT_DEPLETING}),  # window from 4 h: flat
    ],
    "rising-balance-never-forecasts": [
        (0, 10_000, set()),
        (1 * HOUR, 10_000, set()),
        (2 * HOUR, 10_000, set()),
        (3 * HOUR, 10_000, set()),
    ],
}


@pytest.mark.parametrize("steps", FORECAST_CASES.values(), ids=FORECAST_CASES.keys())
def test_forecast_condition(steps: list[Step]) -> None:
    run_steps(FORECAST_ONLY, steps)


def test_top_up_clears_the_samples_and_the_forecast() -> None:
    tracker = make_tracker(FORECAST_ONLY)
    for hour, balance in enumerate([100_000, 98_000, 96_000]):
        tracker.wallet(SERVICE, TARGET, balance, at(hour * HOUR))
    assert tracker.watch(SERVICE, TARGET).last_forecast is not None
    analysis = tracker.wallet(SERVICE, TARGET, 1_000_000, at(3 * HOUR))
    assert analysis.forecast is None
    assert list(tracker.watch(SERVICE, TARGET).samples) == [(at(3 * HOUR), 1_000_000)]
    for hour, balance in [(4, 998_000), (5, 996_000)]:
        analysis = tracker.wallet(SERVICE, TARGET, balance, at(hour * HOUR))
    assert analysis.forecast is not None
    assert analysis.forecast.burn_rate_per_hour == pytest.approx(2000.0)
    assert analysis.forecast.seconds_to_zero == pytest.approx(498 * 3600.0)


STALE_CASES: dict[str, list[Step]] = {
    "stale-after-3-minutes-of-failures-resolved-on-success": [
        (0, 200_000, set()),
        (1, None, set()),
        (2, None, set()),
        (3, None, {STALE}),
        (4, None, set()),
        (5, 200_000, {FRESH}),
        (6, None, set()),
    ],
    "stale-when-no-poll-ever-succeeded": [
        (1, None, set()),
        (2, None, set()),
        (3, None, {STALE}),
        (4, 200_000, {FRESH}),
    ],
    "clock-jumps-forward-on-a-failure-stale-raised-once": [
        (0, 200_000, set()),
        (1, None, set()),
        (90, None, {STALE}),
        (91, None, set()),
        (92, None, set()),
        (93, 200_000, {FRESH}),
    ],
    "clock-jumps-forward-on-a-success-is-not-stale": [
        (0, 200_000, set()),
        (600, 200_000, set()),
        (601, None, set()),
    ],
    "clock-jumps-backwards-a-failure-does-not-resolve-stale": [
        (0, 200_000, set()),
        (1, None, set()),
        (3, None, {STALE}),
        (-60, None, set()),
        (-59, None, set()),
        (-58, 200_000, {FRESH}),
    ],
    "clock-jumps-backwards-then-failures-count-from-the-jump": [
        (0, 200_000, set()),
        (-60, None, set()),
        (-59, None, set()),
        (-58, None, set()),
        (-57, None, {STALE}),
    ],
}


@pytest.mark.parametrize("steps", STALE_CASES.values(), ids=STALE_CASES.keys())
def test_stale(steps: list[Step]) -> None:
    run_steps(FORECAST_ONLY, steps)


def test_clock_jumping_backwards_resets_the_samples() -> None:
    tracker = make_tracker(FORECAST_ONLY)
    for hour, balance in enumerate([100_000, 99_000, 98_000]):
        tracker.wallet(SERVICE, TARGET, balance, at(hour * HOUR))
    analysis = tracker.wallet(SERVICE, TARGET, 97_900, at(-10 * HOUR))
    assert analysis.transitions == []
    assert analysis.forecast is None  # not a fit across the jump
    assert list(tracker.watch(SERVICE, TARGET).samples) == [(at(-10 * HOUR), 97_900)]
    for hour, balance in [(-9, 96_900), (-8, 95_900)]:
        analysis = tracker.wallet(SERVICE, TARGET, balance, at(hour * HOUR))
        assert analysis.transitions == []
    assert analysis.forecast is not None
    assert analysis.forecast.burn_rate_per_hour == pytest.approx(1000.0)


def test_clock_jumping_forward_past_the_window_forgets_the_samples() -> None:
    tracker = make_tracker(FORECAST_ONLY)
    for hour, balance in enumerate([100_000, 98_000, 96_000]):
        tracker.wallet(SERVICE, TARGET, balance, at(hour * HOUR))
    analysis = tracker.wallet(SERVICE, TARGET, 95_000, at(30 * HOUR))
    assert {describe(t) for t in analysis.transitions} == {NOT_DEPLETING}
    assert analysis.forecast is None
    assert list(tracker.watch(SERVICE, TARGET).samples) == [(at(30 * HOUR), 95_000)]


TOP_UPS: dict[str, tuple[list[int | None], tuple[int, int] | None]] = {
    "first-reading-is-not-a-top-up": ([200_000], None),
    "a-drop-is-not-a-top-up": ([200_000, 150_000], None),
    "unchanged-is-not-a-top-up": ([5_000, 5_000], None),
    "a-rise-is-a-top-up": ([5_000, 250_000], (5_000, 250_000)),
    "a-rise-across-a-failed-poll": ([5_000, None, 250_000], (5_000, 250_000)),
    "from-zero": ([0, 1], (0, 1)),
    "against-the-last-reading-not-the-first": ([9_000, 3_000, 4_000], (3_000, 4_000)),
}


@pytest.mark.parametrize(("balances", "expected"), TOP_UPS.values(), ids=TOP_UPS.keys())
def test_top_up_event(balances: list[int | None], expected: tuple[int, int] | None) -> None:
    tracker = make_tracker(TIERS_ONLY)
    top_ups = [tracker.wallet(SERVICE, TARGET, b, at(i)).top_up for i, b in enumerate(balances)]
    assert all(t is None for t in top_ups[:-1])
    last = len(balances) - 1
    if expected is None:
        assert top_ups[-1] is None
    else:
        previous, current = expected
        assert top_ups[-1] == TopUp(SERVICE, TARGET, previous, current, at(last))


def test_a_top_up_is_an_event_not_a_condition() -> None:
    tracker = make_tracker(TIERS_ONLY)
    tracker.wallet(SERVICE, TARGET, 200_000, at(0))
    analysis = tracker.wallet(SERVICE, TARGET, 300_000, at(1))
    assert analysis.top_up is not None
    assert analysis.transitions == []
    assert tracker.book.active() == []


def test_restored_samples_feed_the_forecast() -> None:
    watch = WalletWatch(SERVICE, TARGET, FORECAST_ONLY, started=at(3 * HOUR))
    watch.restore_samples([(at(0), 100_000), (at(1 * HOUR), 98_000)])
    book = ConditionBook()
    analysis = watch.observe(book, 96_000, at(2 * HOUR))
    assert {describe(t) for t in analysis.transitions} == {DEPLETING}
