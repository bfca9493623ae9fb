"""Reading the wallet's last-update timestamp in whatever format it arrives.

Accepted: ISO 8601 with or without a zone ("Z", "+02:00", "+0200"; a naive time is taken as
UTC, the only safe assumption for a server), with "T" or a space between date and time, or a
bare date; epoch seconds or epoch milliseconds as a number or a numeric string.

Seconds and milliseconds are told apart by magnitude: |value| >= 1e11 is milliseconds. 1e11
seconds is the year 5138, while 1e11 milliseconds is 1973-03-03, so every plausible timestamp
falls clearly on one side of the cut-off.
"""

from __future__ import annotations

import math
import re
from datetime import UTC, datetime, timedelta
from typing import Final

EPOCH_MILLISECONDS_CUTOFF: Final = 10**11
_EPOCH: Final = datetime(1970, 1, 1, tzinfo=UTC)
_MAX_TEXT_CHARS: Final = 64
_INTEGER: Final = re.compile(r"[+-]?[0-9]{1,20}")
_DECIMAL: Final = re.compile(r"[+-]?[0-9]{1,20}\.[0-9]{1,20}")


def parse_timestamp(value: object) -> datetime | None:
    """An aware UTC datetime, or None when `value` is not a readable timestamp."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return _from_epoch(value)
    if not isinstance(value, str):
        return None
    text = value.strip()
    if not text or len(text) > _MAX_TEXT_CHARS:
        return None
    if _INTEGER.fullmatch(text):
        return _from_epoch(int(text))
    if _DECIMAL.fullmatch(text):
        return _from_epoch(float(text))
    return _from_iso(text)


def _from_epoch(value: int | float) -> datetime | None:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    try:
        if abs(value) >= EPOCH_MILLISECONDS_CUTOFF:
            return _EPOCH + timedelta(milliseconds=value)
        return _EPOCH + timedelta(seconds=value)
    except OverflowError:  # beyond what a datetime can hold: not a timestamp
        return None


def _from_iso(text: str) -> datetime | None:
    try:
        parsed = datetime.fromisoformat(text)
        if parsed.tzinfo is None:
            return parsed.replace(tzinfo=UTC)
        return parsed.astimezone(UTC)
    except (ValueError, OverflowError):  # not ISO 8601, or out of range once moved to UTC
        return None
