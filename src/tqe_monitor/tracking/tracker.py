"""The state tracker: every poll outcome in, every confirmed condition change out.

Kept apart on purpose: "the service says degraded" (component conditions, read from a successful
poll) and "the service cannot be reached" (consecutive failed polls). A failed poll leaves the
component conditions as they were; a rejected key is the key's problem, not the service's.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime

from tqe_monitor.errors import PollErrorReason
from tqe_monitor.models import READ_COMPONENTS, ComponentState, StatusReading
from tqe_monitor.tracking.conditions import (
    ConditionBook,
    ConditionKey,
    ConditionKind,
    ConditionState,
    Severity,
    Transition,
)
from tqe_monitor.tracking.wallet import WalletAnalysis, WalletPolicy, WalletWatch

# The component states that are conditions, and how severe each is.
COMPONENT_CONDITIONS: Mapping[ComponentState, tuple[ConditionKind, Severity]] = {
    ComponentState.DEGRADED: (ConditionKind.COMPONENT_DEGRADED, Severity.WARNING),
    ComponentState.MAINTENANCE: (ConditionKind.COMPONENT_MAINTENANCE, Severity.INFO),
    ComponentState.UNKNOWN: (ConditionKind.COMPONENT_UNKNOWN, Severity.WARNING),
}
UNREACHABLE_SEVERITY = Severity.CRITICAL
KEY_REJECTED_SEVERITY = Severity.CRITICAL


class Tracker:
    """Turns poll outcomes into condition transitions. Pure: `now` is always an argument."""

    def __init__(
        self,
        book: ConditionBook,
        wallets: Mapping[tuple[str, str], WalletPolicy],
        started: datetime,
    ) -> None:
        self.book = book
        self._watches = {
            (service, target): WalletWatch(service, target, policy, started)
            for (service, target), policy in wallets.items()
        }

    def status(
        self,
        service: str,
        reading: StatusReading | None,
        error: PollErrorReason | None,
        now: datetime,
    ) -> list[Transition]:
        """Apply a status poll: `reading` on success, else the failure's reason."""
        unreachable = reading is None and error is not PollErrorReason.AUTH
        details = {"reason": error.value} if error else {}
        found = [
            self.book.observe(
                ConditionKey(ConditionKind.SERVICE_UNREACHABLE, service),
                unreachable,
                now,
                UNREACHABLE_SEVERITY,
                details,
            )
        ]
        if reading is not None:
            for component in READ_COMPONENTS:
                state = getattr(reading, component.value)
                for condition_state, (kind, severity) in COMPONENT_CONDITIONS.items():
                    key = ConditionKey(kind, service, "", component.value)
                    holds = state is condition_state
                    found.append(
                        self.book.observe(key, holds, now, severity, {"state": state.value})
                    )
        return [t for t in found if t is not None]

    def key(self, service: str, target: str, accepted: bool, now: datetime) -> list[Transition]:
        """Apply whether the service accepted the target's key (401/403 = rejected)."""
        key = ConditionKey(ConditionKind.API_KEY_REJECTED, service, target)
        transition = self.book.observe(key, not accepted, now, KEY_REJECTED_SEVERITY)
        return [transition] if transition else []

    def wallet(
        self, service: str, target: str, remaining_words: int | None, now: datetime
    ) -> WalletAnalysis:
        """Apply a wallet poll: the balance read, or None when the poll failed."""
        return self._watches[(service, target)].observe(self.book, remaining_words, now)

    def watch(self, service: str, target: str) -> WalletWatch:
        """The wallet memory of a target (for the state API and metrics)."""
        return self._watches[(service, target)]

    def restore(
        self,
        conditions: Iterable[ConditionState],
        samples: Iterable[tuple[tuple[str, str], list[tuple[datetime, int]]]],
    ) -> int:
        """Seed stored conditions and wallet samples (target by target) after a restart;
        returns how many wallets had samples."""
        self.book.restore(conditions)
        wallets = 0
        for pair, points in samples:
            wallets += 1
            watch = self._watches.get(pair)
            if watch is not None:
                watch.restore_samples(points)
        return wallets
