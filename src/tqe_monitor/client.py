"""The HTTP client for the service's /v2 interface: parsed JSON out, or exactly one `PollError`.

One `httpx.AsyncClient` serves every target (thousands share its connection pool), so everything
that differs per target travels with each request: the `X-Api-Key` header and the timeout. It
keeps no cookies, so no session can leak from one target's key to another's on the same host.

Failures map to reasons as follows (see `PollErrorReason`):
- `timeout`: any `httpx.TimeoutException`, or the whole attempt outliving `Endpoint.timeout`.
- `connect`: every other transport failure (refused, DNS, TLS, reset, server hung up mid-answer).
  They all mean "no usable answer arrived over the network", which is what people alert on.
- `auth` (401/403, or a key that cannot be sent in a header), `rate_limited` (429),
  `server_error` (5xx), `http_error` (other non-2xx, refused or too many redirects),
  `bad_payload` (body too large, not UTF-8 or not JSON).
Messages are our own words ("GET /wallet: HTTP 503"): never httpx's text (it carries URLs), never
a header value, never the key. Errors are raised outside any `except` block and `from None`, so
no httpx exception (whose request holds the key header) hangs off them.

Redirects are followed by hand, and only within the same origin: the key must not travel to a
host the operator did not configure. The rules themselves (URLs, origins, `Retry-After`, when to
retry and how long to back off) are pure functions in `http_rules`.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.cookiejar import CookieJar, DefaultCookiePolicy
from types import TracebackType
from typing import Final, Self

import httpx
import structlog

from tqe_monitor import __version__
from tqe_monitor.errors import PollError, PollErrorReason
from tqe_monitor.http_rules import (
    REDIRECT_STATUSES,
    RefusedRedirect,
    RetryPolicy,
    is_sendable_header_value,
    redirect_target,
    request_url,
    retry_after_seconds,
)
from tqe_monitor.jsontypes import JsonValue, parse_json

__all__ = ["Endpoint", "JsonValue", "RetryPolicy", "TqeClient"]

MAX_REDIRECTS: Final = 3

_log = structlog.get_logger(__name__)


@dataclass(frozen=True, slots=True)
class Endpoint:
    """Where and as whom to call: one target's base URL and API key."""

    base_url: str  # e.g. "https://tqe.example.com/v2"; a trailing slash is optional
    api_key: str = field(repr=False)  # secret: kept out of repr/str
    timeout: float = 10.0  # seconds, for one whole attempt (redirect hops included)


DEFAULT_RETRY: Final = RetryPolicy()


@dataclass(frozen=True, slots=True)
class _Failure:
    """One failed attempt; `unsent` when the request surely never reached the service."""

    error: PollError
    unsent: bool = False


def _utc_now() -> datetime:
    return datetime.now(UTC)


class TqeClient:
    """Calls the service on behalf of any number of targets through one connection pool.

    `limits` apply to the default transport; with an injected `transport` (tests), it is used as
    given. `sleep`, `random` and `clock` are injected so tests neither wait nor guess.
    """

    def __init__(
        self,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        max_connections: int = 100,
        max_keepalive: int = 20,
        max_response_bytes: int = 1 << 20,
        retry: RetryPolicy = DEFAULT_RETRY,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        random: Callable[[], float] = random.random,
        clock: Callable[[], datetime] = _utc_now,
        user_agent: str = f"tqe-monitor/{__version__}",
    ) -> None:
        if max_response_bytes < 1:
            raise ValueError("max_response_bytes must be positive")
        self._max_bytes = max_response_bytes
        self._retry = retry
        self._sleep = sleep
        self._random = random
        self._clock = clock
        self._http = httpx.AsyncClient(
            transport=transport,
            limits=httpx.Limits(
                max_connections=max_connections, max_keepalive_connections=max_keepalive
            ),
            follow_redirects=False,
            headers={"User-Agent": user_agent, "Accept": "application/json"},
            cookies=CookieJar(policy=DefaultCookiePolicy(allowed_domains=[])),  # stores none
            event_hooks={"response": [_vet_redirect]},
        )

    async def get_status(self, endpoint: Endpoint) -> JsonValue:
        """GET /status: the state of the platform and of the AI service."""
        return await self._call(endpoint, "GET", "/status")

    async def get_wallet(self, endpoint: Endpoint) -> JsonValue:
        """GET /wallet: the key owner's remaining words and the wallet's last update."""
        return await self._call(endpoint, "GET", "/wallet")

    async def check(
        self,
        endpoint: Endpoint,
        source: str,
        translation: str,
        *,
        source_lang: str,
        target_lang: str,
        explanation_lang: str | None = None,
    ) -> JsonValue:
        """POST /check: evaluate one segment. It spends words, so it is retried only when safe.

        The interface documents only the names `source` and `target`; the others are our guess.
        The language codes are keyword-only: two adjacent `str`s are too easy to swap.
        """
        payload: dict[str, str] = {
            "source": source,
            "target": translation,
            "source_lang": source_lang,
            "target_lang": target_lang,
        }
        if explanation_lang is not None:
            payload["explanation_lang"] = explanation_lang
        # ASCII escapes: any Python str (even a lone surrogate) becomes valid JSON bytes.
        body = json.dumps(payload, ensure_ascii=True).encode("ascii")
        return await self._call(endpoint, "POST", "/check", body)

    async def aclose(self) -> None:
        """Close the pool's connections."""
        await self._http.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def _call(
        self, endpoint: Endpoint, method: str, path: str, body: bytes | None = None
    ) -> JsonValue:
        label = f"{method} {path}"
        if not is_sendable_header_value(endpoint.api_key):
            # httpx would fail with an exception that quotes the value: refuse it ourselves.
            raise PollError(PollErrorReason.AUTH, f"{label}: API key is not a valid header value")
        retries = 0
        while True:
            outcome = await self._attempt(endpoint, method, path, body, label)
            if not isinstance(outcome, _Failure):
                return outcome
            delay = self._retry.delay_before_retry(
                outcome.error,
                retries,
                replayable=method == "GET",
                unsent=outcome.unsent,
                jitter=self._random,
            )
            if delay is None:
                raise outcome.error from None
            retries += 1
            reason = outcome.error.reason.value
            _log.debug("tqe_request_retry", path=path, reason=reason, retry=retries, delay=delay)
            await self._sleep(delay)

    async def _attempt(
        self, endpoint: Endpoint, method: str, path: str, body: bytes | None, label: str
    ) -> JsonValue | _Failure:
        """One attempt, same-origin redirects included, mapping every failure to a `_Failure`."""
        url = request_url(endpoint.base_url, path)
        if url is None:
            return _fail(PollErrorReason.HTTP_ERROR, f"{label}: base URL is not an http(s) URL")
        headers = {"X-Api-Key": endpoint.api_key}
        if body is not None:
            headers["Content-Type"] = "application/json"
        timeout = httpx.Timeout(endpoint.timeout)
        hops = 0
        try:
            async with asyncio.timeout(endpoint.timeout):
                while True:
                    async with self._http.stream(
                        method, url, headers=headers, content=body, timeout=timeout
                    ) as response:
                        step = await self._answer(response, label, hops < MAX_REDIRECTS)
                    if not isinstance(step, httpx.URL):
                        return step
                    hops += 1
                    status = response.status_code
                    _log.debug("tqe_redirect_followed", path=path, status=status, hop=hops)
                    url = step
                    if status == 303 or (status in (301, 302) and method == "POST"):
                        # The standard method rewrite, as browsers and httpx do it.
                        method, body = "GET", None
                        headers.pop("Content-Type", None)
        except RefusedRedirect as refused:
            message = f"{label}: HTTP {refused.status}: {refused.why}"
            return _fail(PollErrorReason.HTTP_ERROR, message, refused.status)
        except TimeoutError:  # our own whole-attempt deadline
            return _fail(PollErrorReason.TIMEOUT, f"{label}: no answer within {endpoint.timeout} s")
        except (httpx.ConnectTimeout, httpx.PoolTimeout):
            return _fail(PollErrorReason.TIMEOUT, f"{label}: timed out connecting", unsent=True)
        except httpx.TimeoutException:
            return _fail(PollErrorReason.TIMEOUT, f"{label}: timed out waiting for the answer")
        except httpx.ConnectError:
            return _fail(PollErrorReason.CONNECT, f"{label}: could not connect", unsent=True)
        except httpx.DecodingError:
            return _fail(
                PollErrorReason.BAD_PAYLOAD, f"{label}: body has a broken content-encoding"
            )
        except httpx.TransportError:
            return _fail(PollErrorReason.CONNECT, f"{label}: connection failed during the exchange")
        except httpx.InvalidURL:
            return _fail(PollErrorReason.HTTP_ERROR, f"{label}: invalid URL")

    async def _answer(
        self, response: httpx.Response, label: str, may_redirect: bool
    ) -> JsonValue | _Failure | httpx.URL:
        """What one response means: parsed JSON, a failure, or the next URL to follow."""
        status = response.status_code
        summary = f"{label}: HTTP {status}"
        if 200 <= status < 300:
            return await self._read_json(response, label)
        if status in REDIRECT_STATUSES:
            if not may_redirect:
                return _fail(PollErrorReason.HTTP_ERROR, f"{summary}: too many redirects", status)
            return redirect_target(response)
        if status in (401, 403):
            return _fail(PollErrorReason.AUTH, f"{summary}: API key rejected", status)
        if status == 429:
            retry_after = retry_after_seconds(response.headers, self._clock())
            error = PollError(
                PollErrorReason.RATE_LIMITED, summary, status_code=status, retry_after=retry_after
            )
            return _Failure(error)
        if 500 <= status < 600:
            return _fail(PollErrorReason.SERVER_ERROR, summary, status)
        return _fail(PollErrorReason.HTTP_ERROR, summary, status)

    async def _read_json(self, response: httpx.Response, label: str) -> JsonValue | _Failure:
        """Read at most `max_response_bytes` (after content-decoding) and parse strict JSON."""
        problem = f"response larger than {self._max_bytes} bytes"
        declared = response.headers.get("Content-Length", "").strip()
        if not (declared.isascii() and declared.isdigit() and int(declared) > self._max_bytes):
            body = bytearray()
            async for chunk in response.aiter_bytes():
                body += chunk
                if len(body) > self._max_bytes:
                    break
            else:
                try:
                    return parse_json(bytes(body))
                except UnicodeDecodeError:
                    problem = "body is not UTF-8"
                except ValueError:
                    problem = "body is not JSON"
        return _fail(PollErrorReason.BAD_PAYLOAD, f"{label}: {problem}", response.status_code)


def _fail(
    reason: PollErrorReason, message: str, status_code: int | None = None, *, unsent: bool = False
) -> _Failure:
    return _Failure(PollError(reason, message, status_code=status_code), unsent=unsent)


async def _vet_redirect(response: httpx.Response) -> None:
    """Response hook: decide on a redirect before httpx parses `Location` on its own.

    Even with redirects off, httpx builds the next request from `Location` and reports one it
    cannot parse as a transport error; deciding first keeps that an `http_error` with a status.
    """
    if response.status_code in REDIRECT_STATUSES:
        redirect_target(response)
