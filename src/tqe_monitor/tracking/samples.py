"""The wallet samples of one target's forecast window, stored compactly.

With the default 6 h window and a poll a minute, each target keeps 360 samples. As a deque of
`(datetime, int)` tuples that is ~35 kB a target: 350 MB at 10,000 targets, grown slowly over
the first six hours of the daemon's life. Two flat arrays (epoch seconds, words) hold the same
in 16 bytes a sample, and the forecast fits them without building a single object.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections.abc import Iterator
from datetime import UTC, datetime

from tqe_monitor.tracking.forecast import Forecast, forecast_series


class SampleWindow:
    """(time, words) samples in time order; iterating yields `(aware UTC datetime, int)`."""

    __slots__ = ("_times", "_words")

    def __init__(self) -> None:
        self._times = array("d")  # epoch seconds; microseconds survive the round trip
        self._words = array("q")

    def append(self, at: datetime, words: int) -> None:
        """Add the newest sample (the caller keeps time order)."""
        self._times.append(at.timestamp())
        self._words.append(words)

    def clear(self) -> None:
        del self._times[:]
        del self._words[:]

    def drop_before(self, horizon: datetime) -> None:
        """Forget the samples older than `horizon`."""
        keep_from = bisect_left(self._times, horizon.timestamp())
        del self._times[:keep_from]
        del self._words[:keep_from]

    @property
    def newest(self) -> datetime | None:
        """The time of the newest sample, if any."""
        return datetime.fromtimestamp(self._times[-1], UTC) if self._times else None

    def forecast(self, now: datetime, *, min_samples: int) -> Forecast | None:
        """The forecast of these samples (see `forecast.forecast`)."""
        return forecast_series(self._times, self._words, now.timestamp(), min_samples=min_samples)

    def __len__(self) -> int:
        return len(self._times)

    def __iter__(self) -> Iterator[tuple[datetime, int]]:
        for at, words in zip(self._times, self._words, strict=True):
            yield datetime.fromtimestamp(at, UTC), words
