"""Reading a word count that may arrive as a number or as text."""

from __future__ import annotations

import math
import re
from typing import Final

MAX_WORD_COUNT: Final = 2**53
"""The largest magnitude accepted: every metric value is a float64, which holds whole numbers
exactly only up to 2**53. A larger "balance" is garbage, not a balance."""

_MAX_TEXT_CHARS: Final = 40
# "12345", "+12", "-5" (an overdraft), "12345.0"; decimals must be zeros (a word count is whole).
_PLAIN: Final = re.compile(r"[+-]?[0-9]+(?:\.0*)?")
# "12,345", "12 345", "1'234'567", "12_345" -- one separator used consistently, groups of three.
_GROUPED: Final = re.compile(r"[+-]?[0-9]{1,3}([,' _\u00a0\u202f])[0-9]{3}(?:\1[0-9]{3})*(?:\.0*)?")


def read_word_count(value: object) -> int | None:
    """A whole number of words from an int, an integral float or a numeric string; else None.

    Booleans are not numbers here (JSON true is not 1 word). Negative counts are kept as they
    are: an overdraft is information, and clamping it to 0 would hide it. "12.345" is rejected
    rather than guessed (thousands separator or decimal point?).
    """
    number: int
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        number = value
    elif isinstance(value, float):
        if not math.isfinite(value) or not value.is_integer():
            return None
        number = int(value)
    elif isinstance(value, str):
        text = value.strip()
        if len(text) > _MAX_TEXT_CHARS:
            return None
        if not (_PLAIN.fullmatch(text) or _GROUPED.fullmatch(text)):
            return None
        number = int(re.sub(r"[^0-9+-]", "", text.partition(".")[0]))
    else:
        return None
    return number if abs(number) <= MAX_WORD_COUNT else None
