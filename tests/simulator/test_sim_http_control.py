"""The real HTTP server: shapes, the /_sim/ control API, the timeline clock, serve()."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import httpx
import pytest

from tqe_monitor.simulator import Endpoint, Scenario, Simulator, parse_scenario, serve

EXPECTED_SHAPES = {
    "default": ({"platform": {"status": "Degraded Performance"},
                 "ai_service": {"status": "Fully Operational"},
                 "updated_at": "2026-11-21T04:35:10Z"},
                {"remaining_words": 100, "last_update": "2026-11-21T04:35:00Z"}),
    "envelope_camel": ({"data": {"platformStatus": "Degraded Performance",
                                 "aiServiceStatus": "Fully Operational"}},
                       {"data": {"remainingWords": 100, "lastUpdated": 1795235700000}}),
    "components_list": ({"components": [{"name": "Platform", "state": "degraded_performance"},
                                        {"name": "AI Service", "state": "operational"}]},
                        {"wallet": {"words_remaining": "100", "updated": 1795235700}}),
    "kebab": ({"platform-status": "DEGRADED", "ai-service-status": "OPERATIONAL"},
              {"word-balance": 100, "last-modified": "2026-11-21 04:35:00"}),
    "custom": ({"svc": {"p": "amber", "m": "green"}},
               {"acct": {"w": 100, "t": "2026-11-21T04:35:00+00:00"}}),
}  # fmt: skip


@pytest.mark.parametrize("shape", EXPECTED_SHAPES)
async def test_each_shape_is_served_after_switching_at_run_time(
    service: httpx.AsyncClient,
    control: httpx.AsyncClient,
    advance_clock: Callable[[float], None],
    shape: str,
) -> None:
    advance_clock(10)
    assert (await control.post("/status", json={"platform": "degraded"})).status_code == 200
    assert (await control.post("/shape", json={"shape": shape})).status_code == 200
    status, wallet = await service.get("/status"), await service.get("/wallet")
    assert (status.json(), wallet.json()) == EXPECTED_SHAPES[shape]


async def test_control_key_changes_show_on_the_service(
    sim: Simulator,
    service: httpx.AsyncClient,
    control: httpx.AsyncClient,
    advance_clock: Callable[[float], None],
) -> None:
    new_key = {"X-Api-Key": "fresh-key"}
    assert (await service.get("/wallet", headers=new_key)).status_code == 401
    await control.post("/keys", json={"key": "fresh-key", "balance": 50})
    assert (await service.get("/wallet", headers=new_key)).json()["remaining_words"] == 50
    await control.post("/keys/top_up", json={"key": "fresh-key", "words": 25})
    await control.post("/keys/drain", json={"key": "fresh-key", "words_per_second": 5})
    advance_clock(3)
    assert (await service.get("/wallet", headers=new_key)).json()["remaining_words"] == 60
    await control.post("/keys", json={"key": "fresh-key", "scope": False})
    assert (await service.get("/wallet", headers=new_key)).status_code == 403
    await control.post("/keys/revoke", json={"key": "fresh-key"})
    assert (await service.get("/wallet", headers=new_key)).status_code == 401


async def test_control_maintenance_and_faults(
    service: httpx.AsyncClient, control: httpx.AsyncClient, advance_clock: Callable[[float], None]
) -> None:
    await control.post("/maintenance", json={"duration": 30, "components": ["ai_service"]})
    assert (await service.get("/status")).json()["ai_service"] == {"status": "Under Maintenance"}
    advance_clock(30)
    assert (await service.get("/status")).json()["ai_service"] == {"status": "Fully Operational"}
    await control.post("/faults", json={"endpoint": "wallet", "kind": "server_error"})
    assert (await service.get("/wallet")).status_code == 500
    assert (await control.delete("/faults")).status_code == 200
    assert (await service.get("/wallet")).status_code == 200


async def test_state_reports_the_world_and_request_counters(
    service: httpx.AsyncClient, control: httpx.AsyncClient
) -> None:
    await service.get("/status")
    await service.get("/wallet", headers={"X-Api-Key": "nope"})
    state = (await control.get("/state")).json()
    assert state["status"] == {"platform": "operational", "ai_service": "operational"}
    assert state["keys"]["good-key"]["balance"] == 100
    assert (state["shape"], state["faults"]) == ("default", [])
    assert state["requests"] == {
        "status": {"total": 1, "by_code": {"200": 1}},
        "wallet": {"total": 1, "by_code": {"401": 1}},
        "check": {"total": 0, "by_code": {}},
    }


@pytest.mark.parametrize(
    ("path", "body", "expected"),
    [
        pytest.param("/status", {"platform": "exploded"}, "platform: expected one of",
                     id="state"),
        pytest.param("/status", {}, "give platform and/or ai_service", id="empty"),
        pytest.param("/keys", {"balance": 5}, "key: required", id="key-missing"),
        pytest.param("/keys/top_up", {"key": "ghost", "words": 5}, "key: no such key",
                     id="unknown-key"),
        pytest.param("/keys/drain", {"key": "good-key", "words_per_second": -1},
                     "words_per_second: expected a finite number", id="negative-rate"),
        pytest.param("/faults", {"kind": "server_error", "count": "many"},
                     "count: expected a whole number", id="fault-count"),
        pytest.param("/shape", {"shape": "xml"}, "shape: expected one of", id="shape"),
        pytest.param("/faults", [1], "expected a mapping", id="not-an-object"),
    ],
)  # fmt: skip
async def test_bad_control_input_gets_400_naming_the_problem(
    control: httpx.AsyncClient, path: str, body: object, expected: str
) -> None:
    response = await control.post(path, json=body)
    assert response.status_code == 400
    assert response.json()["error"].startswith(expected)


async def test_control_rejects_a_body_that_is_not_json(control: httpx.AsyncClient) -> None:
    response = await control.post("/shape", content=b"kebab")
    assert (response.status_code, response.json()["error"]) == (400, "the body is not valid JSON")


@pytest.fixture
def timeline_scenario() -> Scenario:
    return parse_scenario(
        {
            "speed": 10,
            "keys": {"good-key": {"balance": 1000}},
            "timeline": [
                {"at": "15s", "set_status": {"ai_service": "degraded"}},
                {"at": "20s", "drain": {"key": "good-key", "words_per_second": 10}},
            ],
        }
    )


async def test_timeline_runs_on_the_clock_scaled_by_speed(
    timeline_scenario: Scenario,
    clock: Callable[[], float],
    advance_clock: Callable[[float], None],
) -> None:
    simulator = Simulator(timeline_scenario, clock=clock)
    await simulator.start()
    try:
        headers = {"X-Api-Key": "good-key"}
        async with httpx.AsyncClient(base_url=simulator.base_url, headers=headers) as client:
            before = (await client.get("/status")).json()["ai_service"]
            advance_clock(3)  # 30 scenario seconds
            after = (await client.get("/status")).json()["ai_service"]
            wallet = (await client.get("/wallet")).json()
        assert (before, after) == (
            {"status": "Fully Operational"},
            {"status": "Degraded Performance"},
        )
        assert wallet["remaining_words"] == 900
        assert simulator.request_count(Endpoint.STATUS, 200) == 2
    finally:
        await simulator.stop()


async def test_serve_runs_until_cancelled_and_reports_its_url() -> None:
    urls: asyncio.Queue[str] = asyncio.Queue()
    task = asyncio.create_task(serve(parse_scenario({"keys": {"k": {}}}), ready=urls.put_nowait))
    url = await asyncio.wait_for(urls.get(), timeout=10)
    async with httpx.AsyncClient(headers={"X-Api-Key": "k"}) as client:
        assert (await client.get(f"{url}/wallet")).json()["remaining_words"] == 0
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


def test_python_control_methods_change_the_world(clock: Callable[[], float]) -> None:
    simulator = Simulator(parse_scenario({}), clock=clock)
    simulator.set_key("k", balance=10, scope=False)
    simulator.top_up("k", 5)
    simulator.drain("k", 2.5)
    simulator.set_status(ai_service="degraded")
    simulator.maintenance(60, ["platform"])
    simulator.add_fault("wallet", "rate_limited", count=2, retry_after=9)
    simulator.set_shape("custom")
    state = simulator.snapshot()
    assert state["keys"] == {
        "k": {"balance": 15, "updated_at": 0.0, "words_per_second": 2.5, "scope": False,
              "revoked": False}
    }  # fmt: skip
    assert state["status"] == {"platform": "maintenance", "ai_service": "degraded"}
    assert state["shape"] == "custom"
    faults = state["faults"]
    assert isinstance(faults, list)
    assert [(f["endpoint"], f["kind"], f["retry_after"]) for f in faults] == [
        ("wallet", "rate_limited", 9)
    ]
    simulator.clear_faults()
    simulator.revoke("k")
    state = simulator.snapshot()
    assert state["faults"] == []
    keys = state["keys"]
    assert isinstance(keys, dict)
    assert keys["k"]["revoked"] is True


def test_urls_need_a_started_simulator() -> None:
    with pytest.raises(RuntimeError, match="not been started"):
        _ = Simulator(parse_scenario({})).base_url


def test_python_control_methods_validate_like_the_control_api() -> None:
    simulator = Simulator(parse_scenario({}))
    with pytest.raises(ValueError, match="kind: expected one of"):
        simulator.add_fault("status", "gremlins")
    with pytest.raises(ValueError, match="key: no such key"):
        simulator.top_up("ghost", 5)
