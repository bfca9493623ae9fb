"""Changes to the simulated world, shared by the scenario timeline and the control API.

A timeline entry such as `{at: 60s, top_up: {key: k, words: 500000}}` and a control request
`POST /_sim/keys/top_up {"key": "k", "words": 500000}` both become the same `TopUp` action, read by
the same parser, so the two ways of driving the simulator cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from tqe_monitor.simulator.vocabulary import (
    Component,
    Endpoint,
    FaultKind,
    InvalidInput,
    Shape,
    State,
    child,
    read_bool,
    read_duration,
    read_enum,
    read_int,
    read_key,
    read_mapping,
    read_number,
    read_state,
    require,
)

DEFAULT_SLOW_DELAY = 2.0
# Far beyond any sensible client timeout, so a `timeout` fault is a timeout for the client.
DEFAULT_HANG = 300.0
DEFAULT_RETRY_AFTER = 5


@dataclass(frozen=True)
class SetStatus:
    """Set the base state of one or both components (None leaves a component as it is)."""

    platform: State | None = None
    ai_service: State | None = None


@dataclass(frozen=True)
class Maintenance:
    """Put components under maintenance for `duration` seconds, then back to their base state."""

    duration: float
    components: tuple[Component, ...] = (Component.PLATFORM, Component.AI_SERVICE)


@dataclass(frozen=True)
class SetKey:
    """Create a key or update it; None leaves a field unchanged (new keys: 0 words, in scope)."""

    key: str = field(repr=False)
    balance: int | None = None
    scope: bool | None = None
    revoked: bool | None = None


@dataclass(frozen=True)
class TopUp:
    """Add words to a key's balance."""

    key: str = field(repr=False)
    words: int


@dataclass(frozen=True)
class Revoke:
    """Revoke a key: from now on it gets 401."""

    key: str = field(repr=False)


@dataclass(frozen=True)
class Drain:
    """Let a key's balance fall continuously by `words_per_second` (0 stops the drain)."""

    key: str = field(repr=False)
    words_per_second: float


@dataclass(frozen=True)
class FaultSpec:
    """A fault for `count` requests and/or `duration` seconds (whichever ends first; neither:
    until cleared). `delay` is the wait of slow/timeout, in wall seconds."""

    endpoint: Endpoint
    kind: FaultKind
    count: int | None = None
    duration: float | None = None
    delay: float = 0.0
    status_code: int = 500
    retry_after: int = DEFAULT_RETRY_AFTER


@dataclass(frozen=True)
class AddFault:
    """Start injecting a fault."""

    fault: FaultSpec


@dataclass(frozen=True)
class ClearFaults:
    """Stop every fault."""


@dataclass(frozen=True)
class SetShape:
    """Switch the payload shape the service endpoints render."""

    shape: Shape


Action = (
    SetStatus | Maintenance | SetKey | TopUp | Revoke | Drain | AddFault | ClearFaults | SetShape
)


def parse_set_status(value: object, field: str) -> SetStatus:
    data = read_mapping(value, field, frozenset(Component))
    states = {name: read_state(item, child(field, name)) for name, item in data.items()}
    if not states:
        raise InvalidInput(field, "give platform and/or ai_service")
    return SetStatus(
        platform=states.get(Component.PLATFORM), ai_service=states.get(Component.AI_SERVICE)
    )


def parse_maintenance(value: object, field: str) -> Maintenance:
    data = read_mapping(value, field, frozenset({"duration", "components"}))
    duration = read_duration(require(data, "duration", field), child(field, "duration"))
    raw = data.get("components", "all")
    if raw == "all":
        return Maintenance(duration=duration)
    where = child(field, "components")
    if not isinstance(raw, list) or not raw:
        raise InvalidInput(where, "expected a non-empty list of platform / ai_service, or all")
    components = tuple(read_enum(c, Component, child(where, i)) for i, c in enumerate(raw))
    return Maintenance(duration=duration, components=tuple(dict.fromkeys(components)))


def parse_set_key(value: object, field: str) -> SetKey:
    data = read_mapping(value, field, frozenset({"key", "balance", "scope", "revoked"}))
    balance, scope, revoked = data.get("balance"), data.get("scope"), data.get("revoked")
    return SetKey(
        key=read_key(require(data, "key", field), child(field, "key")),
        balance=None if balance is None else read_int(balance, child(field, "balance")),
        scope=None if scope is None else read_bool(scope, child(field, "scope")),
        revoked=None if revoked is None else read_bool(revoked, child(field, "revoked")),
    )


def parse_top_up(value: object, field: str) -> TopUp:
    data = read_mapping(value, field, frozenset({"key", "words"}))
    return TopUp(
        key=read_key(require(data, "key", field), child(field, "key")),
        words=read_int(require(data, "words", field), child(field, "words"), minimum=1),
    )


def parse_revoke(value: object, field: str) -> Revoke:
    """`revoke: some-key` or `revoke: {key: some-key}`."""
    if isinstance(value, str):
        return Revoke(key=read_key(value, field))
    data = read_mapping(value, field, frozenset({"key"}))
    return Revoke(key=read_key(require(data, "key", field), child(field, "key")))


def parse_drain(value: object, field: str) -> Drain:
    data = read_mapping(value, field, frozenset({"key", "words_per_second"}))
    rate = require(data, "words_per_second", field)
    return Drain(
        key=read_key(require(data, "key", field), child(field, "key")),
        words_per_second=read_number(rate, child(field, "words_per_second")),
    )


_FAULT_FIELDS = frozenset(
    {"endpoint", "kind", "count", "duration", "delay", "status_code", "retry_after"}
)


def parse_fault(value: object, field: str) -> FaultSpec:
    """A fault; `endpoint` defaults to all, `delay` to 2 s (slow) or 300 s (timeout)."""
    data = read_mapping(value, field, _FAULT_FIELDS)
    kind = read_enum(require(data, "kind", field), FaultKind, child(field, "kind"))
    count, duration, delay = data.get("count"), data.get("duration"), data.get("delay")
    status_code = read_int(data.get("status_code", 500), child(field, "status_code"))
    if not 500 <= status_code <= 599:
        raise InvalidInput(child(field, "status_code"), "expected a 5xx status code")
    default_delay = {FaultKind.SLOW: DEFAULT_SLOW_DELAY, FaultKind.TIMEOUT: DEFAULT_HANG}
    return FaultSpec(
        endpoint=read_enum(data.get("endpoint", "all"), Endpoint, child(field, "endpoint")),
        kind=kind,
        count=None if count is None else read_int(count, child(field, "count"), minimum=1),
        duration=None if duration is None else read_duration(duration, child(field, "duration")),
        delay=(
            default_delay.get(kind, 0.0)
            if delay is None
            else read_duration(delay, child(field, "delay"))
        ),
        status_code=status_code,
        retry_after=read_int(
            data.get("retry_after", DEFAULT_RETRY_AFTER), child(field, "retry_after")
        ),
    )


def parse_add_fault(value: object, field: str) -> AddFault:
    return AddFault(fault=parse_fault(value, field))


def parse_clear_faults(value: object, field: str) -> ClearFaults:
    """`clear_faults: true` in a timeline (anything but true is a mistake worth reporting)."""
    if value is not True:
        raise InvalidInput(field, "expected true")
    return ClearFaults()


def parse_set_shape(value: object, field: str) -> SetShape:
    """`set_shape: kebab` or `{shape: kebab}`."""
    if isinstance(value, str):
        return SetShape(shape=read_enum(value, Shape, field))
    data = read_mapping(value, field, frozenset({"shape"}))
    return SetShape(shape=read_enum(require(data, "shape", field), Shape, child(field, "shape")))


# The action names a timeline entry may use, each with its parser.
ACTION_PARSERS: dict[str, Callable[[object, str], Action]] = {
    "set_status": parse_set_status,
    "maintenance": parse_maintenance,
    "set_key": parse_set_key,
    "top_up": parse_top_up,
    "revoke": parse_revoke,
    "drain": parse_drain,
    "fault": parse_add_fault,
    "clear_faults": parse_clear_faults,
    "set_shape": parse_set_shape,
}


def referenced_key(action: Action) -> str | None:
    """The key an action needs to exist already (SetKey creates keys, so it needs none)."""
    if isinstance(action, TopUp | Revoke | Drain):
        return action.key
    return None
