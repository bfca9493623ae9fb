"""`tqe-monitor history`: what changed and which conditions came and went, from the store."""

from __future__ import annotations

import argparse
import json
import sys
from datetime import UTC, datetime, timedelta

from tqe_monitor.app.common import load_or_report
from tqe_monitor.config.durations import parse_duration
from tqe_monitor.poller import utc_now
from tqe_monitor.store import HistoryEntry, SqliteStore, StoreError

EXIT_OK, EXIT_CONFIG = 0, 2


def cmd_history(args: argparse.Namespace) -> int:
    """Print transitions and conditions since `--since` (default 24h), oldest first."""
    loaded = load_or_report(args.config)
    if loaded is None:
        return EXIT_CONFIG
    try:
        since = _start_of(parse_duration(args.since))
    except ValueError as exc:
        print(f"usage error: --since: {exc}", file=sys.stderr)
        return EXIT_CONFIG
    path = loaded.settings.storage.path
    if not path.exists():
        print(f"no store at {path} yet: the daemon creates it when it runs", file=sys.stderr)
        return EXIT_OK
    try:
        store = SqliteStore(path)
    except StoreError as exc:
        print(f"store error: {exc}", file=sys.stderr)
        return EXIT_CONFIG
    try:
        entries = store.history(since=since, target=args.target)
    finally:
        store.close()
    text = _as_json(entries) if args.json else _as_text(entries)
    print(loaded.redactor(text))
    return EXIT_OK


def _start_of(seconds: float) -> datetime:
    """`seconds` before now, or the earliest time there is when that reaches past it: a huge
    `--since` (1000000d) means "everything", not a traceback."""
    try:
        return utc_now() - timedelta(seconds=seconds)
    except OverflowError:
        return datetime.min.replace(tzinfo=UTC)


def _as_json(entries: list[HistoryEntry]) -> str:
    return json.dumps(
        [
            {
                "at": e.at.isoformat(),
                "service": e.service,
                "target": e.target or None,
                "kind": e.what,
                "name": e.name,
                "change": e.change,
                "severity": e.severity or None,
                "details": e.details,
            }
            for e in entries
        ],
        indent=2,
        default=str,
    )


def _as_text(entries: list[HistoryEntry]) -> str:
    if not entries:
        return "no history in this period"
    lines = []
    for e in entries:
        where = f"{e.service}/{e.target}" if e.target else e.service
        severity = f" [{e.severity}]" if e.severity else ""
        lines.append(f"{e.at:%Y-%m-%d %H:%M:%S}Z  {where:<30} {e.name:<28} {e.change}{severity}")
    return "\n".join(lines)
