"""One API key's account, with a balance that can drain continuously without a background task.

The balance is stored as it was at the last change (`words` at `anchor`) plus a drain rate, and
read as `balance_at(now)`. Every change first `settle`s the drain up to its own instant, so a
top-up or a new rate at t=60 s starts from exactly the balance at t=60 s.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass
class Account:
    """One key's account. `words` is the balance at `anchor`; a drain runs from there."""

    words: float
    anchor: float
    updated_at: float
    scope: bool = True
    revoked: bool = False
    words_per_second: float = 0.0

    def balance_at(self, now: float) -> float:
        elapsed = max(0.0, now - self.anchor)
        return max(0.0, self.words - self.words_per_second * elapsed)

    def remaining_words(self, now: float) -> int:
        return math.floor(self.balance_at(now))

    def updated_at_time(self, now: float) -> float:
        """When the balance last changed: a live drain changes it until it reaches zero."""
        if self.words_per_second <= 0 or self.words <= 0 or now <= self.anchor:
            return self.updated_at
        emptied_at = self.anchor + self.words / self.words_per_second
        return max(self.updated_at, min(now, emptied_at))

    def settle(self, now: float) -> None:
        """Fold the drain so far into `words`, so a change at `now` starts from the right value."""
        self.updated_at = self.updated_at_time(now)
        self.words = self.balance_at(now)
        self.anchor = now

    def add(self, words: float, now: float) -> None:
        self.settle(now)
        self.words = max(0.0, self.words + words)
        self.updated_at = now
