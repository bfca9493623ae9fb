"""The real HTTP server's /v2 endpoints: auth, wallet accounting, /check and faults."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable

import httpx
import pytest

from tqe_monitor.simulator import Simulator
from tqe_monitor.simulator.shapes import UNKNOWN_SHAPE_BODY

CHECK = {"source": "one two three four five", "target": "un deux trois quatre cinq",
         "source_lang": "en", "target_lang": "fr"}  # fmt: skip


async def call(
    client: httpx.AsyncClient, endpoint: str, headers: dict[str, str] | None = None
) -> httpx.Response:
    if endpoint == "check":
        return await client.post("/check", json=CHECK, headers=headers)
    return await client.get(f"/{endpoint}", headers=headers)


async def words(client: httpx.AsyncClient) -> int:
    response = await client.get("/wallet")
    assert response.status_code == 200
    return int(response.json()["remaining_words"])


REJECTIONS = [
    ("no-key", {}, 401, "missing_api_key"),
    ("unknown", {"X-Api-Key": "no-such-key"}, 401, "invalid_api_key"),
    ("revoked", {"X-Api-Key": "revoked-key"}, 401, "revoked_api_key"),
    ("no-scope", {"X-Api-Key": "unscoped-key"}, 403, "insufficient_scope"),
]


@pytest.mark.parametrize(
    ("endpoint", "headers", "expected_status", "expected_code"),
    [
        pytest.param(endpoint, headers, status, code, id=f"{endpoint}-{name}")
        for endpoint in ("status", "wallet", "check")
        for name, headers, status, code in REJECTIONS
        # Scope guards the protected resources only: any valid key may read the status.
        if not (endpoint == "status" and name == "no-scope")
    ],
)
async def test_requests_without_a_usable_key_are_rejected(
    sim: Simulator,
    endpoint: str,
    headers: dict[str, str],
    expected_status: int,
    expected_code: str,
) -> None:
    async with httpx.AsyncClient(base_url=sim.base_url) as client:
        response = await call(client, endpoint, headers=headers)
    assert response.status_code == expected_status
    assert response.json()["error"]["code"] == expected_code
    assert "no-such-key" not in response.text


async def test_status_is_readable_with_a_key_lacking_scope(sim: Simulator) -> None:
    async with httpx.AsyncClient(base_url=sim.base_url) as client:
        response = await client.get("/status", headers={"X-Api-Key": "unscoped-key"})
    assert response.status_code == 200


async def test_check_charges_source_words_and_returns_a_result(service: httpx.AsyncClient) -> None:
    before = await words(service)
    response = await service.post("/check", json=CHECK | {"explanation_lang": "de"})
    assert response.status_code == 200
    result = response.json()
    assert (result["verdict"], result["words_charged"], result["ambiguous"]) == ("pass", 5, False)
    assert set(result) >= {"major_errors", "minor_errors", "fluency_issues", "explanations"}
    assert await words(service) == before - 5


async def test_translation_is_accepted_as_the_target_field(service: httpx.AsyncClient) -> None:
    body = {k: v for k, v in CHECK.items() if k != "target"} | {"translation": "un deux"}
    response = await service.post("/check", json=body)
    assert response.json()["verdict"] == "fail"


async def test_check_beyond_the_balance_is_refused_without_charging(sim: Simulator) -> None:
    headers = {"X-Api-Key": "poor-key"}
    async with httpx.AsyncClient(base_url=sim.base_url, headers=headers) as client:
        response = await client.post("/check", json=CHECK)
        assert response.status_code == 402
        assert response.json()["error"]["code"] == "insufficient_balance"
        assert await words(client) == 3
        affordable = CHECK | {"source": "one two three", "target": "un deux trois"}
        assert (await client.post("/check", json=affordable)).status_code == 200
        assert await words(client) == 0


@pytest.mark.parametrize(
    ("content", "field"),
    [
        pytest.param(b"{not json", "not JSON", id="not-json"),
        pytest.param(json.dumps(CHECK | {"source": ""}).encode(), "source", id="empty-source"),
        pytest.param(json.dumps({"source": "a"}).encode(), "target", id="no-target"),
    ],
)
async def test_invalid_check_bodies_get_400_and_cost_nothing(
    service: httpx.AsyncClient, content: bytes, field: str
) -> None:
    before = await words(service)
    response = await service.post("/check", content=content)
    assert response.status_code == 400
    assert field in response.json()["error"]["message"]
    assert await words(service) == before


@pytest.mark.parametrize("endpoint", ["status", "wallet", "check"])
@pytest.mark.parametrize(
    ("fault", "expected_status"),
    [
        pytest.param({"kind": "server_error"}, 500, id="server_error"),
        pytest.param({"kind": "server_error", "status_code": 503}, 503, id="server_error-503"),
        pytest.param({"kind": "rate_limited", "retry_after": 7}, 429, id="rate_limited"),
        pytest.param({"kind": "malformed"}, 200, id="malformed"),
        pytest.param({"kind": "not_json"}, 200, id="not_json"),
        pytest.param({"kind": "unknown_shape"}, 200, id="unknown_shape"),
        pytest.param({"kind": "slow", "delay": 0.05}, 200, id="slow"),
    ],
)
async def test_faults_answer_instead_for_their_count_then_stop(
    sim: Simulator, service: httpx.AsyncClient, endpoint: str, fault: dict[str, object],
    expected_status: int,
) -> None:  # fmt: skip
    sim.add_fault(endpoint, str(fault["kind"]), count=1, **{k: v for k, v in fault.items()
                                                           if k != "kind"})  # fmt: skip
    faulted = await call(service, endpoint)
    normal = await call(service, endpoint)
    assert faulted.status_code == expected_status
    match fault["kind"]:
        case "rate_limited":
            assert faulted.headers["Retry-After"] == "7"
        case "malformed":
            with pytest.raises(json.JSONDecodeError):
                faulted.json()
        case "not_json":
            assert faulted.headers["Content-Type"].startswith("text/html")
        case "unknown_shape":
            assert faulted.json() == UNKNOWN_SHAPE_BODY
        case "slow":  # delayed, then the ordinary answer
            assert set(faulted.json()) == set(normal.json())
    assert normal.status_code == 200
    assert normal.json() != UNKNOWN_SHAPE_BODY


@pytest.mark.parametrize(
    ("kind", "options"),
    [
        pytest.param("timeout", {}, id="timeout"),
        pytest.param("slow", {"delay": 30}, id="slow-beyond-the-client-timeout"),
    ],
)
async def test_held_requests_outlast_a_short_client_timeout(
    sim: Simulator, service: httpx.AsyncClient, kind: str, options: dict[str, object]
) -> None:
    sim.add_fault("wallet", kind, count=1, **options)
    with pytest.raises(httpx.ReadTimeout):
        await service.get("/wallet", timeout=0.2)
    assert (await service.get("/wallet")).status_code == 200


async def test_stop_releases_requests_held_by_a_timeout_fault(
    sim: Simulator, service: httpx.AsyncClient
) -> None:
    sim.add_fault("status", "timeout", count=1)
    pending = asyncio.create_task(service.get("/status"))
    for _ in range(1000):  # the fault is used up once the request is being held
        if not sim.snapshot()["faults"]:
            break
        await asyncio.sleep(0.01)
    await asyncio.wait_for(sim.stop(), timeout=10)
    (outcome,) = await asyncio.wait_for(asyncio.gather(pending, return_exceptions=True), 10)
    if not isinstance(outcome, httpx.TransportError):  # released with an answer, or cut off
        assert isinstance(outcome, httpx.Response)
        assert outcome.status_code == 504


async def test_fault_duration_follows_the_simulator_clock(
    sim: Simulator, service: httpx.AsyncClient, advance_clock: Callable[[float], None]
) -> None:
    sim.add_fault("all", "server_error", duration=5)
    assert (await service.get("/status")).status_code == 500
    assert (await service.get("/wallet")).status_code == 500
    advance_clock(5)
    assert (await service.get("/status")).status_code == 200
