"""Conditions: the facts people are alerted about, each with a stable identity and a severity.

A condition is raised after it has held for `enter_after` consecutive observations and resolved
after it has failed to hold for `leave_after` consecutive ones (Gatus' failure and success
thresholds). The since-time of a raised condition is the first of the observations that confirmed
it, not the last: "degraded since 12:00", even if the third confirming poll came at 12:01.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any


class Severity(StrEnum):
    INFO = "info"
    WARNING = "warning"
    CRITICAL = "critical"


class ConditionKind(StrEnum):
    """What kind of fact a condition is; confirmations are configured per kind."""

    COMPONENT_DEGRADED = "component_degraded"
    COMPONENT_MAINTENANCE = "component_maintenance"
    COMPONENT_UNKNOWN = "component_unknown"
    SERVICE_UNREACHABLE = "service_unreachable"
    API_KEY_REJECTED = "api_key_rejected"
    WALLET_LOW = "wallet_low"
    WALLET_EXHAUSTED = "wallet_exhausted"
    WALLET_DEPLETION = "wallet_depletion_forecast"
    WALLET_STALE = "wallet_stale"


@dataclass(frozen=True, slots=True, order=True)
class ConditionKey:
    """Identifies one condition: kind, service, target ("" for a service) and a detail (the
    component, or the threshold tier). `id` is stable across restarts and releases."""

    kind: ConditionKind
    service: str
    target: str = ""
    detail: str = ""

    @property
    def name(self) -> str:
        """The `condition` label value: e.g. ai_service_degraded, wallet_below_10000."""
        if self.kind in _COMPONENT_KINDS:
            return f"{self.detail}_{self.kind.value.removeprefix('component_')}"
        if self.kind is ConditionKind.WALLET_LOW:
            return f"wallet_below_{self.detail}"
        return self.kind.value

    @property
    def id(self) -> str:
        return f"{self.kind.value}|{self.service}|{self.target}|{self.detail}"

    @classmethod
    def from_id(cls, text: str) -> ConditionKey:
        kind, service, target, detail = text.split("|", 3)
        return cls(ConditionKind(kind), service, target, detail)


_COMPONENT_KINDS = frozenset(
    {
        ConditionKind.COMPONENT_DEGRADED,
        ConditionKind.COMPONENT_MAINTENANCE,
        ConditionKind.COMPONENT_UNKNOWN,
    }
)


@dataclass(frozen=True, slots=True)
class Confirmation:
    """How many consecutive observations raise (`enter_after`) and resolve (`leave_after`)."""

    enter_after: int = 1
    leave_after: int = 1


@dataclass(frozen=True, slots=True)
class Transition:
    """A condition was raised (`raised=True`) or resolved at `at`; `since` is when it began."""

    key: ConditionKey
    severity: Severity
    raised: bool
    at: datetime
    since: datetime
    details: Mapping[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class ConditionState:
    """A condition that is active, or on its way in or out (a streak is running)."""

    key: ConditionKey
    severity: Severity
    active: bool
    since: datetime
    details: dict[str, Any] = field(default_factory=dict)
    streak: int = 0
    streak_since: datetime | None = None


class ConditionBook:
    """Every condition's state, updated one observation at a time."""

    def __init__(self, confirmations: Mapping[ConditionKind, Confirmation] | None = None) -> None:
        self._confirmations = dict(confirmations or {})
        self._states: dict[ConditionKey, ConditionState] = {}

    def observe(
        self,
        key: ConditionKey,
        holds: bool,
        now: datetime,
        severity: Severity,
        details: Mapping[str, Any] | None = None,
    ) -> Transition | None:
        """Record whether `key` holds now; return the transition if this confirms a change."""
        state = self._states.get(key)
        if state is None:
            if not holds:
                return None  # nothing to track: inactive and not becoming active
            state = self._states[key] = ConditionState(key, severity, active=False, since=now)
        if holds == state.active:
            state.streak, state.streak_since = 0, None
            if holds and details is not None:
                state.details = dict(details)
            self._forget_if_idle(state)
            return None
        state.streak += 1
        state.streak_since = state.streak_since or now
        confirmation = self._confirmations.get(key.kind, Confirmation())
        needed = confirmation.enter_after if holds else confirmation.leave_after
        if state.streak < needed:
            return None
        began = state.streak_since
        raised_since = state.since
        state.active, state.since, state.streak, state.streak_since = holds, began, 0, None
        if holds:
            state.severity = severity
            state.details = dict(details or {})
        facts = dict(details or state.details)
        if not holds:
            facts["active_since"] = raised_since.isoformat()  # what a "resolved" message needs
        transition = Transition(key, state.severity, holds, now, began, facts)
        self._forget_if_idle(state)
        return transition

    def is_active(self, key: ConditionKey) -> bool:
        state = self._states.get(key)
        return state is not None and state.active

    def active(self) -> list[ConditionState]:
        """Active conditions, in key order."""
        return sorted((s for s in self._states.values() if s.active), key=lambda s: s.key)

    def restore(self, states: Iterable[ConditionState]) -> None:
        """Seed conditions loaded from the store: still-true ones are not raised again."""
        for state in states:
            self._states[state.key] = state

    def _forget_if_idle(self, state: ConditionState) -> None:
        if not state.active and state.streak == 0:
            self._states.pop(state.key, None)
