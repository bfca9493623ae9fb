"""Writes the Grafana dashboards in this folder from code: `python dashboards/generate.py`.

The JSON files are committed so a user can import or provision them without Python; this script
is their source. `--check` regenerates in memory and exits 1 if a committed file differs (the
test suite does the same), so a hand edit of the JSON cannot drift from the code.

Built with grafana-foundation-sdk (the pinned test extra): its builders produce the classic
dashboard JSON model that Grafana's file provisioning and the import dialog read.
"""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from collections.abc import Callable
from pathlib import Path

from grafana_foundation_sdk.cog.builder import Builder
from grafana_foundation_sdk.cog.encoder import JSONEncoder
from grafana_foundation_sdk.models import dashboard as model

HERE = Path(__file__).resolve().parent


def _builders() -> dict[str, Callable[[], Builder[model.Dashboard]]]:
    # Imported here so that `HERE` is on sys.path first when this file is loaded by path.
    if str(HERE) not in sys.path:
        sys.path.insert(0, str(HERE))
    from dash_overview import overview  # noqa: PLC0415
    from dash_target import target_detail  # noqa: PLC0415

    return {"tqe-overview.json": overview, "tqe-target.json": target_detail}


def render(board: Builder[model.Dashboard]) -> str:
    """Stable text: sorted keys and a final newline, so a diff shows only real changes."""
    return json.dumps(board.build(), cls=JSONEncoder, indent=2, sort_keys=True) + "\n"


def generate() -> dict[str, str]:
    """File name -> JSON text of every dashboard."""
    with warnings.catch_warnings():
        # The SDK marks the classic dashboard model deprecated in favour of the v2 resource
        # format, which file provisioning of Grafana 10-12 does not read.
        warnings.simplefilter("ignore", DeprecationWarning)
        return {name: render(build()) for name, build in _builders().items()}


def stale(directory: Path = HERE) -> list[str]:
    """Names of committed dashboards that differ from what the code generates."""
    return [
        name
        for name, text in generate().items()
        if not (directory / name).exists() or (directory / name).read_text() != text
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if a file is out of date")
    args = parser.parse_args(argv)
    if args.check:
        outdated = stale()
        for name in outdated:
            print(f"{name} is out of date: run python dashboards/generate.py", file=sys.stderr)
        return 1 if outdated else 0
    for name, text in generate().items():
        (HERE / name).write_text(text)
        print(f"wrote dashboards/{name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
