"""The storage interface and its value types, independent of any database."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from tqe_monitor.models import Component, ComponentState
from tqe_monitor.tracking import StateChange
from tqe_monitor.tracking.conditions import ConditionState, Transition


class StoreError(Exception):
    """The store cannot be used (corrupt, unwritable, too new). It is never reset silently."""


@dataclass(frozen=True, slots=True)
class WalletSample:
    """One successful wallet read, kept for the forecast and for history."""

    service: str
    target: str
    at: datetime
    words: int


@dataclass(frozen=True, slots=True)
class HistoryEntry:
    """One line of history: a component state change or a condition raised/resolved."""

    at: datetime
    service: str
    target: str
    what: str  # "state" or "condition"
    name: str  # component, or condition name
    change: str  # "operational -> degraded", "raised", "resolved"
    severity: str = ""
    details: dict[str, Any] = field(default_factory=dict)


class Store(Protocol):
    """What the daemon needs from storage. Writes of one poll commit together or not at all."""

    def commit(
        self,
        *,
        transitions: Sequence[Transition] = (),
        state_changes: Sequence[StateChange] = (),
        samples: Sequence[WalletSample] = (),
    ) -> None: ...

    def active_conditions(self) -> list[ConditionState]: ...

    def component_states(self) -> list[tuple[str, Component, ComponentState, datetime]]: ...

    def wallet_samples(
        self, since: datetime
    ) -> dict[tuple[str, str], list[tuple[datetime, int]]]: ...

    def each_wallet_samples(
        self, since: datetime
    ) -> Iterator[tuple[tuple[str, str], list[tuple[datetime, int]]]]: ...

    def retain(self, services: set[str], targets: set[tuple[str, str]]) -> int: ...

    def history(self, *, since: datetime, target: str | None = None) -> list[HistoryEntry]: ...

    def prune(self, before: datetime) -> int: ...

    def close(self) -> None: ...
