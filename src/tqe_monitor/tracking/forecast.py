"""When will the words run out? A least-squares line through recent wallet samples.

The same estimate as Prometheus' `predict_linear`: fit balance = a + b*t over a window of
samples, read the burn rate from the slope and the time to zero from where the line crosses it.
A fit over a window smooths the steps of a balance that drops check by check, and one sample
more or less barely moves it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

SECONDS_PER_HOUR = 3600.0


@dataclass(frozen=True, slots=True)
class Forecast:
    """Burn rate in words per hour (negative when the balance grows) and, while draining,
    the seconds until the fitted line reaches zero (None when not draining)."""

    burn_rate_per_hour: float
    seconds_to_zero: float | None


def linear_fit(points: Sequence[tuple[float, float]]) -> tuple[float, float] | None:
    """Least-squares (slope, intercept) of y over x; None if x has no spread."""
    return _fit([x for x, _ in points], [y for _, y in points])


def _fit(xs: Sequence[float], ys: Sequence[float]) -> tuple[float, float] | None:
    n = len(xs)
    if n < 2:
        return None
    mean_x = sum(xs) / n
    mean_y = sum(ys) / n
    sxx = sum((x - mean_x) ** 2 for x in xs)
    if sxx == 0:
        return None
    sxy = sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys, strict=True))
    slope = sxy / sxx
    return slope, mean_y - slope * mean_x


def forecast(
    samples: Sequence[tuple[datetime, int]], now: datetime, *, min_samples: int = 3
) -> Forecast | None:
    """Fit the samples (oldest first); None with fewer than `min_samples` or no time spread."""
    return forecast_series(
        [at.timestamp() for at, _ in samples],
        [words for _, words in samples],
        now.timestamp(),
        min_samples=min_samples,
    )


def forecast_series(
    times: Sequence[float], words: Sequence[float], now: float, *, min_samples: int = 3
) -> Forecast | None:
    """`forecast` over epoch seconds and balances, oldest first (the daemon's hot path: the
    samples are kept as flat arrays, see `samples`)."""
    if len(times) < min_samples:
        return None
    origin = times[0]
    fit = _fit([at - origin for at in times], words)
    if fit is None:
        return None
    slope, _ = fit
    burn_per_hour = -slope * SECONDS_PER_HOUR
    if slope >= 0:
        return Forecast(burn_per_hour, None)
    # Time to zero from the balance last read, at the fitted rate. Extrapolating the fitted
    # line instead would say "empty now" for a wallet whose drain stopped at 3,000 words (the
    # line through the earlier drain has crossed zero); the last reading is the fact we trust.
    remaining = words[-1] + slope * max(0.0, now - times[-1])
    return Forecast(burn_per_hour, max(0.0, remaining / -slope))
