"""Every payload shape the simulator can serve, read through the real client and the normalizer.

The normalizer's own tests feed it dicts; here the payload is what actually came off the wire
(JSON numbers, strings with thousands separators, epoch milliseconds, zoneless timestamps), so a
shape that only parses in a unit test would show up here. `custom` is unguessable on purpose:
it must be refused as bad_payload until a mapping names its fields.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from datetime import datetime

import pytest

from tqe_monitor.client import Endpoint, JsonValue, TqeClient
from tqe_monitor.errors import PollError, PollErrorReason
from tqe_monitor.models import ComponentState, StatusReading, WalletReading
from tqe_monitor.normalizer import StatusMapping, WalletMapping, normalize_status, normalize_wallet
from tqe_monitor.simulator import Shape, Simulator

BALANCE = 12_345  # large enough for the components_list shape's "12,345"

AUTO_DETECTED = [shape for shape in Shape if shape is not Shape.CUSTOM]
# (platform, ai_service) as the simulator is told, and as the monitor must read them.
STATES = [
    pytest.param("operational", "degraded", id="ai-degraded"),
    pytest.param("maintenance", "operational", id="platform-maintenance"),
    pytest.param("degraded", "maintenance", id="degraded-and-maintenance"),
]
# The custom shape's own vocabulary: green/amber are guessable, blue (maintenance) is not.
CUSTOM_STATUS = StatusMapping(
    platform="svc.p", ai_service="svc.m", states={"blue": ComponentState.MAINTENANCE}
)
CUSTOM_WALLET = WalletMapping(remaining_words="acct.w", updated_at="acct.t")


@pytest.fixture
async def client() -> AsyncIterator[TqeClient]:
    async with TqeClient() as tqe:
        yield tqe


@pytest.fixture
def endpoint(sim: Simulator, api_keys: dict[str, str]) -> Endpoint:
    return Endpoint(sim.base_url, api_keys["good"])


def serve(sim: Simulator, api_keys: dict[str, str], shape: Shape, platform: str, ai: str) -> None:
    sim.set_shape(shape)
    sim.set_status(platform=platform, ai_service=ai)
    sim.set_key(api_keys["good"], balance=BALANCE)


@pytest.mark.parametrize(("platform", "ai"), STATES)
@pytest.mark.parametrize("shape", AUTO_DETECTED, ids=str)
async def test_recognised_shapes_are_read_without_a_mapping(
    sim: Simulator,
    client: TqeClient,
    endpoint: Endpoint,
    api_keys: dict[str, str],
    start_time: datetime,
    shape: Shape,
    platform: str,
    ai: str,
) -> None:
    serve(sim, api_keys, shape, platform, ai)

    status = normalize_status(await client.get_status(endpoint))
    wallet = normalize_wallet(await client.get_wallet(endpoint))

    assert status == StatusReading(ComponentState(platform), ComponentState(ai))
    assert wallet == WalletReading(remaining_words=BALANCE, updated_at=start_time)


async def test_the_custom_shape_is_a_bad_payload_without_a_mapping(
    sim: Simulator, client: TqeClient, endpoint: Endpoint, api_keys: dict[str, str]
) -> None:
    serve(sim, api_keys, Shape.CUSTOM, "operational", "degraded")
    status_payload = await client.get_status(endpoint)
    wallet_payload = await client.get_wallet(endpoint)

    with pytest.raises(PollError) as status_error:
        normalize_status(status_payload)
    with pytest.raises(PollError) as wallet_error:
        normalize_wallet(wallet_payload)

    assert status_error.value.reason is PollErrorReason.BAD_PAYLOAD
    assert wallet_error.value.reason is PollErrorReason.BAD_PAYLOAD


@pytest.mark.parametrize(("platform", "ai"), STATES)
async def test_the_custom_shape_is_read_through_a_mapping(
    sim: Simulator,
    client: TqeClient,
    endpoint: Endpoint,
    api_keys: dict[str, str],
    start_time: datetime,
    platform: str,
    ai: str,
) -> None:
    serve(sim, api_keys, Shape.CUSTOM, platform, ai)

    status = normalize_status(await client.get_status(endpoint), CUSTOM_STATUS)
    wallet = normalize_wallet(await client.get_wallet(endpoint), CUSTOM_WALLET)

    assert status == StatusReading(ComponentState(platform), ComponentState(ai))
    assert wallet == WalletReading(remaining_words=BALANCE, updated_at=start_time)


@pytest.mark.parametrize(
    ("what", "read"),
    [
        pytest.param("status", normalize_status, id="status-auto"),
        pytest.param("status", lambda p: normalize_status(p, CUSTOM_STATUS), id="status-mapped"),
        pytest.param("wallet", normalize_wallet, id="wallet-auto"),
        pytest.param("wallet", lambda p: normalize_wallet(p, CUSTOM_WALLET), id="wallet-mapped"),
    ],
)
async def test_an_unrecognisable_payload_is_a_bad_payload_with_or_without_a_mapping(
    sim: Simulator,
    client: TqeClient,
    endpoint: Endpoint,
    what: str,
    read: Callable[[JsonValue], object],
) -> None:
    """A mapping is a precise statement: a payload it does not fit is reported, not guessed."""
    sim.add_fault(what, "unknown_shape")
    payload = await (client.get_status if what == "status" else client.get_wallet)(endpoint)

    with pytest.raises(PollError) as caught:
        read(payload)

    assert caught.value.reason is PollErrorReason.BAD_PAYLOAD
