"""End-to-end fixtures: a real simulator and a real daemon talking HTTP over loopback.

Both run in the test's event loop (the daemon as a task, exactly as `tqe-monitor run` runs it),
with 1 s poll intervals, so a change made through the simulator reaches /metrics within a few
seconds. Waiting is done by polling (`wait_until`) with generous timeouts: how long things take
is never what these tests assert.
"""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from tqe_monitor.app.daemon import DaemonHandle
from tqe_monitor.config import Settings
from tqe_monitor.simulator import Simulator, parse_scenario

Sample = tuple[str, frozenset[tuple[str, str]]]


@dataclass(frozen=True)
class Fleet:
    """The targets under test: their service, and per target an API key and a starting balance.

    The keys are long and unusual so that finding one in any output is certainly a leak.
    """

    service: str
    accounts: Mapping[str, tuple[str, int]]

    def key(self, target: str) -> str:
        return self.accounts[target][0]

    def balance(self, target: str) -> int:
        return self.accounts[target][1]

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(key for key, _ in self.accounts.values())


FLEET = Fleet(
    service="tqe-e2e",
    accounts={
        "production": ("e2e-secret-production-7f3a9c41d2", 731_337),
        "staging": ("e2e-secret-staging-0b8e55a6f9", 42_424),
    },
)


@pytest.fixture
def fleet() -> Fleet:
    return FLEET


def free_port() -> int:
    """A loopback port that was free a moment ago (for programs that cannot report theirs)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def parse_samples(text: str) -> dict[Sample, float]:
    """Every sample of a Prometheus text exposition, keyed by name and label set."""
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


@dataclass
class RunningDaemon:
    """A daemon started by the `start_daemon` fixture, with an HTTP client pointed at it."""

    handle: DaemonHandle
    url: str
    http: httpx.AsyncClient

    async def metrics_text(self) -> str:
        response = await self.http.get("/metrics")
        response.raise_for_status()
        return response.text

    async def samples(self) -> dict[Sample, float]:
        return parse_samples(await self.metrics_text())

    async def sample(self, name: str, **labels: str) -> float | None:
        """The value of one sample (labels must match exactly), or None if it is absent."""
        samples = await self.samples()
        return samples.get((name, frozenset(labels.items())))

    async def ready(self) -> bool:
        return (await self.http.get("/readyz")).status_code == 200


class StartDaemon(Protocol):
    async def __call__(self, **defaults: Any) -> RunningDaemon: ...


@pytest.fixture
def free_loopback_port() -> Callable[[], int]:
    return free_port


@pytest.fixture
def metric_samples() -> Callable[[str], dict[Sample, float]]:
    """Parses a text exposition into {(name, labels): value} (see `parse_samples`)."""
    return parse_samples


def scenario_data() -> dict[str, object]:
    """The simulated world: one account per target, everything operational."""
    return {"keys": {key: {"balance": balance} for key, balance in FLEET.accounts.values()}}


@pytest.fixture
async def simulator() -> AsyncIterator[Simulator]:
    """The fake TQE service on a free loopback port, in real time."""
    sim = Simulator(parse_scenario(scenario_data()))
    await sim.start("127.0.0.1", 0)
    try:
        yield sim
    finally:
        await sim.stop()


def e2e_settings(base_url: str, storage: Path, **defaults: Any) -> Settings:
    """Settings for the FLEET targets: fast polls, one attempt per poll."""
    return Settings(
        server={"listen": "127.0.0.1:0"},
        storage={"path": storage},
        defaults={
            "status_interval": 1,
            "wallet_interval": 1,
            "timeout": 1,
            "retries": 0,
            **defaults,
        },
        targets={
            name: {"base_url": base_url, "api_key": key, "service": FLEET.service}
            for name, (key, _) in FLEET.accounts.items()
        },
    )


@pytest.fixture
async def start_daemon(simulator: Simulator, tmp_path: Path, daemon_task: Any) -> StartDaemon:
    """Start a daemon against the simulator (see `daemon_task`); every one stops at teardown.

    Keyword arguments override `defaults` settings (e.g. `status_interval=3600`).
    """
    count = 0

    async def start(**defaults: Any) -> RunningDaemon:
        nonlocal count
        storage = tmp_path / f"tqe-monitor-{count}.db"  # one store per daemon
        count += 1
        handle, http = await daemon_task(e2e_settings(simulator.base_url, storage, **defaults))
        return RunningDaemon(handle, str(http.base_url).rstrip("/"), http)

    return start


@pytest.fixture
async def daemon(start_daemon: StartDaemon) -> RunningDaemon:
    """A daemon with the default e2e settings (1 s polls, 1 s timeout, no retries)."""
    return await start_daemon()


@pytest.fixture
async def ready_daemon(daemon: RunningDaemon, wait_until: Any) -> RunningDaemon:
    """A daemon that has polled every target once."""
    await wait_until(daemon.ready, what="/readyz returns 200")
    return daemon
