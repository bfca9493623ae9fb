"""Turn whatever `GET /status` answered into a StatusReading.

Auto-detection walks the payload breadth first (bounded, see `keys`) and collects three kinds of
evidence, shallowest first:

* components by key: {"platform": "ok"}, {"aiServiceStatus": {"state": "degraded"}};
* components as list items: [{"name": "AI Service", "status": "degraded"}];
* overall states: {"status": "maintenance"}, {"state": ...}, {"health": ...}, a bare string.

It then decides, in this order:

1. some component has a known state -> the components (a missing one is UNKNOWN);
2. an overall state is known -> it applies to both components;
3. components or an overall state were found, but with unknown words -> both UNKNOWN (the
   payload was understood; the service used a word we do not know: not a payload error);
4. nothing at all -> BAD_PAYLOAD naming what was expected and the keys seen.

An overall key next to an envelope ({"status": "success", "data": {...}}) is the envelope's
request status, not the service's: it is used only if known and nothing else was found. A bare
scalar payload must be a known word, since nothing else says it is a state.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Final

from tqe_monitor.errors import PollError
from tqe_monitor.models import Component, ComponentState, StatusReading
from tqe_monitor.normalizer.components import (
    component_named_by,
    component_of,
    component_state,
    object_state,
)
from tqe_monitor.normalizer.keys import (
    MAX_CONTAINERS,
    MAX_DEPTH,
    MAX_ITEMS,
    compact,
    describe_shape,
    items_of,
    kind_of,
)
from tqe_monitor.normalizer.mapping import StatusMapping, bad_payload, resolve_path
from tqe_monitor.normalizer.words import StateWords

_OVERALL_KEYS: Final = frozenset(
    {
        "status", "state", "overall", "overallstatus", "overallstate", "health", "healthstatus",
        "condition", "indicator", "servicestatus", "servicestate", "systemstatus",
        "systemstate", "currentstatus", "currentstate",
    }
)  # fmt: skip
_ENVELOPE_KEYS: Final = frozenset(
    {"data", "result", "results", "response", "payload", "body", "content"}
)
_EXPECTED: Final = (
    "expected the platform and AI-service states (e.g. "
    '{"platform": "operational", "ai_service": "degraded"}, or a "components" list of '
    '{"name", "status"} objects) or one overall state (e.g. {"status": "maintenance"})'
)
_UNKNOWN = ComponentState.UNKNOWN


def normalize_status(payload: object, mapping: StatusMapping | None = None) -> StatusReading:
    """Read the platform and AI-service states from a parsed JSON `payload`.

    Mapped fields are read from their paths; unmapped ones are auto-detected. When at least one
    component comes from a mapping, an unmapped component that auto-detection cannot find is
    UNKNOWN rather than an error. Raises only PollError(BAD_PAYLOAD).
    """
    mapping = mapping if mapping is not None else StatusMapping()
    words = StateWords(mapping.states)
    overall = _mapped_state(payload, mapping.overall, "overall", words)
    platform = _mapped_state(payload, mapping.platform, "platform", words)
    ai_service = _mapped_state(payload, mapping.ai_service, "ai_service", words)
    platform = overall if platform is None else platform
    ai_service = overall if ai_service is None else ai_service
    if platform is not None and ai_service is not None:
        return StatusReading(platform, ai_service)
    if platform is None and ai_service is None:
        return _detect(payload, words)
    try:
        detected = _detect(payload, words)
    except PollError:
        detected = StatusReading(_UNKNOWN, _UNKNOWN)
    return StatusReading(
        detected.platform if platform is None else platform,
        detected.ai_service if ai_service is None else ai_service,
    )


def _mapped_state(
    payload: object, path: str | None, field_name: str, words: StateWords
) -> ComponentState | None:
    if path is None:
        return None
    value = resolve_path(payload, path)
    state = object_state(value, words) if isinstance(value, dict) else words.read(value)
    if state is None:
        raise bad_payload(
            f"mapping path {path!r} ({field_name}) holds {kind_of(value)}, expected a state word, "
            "a boolean or an object with a status/state field"
        )
    return state


@dataclass
class _Evidence:
    components: dict[Component, list[ComponentState]] = field(default_factory=dict)
    overall: list[ComponentState] = field(default_factory=list)
    envelope_overall: list[ComponentState] = field(default_factory=list)

    def add_component(self, component: Component, state: ComponentState) -> None:
        self.components.setdefault(component, []).append(state)


def _detect(payload: object, words: StateWords) -> StatusReading:
    if not isinstance(payload, dict | list | tuple):
        state = words.read(payload)
        if state is None or state is _UNKNOWN:
            raise bad_payload(
                f"status payload not recognised: {_EXPECTED}; {describe_shape(payload)}"
            )
        return StatusReading(state, state)
    evidence = _collect(payload, words)
    found = {component: _first_known(states) for component, states in evidence.components.items()}
    if any(state is not _UNKNOWN for state in found.values()):
        return StatusReading(
            found.get(Component.PLATFORM, _UNKNOWN), found.get(Component.AI_SERVICE, _UNKNOWN)
        )
    overall = _first_known(evidence.overall)
    if overall is _UNKNOWN:
        overall = _first_known(evidence.envelope_overall)
    if overall is not _UNKNOWN:
        return StatusReading(overall, overall)
    if found or evidence.overall:
        return StatusReading(_UNKNOWN, _UNKNOWN)
    raise bad_payload(f"status payload not recognised: {_EXPECTED}; {describe_shape(payload)}")


def _first_known(states: list[ComponentState]) -> ComponentState:
    return next((state for state in states if state is not _UNKNOWN), _UNKNOWN)


def _collect(payload: object, words: StateWords) -> _Evidence:
    """Walk the payload breadth first; a component's own subtree is not searched further.

    An overall key inside an array item ({"items": [{"name": "billing", "status": "ok"}]})
    is that item's state, not the service's, so overall keys count only outside arrays.
    """
    evidence = _Evidence()
    queue: deque[tuple[object, int, bool]] = deque([(payload, 0, False)])
    visited = 0
    while queue and visited < MAX_CONTAINERS:
        node, depth, in_array = queue.popleft()
        visited += 1
        if isinstance(node, dict):
            children = _scan_object(node, words, evidence, overall_counts=not in_array)
        elif isinstance(node, list | tuple):
            children = _scan_array(node, words, evidence)
            in_array = True
        else:
            continue
        if depth + 1 < MAX_DEPTH:
            queue.extend((child, depth + 1, in_array) for child in children)
    return evidence


def _scan_object(
    node: dict[object, object], words: StateWords, evidence: _Evidence, *, overall_counts: bool
) -> list[object]:
    entries = items_of(node)
    is_envelope = any(
        compact(key) in _ENVELOPE_KEYS and isinstance(value, dict | list | tuple)
        for key, value in entries
    )
    children: list[object] = []
    for key, value in entries:
        component = component_of(key)
        if component is not None:
            evidence.add_component(component, component_state(value, words))
            continue
        if overall_counts and compact(key) in _OVERALL_KEYS:
            state = words.read(value)
            if state is not None and not _is_unknown_number(value, state):
                (evidence.envelope_overall if is_envelope else evidence.overall).append(state)
        if isinstance(value, dict | list | tuple):
            children.append(value)
    return children


def _scan_array(
    node: list[object] | tuple[object, ...], words: StateWords, evidence: _Evidence
) -> list[object]:
    children: list[object] = []
    for item in node[:MAX_ITEMS]:
        if isinstance(item, dict):
            component = component_named_by(item)
            if component is not None:
                evidence.add_component(component, component_state(item, words))
                continue
        if isinstance(item, dict | list | tuple):
            children.append(item)
    return children


def _is_unknown_number(value: object, state: ComponentState) -> bool:
    """{"status": 200} is an HTTP-ish code, not evidence of a state (unless mapped in `states`)."""
    return isinstance(value, int | float) and not isinstance(value, bool) and state is _UNKNOWN
