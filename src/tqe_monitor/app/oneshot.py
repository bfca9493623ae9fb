"""Commands that run once and exit: `check-config` and `poll`."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Sequence
from itertools import groupby
from pathlib import Path
from typing import Any

import yaml

from tqe_monitor.app.common import build_client, load_or_report, report_config_error
from tqe_monitor.config import ConfigError, ResolvedTarget, resolve_targets
from tqe_monitor.config.loader import KeyFileProblem, key_from
from tqe_monitor.config.render import effective_config
from tqe_monitor.logging_setup import configure_logging
from tqe_monitor.poller import Poller, StatusOutcome, WalletOutcome

EXIT_OK, EXIT_FAILURE, EXIT_CONFIG = 0, 1, 2
_POLL_CONCURRENCY = 32


def cmd_check_config(args: argparse.Namespace) -> int:
    """Validate the config, print it with secrets masked; exit 2 naming every bad field."""
    loaded = load_or_report(args.config)
    if loaded is None:
        return EXIT_CONFIG
    settings, redact = loaded.settings, loaded.redactor
    print(redact(yaml.safe_dump(effective_config(settings), sort_keys=False)), end="")
    for name, target in settings.targets.items():
        if target.api_key_file is not None:
            key = key_from(target, Path.read_text)
            if isinstance(key, KeyFileProblem):
                # A key file is often mounted only where the daemon runs (a container secret):
                # checking the config elsewhere must still pass, so this is a warning here and
                # an error at `run`.
                print(f"warning: targets.{name}.api_key_file: {key.message}", file=sys.stderr)
            else:
                redact.add(key)
    services = {t.service_name for t in settings.targets.values()}
    print(
        f"config OK: {loaded.path}: {len(settings.targets)} target(s), {len(services)} service(s)",
        file=sys.stderr,
    )
    return EXIT_OK


def cmd_poll(args: argparse.Namespace) -> int:
    """Poll every (or the named) target once; exit 1 if any poll failed."""
    loaded = load_or_report(args.config)
    if loaded is None:
        return EXIT_CONFIG
    try:
        targets = resolve_targets(loaded.settings)
    except ConfigError as exc:
        report_config_error(exc)
        return EXIT_CONFIG
    loaded.redactor.add(*(t.api_key for t in targets))
    configure_logging(loaded.redactor, level=args.log_level, fmt=args.log_format)
    if args.target:
        unknown = sorted(set(args.target) - {t.name for t in targets})
        if unknown:
            print(f"config error: --target: no such target: {', '.join(unknown)}", file=sys.stderr)
            return EXIT_CONFIG
        targets = [t for t in targets if t.name in args.target]
    targets = args.shard.select(targets, lambda t: t.name)
    statuses, wallets = asyncio.run(
        poll_everything(targets, retries=loaded.settings.defaults.retries)
    )
    render = _as_json if args.json else _as_table
    print(loaded.redactor(render(statuses, wallets)))
    failed = any(o.error for o in statuses) or any(o.error for o in wallets)
    return EXIT_FAILURE if failed else EXIT_OK


async def poll_everything(
    targets: Sequence[ResolvedTarget], *, retries: int
) -> tuple[list[StatusOutcome], list[WalletOutcome]]:
    """Every service's status once (with key fallback) and every target's wallet once."""
    limit = asyncio.Semaphore(_POLL_CONCURRENCY)
    async with build_client(retries) as client:
        poller = Poller(client)

        async def status(service: str, group: list[ResolvedTarget]) -> StatusOutcome:
            async with limit:
                return await poller.poll_status(service, group)

        async def wallet(target: ResolvedTarget) -> WalletOutcome:
            async with limit:
                return await poller.poll_wallet(target)

        by_service = groupby(sorted(targets, key=lambda t: t.service), key=lambda t: t.service)
        statuses = await asyncio.gather(*(status(s, list(g)) for s, g in by_service))
        wallets = await asyncio.gather(*(wallet(t) for t in targets))
    return list(statuses), list(wallets)


def _status_dict(outcome: StatusOutcome) -> dict[str, Any]:
    result: dict[str, Any] = {"service": outcome.service, "target": outcome.target}
    if outcome.reading is not None:
        result |= {str(k): str(v) for k, v in outcome.reading.by_component().items()}
    result["rejected_targets"] = list(outcome.rejected_targets)
    result["error"] = _error_dict(outcome.error)
    return result


def _wallet_dict(outcome: WalletOutcome) -> dict[str, Any]:
    result: dict[str, Any] = {"service": outcome.service, "target": outcome.target}
    if outcome.reading is not None:
        updated = outcome.reading.updated_at
        result["remaining_words"] = outcome.reading.remaining_words
        result["updated_at"] = updated.isoformat() if updated else None
    result["error"] = _error_dict(outcome.error)
    return result


def _error_dict(error: Exception | None) -> dict[str, Any] | None:
    if error is None:
        return None
    reason = getattr(error, "reason", None)
    return {"reason": str(reason) if reason else "error", "message": getattr(error, "message", "")}


def _as_json(statuses: list[StatusOutcome], wallets: list[WalletOutcome]) -> str:
    document = {
        "statuses": [_status_dict(o) for o in statuses],
        "wallets": [_wallet_dict(o) for o in wallets],
    }
    return json.dumps(document, indent=2)


def _as_table(statuses: list[StatusOutcome], wallets: list[WalletOutcome]) -> str:
    rows = [("SERVICE", "TARGET", "ENDPOINT", "RESULT")]
    for s in statuses:
        if s.reading is not None:
            text = " ".join(f"{k}={v}" for k, v in s.reading.by_component().items())
        else:
            text = _error_text(s.error)
        if s.rejected_targets:
            text += f" (key rejected: {', '.join(s.rejected_targets)})"
        rows.append((s.service, s.target or "-", "status", text))
    for w in wallets:
        if w.reading is not None:
            updated = w.reading.updated_at.isoformat() if w.reading.updated_at else "unknown"
            text = f"remaining_words={w.reading.remaining_words} updated_at={updated}"
        else:
            text = _error_text(w.error)
        rows.append((w.service, w.target, "wallet", text))
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    return "\n".join(
        "  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row[:3])) + "  " + row[3]
        for row in rows
    )


def _error_text(error: Exception | None) -> str:
    details = _error_dict(error) or {"reason": "error", "message": ""}
    return f"FAILED {details['reason']}: {details['message']}"


__all__ = ["cmd_check_config", "cmd_poll", "poll_everything"]
