"""The `tqe-monitor` command line: parses arguments and hands each command to `app`.

Exit codes: 0 success, 1 a runtime failure (e.g. a poll failed), 2 a configuration or usage error.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from tqe_monitor import __version__
from tqe_monitor.sharding import ALL, Shard

EXIT_OK, EXIT_FAILURE, EXIT_CONFIG = 0, 1, 2


def _add_config(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--config",
        metavar="PATH",
        help="config file (default: $TQE_MONITOR_CONFIG, else ./tqe-monitor.yaml)",
    )


def _add_logging(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--log-level", default="info", choices=["debug", "info", "warning", "error"]
    )
    parser.add_argument(
        "--log-format",
        default="auto",
        choices=["auto", "json", "console"],
        help="auto: JSON when stderr is not a terminal, readable lines otherwise",
    )


def _shard(text: str) -> Shard:
    try:
        return Shard.parse(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _add_shard(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--shard",
        type=_shard,
        default=ALL,
        metavar="I/N",
        help="only the targets of shard I of N (0-based; by a stable hash of the target name)",
    )


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser (exposed for the tests and for generated docs)."""
    parser = argparse.ArgumentParser(
        prog="tqe-monitor",
        description="Watches a Translation Quality Evaluation service: state, word balance, "
        "Prometheus metrics and alerts.",
    )
    parser.add_argument("--version", action="version", version=f"tqe-monitor {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    run = commands.add_parser("run", help="run the monitoring daemon")
    _add_config(run)
    _add_shard(run)
    _add_logging(run)

    demo = commands.add_parser(
        "demo", help="run the simulator with a scripted scenario and the daemon against it"
    )
    demo.add_argument(
        "--duration",
        type=float,
        default=None,
        metavar="S",
        help="stop after S seconds (default: run until interrupted)",
    )
    demo.add_argument(
        "--listen",
        default="127.0.0.1:9787",
        metavar="ADDR",
        help="where the daemon serves /metrics (default: 127.0.0.1:9787)",
    )
    _add_logging(demo)

    simulate = commands.add_parser("simulate", help="run the TQE service simulator")
    simulate.add_argument("--port", type=int, required=True, metavar="N")
    simulate.add_argument("--host", default="127.0.0.1")
    simulate.add_argument(
        "--scenario",
        metavar="FILE",
        help="scenario YAML file, or a built-in name: default, demo (default: default)",
    )
    simulate.add_argument("--shape", metavar="NAME", help="payload shape to serve")
    _add_logging(simulate)

    check = commands.add_parser(
        "check-config", help="validate the config and print it with secrets masked"
    )
    _add_config(check)

    poll = commands.add_parser("poll", help="poll every target once and print the results")
    _add_config(poll)
    _add_shard(poll)
    poll.add_argument("--json", action="store_true", help="print JSON instead of a table")
    poll.add_argument(
        "--target", action="append", metavar="NAME", help="poll only this target (repeatable)"
    )
    _add_logging(poll)
    notify_test = commands.add_parser(
        "notify-test", help="send a test notification to each channel and print the outcome"
    )
    _add_config(notify_test)
    notify_test.add_argument(
        "--channel", action="append", metavar="NAME", help="only this channel (repeatable)"
    )
    _add_logging(notify_test)

    history = commands.add_parser("history", help="print state changes and conditions")
    _add_config(history)
    history.add_argument("--target", metavar="NAME", help="only this target's conditions")
    history.add_argument(
        "--since", default="24h", metavar="DURATION", help="how far back (default: 24h)"
    )
    history.add_argument("--json", action="store_true", help="print JSON")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script and of `python -m tqe_monitor`."""
    args = build_parser().parse_args(argv)
    from tqe_monitor import app  # noqa: PLC0415 - late: `--help`, `--version` stay instant

    handlers = {
        "run": app.cmd_run,
        "demo": app.cmd_demo,
        "simulate": app.cmd_simulate,
        "check-config": app.cmd_check_config,
        "poll": app.cmd_poll,
        "history": app.cmd_history,
        "notify-test": app.cmd_notify_test,
    }
    try:
        return handlers[args.command](args)
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
