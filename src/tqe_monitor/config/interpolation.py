"""`${VAR}` and `${VAR:-default}` in YAML strings, so secrets stay in the environment.

Interpolation runs on the parsed YAML (string values only, never keys), before validation, so
every problem can be reported with the field path it was found at. `$${` writes a literal `${`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

_REFERENCE = re.compile(r"\$\$\{|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


@dataclass
class Interpolation:
    """The outcome of interpolating a document: the new document, its problems, and every value
    that came from the environment (kept so error output can be scrubbed of them)."""

    document: object
    problems: list[str] = field(default_factory=list)
    substituted: set[str] = field(default_factory=set)


def interpolate(document: object, environ: Mapping[str, str]) -> Interpolation:
    """Replace environment references in every string of `document` (a parsed YAML tree)."""
    result = Interpolation(document=None)
    result.document = _walk(document, environ, "", result)
    return result


def _walk(node: object, environ: Mapping[str, str], path: str, result: Interpolation) -> object:
    if isinstance(node, str):
        return _substitute(node, environ, path, result)
    if isinstance(node, dict):
        return {
            key: _walk(value, environ, _join(path, str(key)), result) for key, value in node.items()
        }
    if isinstance(node, list):
        return [_walk(item, environ, f"{path}[{i}]", result) for i, item in enumerate(node)]
    return node


def _substitute(text: str, environ: Mapping[str, str], path: str, result: Interpolation) -> str:
    def replace(match: re.Match[str]) -> str:
        if match.group(0) == "$${":
            return "${"
        name, default = match.group(1), match.group(2)
        value = environ.get(name)
        if value is None or (value == "" and default is not None):
            if default is None:
                result.problems.append(
                    f"{path or '<root>'}: environment variable {name} is not set"
                )
                return ""
            value = default
        if value:
            result.substituted.add(value)
        return value

    return _REFERENCE.sub(replace, text)


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key
