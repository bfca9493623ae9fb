"""`tqe-monitor run`: builds the daemon's objects, runs them, and stops them cleanly.

Start-up order: the HTTP server first (so /healthz answers while the first polls run), then the
scheduler. Shutdown (SIGTERM/SIGINT): stop firing polls, drain the ones in flight, close the
client, close the server, exit 0.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from prometheus_client import CollectorRegistry

from tqe_monitor import __version__
from tqe_monitor.app.common import build_client
from tqe_monitor.config import ResolvedTarget, Settings
from tqe_monitor.logging_setup import get_logger
from tqe_monitor.metrics import MonitorMetrics
from tqe_monitor.monitor import Monitor
from tqe_monitor.poller import Poller
from tqe_monitor.scheduler import PollScheduler
from tqe_monitor.tracking import ComponentTracker
from tqe_monitor.web import Probes, StatusServer
from tqe_monitor.webconfig import WebConfig, load_web_config

log = get_logger(__name__)
DRAIN_GRACE_SECONDS = 5.0


@dataclass
class DaemonHandle:
    """What a running daemon exposes to its caller (the demo prints the URLs)."""

    monitor: Monitor
    server: StatusServer
    scheduler: PollScheduler
    registry: CollectorRegistry


def split_listen(listen: str) -> tuple[str, int]:
    """'127.0.0.1:9787' -> ('127.0.0.1', 9787); '[::1]:9787' -> ('::1', 9787)."""
    host, _, port = listen.rpartition(":")
    return host.strip("[]"), int(port)


async def run_daemon(
    settings: Settings,
    targets: Sequence[ResolvedTarget],
    stop: asyncio.Event,
    *,
    listen: str | None = None,
    on_started: Callable[[DaemonHandle], None] | None = None,
) -> None:
    """Run until `stop` is set, then drain and return."""
    web_config = (
        load_web_config(settings.server.web_config_file)
        if settings.server.web_config_file
        else WebConfig()
    )
    registry = CollectorRegistry()
    metrics = MonitorMetrics(registry, __version__)
    max_connections = max(10, min(200, len(targets)))
    async with build_client(settings.defaults.retries, max_connections) as client:
        monitor = Monitor(
            targets, poller=Poller(client), metrics=metrics, tracker=ComponentTracker()
        )
        scheduler = PollScheduler(monitor.jobs(), on_overrun=monitor.overrun)
        server = StatusServer(
            registry,
            Probes(
                healthy=lambda: scheduler.running,
                ready=monitor.readiness,
                state=monitor.snapshot,
            ),
            web_config,
            __version__,
        )
        host, port = split_listen(listen or settings.server.listen)
        await server.start(host, port)
        await scheduler.start()
        log.info(
            "started",
            listen=f"{host}:{server.port}",
            targets=len(targets),
            tls=web_config.tls,
            version=__version__,
        )
        if on_started is not None:
            on_started(DaemonHandle(monitor, server, scheduler, registry))
        try:
            await stop.wait()
        finally:
            log.info("stopping", inflight=scheduler.inflight)
            await scheduler.stop(DRAIN_GRACE_SECONDS)
            await server.stop()
    log.info("stopped")


def install_stop_signals(stop: asyncio.Event) -> None:
    """SIGTERM and SIGINT set `stop` (drain and exit 0) instead of killing the process."""
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
