"""The compact sample window: same samples and same forecast as the plain list it replaced."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from tqe_monitor.tracking.conditions import ConditionBook
from tqe_monitor.tracking.forecast import forecast
from tqe_monitor.tracking.samples import SampleWindow
from tqe_monitor.tracking.wallet import WalletPolicy, WalletWatch

T0 = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)


def window_of(points: list[tuple[datetime, int]]) -> SampleWindow:
    window = SampleWindow()
    for at, words in points:
        window.append(at, words)
    return window


def test_samples_come_back_as_given_to_the_microsecond() -> None:
    points = [
        (T0 + timedelta(seconds=61 * i, microseconds=123_457 * i), 10**12 - i) for i in range(50)
    ]

    window = window_of(points)

    assert list(window) == points
    assert len(window) == 50
    assert window.newest == points[-1][0]


@pytest.mark.parametrize(
    ("horizon_minutes", "kept"),
    [(-1, 5), (0, 5), (1, 4), (2, 3), (4, 1), (5, 0)],
    ids=["before-all", "at-the-first", "just-after-first", "middle", "at-the-last", "after-all"],
)
def test_drop_before_keeps_samples_at_or_after_the_horizon(horizon_minutes: int, kept: int) -> None:
    points = [(T0 + timedelta(minutes=m), 100 - m) for m in range(5)]
    window = window_of(points)

    window.drop_before(T0 + timedelta(minutes=horizon_minutes))

    assert list(window) == points[5 - kept :]


def test_an_empty_window_has_no_newest_sample_and_no_forecast() -> None:
    window = window_of([(T0, 5)])
    window.clear()

    assert list(window) == []
    assert window.newest is None
    assert window.forecast(T0, min_samples=1) is None


def test_the_window_forecasts_what_the_list_forecast_does() -> None:
    points = [(T0 + timedelta(minutes=m), 500_000 - 37 * m - (m % 7) * 11) for m in range(360)]
    now = T0 + timedelta(minutes=361)

    expected = forecast(points, now)
    actual = window_of(points).forecast(now, min_samples=3)

    assert expected is not None
    assert actual is not None
    assert actual.burn_rate_per_hour == pytest.approx(expected.burn_rate_per_hour)
    assert actual.seconds_to_zero == pytest.approx(expected.seconds_to_zero)


def test_restoring_samples_ends_where_observing_them_one_by_one_ends() -> None:
    # A top-up in the middle (the balance rises) restarts the window in both cases.
    balances = [900_000 - 500 * m for m in range(200)] + [950_000 - 400 * m for m in range(200)]
    points = [(T0 + timedelta(minutes=m), words) for m, words in enumerate(balances)]
    observed = WalletWatch("svc", "a", WalletPolicy(), T0)
    restored = WalletWatch("svc", "a", WalletPolicy(), T0)
    book = ConditionBook()

    for at, words in points:
        observed.observe(book, words, at)
    restored.restore_samples(points)

    assert list(restored.samples) == list(observed.samples)
    assert restored.last_forecast == observed.last_forecast
    assert restored.last_balance == observed.last_balance
