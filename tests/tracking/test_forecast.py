"""The least-squares fit and the depletion forecast built on it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from tqe_monitor.tracking.forecast import forecast, linear_fit

T0 = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)

FITS = {
    "two-points": ([(0.0, 1.0), (1.0, 3.0)], (2.0, 1.0)),
    "exact-descending-line": ([(0.0, 100.0), (10.0, 80.0), (20.0, 60.0)], (-2.0, 100.0)),
    "exact-line-not-at-origin": ([(5.0, 10.0), (6.0, 12.0), (7.0, 14.0)], (2.0, 0.0)),
    "flat": ([(0.0, 7.0), (1.0, 7.0), (2.0, 7.0)], (0.0, 7.0)),
    # mean (1.5, 8.5), Sxx = 5, Sxy = -7: slope -1.4, intercept 8.5 + 1.4 * 1.5
    "noise-around-a-line": (
        [(0.0, 11.0), (1.0, 8.0), (2.0, 9.0), (3.0, 6.0)],
        (-1.4, 10.6),
    ),
    "one-point": ([(0.0, 1.0)], None),
    "no-points": ([], None),
    "no-spread-in-x": ([(3.0, 1.0), (3.0, 2.0), (3.0, 9.0)], None),
}


@pytest.mark.parametrize(("points", "expected"), FITS.values(), ids=FITS.keys())
def test_linear_fit(
    points: list[tuple[float, float]], expected: tuple[float, float] | None
) -> None:
    fit = linear_fit(points)
    if expected is None:
        assert fit is None
    else:
        assert fit == pytest.approx(expected)


def samples(*pairs: tuple[int, int]) -> list[tuple[datetime, int]]:
    """(minutes after T0, words) pairs as wallet samples."""
    return [(T0 + timedelta(minutes=minutes), words) for minutes, words in pairs]


# (samples, minutes after T0 for now, expected burn rate per hour, expected seconds to zero)
FORECASTS = {
    "draining-1000-an-hour": (
        samples((0, 10_000), (60, 9_000), (120, 8_000)),
        120,
        1000.0,
        8 * 3600.0,  # 8000 words left at 1000/hour
    ),
    "now-after-the-last-sample-reads-the-line-at-now": (
        samples((0, 10_000), (60, 9_000), (120, 8_000)),
        180,
        1000.0,
        7 * 3600.0,
    ),
    "noisy-drain-fits-the-rate-and-counts-from-the-last-balance": (
        samples((0, 1_100), (60, 800), (120, 900), (180, 600)),
        180,
        140.0,  # the noise-around-a-line fit, in hours and hundreds of words
        600.0 / 140.0 * 3600.0,  # the last balance read, over the fitted rate
    ),
    "a-drain-that-stopped-is-not-empty-now": (
        samples((0, 9_000), (60, 6_000), (120, 3_000), (180, 3_000)),
        180,
        2_100.0,
        3_000.0 / 2_100.0 * 3600.0,  # the fitted line would already be below zero
    ),
    "line-already-below-zero-is-zero-seconds": (
        samples((0, 300), (60, 200), (120, 100)),
        240,
        100.0,
        0.0,
    ),
    "flat-has-no-time-to-zero": (
        samples((0, 5_000), (60, 5_000), (120, 5_000)),
        120,
        0.0,
        None,
    ),
    "rising-is-a-negative-burn-rate": (
        samples((0, 5_000), (60, 6_000), (120, 7_000)),
        120,
        -1000.0,
        None,
    ),
}


@pytest.mark.parametrize(
    ("points", "now_minutes", "burn_rate", "seconds"), FORECASTS.values(), ids=FORECASTS.keys()
)
def test_forecast(
    points: list[tuple[datetime, int]],
    now_minutes: int,
    burn_rate: float,
    seconds: float | None,
) -> None:
    result = forecast(points, T0 + timedelta(minutes=now_minutes))
    assert result is not None
    assert result.burn_rate_per_hour == pytest.approx(burn_rate)
    if seconds is None:
        assert result.seconds_to_zero is None
    else:
        assert result.seconds_to_zero == pytest.approx(seconds)


def test_seconds_to_zero_is_balance_over_rate_on_an_exact_drain() -> None:
    points = [(T0 + timedelta(minutes=5 * i), 50_000 - 250 * i) for i in range(12)]
    now, balance = points[-1]
    result = forecast(points, now)
    assert result is not None
    assert result.burn_rate_per_hour == pytest.approx(3000.0)  # 250 per 5 minutes
    assert result.seconds_to_zero == pytest.approx(balance / 3000.0 * 3600.0)


MIN_SAMPLES = {
    "fewer-than-the-default-3": (samples((0, 100), (60, 90)), 3, False),
    "exactly-3": (samples((0, 100), (60, 90), (120, 80)), 3, True),
    "min-samples-2-accepts-two": (samples((0, 100), (60, 90)), 2, True),
    "min-samples-5-refuses-four": (samples((0, 9), (1, 8), (2, 7), (3, 6)), 5, False),
    "no-time-spread": (samples((0, 100), (0, 90), (0, 80)), 3, False),
    "empty": ([], 1, False),
}


@pytest.mark.parametrize(
    ("points", "min_samples", "forecasts"), MIN_SAMPLES.values(), ids=MIN_SAMPLES.keys()
)
def test_min_samples(points: list[tuple[datetime, int]], min_samples: int, forecasts: bool) -> None:
    result = forecast(points, T0 + timedelta(hours=2), min_samples=min_samples)
    assert (result is not None) is forecasts
