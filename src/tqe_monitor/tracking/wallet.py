"""Wallet conditions for one target: thresholds with hysteresis, exhaustion, forecast, staleness.

Hysteresis: a tier is raised when the balance drops below it and re-armed only when the balance
climbs back above the threshold plus a margin (default 5%), so a balance hovering around a
threshold raises it once, not on every poll. A top-up (the balance rose) restarts the forecast
window: the old burn rate says nothing about the new balance.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from tqe_monitor.tracking.conditions import (
    ConditionBook,
    ConditionKey,
    ConditionKind,
    Severity,
    Transition,
)
from tqe_monitor.tracking.forecast import Forecast
from tqe_monitor.tracking.samples import SampleWindow


@dataclass(frozen=True, slots=True)
class Threshold:
    """One tier: raise `severity` while the balance is below `words`. `tier` names it."""

    words: int
    severity: Severity
    tier: str


@dataclass(frozen=True, slots=True)
class WalletPolicy:
    """How one target's wallet is judged (built from its config)."""

    thresholds: tuple[Threshold, ...] = ()
    rearm_margin: float = 0.05
    forecast_window: timedelta = timedelta(hours=6)
    forecast_within: timedelta = timedelta(days=3)
    stale_after: timedelta = timedelta(minutes=3)
    min_forecast_samples: int = 3


@dataclass(frozen=True, slots=True)
class TopUp:
    """The balance rose between two polls: an event, not a condition."""

    service: str
    target: str
    previous: int
    current: int
    at: datetime


@dataclass(frozen=True, slots=True)
class WalletAnalysis:
    """What one wallet observation led to."""

    transitions: list[Transition]
    forecast: Forecast | None = None
    top_up: TopUp | None = None


@dataclass
class WalletWatch:
    """The memory of one target's wallet between polls."""

    service: str
    target: str
    policy: WalletPolicy
    started: datetime
    samples: SampleWindow = field(default_factory=SampleWindow)
    last_success: datetime | None = None
    last_balance: int | None = None
    last_forecast: Forecast | None = None
    # Since when no poll has succeeded, by this clock: the last success (or the start), or the
    # first failure after the clock went back past it.
    silent_since: datetime = field(init=False)

    def __post_init__(self) -> None:
        self.silent_since = self.started

    def key(self, kind: ConditionKind, detail: str = "") -> ConditionKey:
        return ConditionKey(kind, self.service, self.target, detail)

    def observe(self, book: ConditionBook, balance: int | None, now: datetime) -> WalletAnalysis:
        """Apply one poll (None = it failed) and return the transitions it confirmed."""
        if balance is None:
            return WalletAnalysis(self._failed(book, now), self.last_forecast)
        transitions: list[Transition] = []
        top_up = self._record(balance, now)
        for kind, holds, severity, details in self._checks(book, balance, now):
            transition = book.observe(kind, holds, now, severity, details)
            if transition is not None:
                transitions.append(transition)
        return WalletAnalysis(transitions, self.last_forecast, top_up)

    def _failed(self, book: ConditionBook, now: datetime) -> list[Transition]:
        """A failed poll can raise staleness, never resolve it: only a successful poll does."""
        # If the clock went back past the last success, count the silence from here.
        self.silent_since = min(self.silent_since, now)
        key = self.key(ConditionKind.WALLET_STALE)
        stale = now - self.silent_since >= self.policy.stale_after or book.is_active(key)
        details: dict[str, object] = {
            "last_success": self.last_success.isoformat() if self.last_success else None
        }
        transition = book.observe(key, stale, now, Severity.WARNING, details)
        return [transition] if transition else []

    def restore_samples(self, samples: list[tuple[datetime, int]]) -> None:
        """Seed the forecast window from stored samples (oldest first) after a restart."""
        for at, words in samples:
            self._keep(words, at)
        if samples:  # one fit at the end: fitting after each sample is quadratic
            self._refit(samples[-1][0])

    def _record(self, balance: int, now: datetime) -> TopUp | None:
        top_up = self._keep(balance, now)
        self._refit(now)
        return top_up

    def _keep(self, balance: int, now: datetime) -> TopUp | None:
        top_up = None
        newest = self.samples.newest
        if newest is not None and now < newest:
            self.samples.clear()  # the clock went backwards: the old samples cannot be fitted
        if self.last_balance is not None and balance > self.last_balance:
            top_up = TopUp(self.service, self.target, self.last_balance, balance, now)
            self.samples.clear()
        self.samples.append(now, balance)
        self.samples.drop_before(now - self.policy.forecast_window)
        self.last_success, self.last_balance, self.silent_since = now, balance, now
        return top_up

    def _refit(self, now: datetime) -> None:
        self.last_forecast = self.samples.forecast(
            now, min_samples=self.policy.min_forecast_samples
        )

    def _checks(
        self, book: ConditionBook, balance: int, now: datetime
    ) -> list[tuple[ConditionKey, bool, Severity, dict[str, object]]]:
        policy = self.policy
        checks: list[tuple[ConditionKey, bool, Severity, dict[str, object]]] = [
            (self.key(ConditionKind.WALLET_STALE), False, Severity.WARNING, {}),
            (
                self.key(ConditionKind.WALLET_EXHAUSTED),
                balance <= 0,
                Severity.CRITICAL,
                {"remaining_words": balance},
            ),
        ]
        for threshold in policy.thresholds:
            key = self.key(ConditionKind.WALLET_LOW, threshold.tier)
            limit = threshold.words
            if book.is_active(key):  # re-armed only at threshold + margin
                limit = _rearm_at(threshold.words, policy.rearm_margin)
            tier: dict[str, object] = {
                "remaining_words": balance,
                "threshold_words": threshold.words,
            }
            checks.append((key, balance < limit, threshold.severity, tier))
        seconds = self.last_forecast.seconds_to_zero if self.last_forecast else None
        draining = seconds is not None and seconds < policy.forecast_within.total_seconds()
        details: dict[str, object] = {
            "remaining_words": balance,
            "seconds_to_zero": seconds,
            "burn_rate_per_hour": self.last_forecast.burn_rate_per_hour
            if self.last_forecast
            else None,
        }
        checks.append(
            (self.key(ConditionKind.WALLET_DEPLETION), draining, Severity.WARNING, details)
        )
        return checks


def _rearm_at(words: int, margin: float) -> int:
    """The lowest whole balance at or above words * (1 + margin). Rounded before the ceiling so
    float noise (105000.00000000001) does not push 100000 * 1.05 up to 105001; truncating
    instead would re-arm 10001 at 10501 < 10501.05, and 7 at 7, with no margin at all."""
    return math.ceil(round(words * (1 + margin), 6))
