"""Payload renderers: the same world, served in several plausible JSON shapes.

The interface document does not show the /status and /wallet payloads, so the real service could
use any of these; the monitor must cope with all of them (or be configured for `custom`).
States are rendered in the service's vocabulary ("fully operational", "degraded performance",
"maintenance") in each shape's own spelling.

default
    status ``{"platform": {"status": "Fully Operational"}, "ai_service": {"status":
    "Degraded Performance"}, "updated_at": "2026-11-21T04:35:00Z"}`` (third word: "Under
    Maintenance"); wallet ``{"remaining_words": 123, "last_update": "2026-11-21T04:35:00Z"}``.
envelope_camel
    status ``{"data": {"platformStatus": "Fully Operational", "aiServiceStatus": "Under
    Maintenance"}}``; wallet ``{"data": {"remainingWords": 5, "lastUpdated": 1795321700000}}``
    (epoch milliseconds).
components_list
    status ``{"components": [{"name": "Platform", "state": "operational"}, {"name": "AI Service",
    "state": "degraded_performance"}]}`` (third word: "under_maintenance"); wallet
    ``{"wallet": {"words_remaining": "12,345", "updated": 1795321700}}`` (a string with thousands
    separators, and epoch seconds).
kebab
    status ``{"platform-status": "OPERATIONAL", "ai-service-status": "MAINTENANCE"}`` (or
    "DEGRADED"); wallet ``{"word-balance": 5, "last-modified": "2026-11-21 04:35:00"}`` (UTC,
    no zone marker).
custom
    Deliberately unguessable, for the monitor's field-mapping configuration: status
    ``{"svc": {"p": "green", "m": "amber"}}`` (p = platform, m = the AI model service; green /
    amber / blue = operational / degraded / maintenance); wallet ``{"acct": {"w": 5, "t":
    "2026-11-21T04:35:00+00:00"}}`` (ISO 8601 with offset).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Final

from tqe_monitor.simulator.vocabulary import Component, Shape, State

JsonObject = dict[str, object]

_TITLE_WORDS: Final[dict[State, str]] = {
    State.OPERATIONAL: "Fully Operational",
    State.DEGRADED: "Degraded Performance",
    State.MAINTENANCE: "Under Maintenance",
}
_SNAKE_WORDS: Final[dict[State, str]] = {
    State.OPERATIONAL: "operational",
    State.DEGRADED: "degraded_performance",
    State.MAINTENANCE: "under_maintenance",
}
_UPPER_WORDS: Final[dict[State, str]] = {
    State.OPERATIONAL: "OPERATIONAL",
    State.DEGRADED: "DEGRADED",
    State.MAINTENANCE: "MAINTENANCE",
}
_COLOUR_WORDS: Final[dict[State, str]] = {
    State.OPERATIONAL: "green",
    State.DEGRADED: "amber",
    State.MAINTENANCE: "blue",
}
# A valid JSON document that no status or wallet reader should claim to understand.
UNKNOWN_SHAPE_BODY: Final[JsonObject] = {
    "result": {"kind": "opaque", "values": [3, 1, 4]},
    "meta": {"version": "9"},
}


def _iso_z(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def render_status(
    shape: Shape, status: Mapping[Component, State], updated_at: datetime
) -> JsonObject:
    """The /status payload for these component states in `shape`."""
    platform, ai = status[Component.PLATFORM], status[Component.AI_SERVICE]
    match shape:
        case Shape.DEFAULT:
            return {
                "platform": {"status": _TITLE_WORDS[platform]},
                "ai_service": {"status": _TITLE_WORDS[ai]},
                "updated_at": _iso_z(updated_at),
            }
        case Shape.ENVELOPE_CAMEL:
            return {
                "data": {
                    "platformStatus": _TITLE_WORDS[platform],
                    "aiServiceStatus": _TITLE_WORDS[ai],
                }
            }
        case Shape.COMPONENTS_LIST:
            return {
                "components": [
                    {"name": "Platform", "state": _SNAKE_WORDS[platform]},
                    {"name": "AI Service", "state": _SNAKE_WORDS[ai]},
                ]
            }
        case Shape.KEBAB:
            return {
                "platform-status": _UPPER_WORDS[platform],
                "ai-service-status": _UPPER_WORDS[ai],
            }
        case Shape.CUSTOM:
            return {"svc": {"p": _COLOUR_WORDS[platform], "m": _COLOUR_WORDS[ai]}}


def render_wallet(shape: Shape, remaining_words: int, updated_at: datetime) -> JsonObject:
    """The /wallet payload for this balance and last-update time in `shape`."""
    match shape:
        case Shape.DEFAULT:
            return {"remaining_words": remaining_words, "last_update": _iso_z(updated_at)}
        case Shape.ENVELOPE_CAMEL:
            millis = round(updated_at.timestamp() * 1000)
            return {"data": {"remainingWords": remaining_words, "lastUpdated": millis}}
        case Shape.COMPONENTS_LIST:
            seconds = int(updated_at.timestamp())
            return {"wallet": {"words_remaining": f"{remaining_words:,}", "updated": seconds}}
        case Shape.KEBAB:
            naive = updated_at.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S")
            return {"word-balance": remaining_words, "last-modified": naive}
        case Shape.CUSTOM:
            iso = updated_at.astimezone(UTC).replace(microsecond=0).isoformat()
            return {"acct": {"w": remaining_words, "t": iso}}


def render_error(code: str, message: str) -> JsonObject:
    """The error body of every non-2xx JSON answer (the same in every shape)."""
    return {"error": {"code": code, "message": message}}
