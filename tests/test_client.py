"""TqeClient against a scripted upstream (`httpx.MockTransport`): every failure becomes exactly one
PollError with the right reason, retries are bounded and safe, redirects never carry the key to
another origin, bodies are capped, and the API key shows up in no error, repr or traceback."""

from __future__ import annotations

import asyncio
import gzip
import json
import traceback
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest

from tqe_monitor.client import Endpoint, RetryPolicy, TqeClient
from tqe_monitor.errors import PollError, PollErrorReason

KEY = "tqe-live-SECRET-7f3c9a1e5b2d4c6f"
BASE = "https://tqe.example.com/v2"
ENDPOINT = Endpoint(BASE, KEY, timeout=5.0)
NOW = datetime(2025, 3, 1, 12, 0, 0, tzinfo=UTC)
CAP = 4096

Step = Callable[[httpx.Request], httpx.Response]


def answer(
    status: int = 200,
    body: Any = None,
    *,
    content: bytes | None = None,
    headers: dict[str, str] | None = None,
) -> Step:
    """A step that answers with a fresh response (JSON `body`, or raw `content`)."""

    def step(request: httpx.Request) -> httpx.Response:
        raw = content if content is not None else json.dumps(body).encode()
        return httpx.Response(status, headers=headers, content=raw)

    return step


def redirect(location: str, status: int = 302) -> Step:
    return answer(status, content=b"", headers={"Location": location})


def raise_(exc_type: type[httpx.TransportError]) -> Step:
    """A step that fails the way httpx does, with a message that (worst case) holds the key."""

    def step(request: httpx.Request) -> httpx.Response:
        leak = f"{request.method} {request.url} X-Api-Key={request.headers.get('X-Api-Key')}"
        raise exc_type(leak, request=request)

    return step


class FakeService:
    """Answers with `steps` in order (repeating the last one) and records every request."""

    def __init__(self, *steps: Step) -> None:
        self.steps = steps
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        return self.steps[min(len(self.requests), len(self.steps)) - 1](request)


@dataclass
class Sleeps:
    """The injected sleep: records the delays instead of waiting."""

    delays: list[float] = field(default_factory=list)

    async def __call__(self, delay: float) -> None:
        self.delays.append(delay)


def make_client(
    service: FakeService, *, attempts: int = 1, sleeps: Sleeps | None = None, **kwargs: Any
) -> TqeClient:
    retry = kwargs.pop("retry", RetryPolicy(attempts=attempts))
    return TqeClient(
        transport=httpx.MockTransport(service),
        retry=retry,
        sleep=sleeps or Sleeps(),
        random=lambda: 0.5,
        clock=lambda: NOW,
        max_response_bytes=CAP,
        **kwargs,
    )


async def poll_error(client: TqeClient, call: str = "get_wallet") -> PollError:
    with pytest.raises(PollError) as caught:
        await call_method(client, call)
    return caught.value


async def call_method(client: TqeClient, call: str) -> object:
    if call == "check":
        return await client.check(ENDPOINT, "Hallo", "Hello", source_lang="de", target_lang="en")
    method: Callable[[Endpoint], Any] = getattr(client, call)
    return await method(ENDPOINT)


class CountingStream(httpx.AsyncByteStream):
    """A body of `chunks` chunks that counts how many were actually pulled."""

    def __init__(self, chunk: bytes, chunks: int) -> None:
        self.chunk, self.chunks, self.pulled = chunk, chunks, 0

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for _ in range(self.chunks):
            self.pulled += 1
            yield self.chunk


def streamed(stream: CountingStream, headers: dict[str, str] | None = None) -> Step:
    return lambda request: httpx.Response(200, headers=headers, stream=stream)


HTTP_DATE_IN_90_S = "Sat, 01 Mar 2025 12:01:30 GMT"  # NOW + 90 s

# (id, steps, reason, status_code); GET /wallet, one attempt.
FAILURES: list[tuple[str, list[Step], PollErrorReason, int | None]] = [
    ("read-timeout", [raise_(httpx.ReadTimeout)], PollErrorReason.TIMEOUT, None),
    ("connect-timeout", [raise_(httpx.ConnectTimeout)], PollErrorReason.TIMEOUT, None),
    ("connect-error", [raise_(httpx.ConnectError)], PollErrorReason.CONNECT, None),
    ("remote-protocol", [raise_(httpx.RemoteProtocolError)], PollErrorReason.CONNECT, None),
    ("read-error", [raise_(httpx.ReadError)], PollErrorReason.CONNECT, None),
    ("401", [answer(401, {"error": "bad key"})], PollErrorReason.AUTH, 401),
    ("403", [answer(403, {"error": "scope"})], PollErrorReason.AUTH, 403),
    ("429", [answer(429, {})], PollErrorReason.RATE_LIMITED, 429),
    ("500", [answer(500, {})], PollErrorReason.SERVER_ERROR, 500),
    ("503", [answer(503, content=b"down")], PollErrorReason.SERVER_ERROR, 503),
    ("404", [answer(404, {})], PollErrorReason.HTTP_ERROR, 404),
    ("304-not-followed", [answer(304, content=b"")], PollErrorReason.HTTP_ERROR, 304),
    ("302-no-location", [answer(302, content=b"")], PollErrorReason.HTTP_ERROR, 302),
    ("302-cross-origin", [redirect("https://evil.example.net/x")], PollErrorReason.HTTP_ERROR, 302),
    ("redirect-loop", [redirect("/v2/wallet")], PollErrorReason.HTTP_ERROR, 302),
    ("invalid-json", [answer(content=b'{"remaining": ')], PollErrorReason.BAD_PAYLOAD, 200),
    ("empty-body", [answer(content=b"")], PollErrorReason.BAD_PAYLOAD, 200),
    ("nan-is-not-json", [answer(content=b"NaN")], PollErrorReason.BAD_PAYLOAD, 200),
    ("deeply-nested", [answer(content=b"[" * 3000)], PollErrorReason.BAD_PAYLOAD, 200),
    (
        "not-utf8",
        [answer(content='{"w": "Größe"}'.encode("latin-1"))],
        PollErrorReason.BAD_PAYLOAD,
        200,
    ),
    (
        "broken-gzip",
        [answer(content=b"not gzip", headers={"Content-Encoding": "gzip"})],
        PollErrorReason.BAD_PAYLOAD,
        None,
    ),
    (
        "oversize-content-length",
        [answer(content=b"{}", headers={"Content-Length": str(CAP + 1)})],
        PollErrorReason.BAD_PAYLOAD,
        200,
    ),
    (
        "oversize-streamed",
        [streamed(CountingStream(b" " * 1000, 10))],
        PollErrorReason.BAD_PAYLOAD,
        200,
    ),
]
FAILURE_IDS = [case[0] for case in FAILURES]


@pytest.mark.parametrize(("steps", "reason", "status"), [c[1:] for c in FAILURES], ids=FAILURE_IDS)
async def test_each_failure_becomes_one_poll_error_with_its_reason(
    steps: list[Step], reason: PollErrorReason, status: int | None
) -> None:
    async with make_client(FakeService(*steps)) as client:
        error = await poll_error(client)
    assert error.reason is reason
    assert error.status_code == status


@pytest.mark.parametrize("call", ["get_status", "get_wallet", "check"])
@pytest.mark.parametrize("steps", [c[1] for c in FAILURES], ids=FAILURE_IDS)
async def test_api_key_appears_in_no_error_text(steps: list[Step], call: str) -> None:
    async with make_client(FakeService(*steps), attempts=2) as client:
        error = await poll_error(client, call)
    rendered = "".join(traceback.format_exception(error))
    for text in (str(error), repr(error), error.message, rendered):
        assert KEY not in text
        assert "tqe.example.com" not in text  # messages name the path, never the URL
    assert error.__cause__ is None
    assert error.__context__ is None  # no httpx exception (holding the request) hangs off it


def test_endpoint_repr_and_str_hide_the_key() -> None:
    assert KEY not in repr(ENDPOINT)
    assert KEY not in str(ENDPOINT)
    assert BASE in repr(ENDPOINT)


@pytest.mark.parametrize(
    "key",
    [
        pytest.param("key-0123456789\r\nX-Evil: 1", id="crlf"),
        pytest.param("schlüssel-0123456789", id="non-ascii"),
        pytest.param(" padded-0123456789 ", id="surrounding-space"),
        pytest.param("", id="empty"),
    ],
)
async def test_a_key_that_cannot_be_a_header_is_refused_before_sending(key: str) -> None:
    service = FakeService(answer(200, {}))
    async with make_client(service) as client:
        with pytest.raises(PollError) as caught:
            await client.get_wallet(Endpoint(BASE, key))
    assert caught.value.reason is PollErrorReason.AUTH
    assert service.requests == []
    assert not key or key not in "".join(traceback.format_exception(caught.value))


@pytest.mark.parametrize(
    ("call", "method", "path"),
    [
        ("get_status", "GET", "/v2/status"),
        ("get_wallet", "GET", "/v2/wallet"),
        ("check", "POST", "/v2/check"),
    ],
)
async def test_each_call_sends_key_timeout_and_user_agent(
    call: str, method: str, path: str
) -> None:
    service = FakeService(answer(200, {"ok": True}))
    async with make_client(service, user_agent="tqe-monitor/test") as client:
        assert await call_method(client, call) == {"ok": True}
    [request] = service.requests
    assert (request.method, request.url.host, request.url.path) == (method, "tqe.example.com", path)
    assert request.headers["X-Api-Key"] == KEY
    assert request.headers["User-Agent"] == "tqe-monitor/test"
    assert request.extensions["timeout"] == httpx.Timeout(5.0).as_dict()


@pytest.mark.parametrize(
    ("explanation_lang", "expected_extra"),
    [(None, {}), ("fr", {"explanation_lang": "fr"})],
    ids=["explanation-omitted", "explanation-sent"],
)
async def test_check_posts_the_segment_as_json(
    explanation_lang: str | None, expected_extra: dict[str, str]
) -> None:
    service = FakeService(answer(200, {"verdict": "pass"}))
    async with make_client(service) as client:
        result = await client.check(
            ENDPOINT, "Hallo \ud800", "Hello", source_lang="de", target_lang="en",
            explanation_lang=explanation_lang,
        )  # fmt: skip
    assert result == {"verdict": "pass"}
    [request] = service.requests
    assert request.headers["Content-Type"] == "application/json"
    sent = json.loads(request.content)
    expected = {
        "source": "Hallo \ud800",
        "target": "Hello",
        "source_lang": "de",
        "target_lang": "en",
    }
    assert sent == expected | expected_extra


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b'{"words": 12}', {"words": 12}),
        ('\ufeff["Größe"]'.encode(), ["Größe"]),
        (gzip.compress(b'{"a": [1, 2.5, null, true]}'), {"a": [1, 2.5, None, True]}),
    ],
    ids=["object", "utf8-with-bom", "gzip"],
)
async def test_successful_bodies_are_parsed(content: bytes, expected: object) -> None:
    headers = {"Content-Encoding": "gzip"} if content.startswith(b"\x1f\x8b") else None
    async with make_client(FakeService(answer(content=content, headers=headers))) as client:
        assert await client.get_wallet(ENDPOINT) == expected


async def test_oversize_body_is_not_read_when_content_length_says_so() -> None:
    stream = CountingStream(b" ", 1)
    service = FakeService(streamed(stream, headers={"Content-Length": str(CAP + 1)}))
    async with make_client(service) as client:
        error = await poll_error(client)
    assert error.message == f"GET /wallet: response larger than {CAP} bytes"
    assert stream.pulled == 0


async def test_streamed_body_stops_being_read_past_the_cap() -> None:
    stream = CountingStream(b" " * 1000, 1000)  # ~1 MB offered, no Content-Length
    async with make_client(FakeService(streamed(stream))) as client:
        error = await poll_error(client)
    assert error.reason is PollErrorReason.BAD_PAYLOAD
    assert stream.pulled == CAP // 1000 + 1


@pytest.mark.parametrize(
    "location",
    ["/v2/wallet-moved", "https://tqe.example.com:443/v2/wallet-moved", "wallet-moved"],
    ids=["absolute-path", "absolute-url-default-port", "relative-path"],
)
async def test_same_origin_redirect_is_followed_with_the_key(location: str) -> None:
    service = FakeService(redirect(location), answer(200, {"words": 5}))
    async with make_client(service) as client:
        assert await client.get_wallet(ENDPOINT) == {"words": 5}
    assert [r.url.path for r in service.requests] == ["/v2/wallet", "/v2/wallet-moved"]
    assert all(r.headers["X-Api-Key"] == KEY for r in service.requests)


@pytest.mark.parametrize(
    ("location", "origin"),
    [
        ("https://evil.example.net/collect?key=1", "https://evil.example.net"),
        ("http://tqe.example.com/v2/wallet", "http://tqe.example.com"),
        ("https://tqe.example.com:8443/v2/wallet", "https://tqe.example.com:8443"),
        ("//[::1]/v2/wallet", "https://[::1]"),
    ],
    ids=["other-host", "https-downgrade", "other-port", "scheme-relative-ipv6"],
)
async def test_cross_origin_redirect_is_refused_without_sending_the_key(
    location: str, origin: str
) -> None:
    service = FakeService(redirect(location), answer(200, {"stolen": True}))
    async with make_client(service, attempts=3) as client:
        error = await poll_error(client)
    assert error.reason is PollErrorReason.HTTP_ERROR
    assert error.message == f"GET /wallet: HTTP 302: refused cross-origin redirect to {origin}"
    assert [r.url.host for r in service.requests] == ["tqe.example.com"]  # refused, not retried


@pytest.mark.parametrize(
    ("location", "why"),
    [
        ("http://[::1", "redirect to an invalid URL"),
        ("https://tqe.example.com:abc/", "redirect to an invalid URL"),
        ("javascript:alert(1)", "refused cross-origin redirect to javascript://"),
        ("", "redirect without Location"),
    ],
    ids=["unclosed-ipv6", "bad-port", "javascript", "empty"],
)
async def test_an_unusable_redirect_is_an_http_error_with_its_status(
    location: str, why: str
) -> None:
    service = FakeService(redirect(location, 307))
    async with make_client(service) as client:
        error = await poll_error(client)
    assert (error.reason, error.status_code) == (PollErrorReason.HTTP_ERROR, 307)
    assert error.message == f"GET /wallet: HTTP 307: {why}"
    assert len(service.requests) == 1


async def test_redirects_stop_after_three_hops() -> None:
    service = FakeService(redirect("/v2/wallet"))
    async with make_client(service) as client:
        error = await poll_error(client)
    assert "too many redirects" in error.message
    assert len(service.requests) == 4  # the request and three followed hops


@pytest.mark.parametrize(
    ("status", "method", "has_body"),
    [(307, "POST", True), (308, "POST", True), (303, "GET", False), (302, "GET", False)],
    ids=["307-keeps-post", "308-keeps-post", "303-becomes-get", "302-becomes-get"],
)
async def test_post_redirects_follow_the_standard_method_rules(
    status: int, method: str, has_body: bool
) -> None:
    service = FakeService(redirect("/v2/check2", status), answer(200, {"ok": 1}))
    async with make_client(service) as client:
        await call_method(client, "check")
    follow = service.requests[1]
    assert (follow.method, bool(follow.content)) == (method, has_body)
    assert ("Content-Type" in follow.headers) is has_body
    assert follow.headers["X-Api-Key"] == KEY


async def test_cookies_are_never_stored_or_replayed() -> None:
    service = FakeService(
        answer(200, {}, headers={"Set-Cookie": "session=abc; Path=/"}), answer(200, {})
    )
    async with make_client(service) as client:
        await client.get_wallet(ENDPOINT)
        await client.get_wallet(Endpoint(BASE, "another-key-0123456789"))
    assert "Cookie" not in service.requests[1].headers


TRANSIENT = [
    ("timeout", raise_(httpx.ReadTimeout)),
    ("connect", raise_(httpx.ConnectError)),
    ("rate-limited", answer(429, {})),
    ("server-error", answer(503, {})),
]


@pytest.mark.parametrize("failing", [c[1] for c in TRANSIENT], ids=[c[0] for c in TRANSIENT])
async def test_transient_get_failures_are_retried_with_backoff(failing: Step) -> None:
    service, sleeps = FakeService(failing), Sleeps()
    async with make_client(service, attempts=3, sleeps=sleeps) as client:
        await poll_error(client)
    assert len(service.requests) == 3
    assert sleeps.delays == [0.25, 0.5]  # random()=0.5 times 0.5 * 2**n
    assert all(r.headers["X-Api-Key"] == KEY for r in service.requests)


async def test_a_retry_that_succeeds_returns_the_payload() -> None:
    service = FakeService(answer(503, {}), answer(200, {"words": 1}))
    async with make_client(service, attempts=3) as client:
        assert await client.get_status(ENDPOINT) == {"words": 1}
    assert len(service.requests) == 2


async def test_backoff_is_capped_at_max_delay() -> None:
    service, sleeps = FakeService(answer(500, {})), Sleeps()
    retry = RetryPolicy(attempts=5, base_delay=1.0, max_delay=3.0)
    async with make_client(service, retry=retry, sleeps=sleeps) as client:
        await poll_error(client)
    assert sleeps.delays == [0.5, 1.0, 1.5, 1.5]


@pytest.mark.parametrize(
    "failing",
    [answer(401, {}), answer(403, {}), answer(404, {}), answer(content=b"<html>")],
    ids=["401", "403", "404", "bad-payload"],
)
async def test_non_transient_failures_are_not_retried(failing: Step) -> None:
    service, sleeps = FakeService(failing), Sleeps()
    async with make_client(service, attempts=3, sleeps=sleeps) as client:
        await poll_error(client)
    assert len(service.requests) == 1
    assert sleeps.delays == []


@pytest.mark.parametrize(
    ("failing", "requests"),
    [
        (answer(503, {}), 1),
        (answer(500, {}), 1),
        (raise_(httpx.ReadTimeout), 1),
        (raise_(httpx.RemoteProtocolError), 1),
        (raise_(httpx.ConnectError), 3),
        (raise_(httpx.ConnectTimeout), 3),
        (answer(429, {}), 3),
    ],
    ids=["503", "500", "read-timeout", "disconnected", "connect-error", "connect-timeout", "429"],
)
async def test_check_is_retried_only_when_the_segment_surely_was_not_evaluated(
    failing: Step, requests: int
) -> None:
    service = FakeService(failing)
    async with make_client(service, attempts=3) as client:
        await poll_error(client, "check")
    assert len(service.requests) == requests


@pytest.mark.parametrize(
    ("headers", "retry_after"),
    [
        ({"Retry-After": "7"}, 7.0),
        ({"Retry-After": HTTP_DATE_IN_90_S}, 90.0),
        ({"Retry-After": HTTP_DATE_IN_90_S, "Date": "Sat, 01 Mar 2025 12:01:00 GMT"}, 30.0),
        ({"Retry-After": "Sat, 01 Mar 2025 11:00:00 GMT"}, 0.0),
        ({"Retry-After": "soon"}, None),
        ({}, None),
    ],
    ids=[
        "seconds",
        "http-date-vs-clock",
        "http-date-vs-date-header",
        "past-date",
        "garbage",
        "absent",
    ],
)
async def test_retry_after_is_parsed(headers: dict[str, str], retry_after: float | None) -> None:
    async with make_client(FakeService(answer(429, {}, headers=headers))) as client:
        error = await poll_error(client)
    assert error.reason is PollErrorReason.RATE_LIMITED
    assert error.retry_after == retry_after


async def test_retry_after_is_honoured_when_short_enough() -> None:
    service, sleeps = (
        FakeService(answer(429, {}, headers={"Retry-After": "7"}), answer(200, [])),
        Sleeps(),
    )
    async with make_client(service, attempts=3, sleeps=sleeps) as client:
        assert await client.get_wallet(ENDPOINT) == []
    assert sleeps.delays == [7.0]


async def test_too_long_retry_after_gives_up_at_once() -> None:
    service, sleeps = FakeService(answer(429, {}, headers={"Retry-After": "31"})), Sleeps()
    async with make_client(service, attempts=3, sleeps=sleeps) as client:
        error = await poll_error(client)
    assert (error.reason, error.retry_after) == (PollErrorReason.RATE_LIMITED, 31.0)
    assert len(service.requests) == 1
    assert sleeps.delays == []


async def test_a_stalled_answer_times_out_at_the_endpoint_timeout() -> None:
    async def never_answers(request: httpx.Request) -> httpx.Response:
        await asyncio.Event().wait()
        raise AssertionError("unreachable")

    client = TqeClient(transport=httpx.MockTransport(never_answers), retry=RetryPolicy(attempts=1))
    async with client, asyncio.timeout(5):  # the guard only turns a regression into a failure
        with pytest.raises(PollError) as caught:
            await client.get_status(Endpoint(BASE, KEY, timeout=0.05))
    assert caught.value.reason is PollErrorReason.TIMEOUT


@pytest.mark.parametrize("base_url", ["tqe.example.com/v2", "ftp://tqe.example.com/v2", ""])
async def test_a_base_url_that_is_not_http_fails_without_a_request(base_url: str) -> None:
    service = FakeService(answer(200, {}))
    async with make_client(service) as client:
        with pytest.raises(PollError) as caught:
            await client.get_status(Endpoint(base_url, KEY))
    assert caught.value.reason is PollErrorReason.HTTP_ERROR
    assert service.requests == []


async def test_closing_the_client_closes_the_transport() -> None:
    class Transport(httpx.MockTransport):
        closed = False

        async def aclose(self) -> None:
            self.closed = True

    transport = Transport(FakeService(answer(200, {})))
    async with TqeClient(transport=transport):
        pass
    assert transport.closed


@pytest.mark.parametrize(
    "kwargs",
    [{"attempts": 0}, {"base_delay": -1.0}, {"max_delay": -1.0}, {"max_retry_after": -1.0}],
)
def test_retry_policy_rejects_nonsense(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match="must"):
        RetryPolicy(**kwargs)
