"""The state-word vocabulary: which words the service may use for which ComponentState.

The interface names three states ("fully operational", "degraded performance", "maintenance")
but not how they are spelled on the wire, so words are compared by their words only: case and
separators do not matter ("Under-Maintenance" == "under_maintenance" == "UnderMaintenance").

Words meaning *down* ("down", "outage", "major outage", "unavailable", "offline", "red") read as
DEGRADED. The interface has no "down" state, and tqe-monitor's states are the interface's; of
those, degraded is the closest not-OK state, and reading "down" as degraded keeps the problem
visible (and alertable) instead of hiding it as unknown. Maintenance is reserved for words that
say maintenance, because it is the planned state that alert rules usually treat differently.

A word that is not in the table is read by its parts (at most a few words, so a free-text message
is not mistaken for a state): anything saying maintenance is maintenance, anything with a
degraded/down word or a negation ("not operational") is degraded, and a phrase with an OK word
and nothing against it ("All Systems Operational") is operational. Anything else is UNKNOWN.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from tqe_monitor.models import ComponentState
from tqe_monitor.normalizer.keys import words_of

_OPERATIONAL, _DEGRADED, _MAINTENANCE = (
    ComponentState.OPERATIONAL,
    ComponentState.DEGRADED,
    ComponentState.MAINTENANCE,
)

_PHRASES: Final[dict[str, ComponentState]] = {
    **dict.fromkeys(
        [
            "operational", "fully operational", "all systems operational", "ok", "okay", "up",
            "healthy", "normal", "green", "available", "online", "running", "active", "good",
            "fine", "pass", "passing", "nominal", "working", "functional", "alive", "ready",
            "live", "no issues", "no known issues", "no incidents", "operating normally",
            "all good",
        ],
        _OPERATIONAL,
    ),
    **dict.fromkeys(
        [
            "degraded", "degraded performance", "partial outage", "partially degraded",
            "reduced performance", "slow", "yellow", "amber", "orange", "warning", "warn",
            "impaired", "limited", "unstable", "minor", "minor outage", "performance issues",
            "partially available", "partially operational", "disrupted", "service disruption",
            "elevated error rates", "high latency",
        ],
        _DEGRADED,
    ),
    **dict.fromkeys(
        [
            "down", "outage", "major outage", "full outage", "unavailable", "offline", "red",
            "critical", "major", "fail", "failed", "failing", "failure", "error", "unhealthy",
            "dead", "not operational", "non operational", "stopped", "broken", "unreachable",
            "not available", "service unavailable",
        ],
        _DEGRADED,
    ),
    **dict.fromkeys(
        [
            "maintenance", "under maintenance", "in maintenance", "scheduled maintenance",
            "planned maintenance", "maintenance mode", "maintenance in progress",
            "undergoing maintenance", "down for maintenance", "maint",
        ],
        _MAINTENANCE,
    ),
}  # fmt: skip

_MAINTENANCE_PARTS: Final = frozenset({"maintenance", "maint"})
_NOT_OK_PARTS: Final = frozenset(
    {
        "degraded", "degradation", "outage", "down", "partial", "partially", "reduced", "slow",
        "impaired", "unavailable", "offline", "disrupted", "disruption", "unhealthy", "failing",
        "failed", "failure", "error", "errors", "critical", "major", "minor", "warning",
        "unstable", "incident", "latency", "delayed", "not", "non", "no", "un",
    }
)  # fmt: skip
_OK_PARTS: Final = frozenset(
    {
        "operational", "ok", "okay", "healthy", "normal", "normally", "available", "online", "up",
        "running", "nominal", "working", "functional", "green",
    }
)  # fmt: skip
_MAX_PHRASE_WORDS: Final = 6


def phrase_of(text: str) -> str:
    """The canonical spelling of a state word: lower-case words separated by one space."""
    return " ".join(words_of(text))


def builtin_state(text: str) -> ComponentState:
    """Read `text` with the built-in vocabulary only; UNKNOWN when it says nothing known."""
    parts = words_of(text)
    if not parts or len(parts) > _MAX_PHRASE_WORDS:
        return ComponentState.UNKNOWN
    known = _PHRASES.get(" ".join(parts))
    if known is not None:
        return known
    if _MAINTENANCE_PARTS.intersection(parts):
        return _MAINTENANCE
    if _NOT_OK_PARTS.intersection(parts):
        return _DEGRADED
    if _OK_PARTS.intersection(parts):
        return _OPERATIONAL
    return ComponentState.UNKNOWN


class StateWords:
    """The vocabulary for one normalization: the user's extra words first, then the built-ins.

    The extra words come from `StatusMapping.states`; they win over the built-in table so a
    service with its own idiom ("Code Red" meaning maintenance, or "1" meaning operational) can
    be taught without changing code.
    """

    def __init__(self, extra: Mapping[str, ComponentState] | None = None) -> None:
        self._extra = {phrase_of(word): state for word, state in (extra or {}).items()}

    def read(self, value: object) -> ComponentState | None:
        """The state a scalar JSON value says, UNKNOWN for an unknown word, None for a non-scalar.

        true/false read as operational/degraded (an "is it up" flag). Numbers are only known
        through the extra words ("0", "1"...): no number has an obvious meaning on its own.
        """
        if isinstance(value, bool):
            return self._extra.get(phrase_of(str(value).lower()), _flag_state(value))
        if isinstance(value, str):
            extra = self._extra.get(phrase_of(value))
            return builtin_state(value) if extra is None else extra
        if isinstance(value, int | float):
            return self._extra.get(_number_phrase(value), ComponentState.UNKNOWN)
        return None

    def read_flag(self, key: str, value: object) -> ComponentState | None:
        """What a boolean flag named `key` says: {"healthy": true}, {"maintenance": true}...

        A true flag means its own word; a false OK-word ("up": false) means degraded, a false
        not-OK word ("degraded": false) means operational; a false maintenance flag says nothing.
        """
        if not isinstance(value, bool):
            return None
        meant = self._extra.get(phrase_of(key))
        if meant is None:
            meant = builtin_state(key)
        if meant is ComponentState.UNKNOWN:
            return None
        if value:
            return meant
        if meant is _OPERATIONAL:
            return _DEGRADED
        if meant is _DEGRADED:
            return _OPERATIONAL
        return None


def _flag_state(value: bool) -> ComponentState:
    return _OPERATIONAL if value else _DEGRADED


def _number_phrase(value: int | float) -> str:
    """ "1" for 1 and 1.0; "" (matching no word) for other floats and absurdly large numbers."""
    if isinstance(value, float):
        if not value.is_integer():
            return ""
        value = int(value)
    if abs(value) > 10**18:
        return ""
    return str(value)
