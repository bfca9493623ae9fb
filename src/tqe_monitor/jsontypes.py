"""The type of parsed JSON, and the one strict way tqe-monitor parses a body into it.

The service does not document its payloads, so the client hands over exactly what the parser
built and nothing more specific; this alias lets the client and the normalizer say so without
`Any`.
"""

import json
from typing import NoReturn, TypeAlias

JsonValue: TypeAlias = dict[str, "JsonValue"] | list["JsonValue"] | str | int | float | bool | None
"""Any value JSON can encode: objects, arrays, strings, numbers, booleans and null."""


def parse_json(body: bytes) -> JsonValue:
    """Parse UTF-8 JSON text (a leading BOM tolerated) strictly.

    Raises `UnicodeDecodeError` when the bytes are not UTF-8 and `ValueError` when the text is
    not JSON, including what Python's parser accepts by default but JSON forbids (NaN, Infinity)
    and nesting too deep to parse (which would otherwise surface as a `RecursionError`).
    """
    text = body.decode("utf-8-sig")
    try:
        value: JsonValue = json.loads(text, parse_constant=_reject_constant)
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None
    return value


def _reject_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not JSON")
