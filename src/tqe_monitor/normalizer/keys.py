"""Reading key names in any case style, and describing a payload without quoting it.

The service's field names are undocumented, so the normalizer compares names by their words:
`ai_service`, `aiService`, `ai-service` and `AIService` all read as ("ai", "service"). Every walk
over a payload is bounded (depth, containers, items per container) so a hostile or accidental huge
document costs a bounded amount of work and can never exhaust the stack.
"""

from __future__ import annotations

import re
from collections import deque
from typing import Final

MAX_DEPTH: Final = 8
"""How deep into envelopes (`{"data": {"result": ...}}`) the normalizer looks for fields."""

MAX_CONTAINERS: Final = 2_000
"""How many objects/arrays one walk visits at most."""

MAX_ITEMS: Final = 1_000
"""How many entries of one object/array are examined; status and wallet documents are small."""

_MAX_NAME_CHARS: Final = 120
_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")

_MAX_SEEN_KEYS: Final = 25
_MAX_SEEN_DEPTH: Final = 4
_MAX_KEY_CHARS: Final = 40
_MAX_SEEN_CHARS: Final = 400


def words_of(name: str) -> tuple[str, ...]:
    """Split a key or a state word into lower-case words, whatever its case style.

    "aiServiceStatus" -> ("ai", "service", "status"); "AIService" -> ("ai", "service");
    "Under-Maintenance" -> ("under", "maintenance"). Only the first characters are read: a
    name longer than that is not a field name or a state word anyway.
    """
    return tuple(part.lower() for part in _WORD.findall(name[:_MAX_NAME_CHARS]))


def compact(name: str) -> str:
    """The words of `name` run together: "last-Updated_at" -> "lastupdatedat"."""
    return "".join(words_of(name))


def items_of(node: dict[object, object]) -> list[tuple[str, object]]:
    """The string-keyed entries of an object, at most MAX_ITEMS of them."""
    found: list[tuple[str, object]] = []
    for key, value in node.items():
        if isinstance(key, str):
            found.append((key, value))
            if len(found) >= MAX_ITEMS:
                break
    return found


def kind_of(value: object) -> str:
    """The JSON name of a value's type, for messages (never the value itself)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list | tuple):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return f"a {type(value).__name__}"


def describe_shape(payload: object) -> str:
    """Say what the payload looked like by its key names only, for BAD_PAYLOAD messages.

    Values are never included (they might be anything, including something secret); key names
    are shown as dotted paths, array items as `[]`, control characters replaced, and the whole
    list truncated, so the message stays one readable line.
    """
    if not isinstance(payload, dict | list | tuple):
        return f"got {kind_of(payload)}"
    seen: list[str] = []
    queue: deque[tuple[str, object, int]] = deque([("", payload, 0)])
    visited = 0
    truncated = False
    while queue and len(seen) < _MAX_SEEN_KEYS and visited < MAX_CONTAINERS:
        prefix, node, depth = queue.popleft()
        visited += 1
        children: list[tuple[str, object]]
        if isinstance(node, dict):
            children = [(f"{prefix}{printable_key(key)}", value) for key, value in items_of(node)]
        elif isinstance(node, list | tuple):
            children = [(f"{prefix}[]", item) for item in node[:MAX_ITEMS]]
        else:
            continue
        for path, child in children:
            if isinstance(node, dict) and path not in seen:
                if len(seen) >= _MAX_SEEN_KEYS:
                    truncated = True
                    break
                seen.append(path)
            if depth + 1 < _MAX_SEEN_DEPTH and isinstance(child, dict | list | tuple):
                joiner = "" if isinstance(child, list | tuple) else "."
                queue.append((path + joiner, child, depth + 1))
    if not seen:
        return f"got {kind_of(payload)} with no keys"
    truncated = truncated or (bool(queue) and len(seen) >= _MAX_SEEN_KEYS)
    listed = ", ".join(seen)
    if len(listed) > _MAX_SEEN_CHARS:
        listed, truncated = listed[:_MAX_SEEN_CHARS], True
    if truncated:
        listed += " ..."
    return f"got {kind_of(payload)}; keys seen: {listed}"


def printable_key(key: str) -> str:
    """A key name fit for a one-line message: control characters replaced, long names cut."""
    shown = "".join(char if char.isprintable() else "?" for char in key[:_MAX_KEY_CHARS])
    return shown + ("..." if len(key) > _MAX_KEY_CHARS else "")
