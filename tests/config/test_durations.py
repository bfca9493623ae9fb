"""Durations: every spelling a user may write, and the ones that must be refused."""

from __future__ import annotations

import pytest

from tqe_monitor.config.durations import format_duration, parse_duration


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("30s", 30.0),
        ("5m", 300.0),
        ("4h", 14400.0),
        ("1d", 86400.0),
        ("1w", 604800.0),
        ("1h30m", 5400.0),
        ("250ms", 0.25),
        ("1.5s", 1.5),
        (" 2M ", 120.0),
        ("45", 45.0),
        ("0.5", 0.5),
        (10, 10.0),
        (2.5, 2.5),
        (0, 0.0),
    ],
    ids=str,
)
def test_parse_accepts(text: object, seconds: float) -> None:
    assert parse_duration(text) == pytest.approx(seconds)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("-5s", "must not be negative"),
        (-1, "must not be negative"),
        ("10 parsecs", "expected a duration"),
        ("s", "expected a duration"),
        ("", "expected a duration"),
        (True, "expected a duration"),
        (None, "expected a duration"),
        ("nan", "expected a duration"),
        ([30], "expected a duration"),
    ],
    ids=repr,
)
def test_parse_refuses(value: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_duration(value)


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(30, "30s"), (300, "5m"), (5400, "90m"), (86400, "1d"), (0, "0s"), (0.25, "0.25s")],
)
def test_format_round_trips(seconds: float, text: str) -> None:
    assert format_duration(seconds) == text
    assert parse_duration(text) == pytest.approx(seconds)
