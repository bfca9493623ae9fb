"""The HTTP rules `TqeClient` applies, as pure code: no I/O, no clock, no state.

Kept apart from the client so each rule can be read (and tested) on its own terms, without a
connection pool around it:
- which URL a request goes to (`request_url`), and which redirects may be followed
  (`redirect_target`: same origin only, so the API key never travels to a host the operator
  did not configure);
- what a `Retry-After` header asks for (`retry_after_seconds`), measured against the service's
  own `Date` so clock skew does not distort the wait;
- whether and when to try again (`RetryPolicy`): bounded attempts, full-jitter backoff, and
  no blind repeat of a request that spends words;
- what the API key must look like to be sent at all (`is_sendable_header_value`).

Nothing here ever puts a header value, a path or a query into a message: errors name at most an
origin (`scheme://host:port`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Final

import httpx

from tqe_monitor.errors import PollError, PollErrorReason

__all__ = [
    "MAX_RETRY_AFTER",
    "REDIRECT_STATUSES",
    "RefusedRedirect",
    "RetryPolicy",
    "http_date",
    "is_sendable_header_value",
    "origin",
    "origin_text",
    "redirect_target",
    "request_url",
    "retry_after_seconds",
]

REDIRECT_STATUSES: Final = frozenset({301, 302, 303, 307, 308})
_DEFAULT_PORTS: Final = {"http": 80, "https": 443}
# Absurd hints are clamped so callers' date arithmetic stays finite.
MAX_RETRY_AFTER: Final = 86_400.0


class RefusedRedirect(Exception):
    """A redirect we will not follow (`why` is safe to show: at most an origin)."""

    def __init__(self, status: int, why: str) -> None:
        super().__init__(why)
        self.status = status
        self.why = why


@dataclass(frozen=True)
class RetryPolicy:
    """How hard to try: modest defaults, because the caller bounds the whole poll by a deadline.

    Backoff before retry n (0-based) is `jitter() * min(max_delay, base_delay * 2**n)` ("full
    jitter", so thousands of targets that failed together do not retry together). A 429 with a
    `Retry-After` waits exactly that long if it is at most `max_retry_after`, else gives up.
    """

    attempts: int = 3  # total attempts, the first included
    base_delay: float = 0.5
    max_delay: float = 5.0
    max_retry_after: float = 30.0

    def __post_init__(self) -> None:
        if self.attempts < 1:
            raise ValueError("attempts must be at least 1")
        if min(self.base_delay, self.max_delay, self.max_retry_after) < 0:
            raise ValueError("delays must not be negative")

    def delay_before_retry(
        self,
        error: PollError,
        retries: int,
        *,
        replayable: bool,
        unsent: bool,
        jitter: Callable[[], float],
    ) -> float | None:
        """Seconds to wait before the next attempt after `error`, or None to give up now.

        `retries` is how many retries were already made. A request that is not `replayable`
        (POST /check spends words) is retried only when it surely did not reach the service:
        after a timeout or a 5xx nobody knows whether the segment was evaluated (and billed),
        so only `unsent` failures (connect errors, connect/pool timeouts) and 429s qualify.
        `jitter` returns a number in [0, 1); it is injected so tests need not guess.
        """
        if not error.reason.transient or retries + 1 >= self.attempts:
            return None
        if not replayable and not (unsent or error.reason is PollErrorReason.RATE_LIMITED):
            return None
        if error.retry_after is not None:
            return error.retry_after if error.retry_after <= self.max_retry_after else None
        # The exponent is capped so a long run of retries cannot overflow a float.
        ceiling = min(self.max_delay, self.base_delay * 2.0 ** min(retries, 60))
        return jitter() * ceiling


def is_sendable_header_value(value: str) -> bool:
    """Whether `value` can go in a header as it is: non-empty printable ASCII, no edge spaces.

    httpx rejects anything else with an exception that quotes the value; for an API key that
    would put the secret in an error message, so the client checks first and refuses itself.
    """
    return bool(value) and value.isascii() and value.isprintable() and value == value.strip()


def request_url(base_url: str, path: str) -> httpx.URL | None:
    """The absolute URL of `path` under `base_url` (which keeps its /v2), if it is http(s).

    The path is appended, not resolved: `httpx.URL.join("/status")` would drop the `/v2` prefix.
    """
    try:
        url = httpx.URL(base_url.rstrip("/") + path)
    except httpx.InvalidURL:
        return None
    return url if url.scheme in _DEFAULT_PORTS and url.host else None


def origin(url: httpx.URL) -> tuple[str, str, int | None]:
    """(scheme, host, port) with the default port made explicit, so `:443` equals no port."""
    return url.scheme, url.host, url.port or _DEFAULT_PORTS.get(url.scheme)


def origin_text(url: httpx.URL) -> str:
    """scheme://host[:port] only: a path or query might carry something private."""
    host = f"[{url.host}]" if ":" in url.host else url.host
    port = f":{url.port}" if url.port is not None else ""
    return f"{url.scheme}://{host}{port}"


def redirect_target(response: httpx.Response) -> httpx.URL:
    """The same-origin URL a 3xx points to; raises `RefusedRedirect` for anything else.

    Only the same origin is allowed because the request carries the API key: following a
    redirect elsewhere would hand the key to a host nobody configured.
    """
    status = response.status_code
    location = response.headers.get("Location")
    if not location:
        raise RefusedRedirect(status, "redirect without Location")
    try:
        target = response.url.join(location)
    except httpx.InvalidURL:
        raise RefusedRedirect(status, "redirect to an invalid URL") from None
    if origin(target) != origin(response.url):
        raise RefusedRedirect(status, f"refused cross-origin redirect to {origin_text(target)}")
    return target


def retry_after_seconds(headers: httpx.Headers, now: datetime) -> float | None:
    """`Retry-After` as seconds from now: delay-seconds, or an HTTP-date (None if neither).

    An HTTP-date is measured against the response's own `Date` header when it has one, so a skew
    between the service's clock and ours does not distort the wait; `now` is only the fallback.
    """
    value = headers.get("Retry-After", "").strip()
    if value.isascii() and value.isdigit():
        return min(float(value), MAX_RETRY_AFTER)
    when = http_date(value)
    if when is None:
        return None
    reference = http_date(headers.get("Date", "")) or now
    return min(max(0.0, (when - reference).total_seconds()), MAX_RETRY_AFTER)


def http_date(value: str) -> datetime | None:
    """An RFC 9110 HTTP-date as an aware datetime (a zoneless one is taken as UTC), else None."""
    if not value:
        return None
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)
