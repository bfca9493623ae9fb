"""`tqe-monitor run`: builds the daemon's objects, runs them, and stops them cleanly.

Start-up order: the HTTP server first (so /healthz answers while the first polls run), then the
scheduler. Shutdown (SIGTERM/SIGINT): stop firing polls, drain the ones in flight, close the
client, close the server, exit 0.
"""

from __future__ import annotations

import asyncio
import gc
import signal
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import timedelta

from prometheus_client import CollectorRegistry

from tqe_monitor import __version__
from tqe_monitor.app.common import build_client
from tqe_monitor.app.policies import confirmations, router, wallet_policies
from tqe_monitor.condition_metrics import ConditionMetrics
from tqe_monitor.config import ResolvedTarget, Settings
from tqe_monitor.logging_setup import get_logger
from tqe_monitor.metrics import MonitorMetrics
from tqe_monitor.monitor import Monitor
from tqe_monitor.notify import (
    Channel,
    Dispatcher,
    MessageSettings,
    NotificationMetrics,
    Planner,
    build_channels,
)
from tqe_monitor.poller import Poller, utc_now
from tqe_monitor.recorder import Recorder
from tqe_monitor.scheduler import PollScheduler
from tqe_monitor.store import SqliteStore, StoreError
from tqe_monitor.tracking import ComponentTracker
from tqe_monitor.tracking.conditions import ConditionBook
from tqe_monitor.tracking.tracker import Tracker
from tqe_monitor.web import Probes, StatusServer
from tqe_monitor.webconfig import WebConfig, load_web_config

log = get_logger(__name__)
DRAIN_GRACE_SECONDS = 5.0
PRUNE_EVERY_SECONDS = 3600.0
REMINDER_CHECK_SECONDS = 30.0


class StartupError(Exception):
    """The daemon cannot start (e.g. its port is taken); the message says which setting."""


@dataclass
class DaemonHandle:
    """What a running daemon exposes to its caller (the demo prints the URLs)."""

    monitor: Monitor
    recorder: Recorder
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
    channels = build_channels(settings.notifications)  # a ConfigError here stops the start
    store = SqliteStore(settings.storage.path)  # so does a StoreError
    registry = CollectorRegistry()
    metrics = MonitorMetrics(registry, __version__)
    policies = wallet_policies(targets)
    now = utc_now()
    dispatcher = _dispatcher(settings, store, channels, registry)
    recorder = Recorder(
        metrics=metrics,
        condition_metrics=ConditionMetrics(registry),
        components=ComponentTracker(),
        tracker=Tracker(ConditionBook(confirmations(settings)), policies, started=now),
        store=store,
        policies=policies,
        on_transitions=lambda _: dispatcher.wake.set(),
    )
    max_connections = max(10, min(200, len(targets)))
    async with build_client(settings.defaults.retries, max_connections) as client:
        # Monitor declares every series at its initial value; restore then sets what the
        # store remembers (e.g. a key still rejected), so the order matters.
        monitor = Monitor(targets, poller=Poller(client), recorder=recorder, metrics=metrics)
        recorder.restore(now)
        scheduler = PollScheduler(monitor.jobs(), on_overrun=monitor.overrun)
        server = StatusServer(
            registry,
            Probes(
                healthy=lambda: scheduler.running,
                ready=monitor.readiness,
                state=recorder.snapshot,
            ),
            web_config,
            __version__,
        )
        host, port = split_listen(listen or settings.server.listen)
        try:
            await server.start(host, port)
        except OSError as exc:
            store.close()
            raise StartupError(
                f"server.listen: cannot listen on {host}:{port}: {exc.strerror}"
            ) from None
        # What exists now (config, targets, their series, modules) lives as long as the
        # process. Freezing it keeps the cyclic GC's full collections from rescanning it over
        # and over: at 10,000 targets those took 0.2-0.35 s each, stalling the polls.
        gc.collect()
        gc.freeze()
        await scheduler.start()
        log.info(
            "started",
            listen=f"{host}:{server.port}",
            targets=len(targets),
            tls=web_config.tls,
            version=__version__,
        )
        if on_started is not None:
            on_started(DaemonHandle(monitor, recorder, server, scheduler, registry))
        housekeeping = asyncio.create_task(_prune_periodically(store, settings))
        notifying = asyncio.create_task(dispatcher.run(stop))
        try:
            await stop.wait()
        finally:
            log.info("stopping", inflight=scheduler.inflight)
            housekeeping.cancel()
            for outcome in await asyncio.gather(notifying, return_exceptions=True):
                if isinstance(outcome, Exception):
                    log.error("notifier_crashed", error=repr(outcome))
            await scheduler.stop(DRAIN_GRACE_SECONDS)
            await server.stop()
            store.close()
    log.info("stopped")


def _dispatcher(
    settings: Settings,
    store: SqliteStore,
    channels: dict[str, Channel],
    registry: CollectorRegistry,
) -> Dispatcher:
    config = settings.notifications
    planner = Planner(
        router(settings, {name: channel.tags for name, channel in channels.items()}),
        group_wait=config.group_wait,
        new_id=lambda: uuid.uuid4().hex[:12],
        settings=MessageSettings(
            config.dashboard_url, config.templates.title, config.templates.body
        ),
    )
    return Dispatcher(
        store,
        planner,
        channels,
        NotificationMetrics(registry, sorted(channels)),
        clock=utc_now,
        max_delivery_age=config.max_delivery_age,
        retry_initial=config.retry_initial,
        retry_max=config.retry_max,
        reminder_check_every=min(REMINDER_CHECK_SECONDS, _shortest_repeat_interval(settings)),
    )


def _shortest_repeat_interval(settings: Settings) -> float:
    """Reminders are looked for at most every 30 s, and more often when a `repeat_interval`
    is shorter than that (or it would be stretched to 30 s)."""
    config = settings.notifications
    routed = [r.repeat_interval for r in config.routes if r.repeat_interval is not None]
    return min([config.repeat_interval, *routed])


async def _prune_periodically(store: SqliteStore, settings: Settings) -> None:
    """Drop samples, history and old notifications past retention, at start and then hourly."""
    retention = settings.storage.retention
    while True:
        now = utc_now()
        try:
            removed = store.prune(now - timedelta(seconds=retention))
            removed += store.outbox.prune(
                now - timedelta(seconds=2 * settings.notifications.max_delivery_age)
            )
        except StoreError as exc:
            log.error("store_prune_failed", error=str(exc))
        else:
            if removed:
                log.info("store_pruned", rows=removed, retention_days=retention / 86400)
        await asyncio.sleep(PRUNE_EVERY_SECONDS)


def install_stop_signals(stop: asyncio.Event) -> None:
    """SIGTERM and SIGINT set `stop` (drain and exit 0) instead of killing the process."""
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
