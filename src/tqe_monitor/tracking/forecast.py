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
    n = len(points)
    if n < 2:
        return None
    mean_x = sum(x for x, _ in points) / n
    mean_y = sum(y for _, y in points) / n
    sxx = sum((x - mean_x) ** 2 for x, _ in points)
    if sxx == 0:
        return None
    sxy = sum((x - mean_x) * (y - mean_y) for x, y in points)
    slope = sxy / sxx
    return slope, mean_y - slope * mean_x


def forecast(
    samples: Sequence[tuple[datetime, int]], now: datetime, *, min_samples: int = 3
) -> Forecast | None:
    """Fit the samples (oldest first); None with fewer than `min_samples` or no time spread."""
    if len(samples) < min_samples:
        return None
    origin = samples[0][0]
    fit = linear_fit([((at - origin).total_seconds(), float(words)) for at, words in samples])
    if fit is None:
        return None
    slope, intercept = fit
    burn_per_hour = -slope * SECONDS_PER_HOUR
    if slope >= 0:
        return Forecast(burn_per_hour, None)
    predicted_now = intercept + slope * (now - origin).total_seconds()
    return Forecast(burn_per_hour, max(0.0, predicted_now / -slope))
