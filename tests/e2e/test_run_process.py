"""`tqe-monitor run` as a real process: config from a file and the environment, JSON logs,
SIGTERM drains in-flight polls and exits 0, a bad config exits 2, and no key leaks anywhere.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from tqe_monitor.simulator import Simulator

EXIT_OK, EXIT_CONFIG = 0, 2
EXIT_SECONDS = 10.0


def config_yaml(base_url: str, port: int, storage: Path, fleet: Any, timeout: str) -> str:
    """A config whose keys come from the environment, as an operator would write it."""
    lines = [
        "server:",
        f'  listen: "127.0.0.1:{port}"',
        "storage:",
        f'  path: "{storage}"',
        "defaults:",
        "  status_interval: 1s",
        "  wallet_interval: 1s",
        f"  timeout: {timeout}",
        "  retries: 0",
        "targets:",
    ]
    for name in fleet.accounts:
        lines += [
            f"  {name}:",
            f'    base_url: "{base_url}"',
            f"    service: {fleet.service}",
            f'    api_key: "${{E2E_{name.upper()}_KEY}}"',
        ]
    return "\n".join(lines) + "\n"


@dataclass
class MonitorProcess:
    """A running `tqe-monitor run` with its output collected as it arrives."""

    process: asyncio.subprocess.Process
    url: str
    stdout: asyncio.Task[bytes]
    stderr: asyncio.Task[bytes]
    http: httpx.AsyncClient = field(init=False)

    def __post_init__(self) -> None:
        self.http = httpx.AsyncClient(base_url=self.url, timeout=5)

    async def ready(self) -> bool:
        if self.process.returncode is not None:
            err = await self.stderr
            raise AssertionError(f"exited with {self.process.returncode}: {err.decode()}")
        try:
            return (await self.http.get("/readyz")).status_code == 200
        except httpx.TransportError:
            return False  # not listening yet

    async def terminate(self) -> int:
        """SIGTERM, then the exit code (fails the test if it does not exit in time)."""
        self.process.send_signal(signal.SIGTERM)
        return await asyncio.wait_for(self.process.wait(), EXIT_SECONDS)

    async def output(self) -> tuple[str, str]:
        """Everything written to stdout and stderr (once the process has exited)."""
        return (await self.stdout).decode(), (await self.stderr).decode()


def key_environment(fleet: Any) -> dict[str, str]:
    base = {name: value for name, value in os.environ.items() if not name.startswith("TQE_")}
    keys = {f"E2E_{name.upper()}_KEY": fleet.key(name) for name in fleet.accounts}
    return base | keys


async def spawn(*args: str, env: dict[str, str]) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "tqe_monitor",
        *args,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=env,
    )


@pytest.fixture
async def start_monitor(
    simulator: Simulator, tmp_path: Path, fleet: Any, free_loopback_port: Any
) -> AsyncIterator[Callable[..., Awaitable[MonitorProcess]]]:
    """Start `python -m tqe_monitor run` against the simulator; killed at teardown if still
    running (a test that expects a clean exit asserts it itself)."""
    started: list[MonitorProcess] = []

    async def start(request_timeout: str = "1s") -> MonitorProcess:
        port = free_loopback_port()
        config = tmp_path / "tqe-monitor.yaml"
        config.write_text(
            config_yaml(simulator.base_url, port, tmp_path / "monitor.db", fleet, request_timeout)
        )
        args = ("run", "--config", str(config), "--log-format", "json")
        process = await spawn(*args, env=key_environment(fleet))
        assert process.stdout is not None
        assert process.stderr is not None
        monitor = MonitorProcess(
            process,
            f"http://127.0.0.1:{port}",
            asyncio.create_task(process.stdout.read()),
            asyncio.create_task(process.stderr.read()),
        )
        started.append(monitor)
        return monitor

    try:
        yield start
    finally:
        for monitor in started:
            await monitor.http.aclose()
            if monitor.process.returncode is None:
                monitor.process.kill()
                await monitor.process.wait()
            await monitor.output()


def json_events(stderr: str) -> list[dict[str, Any]]:
    """Every stderr line parsed as JSON (a line that is not JSON fails the test)."""
    return [json.loads(line) for line in stderr.splitlines() if line.strip()]


async def test_sigterm_stops_the_daemon_cleanly_without_leaking_keys(
    start_monitor: Any, wait_until: Any, fleet: Any, metric_samples: Any
) -> None:
    monitor = await start_monitor()
    await wait_until(monitor.ready, what="/readyz returns 200")
    metrics = (await monitor.http.get("/metrics")).text
    state = (await monitor.http.get("/api/state")).text
    production = frozenset({("service", fleet.service), ("target", "production")})
    remaining = metric_samples(metrics)[("tqe_wallet_remaining_words", production)]
    assert remaining == fleet.balance("production")

    assert await monitor.terminate() == EXIT_OK

    stdout, stderr = await monitor.output()
    events = [line["event"] for line in json_events(stderr)]
    assert "started" in events, f"no JSON log lines on stderr; stdout was: {stdout[:2000]}"
    assert events[-1] == "stopped"
    for key in fleet.keys:
        assert key not in stdout
        assert key not in stderr
        assert key not in metrics
        assert key not in state


async def test_sigterm_during_a_slow_poll_drains_it_and_exits_0(
    start_monitor: Any, wait_until: Any, simulator: Simulator
) -> None:
    monitor = await start_monitor(request_timeout="8s")
    await wait_until(monitor.ready, what="/readyz returns 200")
    # The next wallet request is held for 2 s; once the simulator has taken the fault, that
    # request is in flight, and SIGTERM arrives while the daemon waits for the answer.
    simulator.add_fault("wallet", "slow", delay=2.0, count=1)
    await wait_until(lambda: not simulator.snapshot()["faults"], what="a slow request is held")

    assert await monitor.terminate() == EXIT_OK

    stdout, stderr = await monitor.output()
    events = {line["event"]: line for line in json_events(stderr)}
    assert "draining" in events, f"stderr: {stderr[-2000:]}\nstdout: {stdout[-2000:]}"
    assert events["draining"]["inflight"] >= 1
    assert "drain_timeout" not in events
    assert "stopped" in events


@pytest.mark.parametrize(
    ("config", "problem"),
    [
        pytest.param("targets: {}\n", "targets", id="no-targets"),
        pytest.param(
            'server: {listen: "nowhere"}\ntargets: {a: {base_url: "http://x/v2", api_key: abcd}}\n',
            "server.listen",
            id="bad-listen",
        ),
        pytest.param("targets: [\n", "", id="not-yaml"),
    ],
)
async def test_a_bad_config_exits_2(tmp_path: Path, fleet: Any, config: str, problem: str) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(config)

    process = await spawn("run", "--config", str(path), env=key_environment(fleet))
    stdout, stderr = await asyncio.wait_for(process.communicate(), 30)

    assert process.returncode == EXIT_CONFIG
    assert f"config error: {problem}" in stderr.decode()
    assert stdout == b""
