"""The effective configuration as `check-config` prints it: defaults applied, secrets masked."""

from __future__ import annotations

from typing import Any

from pydantic import SecretStr

from tqe_monitor.config.durations import format_duration
from tqe_monitor.config.models import Settings
from tqe_monitor.redaction import MASK

_DURATION_KEYS = frozenset({"status_interval", "wallet_interval", "timeout"})
_OTHER_DURATIONS = frozenset({"forecast_window", "forecast_within", "stale_after", "retention"})


def effective_config(settings: Settings) -> dict[str, Any]:
    """A plain dict of the settings: secrets as `***`, durations in human form, services derived."""
    rendered: dict[str, Any] = _render(settings.model_dump(mode="python"))
    defaults = rendered["defaults"]
    for name, target in settings.targets.items():
        shown = rendered["targets"][name]
        shown["service"] = target.service_name
        for key in _DURATION_KEYS:
            if shown.get(key) is None:
                shown[key] = defaults[key]  # what the daemon will use, not "null"
    return rendered


def _render(node: object, key: str = "") -> Any:
    if isinstance(node, SecretStr):
        return MASK
    if isinstance(node, dict):
        return {str(k): _render(v, str(k)) for k, v in node.items()}
    if isinstance(node, list | tuple):
        return [_render(item) for item in node]
    if key in _DURATION_KEYS | _OTHER_DURATIONS and isinstance(node, float):
        return format_duration(node)
    if hasattr(node, "__fspath__"):
        return str(node)
    if hasattr(node, "value") and not isinstance(node, int | float | str | bool):
        return node.value  # enums (state words in mappings)
    return node
