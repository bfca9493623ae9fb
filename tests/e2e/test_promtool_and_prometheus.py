"""The daemon's /metrics as the real Prometheus tools see it: lint-clean and scrapeable.

`promtool check metrics` applies Prometheus' naming and exposition lint rules; a real Prometheus
scraping the daemon proves the format, the content negotiation (Prometheus asks for
OpenMetrics first) and the state-set labels work end to end through PromQL.
"""

from __future__ import annotations

import asyncio
import shutil
import signal
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tqe_monitor.simulator import Simulator

pytestmark = pytest.mark.slow


def needs(program: str) -> pytest.MarkDecorator:
    return pytest.mark.skipif(
        shutil.which(program) is None,
        reason=f"needs `{program}` from Debian's prometheus package (.ci/run installs it)",
    )


PROMETHEUS_CONFIG = """\
global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: tqe-monitor
    static_configs:
      - targets: ["{target}"]
"""


@needs("promtool")
async def test_promtool_finds_no_lint_problems(ready_daemon: Any) -> None:
    text = await ready_daemon.metrics_text()
    promtool = await asyncio.create_subprocess_exec(
        "promtool",
        "check",
        "metrics",
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    output, _ = await asyncio.wait_for(promtool.communicate(text.encode()), 30)

    assert output.decode().splitlines() == []
    assert promtool.returncode == 0


class Prometheus:
    """A Prometheus server process and a client for its HTTP API."""

    def __init__(self, process: asyncio.subprocess.Process, url: str, log: Path) -> None:
        self.process = process
        self.url = url
        self.log = log
        self.http = httpx.AsyncClient(base_url=url, timeout=5)

    async def ready(self) -> bool:
        if self.process.returncode is not None:
            raise AssertionError(f"prometheus exited with {self.process.returncode}")
        try:
            return (await self.http.get("/-/ready")).status_code == 200
        except httpx.TransportError:
            return False

    async def query(self, promql: str) -> list[tuple[dict[str, str], float]]:
        """An instant query: each series' labels and value."""
        response = await self.http.get("/api/v1/query", params={"query": promql})
        response.raise_for_status()
        body = response.json()
        assert body["status"] == "success", body
        return [(series["metric"], float(series["value"][1])) for series in body["data"]["result"]]

    async def value(self, promql: str) -> float | None:
        """The value of a query that selects one series (None while it selects none)."""
        result = await self.query(promql)
        assert len(result) <= 1, result
        return result[0][1] if result else None


@pytest.fixture
async def prometheus(
    ready_daemon: Any, tmp_path: Path, free_loopback_port: Any, wait_until: Any
) -> AsyncIterator[Prometheus]:
    """A real Prometheus scraping the daemon every second; its log is printed at teardown
    (pytest shows it only when the test failed)."""
    config = tmp_path / "prometheus.yml"
    config.write_text(PROMETHEUS_CONFIG.format(target=ready_daemon.url.removeprefix("http://")))
    port = free_loopback_port()
    log = tmp_path / "prometheus.log"
    with log.open("wb") as log_file:
        process = await asyncio.create_subprocess_exec(
            "prometheus",
            f"--config.file={config}",
            f"--storage.tsdb.path={tmp_path / 'tsdb'}",
            f"--web.listen-address=127.0.0.1:{port}",
            stdin=asyncio.subprocess.DEVNULL,
            stdout=log_file,
            stderr=log_file,
        )
    server = Prometheus(process, f"http://127.0.0.1:{port}", log)
    try:
        await wait_until(server.ready, what="prometheus /-/ready")
        yield server
    finally:
        await server.http.aclose()
        if process.returncode is None:
            process.send_signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(process.wait(), 10)
            except TimeoutError:
                process.kill()
                await process.wait()
        print(f"--- prometheus log ({log}) ---")
        print(log.read_text(errors="replace"))


@needs("prometheus")
async def test_prometheus_scrapes_balance_and_state_changes(
    prometheus: Prometheus, simulator: Simulator, wait_until: Any, fleet: Any
) -> None:
    balance = f'tqe_wallet_remaining_words{{target="production",service="{fleet.service}"}}'
    scraped = await wait_until(
        lambda: prometheus.value(balance), what="prometheus has the production balance"
    )
    assert scraped == fleet.balance("production")
    up = await prometheus.value('up{job="tqe-monitor"}')
    assert up == 1

    simulator.set_status(ai_service="degraded")

    degraded = (
        'tqe_service_state{component="ai_service",tqe_service_state="degraded",'
        f'service="{fleet.service}"}}'
    )

    async def ai_service_degraded() -> bool:
        return await prometheus.value(degraded) == 1

    await wait_until(ai_service_degraded, what="prometheus sees ai_service degraded")
