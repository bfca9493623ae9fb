"""The dashboards and alert rules against a real Prometheus scraping a real daemon.

One scripted scenario per module (the simulator plays it, the daemon polls every second, a real
Prometheus scrapes it every second with the committed config and rules): the AI service
degrades, the staging key is revoked, the production wallet drains below its warning threshold
and three status polls fail. Then every PromQL expression of the dashboards and rules is sent
to Prometheus exactly as Grafana or the rule engine would send it, and must parse; the panels
that the scenario feeds must have data; the rules must evaluate cleanly and the right alerts
must be pending or firing. Waiting is done by polling; how long things take is not asserted.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
import pytest_asyncio
import yaml

from tqe_monitor.app.daemon import DaemonHandle, run_daemon
from tqe_monitor.config import Settings, resolve_targets
from tqe_monitor.simulator import Simulator, parse_scenario

pytestmark = [
    pytest.mark.slow,
    pytest.mark.asyncio(loop_scope="module"),
    pytest.mark.skipif(
        shutil.which("prometheus") is None,
        reason="needs Debian's prometheus package (prometheus, promtool); .ci/run installs it",
    ),
]

SERVICE = "tqe-mixin"
KEYS = {"production": "mixin-key-production", "staging": "mixin-key-staging", "eu": "mixin-key-eu"}
THRESHOLDS = {
    "production": [
        {"below": 100_000, "severity": "warning"},
        {"below": 10_000, "severity": "critical"},
    ],
    "eu": [{"below": 300_000, "severity": "info"}],
}
WAIT_SECONDS = 30.0


# The scenario configures no notification channel: these panels' PromQL must parse, but
# nothing feeds them.
@dataclass
class Live:
    """The running scenario: a client for Prometheus' API and the dashboards' variable values."""

    http: httpx.AsyncClient
    started: float
    variables: dict[str, dict[str, str]] = field(default_factory=dict)

    async def api(self, path: str, **params: Any) -> Any:
        response = await self.http.get(f"/api/v1/{path}", params=params)
        body = response.json()
        assert body["status"] == "success", (path, params, body)
        assert response.status_code == 200, (path, params, body)
        return body["data"]

    async def instant(self, expr: str) -> list[dict[str, Any]]:
        data = await self.api("query", query=expr)
        return list(data["result"]) if data["resultType"] in {"vector", "matrix"} else [data]

    async def as_grafana(self, expr: str, instant: bool) -> list[dict[str, Any]]:
        """The query as a panel sends it: instant, or a range over the scenario at 1 s steps."""
        if instant:
            return await self.instant(expr)
        now = time.time()
        data = await self.api("query_range", query=expr, start=self.started, end=now, step=1)
        return list(data["result"])

    def substitute(self, dashboard: str, expr: str) -> str:
        """Grafana's variable interpolation, with the values a person would have picked."""
        values = self.variables[dashboard] | {
            "__range": f"{int(time.time() - self.started) + 1}s",
            "__rate_interval": "5s",
            "__interval": "1s",
        }
        for name in sorted(values, key=len, reverse=True):
            expr = expr.replace(f"${{{name}}}", values[name]).replace(f"${name}", values[name])
        assert "$" not in expr, expr
        return expr


async def wait_for(check: Callable[[], Any], what: str) -> Any:
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        result = await check()
        if result:
            return result
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not seen within {WAIT_SECONDS:g}s (last: {result!r})")
        await asyncio.sleep(0.25)


def settings(base_url: str, storage: Path) -> Settings:
    return Settings(
        server={"listen": "127.0.0.1:0"},
        storage={"path": storage},
        defaults={"status_interval": 1, "wallet_interval": 1, "timeout": 1, "retries": 0},
        targets={
            name: {
                "base_url": base_url,
                "api_key": key,
                "service": SERVICE,
                "wallet": {"thresholds": THRESHOLDS.get(name, [])},
            }
            for name, key in KEYS.items()
        },
        # A console channel, so the notification panels are fed too.
        notifications={"channels": {"console": {"url": "console://"}}, "group_wait": 0},
    )


def prometheus_config(committed: Path, target: str, rules: Path) -> str:
    """The committed prometheus.yml, scraping the test daemon every second."""
    config = yaml.safe_load(committed.read_text())
    config["global"] |= {"scrape_interval": "1s", "evaluation_interval": "1s"}
    config["rule_files"] = [str(rules)]
    (job,) = config["scrape_configs"]
    job["static_configs"] = [{"targets": [target]}]
    return yaml.safe_dump(config)


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def simulator() -> AsyncIterator[Simulator]:
    world = {
        "keys": {
            KEYS["production"]: {"balance": 150_000},
            KEYS["staging"]: {"balance": 40_000},
            KEYS["eu"]: {"balance": 250_000, "words_per_second": 20},
        }
    }
    sim = Simulator(parse_scenario(world))
    await sim.start("127.0.0.1", 0)
    yield sim
    await sim.stop()


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def daemon_address(
    simulator: Simulator, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[str]:
    stop = asyncio.Event()
    started: asyncio.Future[DaemonHandle] = asyncio.get_running_loop().create_future()
    with pytest.MonkeyPatch.context() as env:
        for name in [name for name in os.environ if name.startswith("TQE_")]:
            env.delenv(name)
        config = settings(simulator.base_url, tmp_path_factory.mktemp("daemon") / "tqe.db")
    task = asyncio.create_task(
        run_daemon(config, resolve_targets(config), stop, on_started=started.set_result)
    )
    await asyncio.wait({task, started}, timeout=WAIT_SECONDS, return_when="FIRST_COMPLETED")
    assert started.done(), task.result() if task.done() else "the daemon did not start"
    yield f"127.0.0.1:{started.result().server.port}"
    stop.set()
    await asyncio.wait_for(task, WAIT_SECONDS)


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def prometheus(
    daemon_address: str, tmp_path_factory: pytest.TempPathFactory, mixin: Any
) -> AsyncIterator[httpx.AsyncClient]:
    scratch = tmp_path_factory.mktemp("prometheus")
    config = scratch / "prometheus.yml"
    config.write_text(prometheus_config(mixin.prometheus_config, daemon_address, mixin.alerts))
    port = mixin.free_port()
    log = scratch / "prometheus.log"
    with log.open("wb") as log_file:
        process = await asyncio.create_subprocess_exec(
            "prometheus",
            f"--config.file={config}",
            f"--storage.tsdb.path={scratch / 'tsdb'}",
            f"--web.listen-address=127.0.0.1:{port}",
            stdin=asyncio.subprocess.DEVNULL,
            stdout=log_file,
            stderr=log_file,
        )
    http = httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=10)

    async def ready() -> bool:
        assert process.returncode is None, log.read_text(errors="replace")
        try:
            return (await http.get("/-/ready")).status_code == 200
        except httpx.TransportError:
            return False

    try:
        await wait_for(ready, "prometheus /-/ready")
        yield http
    finally:
        await http.aclose()
        if process.returncode is None:
            process.send_signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(process.wait(), 10)
            except TimeoutError:
                process.kill()
                await process.wait()
        print(f"--- prometheus log ({log}) ---\n{log.read_text(errors='replace')}")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def live(prometheus: httpx.AsyncClient, simulator: Simulator) -> Live:
    """Plays the scenario and returns once Prometheus has seen all of it."""
    scenario = Live(prometheus, started=time.time())
    scenario.variables = {
        "tqe-overview.json": {"service": ".*", "target": ".*", "job": "tqe-monitor"},
        "tqe-target.json": {"service": SERVICE, "target": "production", "job": "tqe-monitor"},
    }

    async def seen(expr: str) -> bool:
        return bool(await scenario.instant(expr))

    await wait_for(lambda: seen('tqe_wallet_remaining_words{target="staging"}'), "first polls")
    simulator.set_status(ai_service="degraded")
    simulator.revoke(KEYS["staging"])
    simulator.add_fault("status", "server_error", count=3, status_code=503)
    simulator.drain(KEYS["production"], 10_000)
    production = f'tqe_wallet_remaining_words{{service="{SERVICE}", target="production"}}'
    await wait_for(lambda: seen(f"{production} < 100000"), "production below 100,000")
    simulator.drain(KEYS["production"], 100)  # keep draining, slowly: stays in the warning band
    for expr in (
        'tqe_api_key_rejected{target="staging"} == 1',
        'tqe_service_state{component="ai_service", tqe_service_state="degraded"} == 1',
        'increase(tqe_poll_errors_total{reason="server_error"}[1m]) > 0',
        'tqe_wallet_depletion_seconds{target="production"}',
        'tqe_condition_active{condition="wallet_below_100000"}',
    ):
        await wait_for(lambda expr=expr: seen(expr), expr)
    return scenario


async def test_every_dashboard_and_rule_expression_parses(live: Live, mixin: Any) -> None:
    failures = []
    for query in mixin.dashboard_queries():
        expr = live.substitute(query.dashboard, query.expr)
        try:
            await live.as_grafana(expr, query.instant)
        except AssertionError as problem:
            failures.append(f"{query.dashboard} / {query.panel} / {query.ref}: {problem}")
    for rule in mixin.alert_rules():
        try:
            await live.instant(rule["expr"])
        except AssertionError as problem:
            failures.append(f"alert {rule['alert']}: {problem}")
    assert failures == []


async def test_template_variables_find_the_daemons_series(live: Live, mixin: Any) -> None:
    for dashboard, variable, selector in mixin.variable_selectors():
        series = await live.api("series", **{"match[]": live.substitute(dashboard, selector)})
        assert series, f"{dashboard} ${variable}: {selector} finds nothing"


async def test_panels_fed_by_the_scenario_have_data(
    live: Live, mixin: Any, panel_entry: Any
) -> None:
    name, panel = panel_entry
    results = [
        await live.as_grafana(live.substitute(name, query.expr), query.instant)
        for query in mixin.panel_queries(name, panel)
    ]
    assert any(results), f"{panel['title']}: no query returned data"


async def test_balances_are_coloured_by_their_own_thresholds(live: Live, mixin: Any) -> None:
    overview = mixin.committed_dashboards()["tqe-overview.json"]
    (panel,) = [p for p in mixin.panels(overview) if p["title"] == "Remaining words"]
    levels = {}
    for query in mixin.panel_queries("tqe-overview.json", panel):
        for series in await live.instant(live.substitute("tqe-overview.json", query.expr)):
            levels.setdefault(series["metric"]["target"], []).append(query.ref)

    # production: below its 100,000 warning tier; eu: below its 300,000 info tier;
    # staging has no thresholds (and its last balance stays on show after the key was revoked)
    assert levels == {"production": ["WARNING"], "eu": ["INFO"], "staging": ["OK"]}


async def test_rules_evaluate_and_the_scenarios_alerts_are_raised(live: Live) -> None:
    async def evaluated() -> list[dict[str, Any]]:
        data = await live.api("rules")
        rules = [rule for group in data["groups"] for rule in group["rules"]]
        return rules if all(rule["health"] != "unknown" for rule in rules) else []

    rules = await wait_for(evaluated, "every rule evaluated once")
    assert {rule["name"]: rule.get("lastError", "") for rule in rules} == {
        rule["name"]: "" for rule in rules
    }
    assert all(rule["health"] == "ok" for rule in rules)

    expected = {
        ("TQEAPIKeyRejected", "staging", "critical"),
        ("TQEWalletBelowThreshold", "production", "warning"),
        ("TQEWalletBelowThreshold", "eu", "info"),
        ("TQEComponentDegraded", "", "warning"),
    }

    async def raised() -> set[tuple[str, str, str]]:
        alerts = (await live.api("alerts"))["alerts"]
        found = {
            (a["labels"]["alertname"], a["labels"].get("target", ""), a["labels"]["severity"])
            for a in alerts
            if a["state"] in {"pending", "firing"}
        }
        return found if expected <= found else set()

    found = await wait_for(raised, "the scenario's alerts pending or firing")
    assert ("TQEWalletPollsFailing", "staging", "warning") not in found  # its key is rejected
    assert ("TQEWalletBelowThreshold", "staging", "info") not in found  # it has no thresholds
