"""User-supplied field paths, for payload shapes the auto-detection does not recognise.

The dataclasses are plain stdlib ones so the normalizer stays free of pydantic; the config module
validates them with pydantic, which honours `__pydantic_config__` (unknown fields are errors, so a
typo in a mapping is reported instead of silently falling back to auto-detection).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import ClassVar, Final

from tqe_monitor.errors import PollError, PollErrorReason
from tqe_monitor.models import ComponentState
from tqe_monitor.normalizer.keys import describe_shape, kind_of

_INDEX: Final = re.compile(r"[0-9]{1,9}")


@dataclass(frozen=True)
class StatusMapping:
    """Where the status payload keeps each state. A field left None is auto-detected.

    Paths are dotted keys, list indices as numbers: "data.platform.state",
    "components.0.status". A key that itself contains a dot cannot be addressed.

    Attributes:
        platform: path to the platform's state.
        ai_service: path to the AI service's state.
        overall: path to one state that applies to both (when the payload has only one);
            `platform`/`ai_service`, when also given, win for their component.
        states: extra state words -> state, compared case- and separator-insensitively and
            consulted before the built-in vocabulary (also during auto-detection).
    """

    __pydantic_config__: ClassVar[dict[str, str]] = {"extra": "forbid"}

    platform: str | None = None
    ai_service: str | None = None
    overall: str | None = None
    states: dict[str, ComponentState] = field(default_factory=dict)


@dataclass(frozen=True)
class WalletMapping:
    """Where the wallet payload keeps its fields (dotted paths). A field left None is detected."""

    __pydantic_config__: ClassVar[dict[str, str]] = {"extra": "forbid"}

    remaining_words: str | None = None
    updated_at: str | None = None


def bad_payload(message: str) -> PollError:
    """The one error the normalizer raises."""
    return PollError(PollErrorReason.BAD_PAYLOAD, message)


def resolve_path(payload: object, path: str) -> object:
    """The value at a dotted `path`; BAD_PAYLOAD naming the path (never a value) if absent.

    Keys match exactly: a configured path is a precise statement about the payload, so a key
    spelled differently is reported rather than guessed.
    """
    segments = path.split(".")
    if not all(segments):
        raise bad_payload(
            f"mapping path {path!r} is malformed: expected dotted keys such as data.platform.state"
        )
    node = payload
    for position, segment in enumerate(segments):
        where = ".".join(segments[:position]) or "the top level"
        if isinstance(node, dict):
            if segment not in node:
                raise bad_payload(
                    f"mapping path {path!r} does not resolve: no key {segment!r} at {where} "
                    f"({describe_shape(node)})"
                )
            node = node[segment]
        elif isinstance(node, list | tuple):
            if not _INDEX.fullmatch(segment) or int(segment) >= len(node):
                raise bad_payload(
                    f"mapping path {path!r} does not resolve: no item {segment!r} in the array "
                    f"at {where} ({len(node)} items)"
                )
            node = node[int(segment)]
        else:
            raise bad_payload(
                f"mapping path {path!r} does not resolve: {where} is {kind_of(node)}, "
                "not an object or an array"
            )
    return node
