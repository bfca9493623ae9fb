"""Which component a name refers to, and what state a value or an object about it says.

A component is recognised by the words of its name, so keys (`aiServiceStatus`) and list-item
names ("AI Service") are read alike. A name must consist only of known words: `ai_service` and
`platform_status` are components, `ai_service_message` is not (it is something *about* one).
"""

from __future__ import annotations

from typing import Final

from tqe_monitor.models import Component, ComponentState, worst_state
from tqe_monitor.normalizer.keys import compact, items_of, words_of
from tqe_monitor.normalizer.words import StateWords

_AI_WORDS: Final = frozenset(
    {
        "ai", "llm", "llms", "model", "models", "inference", "engine", "artificial",
        "intelligence", "ml", "genai", "gpt",
    }
)  # fmt: skip
_PLATFORM_WORDS: Final = frozenset(
    {"platform", "app", "application", "api", "web", "webapp", "website", "portal", "frontend"}
)
_NEUTRAL_WORDS: Final = frozenset(
    {
        "service", "services", "infrastructure", "infra", "the", "tqe", "component", "core",
        "main", "server", "servers", "layer", "system", "status", "state", "health",
        "condition", "level", "indicator",
    }
)  # fmt: skip
_NAME_WORDS: Final = _AI_WORDS | _PLATFORM_WORDS | _NEUTRAL_WORDS
_MAX_NAME_WORDS: Final = 6

STATE_KEYS: Final[tuple[str, ...]] = (
    "status", "state", "value", "health", "level", "condition", "indicator", "healthstatus",
    "currentstatus", "currentstate", "statusvalue",
)  # fmt: skip
"""Keys that hold a component's state inside its object, most likely first (compact spelling).

After these come other keys ending in status/state/health ("operationalStatus"), then boolean
flags ({"healthy": true}).
"""
_STATE_SUFFIXES: Final = frozenset({"status", "state", "health"})
_STATE_KEY_RANK: Final = {key: rank for rank, key in enumerate(STATE_KEYS)}

_NAME_KEYS: Final = frozenset(
    {
        "name", "id", "component", "componentname", "componentid", "service", "servicename",
        "serviceid", "title", "key", "label", "slug", "displayname", "type", "kind",
    }
)  # fmt: skip
_MAX_OBJECT_DEPTH: Final = 4
_MAX_STATE_KEYS_TRIED: Final = 4
"""Bounds the work per component object even for payloads that share sub-objects."""


def component_of(name: str) -> Component | None:
    """PLATFORM or AI_SERVICE when `name` names one ("AI platform" is the AI one), else None."""
    parts = frozenset(words_of(name))
    if not parts or len(parts) > _MAX_NAME_WORDS or not parts <= _NAME_WORDS:
        return None
    if parts & _AI_WORDS:
        return Component.AI_SERVICE
    if parts & _PLATFORM_WORDS:
        return Component.PLATFORM
    return None


def component_named_by(item: dict[object, object]) -> Component | None:
    """The component a list item describes by its name field ({"name": "AI Service", ...})."""
    for key, value in items_of(item):
        if isinstance(value, str) and compact(key) in _NAME_KEYS:
            component = component_of(value)
            if component is not None:
                return component
    return None


def component_state(value: object, words: StateWords) -> ComponentState:
    """The state a component's value says: a word, a flag, or an object holding either.

    Anything unreadable (null, an array, an object without a state) is UNKNOWN: the component
    was found, so the payload was understood; only its state is not.
    """
    state = object_state(value, words) if isinstance(value, dict) else words.read(value)
    return ComponentState.UNKNOWN if state is None else state


def object_state(
    obj: dict[object, object], words: StateWords, depth: int = 0
) -> ComponentState | None:
    """The state an object about one component holds; None when it holds no state at all.

    State keys are tried in STATE_KEYS order and the first known word wins; boolean flags
    ({"up": true, "maintenance": true}) are the fallback, combined by taking the worst.
    """
    if depth > _MAX_OBJECT_DEPTH:
        return None
    ranked: list[tuple[int, object]] = []
    flags: list[ComponentState] = []
    for key, value in items_of(obj):
        rank = _state_key_rank(key)
        if rank is not None:
            ranked.append((rank, value))
            continue
        flag = words.read_flag(key, value)
        if flag is not None:
            flags.append(flag)
    found_unknown = False
    for _, value in sorted(ranked, key=lambda pair: pair[0])[:_MAX_STATE_KEYS_TRIED]:
        if isinstance(value, dict):
            state = object_state(value, words, depth + 1)
        else:
            state = words.read(value)
        if state is None:
            continue
        if state is not ComponentState.UNKNOWN:
            return state
        found_unknown = True
    if flags:
        return worst_state(*flags)
    return ComponentState.UNKNOWN if found_unknown else None


def _state_key_rank(key: str) -> int | None:
    parts = words_of(key)
    rank = _STATE_KEY_RANK.get("".join(parts))
    if rank is not None:
        return rank
    if parts and parts[-1] in _STATE_SUFFIXES:
        return len(STATE_KEYS)
    return None
