"""`tqe-monitor notify-test`: send one test message to each channel and say what happened."""

from __future__ import annotations

import argparse
import asyncio
import sys

from tqe_monitor import __version__
from tqe_monitor.app.common import load_or_report, report_config_error
from tqe_monitor.config import ConfigError
from tqe_monitor.logging_setup import configure_logging
from tqe_monitor.notify import Channel, SendResult, build_channels

EXIT_OK, EXIT_FAILURE, EXIT_CONFIG = 0, 1, 2


def cmd_notify_test(args: argparse.Namespace) -> int:
    """Exit 0 if every selected channel accepted the test message, 1 if one did not."""
    loaded = load_or_report(args.config)
    if loaded is None:
        return EXIT_CONFIG
    configure_logging(loaded.redactor, level=args.log_level, fmt=args.log_format)
    try:
        channels = build_channels(loaded.settings.notifications)
    except ConfigError as exc:
        report_config_error(exc)
        return EXIT_CONFIG
    if args.channel:
        unknown = sorted(set(args.channel) - set(channels))
        if unknown:
            print(
                f"config error: --channel: no such channel: {', '.join(unknown)}", file=sys.stderr
            )
            return EXIT_CONFIG
        channels = {name: channels[name] for name in args.channel}
    if not channels:
        print("no notification channels configured", file=sys.stderr)
        return EXIT_CONFIG
    results = asyncio.run(_send_all(channels))
    width = max(len(name) for name in results)
    for name, result in results.items():
        outcome = "ok" if result.ok else f"FAILED: {result.error}"
        print(loaded.redactor(f"{name:<{width}}  {outcome}"))
    return EXIT_OK if all(r.ok for r in results.values()) else EXIT_FAILURE


async def _send_all(channels: dict[str, Channel]) -> dict[str, SendResult]:
    title = "tqe-monitor test notification"
    body = (
        f"This is a test from tqe-monitor {__version__}. If you can read it, this channel "
        "will receive alerts about the TQE service and its word balances."
    )
    sent = await asyncio.gather(*(c.send(title, body, "info") for c in channels.values()))
    return dict(zip(channels, sent, strict=True))
