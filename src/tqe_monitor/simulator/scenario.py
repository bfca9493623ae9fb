"""Scenarios: the starting world of the simulator and a timeline of what happens to it.

A scenario file (YAML, or JSON with a `.json` name) looks like::

    shape: default                     # payload shape, see `shapes`
    speed: 1.0                         # fast-forward factor for the whole simulated world
    repeat: 110s                       # optional: restart the story every 110 s
    keys:                              # api key -> account
      demo-prod-key: {balance: 500000, scope: true}
      demo-revoked-key: {balance: 1000, revoked: true}
    status: {platform: operational, ai_service: operational}
    timeline:                          # offsets from simulator start
      - {at: 10s, set_status: {ai_service: degraded}}
      - {at: 40s, maintenance: {duration: 20s, components: [platform, ai_service]}}
      - {at: 5s, drain: {key: demo-prod-key, words_per_second: 5000}}
      - {at: 60s, top_up: {key: demo-prod-key, words: 500000}}
      - {at: 70s, revoke: demo-prod-key}
      - {at: 80s, fault: {endpoint: status, kind: server_error, count: 3}}
      - {at: 90s, set_shape: envelope_camel}

Timeline actions: set_status, maintenance, set_key, top_up, revoke, drain, fault, clear_faults,
set_shape (see `actions`). Every validation error names the field it is about.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from importlib import resources
from pathlib import Path
from typing import Final

import yaml

from tqe_monitor.simulator.actions import ACTION_PARSERS, Action, SetKey, referenced_key
from tqe_monitor.simulator.vocabulary import (
    Component,
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

BUILTIN_SCENARIOS: Final[tuple[str, ...]] = ("default", "demo")
_TOP_LEVEL = frozenset({"description", "shape", "speed", "repeat", "keys", "status", "timeline"})
_KEY_FIELDS = frozenset({"balance", "scope", "revoked", "words_per_second"})


class ScenarioError(InvalidInput):
    """A scenario cannot be used; the message names the file (when there is one) and the field."""

    def __init__(self, field: str, problem: str, source: str | None = None) -> None:
        super().__init__(field, problem)
        if source is not None:
            self.args = (f"{source}: {self.args[0]}",)


@dataclass(frozen=True)
class KeySpec:
    """One API key's account at the start of the scenario."""

    balance: int = 0
    scope: bool = True
    revoked: bool = False
    words_per_second: float = 0.0


@dataclass(frozen=True)
class TimelineEvent:
    """`action` happens `at` seconds (scenario time) after the start of each run of the story."""

    at: float
    action: Action


def _all_operational() -> dict[Component, State]:
    return dict.fromkeys(Component, State.OPERATIONAL)


@dataclass(frozen=True)
class Scenario:
    """A whole scenario. `keys` is left out of the repr: key strings do not belong in logs."""

    keys: Mapping[str, KeySpec] = field(default_factory=dict, repr=False)
    status: Mapping[Component, State] = field(default_factory=_all_operational)
    timeline: tuple[TimelineEvent, ...] = ()
    shape: Shape = Shape.DEFAULT
    speed: float = 1.0
    repeat: float | None = None
    description: str = ""

    def with_shape(self, shape: str | Shape) -> Scenario:
        """The same scenario serving another payload shape (for `simulate --shape`)."""
        return replace(self, shape=read_enum(shape, Shape, "shape"))


def parse_scenario(data: object, *, source: str | None = None) -> Scenario:
    """A `Scenario` from loaded YAML/JSON data; `source` (a file name) prefixes errors."""
    try:
        return _parse(data)
    except InvalidInput as error:
        raise ScenarioError(error.field, error.problem, source) from None


def load_scenario(path: Path) -> Scenario:
    """Read a scenario file (`.json` is read as JSON, anything else as YAML)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise ScenarioError("", f"cannot read the file: {error.strerror}", str(path)) from None
    return _parse_text(text, str(path), as_json=path.suffix.lower() == ".json")


def builtin_scenario(name: str) -> Scenario:
    """One of the scenarios shipped with the package: "default" or "demo"."""
    if name not in BUILTIN_SCENARIOS:
        raise ScenarioError(
            "scenario", f"no built-in scenario of that name: {', '.join(BUILTIN_SCENARIOS)}"
        )
    resource = resources.files("tqe_monitor.simulator").joinpath(f"scenarios/{name}.yaml")
    return _parse_text(resource.read_text(encoding="utf-8"), f"built-in:{name}", as_json=False)


def _parse_text(text: str, source: str, *, as_json: bool) -> Scenario:
    try:
        data: object = json.loads(text) if as_json else yaml.safe_load(text)
    except (ValueError, yaml.YAMLError) as error:
        # The position is useful, the snippet of the file is not (it might hold a key).
        where = getattr(error, "problem_mark", None)
        position = f" at line {where.line + 1}" if where is not None else ""
        raise ScenarioError(
            "", f"not valid {'JSON' if as_json else 'YAML'}{position}", source
        ) from None
    return parse_scenario({} if data is None else data, source=source)


def _parse(data: object) -> Scenario:
    top = read_mapping(data, "", _TOP_LEVEL)
    keys = _parse_keys(top.get("keys", {}))
    repeat_value = top.get("repeat")
    repeat = None if repeat_value is None else read_duration(repeat_value, "repeat")
    if repeat is not None and repeat <= 0:
        raise InvalidInput("repeat", "must be more than 0 seconds")
    speed = read_number(top.get("speed", 1.0), "speed")
    if speed <= 0:
        raise InvalidInput("speed", "must be more than 0")
    description = top.get("description", "")
    if not isinstance(description, str):
        raise InvalidInput("description", "expected a string")
    timeline = _parse_timeline(top.get("timeline", []), repeat, keys)
    return Scenario(
        keys=keys,
        status=_parse_status(top.get("status", {})),
        timeline=timeline,
        shape=read_enum(top.get("shape", Shape.DEFAULT.value), Shape, "shape"),
        speed=speed,
        repeat=repeat,
        description=description,
    )


def _parse_keys(value: object) -> dict[str, KeySpec]:
    # Keys are addressed by position (`keys[1].balance`) so that no message repeats a key.
    entries = read_mapping(value, "keys")
    keys: dict[str, KeySpec] = {}
    for index, (key, spec_value) in enumerate(entries.items()):
        where = child("keys", index)
        read_key(key, where)
        spec = read_mapping({} if spec_value is None else spec_value, where, _KEY_FIELDS)
        keys[key] = KeySpec(
            balance=read_int(spec.get("balance", 0), child(where, "balance")),
            scope=read_bool(spec.get("scope", True), child(where, "scope")),
            revoked=read_bool(spec.get("revoked", False), child(where, "revoked")),
            words_per_second=read_number(
                spec.get("words_per_second", 0.0), child(where, "words_per_second")
            ),
        )
    return keys


def _parse_status(value: object) -> dict[Component, State]:
    given = read_mapping(value, "status", frozenset(Component))
    status = _all_operational()
    for name, state in given.items():
        status[Component(name)] = read_state(state, child("status", name))
    return status


def _parse_timeline(
    value: object, repeat: float | None, keys: Mapping[str, KeySpec]
) -> tuple[TimelineEvent, ...]:
    if not isinstance(value, list):
        raise InvalidInput("timeline", "expected a list of events")
    parsed: list[tuple[float, int, str, Action]] = []
    for index, entry_value in enumerate(value):
        where = child("timeline", index)
        entry = read_mapping(entry_value, where, frozenset({"at", *ACTION_PARSERS}))
        at = read_duration(require(entry, "at", where), child(where, "at"))
        if repeat is not None and at >= repeat:
            raise InvalidInput(child(where, "at"), f"must be earlier than repeat ({repeat:g}s)")
        names = [name for name in entry if name != "at"]
        if len(names) != 1:
            choices = ", ".join(ACTION_PARSERS)
            raise InvalidInput(where, f"expected exactly one action besides `at` ({choices})")
        name = names[0]
        parsed.append((at, index, name, ACTION_PARSERS[name](entry[name], child(where, name))))
    # Events at the same instant keep the order of the file.
    parsed.sort(key=lambda item: (item[0], item[1]))
    _check_key_references(parsed, keys)
    return tuple(TimelineEvent(at=at, action=action) for at, _, _, action in parsed)


def _check_key_references(
    events: list[tuple[float, int, str, Action]], keys: Mapping[str, KeySpec]
) -> None:
    """Every key an event uses exists when the event happens (in time order, not file order)."""
    known = set(keys)
    for _, index, name, action in events:
        if isinstance(action, SetKey):
            known.add(action.key)
        needed = referenced_key(action)
        if needed is not None and needed not in known:
            raise InvalidInput(
                child(child(child("timeline", index), name), "key"),
                "not a key under `keys`, nor one created by an earlier set_key",
            )
