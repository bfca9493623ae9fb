"""Long-running commands: `run` (the daemon), `simulate` (the fake service) and `demo` (both).

The simulator is imported inside the functions that need it: the daemon's run path never loads
it, so a production process cannot expose the simulator's control endpoint by accident.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from tqe_monitor.app.common import load_or_report, report_config_error
from tqe_monitor.app.daemon import StartupError, install_stop_signals, run_daemon
from tqe_monitor.config import ConfigError, resolve_targets
from tqe_monitor.logging_setup import configure_logging
from tqe_monitor.redaction import Redactor
from tqe_monitor.store import StoreError

EXIT_OK, EXIT_FAILURE, EXIT_CONFIG = 0, 1, 2


def cmd_run(args: argparse.Namespace) -> int:
    """Run the monitoring daemon until SIGTERM/SIGINT."""
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
    targets = args.shard.select(targets, lambda t: t.name)  # every key is still redacted

    async def main() -> None:
        stop = asyncio.Event()
        install_stop_signals(stop)
        await run_daemon(loaded.settings, targets, stop)

    try:
        asyncio.run(main())
    except ConfigError as exc:  # the web config file is read at start
        report_config_error(exc)
        return EXIT_CONFIG
    except StoreError as exc:  # corrupt, unwritable or too new: never reset silently
        print(f"store error: {exc}", file=sys.stderr)
        return EXIT_CONFIG
    except StartupError as exc:
        print(f"startup error: {exc}", file=sys.stderr)
        return EXIT_FAILURE
    return EXIT_OK


def cmd_simulate(args: argparse.Namespace) -> int:
    """Serve the simulated TQE service until interrupted."""
    from tqe_monitor.simulator import (  # noqa: PLC0415 - the daemon path never loads it
        ScenarioError,
        builtin_scenario,
        load_scenario,
        serve,
    )

    configure_logging(Redactor(), level=args.log_level, fmt=args.log_format)
    try:
        scenario = (
            load_scenario(Path(args.scenario)) if args.scenario else builtin_scenario("default")
        )
        if args.shape:
            scenario = scenario.with_shape(args.shape)
    except (ScenarioError, ValueError) as exc:
        print(f"scenario error: {exc}", file=sys.stderr)
        return EXIT_CONFIG

    async def main() -> int:
        stop = asyncio.Event()
        install_stop_signals(stop)
        server = asyncio.create_task(
            serve(
                scenario,
                args.host,
                args.port,
                ready=lambda url: print(f"simulator serving {url}", flush=True),
            )
        )
        stopper = asyncio.create_task(stop.wait())
        await asyncio.wait([server, stopper], return_when=asyncio.FIRST_COMPLETED)
        stopper.cancel()
        if server.done() and server.exception() is not None:
            error = server.exception()
            print(
                f"simulator error: cannot serve on {args.host}:{args.port}: {error}",
                file=sys.stderr,
            )
            return EXIT_FAILURE
        server.cancel()
        await asyncio.gather(server, return_exceptions=True)
        return EXIT_OK

    return asyncio.run(main())


def cmd_demo(args: argparse.Namespace) -> int:
    """The simulator with the demo scenario and the daemon against it, in one process."""
    from tqe_monitor.app.demo import run_demo  # noqa: PLC0415 - it loads the simulator

    configure_logging(Redactor(), level=args.log_level, fmt=args.log_format)
    try:
        return run_demo(listen=args.listen, duration=args.duration)
    except StartupError as exc:
        print(f"startup error: {exc}", file=sys.stderr)
        return EXIT_FAILURE
