"""The state of each service component over time: what it is, since when, and when it changed.

A failed /status poll is not a state the service reported, so one failure keeps the last known
state (a blip must not flap dashboards). After `unknown_after` consecutive failures the monitor
admits it no longer knows, and the components become `unknown`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from tqe_monitor.models import Component, ComponentState, StatusReading


@dataclass(frozen=True, slots=True)
class StateChange:
    """One component moved from `previous` (None on first sight) to `current` at `since`."""

    service: str
    component: Component
    previous: ComponentState | None
    current: ComponentState
    since: datetime


@dataclass(slots=True)
class _Known:
    state: ComponentState
    since: datetime


@dataclass
class ComponentTracker:
    """Tracks every component of every service. Restore with `restore()` after a restart."""

    unknown_after: int = 3
    _known: dict[tuple[str, Component], _Known] = field(default_factory=dict)
    _failures: dict[str, int] = field(default_factory=dict)

    def observe(
        self, service: str, reading: StatusReading | None, now: datetime
    ) -> list[StateChange]:
        """Apply one status poll outcome (None = the poll failed); return the changes."""
        if reading is not None:
            self._failures[service] = 0
            states = reading.by_component()
        else:
            failures = self._failures.get(service, 0) + 1
            self._failures[service] = failures
            if failures < self.unknown_after and self._has_seen(service):
                return []
            states = dict.fromkeys(Component, ComponentState.UNKNOWN)
        return [
            change
            for component, state in states.items()
            if (change := self._set(service, component, state, now)) is not None
        ]

    def current(self, service: str, component: Component) -> tuple[ComponentState, datetime] | None:
        """The component's state and since-time, or None if never observed."""
        known = self._known.get((service, component))
        return (known.state, known.since) if known else None

    def restore(
        self, service: str, component: Component, state: ComponentState, since: datetime
    ) -> None:
        """Seed a state loaded from the store, so a restart does not report a fresh change."""
        self._known[(service, component)] = _Known(state, since)

    def _has_seen(self, service: str) -> bool:
        return any((service, component) in self._known for component in Component)

    def _set(
        self, service: str, component: Component, state: ComponentState, now: datetime
    ) -> StateChange | None:
        known = self._known.get((service, component))
        if known is not None and known.state is state:
            return None
        self._known[(service, component)] = _Known(state, now)
        return StateChange(service, component, known.state if known else None, state, now)
