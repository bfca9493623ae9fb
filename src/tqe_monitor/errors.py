"""The one error type every upstream failure becomes, with a reason people can alert on.

Messages are written by tqe-monitor itself (method and path, never the full URL, headers or the
upstream's body), so an error can be logged, counted and shown without leaking a secret.
"""

from __future__ import annotations

from enum import StrEnum


class PollErrorReason(StrEnum):
    """Why a request to the service failed. These are the `reason` label values of the metrics."""

    TIMEOUT = "timeout"
    CONNECT = "connect"
    AUTH = "auth"
    RATE_LIMITED = "rate_limited"
    SERVER_ERROR = "server_error"
    HTTP_ERROR = "http_error"
    BAD_PAYLOAD = "bad_payload"

    @property
    def transient(self) -> bool:
        """True for failures that a later attempt may not see (worth retrying)."""
        return self in _TRANSIENT


_TRANSIENT = frozenset(
    {
        PollErrorReason.TIMEOUT,
        PollErrorReason.CONNECT,
        PollErrorReason.RATE_LIMITED,
        PollErrorReason.SERVER_ERROR,
    }
)


class PollError(Exception):
    """A failed request or an unreadable payload.

    Attributes:
        reason: the category, used for metrics, retries and alert conditions.
        message: a human-readable explanation that never contains a secret.
        status_code: the HTTP status when the service answered, else None.
        retry_after: seconds the service asked us to wait (429 `Retry-After`), else None.
    """

    def __init__(
        self,
        reason: PollErrorReason,
        message: str,
        *,
        status_code: int | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(f"{reason.value}: {message}")
        self.reason = reason
        self.message = message
        self.status_code = status_code
        self.retry_after = retry_after

    def __repr__(self) -> str:
        return f"PollError(reason={self.reason.value!r}, message={self.message!r})"
