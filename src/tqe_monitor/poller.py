"""One poll of one thing: call the service, normalize the answer, time it, keep the failure.

Both the one-shot `poll` command and the daemon's scheduler go through here, so a poll means the
same thing everywhere. Failures are values (`error`), not exceptions: a bad payload or a dead
service is something to count and report, never a reason for a caller to crash.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from tqe_monitor.client import Endpoint, TqeClient
from tqe_monitor.config import ResolvedTarget
from tqe_monitor.errors import PollError, PollErrorReason
from tqe_monitor.models import StatusReading, WalletReading
from tqe_monitor.normalizer import normalize_status, normalize_wallet


def utc_now() -> datetime:
    """The production clock: an aware UTC datetime."""
    return datetime.now(UTC)


@dataclass(frozen=True, slots=True)
class StatusOutcome:
    """The result of polling one service's /status (with one of its targets' keys)."""

    service: str
    target: str | None
    at: datetime
    duration: float
    reading: StatusReading | None = None
    error: PollError | None = None
    rejected_targets: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class WalletOutcome:
    """The result of polling one target's /wallet."""

    service: str
    target: str
    at: datetime
    duration: float
    reading: WalletReading | None = None
    error: PollError | None = None


def endpoint_for(target: ResolvedTarget) -> Endpoint:
    """The client's view of a target: where to call and with which key."""
    return Endpoint(base_url=target.base_url, api_key=target.api_key, timeout=target.timeout)


class Poller:
    """Polls through one shared client; the clocks are injected so tests control time."""

    def __init__(
        self,
        client: TqeClient,
        *,
        clock: Callable[[], datetime] = utc_now,
        timer: Callable[[], float] = time.perf_counter,
    ) -> None:
        self._client = client
        self._clock = clock
        self._timer = timer

    async def poll_status(self, service: str, targets: Sequence[ResolvedTarget]) -> StatusOutcome:
        """Poll `service` with the first target's key, falling back to the next on 401/403.

        Status is a property of the service, not of a key, so any accepted key will do; the
        keys that were rejected on the way are reported so their targets can be flagged.
        """
        at, started = self._clock(), self._timer()
        rejected: list[str] = []
        error: PollError | None = None
        for target in targets:
            try:
                payload = await self._client.get_status(endpoint_for(target))
                reading = normalize_status(payload, target.config.mapping.status)
            except PollError as exc:
                error = exc
                if exc.reason is PollErrorReason.AUTH:
                    rejected.append(target.name)
                    continue
                return StatusOutcome(
                    service,
                    target.name,
                    at,
                    self._timer() - started,
                    error=exc,
                    rejected_targets=tuple(rejected),
                )
            return StatusOutcome(
                service,
                target.name,
                at,
                self._timer() - started,
                reading=reading,
                rejected_targets=tuple(rejected),
            )
        if error is None:
            error = PollError(PollErrorReason.HTTP_ERROR, f"service {service} has no targets")
        last = targets[-1].name if targets else None
        return StatusOutcome(
            service,
            last,
            at,
            self._timer() - started,
            error=error,
            rejected_targets=tuple(rejected),
        )

    async def poll_wallet(self, target: ResolvedTarget) -> WalletOutcome:
        """Poll one target's wallet."""
        at, started = self._clock(), self._timer()
        try:
            payload = await self._client.get_wallet(endpoint_for(target))
            reading = normalize_wallet(payload, target.config.mapping.wallet)
        except PollError as exc:
            return WalletOutcome(
                target.service, target.name, at, self._timer() - started, error=exc
            )
        return WalletOutcome(
            target.service, target.name, at, self._timer() - started, reading=reading
        )
