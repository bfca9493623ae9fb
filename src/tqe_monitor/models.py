"""Typed values that flow from the normalizer to everything downstream.

The upstream service does not document its payloads, so nothing after the normalizer ever sees
raw JSON: it sees these small immutable values instead.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Final


class ComponentState(StrEnum):
    """The state of one component of the service, as tqe-monitor names it everywhere."""

    OPERATIONAL = "operational"
    DEGRADED = "degraded"
    MAINTENANCE = "maintenance"
    UNKNOWN = "unknown"


class Component(StrEnum):
    """The parts of the service that report a state; OVERALL is derived, never read."""

    PLATFORM = "platform"
    AI_SERVICE = "ai_service"
    OVERALL = "overall"


# How bad each state is when the overall state is derived. A known problem outranks not knowing:
# "degraded" on one component and "unknown" on the other is reported as degraded overall, because
# that is the actionable fact. Maintenance ranks highest: the service is (planned) unavailable.
_SEVERITY_RANK: Final[dict[ComponentState, int]] = {
    ComponentState.OPERATIONAL: 0,
    ComponentState.UNKNOWN: 1,
    ComponentState.DEGRADED: 2,
    ComponentState.MAINTENANCE: 3,
}

READ_COMPONENTS: Final[tuple[Component, Component]] = (Component.PLATFORM, Component.AI_SERVICE)


def worst_state(*states: ComponentState) -> ComponentState:
    """Return the most severe of `states` (operational when none are given)."""
    return max(states, key=_SEVERITY_RANK.__getitem__, default=ComponentState.OPERATIONAL)


@dataclass(frozen=True, slots=True)
class StatusReading:
    """What one `GET /status` said about the service's two components."""

    platform: ComponentState
    ai_service: ComponentState

    @property
    def overall(self) -> ComponentState:
        """The worst of the two component states."""
        return worst_state(self.platform, self.ai_service)

    def by_component(self) -> dict[Component, ComponentState]:
        """All three components (platform, ai_service, overall) with their states."""
        return {
            Component.PLATFORM: self.platform,
            Component.AI_SERVICE: self.ai_service,
            Component.OVERALL: self.overall,
        }


@dataclass(frozen=True, slots=True)
class WalletReading:
    """What one `GET /wallet` said: the words left and when the service last updated them.

    `updated_at` is an aware UTC datetime, or None when the payload carried no timestamp (the
    balance is what matters; a missing timestamp is not worth failing the poll for).
    """

    remaining_words: int
    updated_at: datetime | None
