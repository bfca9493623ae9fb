"""`tqe-monitor demo`: the simulator plays a scripted outage and the daemon watches it.

Everything runs in one process on loopback: the simulator (built-in `demo` scenario) on a free
port, and the daemon polling it every 2 s, so a person sees each kind of event within about two
minutes: the AI service degrading and recovering, a maintenance window, a wallet draining past
its thresholds and being topped up, and a key being revoked. Notifications go to the console.
"""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path

from tqe_monitor.app.daemon import DaemonHandle, install_stop_signals, run_daemon, split_listen
from tqe_monitor.config import Settings, resolve_targets
from tqe_monitor.simulator import Simulator, builtin_scenario

DEMO_SERVICE = "tqe-demo"
DEMO_KEYS = {"production": "demo-prod-key", "staging": "demo-staging-key", "eu": "demo-eu-key"}
DEMO_INTERVAL_SECONDS = 2


def demo_settings(base_url: str, listen: str, storage: Path) -> Settings:
    """The daemon's config for the demo: three targets of one service, fast intervals."""
    thresholds = [
        {"below": 100_000, "severity": "warning"},
        {"below": 10_000, "severity": "critical"},
    ]
    targets = {
        name: {
            "base_url": base_url,
            "api_key": key,
            "service": DEMO_SERVICE,
            "wallet": {"thresholds": thresholds if name == "production" else []},
        }
        for name, key in DEMO_KEYS.items()
    }
    return Settings(
        server={"listen": listen},
        storage={"path": storage},
        defaults={
            "status_interval": DEMO_INTERVAL_SECONDS,
            "wallet_interval": DEMO_INTERVAL_SECONDS,
            "timeout": 1.5,
            "retries": 0,
        },
        targets=targets,
        notifications={
            "channels": {"console": {"url": "console://"}},
            "group_wait": 2,
            "repeat_interval": 60,
        },
    )


def run_demo(listen: str, duration: float | None) -> int:
    """Run the demo until interrupted or for `duration` seconds."""
    asyncio.run(_demo(listen, duration))
    return 0


async def _demo(listen: str, duration: float | None) -> None:
    stop = asyncio.Event()
    install_stop_signals(stop)
    simulator = Simulator(builtin_scenario("demo"))
    await simulator.start("127.0.0.1", 0)
    with tempfile.TemporaryDirectory(prefix="tqe-demo-") as scratch:
        settings = demo_settings(simulator.base_url, listen, Path(scratch) / "demo.db")
        targets = resolve_targets(settings)
        host, _ = split_listen(listen)

        def announce(handle: DaemonHandle) -> None:
            base = f"http://{host}:{handle.server.port}"
            print(
                "\ntqe-monitor demo is running (Ctrl-C to stop)\n"
                f"  metrics:          {base}/metrics\n"
                f"  live state:       {base}/api/state\n"
                f"  readiness:        {base}/readyz\n"
                f"  simulator state:  {simulator.control_url}/state\n"
                "  scenario: AI service degrades then recovers, a maintenance window,\n"
                "  the production wallet drains past 100k and 10k words then is topped up,\n"
                "  the staging key is revoked.\n",
                flush=True,
            )

        if duration is not None:
            asyncio.get_running_loop().call_later(duration, stop.set)
        try:
            await run_daemon(settings, targets, stop, on_started=announce)
        finally:
            await simulator.stop()
