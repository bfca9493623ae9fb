"""Durations as people write them in config: `30s`, `5m`, `4h`, `1d`, `1h30m`, or plain seconds.

Everything inside tqe-monitor works in float seconds; this module is the one place that reads the
human forms, so every duration setting accepts the same spellings and reports errors the same way.
"""

from __future__ import annotations

import math
import re
from typing import Annotated, Final

from pydantic import AfterValidator, BeforeValidator

_UNIT_SECONDS: Final[dict[str, float]] = {
    "ms": 0.001,
    "s": 1.0,
    "m": 60.0,
    "h": 3600.0,
    "d": 86400.0,
    "w": 604800.0,
}
_PART = re.compile(r"(\d+(?:\.\d+)?)(ms|s|m|h|d|w)")
_WHOLE = re.compile(r"(?:\d+(?:\.\d+)?(?:ms|s|m|h|d|w))+")
_HINT = "expected a duration like 30s, 5m, 4h, 1d or a number of seconds"


def parse_duration(value: object) -> float:
    """Return `value` in seconds. Raises ValueError with a message that never echoes the input."""
    if isinstance(value, bool):
        raise ValueError(_HINT)
    if isinstance(value, int | float):
        seconds = float(value)
    elif isinstance(value, str):
        text = value.strip().lower().replace(" ", "")
        if text.startswith("-"):
            raise ValueError("must not be negative")
        try:
            seconds = float(text)
        except ValueError:
            if not _WHOLE.fullmatch(text):
                raise ValueError(_HINT) from None
            seconds = sum(float(n) * _UNIT_SECONDS[u] for n, u in _PART.findall(text))
    else:
        raise ValueError(_HINT)
    if not math.isfinite(seconds):
        raise ValueError(_HINT)
    if seconds < 0:
        raise ValueError("must not be negative")
    return seconds


def format_duration(seconds: float) -> str:
    """The shortest exact human form of `seconds` (used when printing the effective config)."""
    if seconds == 0:
        return "0s"
    for unit in ("w", "d", "h", "m", "s"):
        size = _UNIT_SECONDS[unit]
        if seconds >= size and seconds % size == 0:
            return f"{int(seconds // size)}{unit}"
    return f"{seconds:g}s"


def _at_least(minimum: float, what: str) -> AfterValidator:
    def check(seconds: float) -> float:
        if seconds < minimum:
            raise ValueError(f"{what} must be at least {format_duration(minimum)}")
        return seconds

    return AfterValidator(check)


Duration = Annotated[float, BeforeValidator(parse_duration)]
"""Any non-negative duration."""

PollInterval = Annotated[float, BeforeValidator(parse_duration), _at_least(1.0, "a poll interval")]
"""How often to poll: 1 s at the shortest (demos and tests use that; production uses 30 s+)."""

Timeout = Annotated[float, BeforeValidator(parse_duration), _at_least(0.1, "a timeout")]
"""A request timeout: positive, a tenth of a second at the shortest."""
