"""How a panel shows one value: its display name, text and colour (for preview_render.py).

Follows Grafana's rules for the options the tqe-monitor dashboards use: value mappings win,
then a per-query or per-name fixed colour, then the thresholds; units `short`, `s`,
`percentunit` and `suffix:`.
"""

from __future__ import annotations

import re
from typing import Any

COLOURS = {
    "green": "#56A64B",
    "blue": "#3274D9",
    "yellow": "#E0B400",
    "orange": "#FF780A",
    "red": "#E02F44",
    "dark-red": "#AD0317",
    "purple": "#8F3BB8",
    "text": "#6E6E7E",
}


def hex_colour(name: str) -> str:
    return COLOURS.get(name, name)


def display_name(panel: dict[str, Any], ref: str, labels: dict[str, str]) -> str:
    target = next(t for t in panel["targets"] if t["refId"] == ref)
    legend = target.get("legendFormat", "__auto")
    if legend == "__auto":
        return ", ".join(f"{k}={v}" for k, v in sorted(labels.items()) if k != "__name__")
    return re.sub(r"\{\{\s*(\w+)\s*\}\}", lambda m: labels.get(m[1], ""), legend).strip()


def _mappings(panel: dict[str, Any], field: str | None) -> list[dict[str, Any]]:
    config = panel["fieldConfig"]
    if field is None:
        return list(config["defaults"].get("mappings", []))
    found: list[dict[str, Any]] = []
    for override in config["overrides"]:
        if override["matcher"] == {"id": "byName", "options": field}:
            for prop in override["properties"]:
                if prop["id"] == "mappings":
                    found += prop["value"]
    return found


def mapped(panel: dict[str, Any], value: float | str, field: str | None = None) -> tuple[str, str]:
    """(text, colour) from the value mappings, or ("", "") when none applies."""
    key = value if isinstance(value, str) else f"{value:g}"
    for mapping in _mappings(panel, field):
        result = mapping["options"].get(key)
        if mapping["type"] == "value" and result is not None:
            return result.get("text", ""), hex_colour(result.get("color", ""))
    return "", ""


def series_colour(panel: dict[str, Any], ref: str, name: str) -> str:
    """A series' fixed colour from a byFrameRefID, byName or byRegexp override, or ""."""
    for override in panel["fieldConfig"]["overrides"]:
        matcher = override["matcher"]
        hit = (
            (matcher["id"] == "byFrameRefID" and matcher["options"] == ref)
            or (matcher["id"] == "byName" and matcher["options"] == name)
            or (matcher["id"] == "byRegexp" and re.fullmatch(matcher["options"], name))
        )
        for prop in override["properties"] if hit else []:
            if prop["id"] == "color" and prop["value"].get("mode") == "fixed":
                return hex_colour(prop["value"]["fixedColor"])
    return ""


def fixed_colours(panel: dict[str, Any]) -> dict[str, str]:
    """Query refId (or field name) -> fixed colour, from the panel's colour overrides."""
    found = {}
    for override in panel["fieldConfig"]["overrides"]:
        for prop in override["properties"]:
            if prop["id"] == "color" and prop["value"].get("mode") == "fixed":
                found[override["matcher"]["options"]] = hex_colour(prop["value"]["fixedColor"])
    return found


def colour(panel: dict[str, Any], name: str, value: float) -> str:
    by_name = fixed_colours(panel).get(name)
    if by_name:
        return by_name
    chosen = "green"
    for step in panel["fieldConfig"]["defaults"]["thresholds"]["steps"]:
        if step["value"] is None or value >= step["value"]:
            chosen = step["color"]
    return hex_colour(chosen)


def format_value(panel: dict[str, Any], value: float) -> str:
    defaults = panel["fieldConfig"]["defaults"]
    value = value + 0.0 if abs(value) >= 0.005 else 0.0  # no "-0"
    unit, decimals = defaults.get("unit", "short"), defaults.get("decimals")
    if unit == "percentunit":
        return f"{value * 100:.{1 if decimals is None else decimals}f}%"
    if unit == "s":
        return _duration(value)
    if unit.startswith("suffix:"):
        return f"{round(value) + 0:,}{unit.removeprefix('suffix:')}"
    for size, suffix in ((1e9, " Bil"), (1e6, " Mil"), (1e3, " K")):
        if abs(value) >= size:
            scaled = value / size
            return f"{scaled:.{_places(scaled)}f}{suffix}"
    return f"{value:.{decimals if decimals is not None else _places(value)}f}"


def _places(value: float) -> int:
    return 0 if abs(value) >= 100 or value == int(value) else 1 if abs(value) >= 10 else 2


def _duration(seconds: float) -> str:
    for size, name in ((86400, "day"), (3600, "hour"), (60, "min")):
        if abs(seconds) >= size:
            return f"{seconds / size:.1f} {name}"
    if seconds == 0:
        return "0 s"
    if abs(seconds) < 1:
        return f"{seconds * 1000:.0f} ms"
    return f"{seconds:.2f} s" if abs(seconds) < 10 else f"{seconds:.0f} s"
