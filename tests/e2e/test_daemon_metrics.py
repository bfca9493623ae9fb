"""The daemon against the simulator, over real HTTP: what the service does shows up in /metrics.

Each test changes the simulated world through the simulator and waits (generously) for the
daemon's 1 s polls to carry the change to its endpoints.
"""

from __future__ import annotations

from typing import Any

import pytest
from prometheus_client.openmetrics.parser import (
    text_string_to_metric_families as openmetrics_families,
)

from tqe_monitor import __version__
from tqe_monitor.simulator import Endpoint, Simulator

OPENMETRICS = "application/openmetrics-text; version=1.0.0"


async def test_readyz_turns_ready_once_every_target_was_polled(
    daemon: Any, wait_until: Any, simulator: Simulator
) -> None:
    await wait_until(daemon.ready, what="/readyz returns 200")

    response = await daemon.http.get("/readyz")
    assert response.text.startswith("ready")
    assert simulator.request_count(Endpoint.STATUS) >= 1
    assert simulator.request_count(Endpoint.WALLET) >= 2


async def test_healthz_answers_while_the_scheduler_runs(daemon: Any) -> None:
    response = await daemon.http.get("/healthz")

    assert response.status_code == 200
    assert response.text == "ok\n"


@pytest.mark.parametrize("target", ["production", "staging"])
async def test_wallet_balance_is_exported_for_each_target(
    ready_daemon: Any, wait_until: Any, fleet: Any, target: str
) -> None:
    async def remaining_words() -> float | None:
        return await ready_daemon.sample(
            "tqe_wallet_remaining_words", service=fleet.service, target=target
        )

    assert await wait_until(remaining_words) == fleet.balance(target)
    assert await ready_daemon.sample("tqe_wallet_up", service=fleet.service, target=target) == 1


async def test_series_are_declared_for_the_configured_service(
    ready_daemon: Any, fleet: Any
) -> None:
    samples = await ready_daemon.samples()

    assert samples[("tqe_targets", frozenset({("service", fleet.service)}))] == 2
    assert samples[("tqe_monitor_build_info", frozenset({("version", __version__)}))] == 1
    assert samples[("tqe_status_up", frozenset({("service", fleet.service)}))] == 1
    targets = {
        dict(labels)["target"] for name, labels in samples if name == "tqe_wallet_remaining_words"
    }
    assert targets == set(fleet.accounts)


def _state_sample(service: str, component: str, state: str) -> tuple[str, frozenset[Any]]:
    labels = {"service": service, "component": component, "tqe_service_state": state}
    return "tqe_service_state", frozenset(labels.items())


async def test_ai_service_degrading_shows_in_the_state_set(
    ready_daemon: Any, wait_until: Any, simulator: Simulator, fleet: Any
) -> None:
    async def ai_service_is(state: str) -> bool:
        samples = await ready_daemon.samples()
        return samples.get(_state_sample(fleet.service, "ai_service", state)) == 1

    await wait_until(lambda: ai_service_is("operational"), what="ai_service operational")

    simulator.set_status(ai_service="degraded")

    await wait_until(lambda: ai_service_is("degraded"), what="ai_service degraded")
    samples = await ready_daemon.samples()
    assert samples[_state_sample(fleet.service, "ai_service", "operational")] == 0
    assert samples[_state_sample(fleet.service, "platform", "operational")] == 1
    assert samples[_state_sample(fleet.service, "overall", "degraded")] == 1


async def test_a_revoked_key_flags_its_target_only(
    ready_daemon: Any, wait_until: Any, simulator: Simulator, fleet: Any
) -> None:
    async def rejected(target: str) -> float | None:
        return await ready_daemon.sample(
            "tqe_api_key_rejected", service=fleet.service, target=target
        )

    assert await rejected("staging") == 0

    simulator.revoke(fleet.key("staging"))

    await wait_until(lambda: _equals(rejected("staging"), 1), what="staging key rejected")
    assert await rejected("production") == 0
    assert await ready_daemon.sample("tqe_wallet_up", service=fleet.service, target="staging") == 0
    # The status poll falls back to a key that still works.
    assert await ready_daemon.sample("tqe_status_up", service=fleet.service) == 1


async def _equals(value: Any, expected: float) -> bool:
    return bool(await value == expected)


@pytest.mark.parametrize("endpoint", ["status", "wallet"])
async def test_a_server_error_is_counted_by_reason(
    ready_daemon: Any, wait_until: Any, simulator: Simulator, fleet: Any, endpoint: str
) -> None:
    async def server_errors() -> float | None:
        return await ready_daemon.sample(
            "tqe_poll_errors_total",
            service=fleet.service,
            endpoint=endpoint,
            reason="server_error",
        )

    assert await server_errors() == 0

    simulator.add_fault(endpoint, "server_error", count=1, status_code=503)

    await wait_until(
        lambda: _equals(server_errors(), 1), what=f"one {endpoint} server_error counted"
    )
    other = await ready_daemon.sample(
        "tqe_poll_errors_total", service=fleet.service, endpoint=endpoint, reason="timeout"
    )
    assert other == 0


async def test_openmetrics_is_served_when_asked_for(ready_daemon: Any, fleet: Any) -> None:
    response = await ready_daemon.http.get("/metrics", headers={"Accept": OPENMETRICS})

    assert response.headers["Content-Type"].startswith("application/openmetrics-text")
    assert response.text.endswith("# EOF\n")
    families = {family.name: family for family in openmetrics_families(response.text)}
    assert families["tqe_service_state"].type == "stateset"
    wallet = {
        sample.labels["target"]: sample.value
        for sample in families["tqe_wallet_remaining_words"].samples
    }
    assert wallet == {name: fleet.balance(name) for name in fleet.accounts}


async def test_prometheus_text_is_the_default(ready_daemon: Any) -> None:
    response = await ready_daemon.http.get("/metrics")

    assert response.headers["Content-Type"].startswith("text/plain; version=0.0.4")
    assert "# EOF" not in response.text


async def test_api_state_describes_services_and_wallets(ready_daemon: Any, fleet: Any) -> None:
    response = await ready_daemon.http.get("/api/state")

    assert response.status_code == 200
    assert response.headers["Content-Type"].startswith("application/json")
    state = response.json()
    assert {"services", "wallets"} <= set(state)  # other sections may be added
    service = state["services"][fleet.service]
    assert service["up"] is True
    assert set(service["components"]) == {"platform", "ai_service", "overall"}
    for component in service["components"].values():
        assert component["state"] == "operational"
        assert isinstance(component["since"], str)
    assert set(state["wallets"]) == set(fleet.accounts)
    for name, wallet in state["wallets"].items():
        assert wallet["service"] == fleet.service
        assert wallet["up"] is True
        assert wallet["remaining_words"] == fleet.balance(name)
        assert isinstance(wallet["updated_at"], str)
        assert wallet["api_key_rejected"] is False


async def test_landing_page_links_to_every_endpoint(ready_daemon: Any) -> None:
    response = await ready_daemon.http.get("/")

    assert response.status_code == 200
    assert response.headers["Content-Type"].startswith("text/html")
    for link in ("metrics", "api/state", "healthz", "readyz"):
        assert f'href="{link}"' in response.text
        assert (await ready_daemon.http.get(f"/{link}")).status_code == 200


@pytest.mark.parametrize("path", ["/metrics", "/api/state", "/"])
async def test_no_api_key_is_served(ready_daemon: Any, fleet: Any, path: str) -> None:
    body = (await ready_daemon.http.get(path)).text

    assert body  # the page really was served
    for key in fleet.keys:
        assert key not in body


async def test_first_poll_runs_at_start_not_one_interval_later(
    start_daemon: Any, wait_until: Any, simulator: Simulator
) -> None:
    # With hour-long intervals, the job staggered at offset 0 must still run right away.
    await start_daemon(status_interval=3600, wallet_interval=3600)

    await wait_until(
        lambda: simulator.request_count(Endpoint.STATUS) >= 1, what="the first status poll"
    )
