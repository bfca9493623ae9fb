"""The simulator's words and the readers that turn loose YAML/JSON values into them.

Scenario files and the control API are written by people, so every reader here takes the dotted
path of the field it reads and raises `InvalidInput` naming that path (`timeline[3].at: ...`).
API keys are never echoed in a message: a typo in a scenario should not print a key to a log.

The simulator is deliberately independent of the daemon's own models (it must stay a faithful
*outside* view of the service), so it has its own small enums here.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from enum import StrEnum
from typing import Final, TypeVar


class InvalidInput(ValueError):
    """A value in a scenario or a control request is wrong; `field` is its dotted path."""

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(f"{field}: {problem}" if field else problem)
        self.field = field
        self.problem = problem


class State(StrEnum):
    """A component state in the scenario/control vocabulary (shapes render the service's words)."""

    OPERATIONAL = "operational"
    DEGRADED = "degraded"
    MAINTENANCE = "maintenance"


class Component(StrEnum):
    """The two parts of the service whose state /status reports."""

    PLATFORM = "platform"
    AI_SERVICE = "ai_service"


class Endpoint(StrEnum):
    """The service endpoints; ALL is only meaningful as the target of a fault."""

    STATUS = "status"
    WALLET = "wallet"
    CHECK = "check"
    ALL = "all"


class FaultKind(StrEnum):
    """Ways an endpoint can misbehave (see `server` for what each one sends)."""

    SERVER_ERROR = "server_error"
    SLOW = "slow"
    TIMEOUT = "timeout"
    MALFORMED = "malformed"
    NOT_JSON = "not_json"
    RATE_LIMITED = "rate_limited"
    UNKNOWN_SHAPE = "unknown_shape"


class Shape(StrEnum):
    """Payload shapes the simulator can serve (documented in `shapes`)."""

    DEFAULT = "default"
    ENVELOPE_CAMEL = "envelope_camel"
    COMPONENTS_LIST = "components_list"
    KEBAB = "kebab"
    CUSTOM = "custom"


# The service's own words are accepted too, so a scenario can be written either way.
_STATE_ALIASES: Final[dict[str, State]] = {
    "fully operational": State.OPERATIONAL,
    "degraded performance": State.DEGRADED,
    "under maintenance": State.MAINTENANCE,
}
_DURATION_UNITS: Final[dict[str, float]] = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}
_DURATION_PART = re.compile(r"(\d+(?:\.\d+)?)(ms|s|m|h)")
_DURATION_WHOLE = re.compile(r"(?:\d+(?:\.\d+)?(?:ms|s|m|h))+")
# Keys travel in an HTTP header: printable ASCII without spaces is what a header can carry.
_KEY_PATTERN = re.compile(r"[\x21-\x7e]{1,200}")

E = TypeVar("E", bound=StrEnum)


def child(field: str, name: str | int) -> str:
    """The path of `name` inside `field`: `a.b` for a name, `a[3]` for an index."""
    if isinstance(name, int):
        return f"{field}[{name}]"
    return f"{field}.{name}" if field else name


def read_mapping(
    value: object, field: str, allowed: frozenset[str] | None = None
) -> dict[str, object]:
    """A mapping with string names; with `allowed`, any other name is an error naming it."""
    if not isinstance(value, Mapping):
        raise InvalidInput(field, "expected a mapping")
    result: dict[str, object] = {}
    for name, item in value.items():
        if not isinstance(name, str):
            raise InvalidInput(field, "field names must be strings")
        if allowed is not None and name not in allowed:
            expected = ", ".join(sorted(allowed))
            raise InvalidInput(child(field, name), f"unknown field (expected one of: {expected})")
        result[name] = item
    return result


def require(mapping: Mapping[str, object], name: str, field: str) -> object:
    """`mapping[name]`, or an error naming the missing field."""
    if name not in mapping or mapping[name] is None:
        raise InvalidInput(child(field, name), "required")
    return mapping[name]


def read_int(value: object, field: str, *, minimum: int = 0) -> int:
    """A whole number >= `minimum` (a float with no fractional part is accepted)."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidInput(field, "expected a whole number")
    if value < minimum:
        raise InvalidInput(field, f"must be at least {minimum}")
    return value


def read_number(value: object, field: str, *, minimum: float = 0.0) -> float:
    """A finite number >= `minimum`."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidInput(field, "expected a number")
    number = float(value)
    if not math.isfinite(number) or number < minimum:
        raise InvalidInput(field, f"expected a finite number of at least {minimum:g}")
    return number


def read_bool(value: object, field: str) -> bool:
    """true or false, nothing else (YAML `yes` already arrives as a bool)."""
    if not isinstance(value, bool):
        raise InvalidInput(field, "expected true or false")
    return value


def read_str(value: object, field: str) -> str:
    """A non-empty string."""
    if not isinstance(value, str) or not value.strip():
        raise InvalidInput(field, "expected a non-empty string")
    return value


def read_duration(value: object, field: str) -> float:
    """Seconds, from a number or `500ms`, `10s`, `2m`, `1h`, `1m30s`."""
    if isinstance(value, str):
        text = value.strip().lower().replace(" ", "")
        if _DURATION_WHOLE.fullmatch(text):
            return sum(float(n) * _DURATION_UNITS[u] for n, u in _DURATION_PART.findall(text))
        try:
            value = float(text)
        except ValueError:
            raise InvalidInput(
                field, "expected a duration like 10s, 2m, 500ms or seconds"
            ) from None
    return read_number(value, field)


def read_enum(value: object, enum_type: type[E], field: str) -> E:
    """A member of `enum_type` from its value, case-insensitively; the error lists the choices."""
    if isinstance(value, str):
        text = value.strip().lower()
        for member in enum_type:
            if member.value == text:
                return member
    choices = ", ".join(member.value for member in enum_type)
    raise InvalidInput(field, f"expected one of: {choices}")


def read_state(value: object, field: str) -> State:
    """A component state: operational / degraded / maintenance (or the service's own words)."""
    if isinstance(value, str) and value.strip().lower() in _STATE_ALIASES:
        return _STATE_ALIASES[value.strip().lower()]
    return read_enum(value, State, field)


def read_key(value: object, field: str) -> str:
    """An API key string; the error never repeats the value."""
    if not isinstance(value, str) or not _KEY_PATTERN.fullmatch(value):
        raise InvalidInput(
            field, "expected an API key: 1-200 printable ASCII characters, no spaces"
        )
    return value
