"""The real `TqeClient` (default transport, real sockets) against the real simulator.

`tests/test_client.py` scripts httpx's MockTransport; here every failure reason is produced by an
actual HTTP exchange on 127.0.0.1, so the mapping from what really arrives on a socket (a hung
answer, a refused connection, aiohttp's 404, a truncated body) to `PollErrorReason` is checked
end to end, along with retries (counted by the simulator) and the API key staying out of errors.
Retries sleep through an injected recorder, so nothing here waits for a backoff.
"""

from __future__ import annotations

import socket
import traceback
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field

import pytest

from tqe_monitor.client import Endpoint, RetryPolicy, TqeClient
from tqe_monitor.errors import PollError, PollErrorReason
from tqe_monitor.simulator import Endpoint as SimEndpoint
from tqe_monitor.simulator import Simulator

ATTEMPTS = 3  # the default RetryPolicy's, spelled out because the tests count requests
SHORT_TIMEOUT = 0.2  # seconds: far below the simulator's 300 s hang, small enough to stay fast


@dataclass
class Sleeps:
    """The injected sleep: records the delays instead of waiting."""

    delays: list[float] = field(default_factory=list)

    async def __call__(self, delay: float) -> None:
        self.delays.append(delay)


@pytest.fixture
def sleeps() -> Sleeps:
    return Sleeps()


@pytest.fixture
async def client(sleeps: Sleeps) -> AsyncIterator[TqeClient]:
    async with TqeClient(retry=RetryPolicy(attempts=ATTEMPTS), sleep=sleeps) as tqe:
        yield tqe


def closed_port_url() -> str:
    """A /v2 URL on a loopback port nobody listens on: bound, then released."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/v2"


async def call(client: TqeClient, what: str, endpoint: Endpoint) -> object:
    return await (client.get_status if what == "status" else client.get_wallet)(endpoint)


def assert_no_secret(error: PollError, secret: str) -> None:
    """The key is in no rendering of the error, and no other exception hangs off it."""
    renderings = [
        str(error),
        repr(error),
        error.message,
        repr(error.args),
        "".join(traceback.format_exception(error)),
    ]
    for text in renderings:
        assert secret not in text
    assert error.__cause__ is None
    assert error.__context__ is None


@dataclass(frozen=True)
class FailureCase:
    """One way a poll fails over real HTTP, and what the client must make of it."""

    what: str  # "status" or "wallet"
    reason: PollErrorReason
    status_code: int | None
    requests: int | None  # answers the simulator counted (None: it never answered)
    key: str = "good"
    arrange: Callable[[Simulator], None] = lambda sim: None
    base_url: Callable[[Simulator], str] = lambda sim: sim.base_url
    timeout: float = 5.0


FAILURES = [
    pytest.param(
        FailureCase(
            "status",
            PollErrorReason.TIMEOUT,
            None,
            None,  # held until the simulator stops: never counted during the test
            arrange=lambda sim: sim.add_fault("status", "timeout"),
            timeout=SHORT_TIMEOUT,
        ),
        id="timeout-hung-answer",
    ),
    pytest.param(
        FailureCase(
            "wallet",
            PollErrorReason.CONNECT,
            None,
            None,
            base_url=lambda sim: closed_port_url(),
        ),
        id="connect-closed-port",
    ),
    pytest.param(
        FailureCase("status", PollErrorReason.AUTH, 401, 1, key="revoked"),
        id="auth-revoked-key-status-401",
    ),
    pytest.param(
        FailureCase("wallet", PollErrorReason.AUTH, 401, 1, key="revoked"),
        id="auth-revoked-key-wallet-401",
    ),
    pytest.param(
        FailureCase("wallet", PollErrorReason.AUTH, 401, 1, key="unknown"),
        id="auth-unknown-key-401",
    ),
    pytest.param(
        FailureCase("wallet", PollErrorReason.AUTH, 403, 1, key="unscoped"),
        id="auth-key-without-scope-403",
    ),
    pytest.param(
        FailureCase(
            "status",
            PollErrorReason.RATE_LIMITED,
            429,
            1,  # Retry-After 60 s exceeds max_retry_after (30 s): give up at once
            arrange=lambda sim: sim.add_fault("status", "rate_limited", retry_after=60),
        ),
        id="rate-limited-429",
    ),
    pytest.param(
        FailureCase(
            "wallet",
            PollErrorReason.SERVER_ERROR,
            503,
            ATTEMPTS,
            arrange=lambda sim: sim.add_fault("wallet", "server_error", status_code=503),
        ),
        id="server-error-503-retried",
    ),
    pytest.param(
        FailureCase(
            "status",
            PollErrorReason.HTTP_ERROR,
            404,
            0,  # the simulator counts only its /v2 endpoints
            base_url=lambda sim: sim.base_url.removesuffix("/v2") + "/v1",
        ),
        id="http-error-404-wrong-base-path",
    ),
    pytest.param(
        FailureCase(
            "status",
            PollErrorReason.BAD_PAYLOAD,
            200,
            1,
            arrange=lambda sim: sim.add_fault("status", "malformed"),
        ),
        id="bad-payload-truncated-json",
    ),
    pytest.param(
        FailureCase(
            "wallet",
            PollErrorReason.BAD_PAYLOAD,
            200,
            1,
            arrange=lambda sim: sim.add_fault("wallet", "not_json"),
        ),
        id="bad-payload-html-page",
    ),
]


@pytest.mark.parametrize("case", FAILURES)
async def test_each_failure_becomes_one_poll_error_with_its_reason(
    sim: Simulator, client: TqeClient, api_keys: dict[str, str], case: FailureCase
) -> None:
    case.arrange(sim)
    secret = api_keys[case.key]
    endpoint = Endpoint(case.base_url(sim), secret, timeout=case.timeout)

    with pytest.raises(PollError) as caught:
        await call(client, case.what, endpoint)

    error = caught.value
    assert error.reason is case.reason
    assert error.status_code == case.status_code
    if case.requests is not None:
        assert sim.request_count(SimEndpoint(case.what)) == case.requests
    assert_no_secret(error, secret)
    assert secret not in repr(endpoint)


async def test_a_rate_limit_keeps_the_retry_after_hint_on_the_error(
    sim: Simulator, client: TqeClient, sleeps: Sleeps, api_keys: dict[str, str]
) -> None:
    sim.add_fault("wallet", "rate_limited", retry_after=45)

    with pytest.raises(PollError) as caught:
        await client.get_wallet(Endpoint(sim.base_url, api_keys["good"]))

    assert caught.value.reason is PollErrorReason.RATE_LIMITED
    assert caught.value.retry_after == 45.0
    assert sleeps.delays == []  # longer than max_retry_after: no waiting at all


async def test_a_short_retry_after_is_waited_out_and_the_poll_then_succeeds(
    sim: Simulator, client: TqeClient, sleeps: Sleeps, api_keys: dict[str, str]
) -> None:
    sim.set_key(api_keys["good"], balance=777)
    sim.add_fault("wallet", "rate_limited", retry_after=3, count=2)

    payload = await client.get_wallet(Endpoint(sim.base_url, api_keys["good"]))

    assert payload == {"remaining_words": 777, "last_update": "2026-11-21T04:35:00Z"}
    assert sleeps.delays == [3.0, 3.0]
    assert sim.request_count(SimEndpoint.WALLET, 429) == 2


async def test_server_errors_are_retried_until_an_answer_arrives(
    sim: Simulator, client: TqeClient, sleeps: Sleeps, api_keys: dict[str, str]
) -> None:
    sim.set_status(ai_service="degraded")
    sim.add_fault("status", "server_error", status_code=502, count=2)

    payload = await client.get_status(Endpoint(sim.base_url, api_keys["good"]))

    assert isinstance(payload, dict)
    assert payload["ai_service"] == {"status": "Degraded Performance"}
    assert sim.request_count(SimEndpoint.STATUS, 502) == 2
    assert sim.request_count(SimEndpoint.STATUS, 200) == 1
    assert len(sleeps.delays) == 2


async def test_a_timed_out_attempt_is_retried(
    sim: Simulator, client: TqeClient, sleeps: Sleeps, api_keys: dict[str, str]
) -> None:
    sim.add_fault("status", "timeout", count=1)
    endpoint = Endpoint(sim.base_url, api_keys["good"], timeout=SHORT_TIMEOUT)

    payload = await client.get_status(endpoint)

    assert isinstance(payload, dict)
    assert payload["platform"] == {"status": "Fully Operational"}
    assert len(sleeps.delays) == 1


async def test_status_and_wallet_are_read(
    sim: Simulator, client: TqeClient, sleeps: Sleeps, api_keys: dict[str, str]
) -> None:
    sim.set_status(platform="maintenance", ai_service="degraded")
    sim.set_key(api_keys["good"], balance=123_456)
    endpoint = Endpoint(sim.base_url, api_keys["good"])

    status = await client.get_status(endpoint)
    wallet = await client.get_wallet(endpoint)

    assert status == {
        "platform": {"status": "Under Maintenance"},
        "ai_service": {"status": "Degraded Performance"},
        "updated_at": "2026-11-21T04:35:00Z",
    }
    assert wallet == {"remaining_words": 123_456, "last_update": "2026-11-21T04:35:00Z"}
    assert sleeps.delays == []


async def test_a_key_without_scope_still_reads_the_status(
    sim: Simulator, client: TqeClient, api_keys: dict[str, str]
) -> None:
    sim.set_status(ai_service="maintenance")

    payload = await client.get_status(Endpoint(sim.base_url, api_keys["unscoped"]))

    assert isinstance(payload, dict)
    assert payload["ai_service"] == {"status": "Under Maintenance"}
