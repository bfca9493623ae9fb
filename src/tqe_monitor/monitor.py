"""Polling for a set of targets: which jobs exist, how each poll runs, and when we are ready.

One `Monitor` knows which targets belong to which service, runs each poll through the `Poller`
within a deadline, and hands the outcome to the `Recorder`. It owns no I/O of its own: poller,
recorder and clock are given to it, so tests drive it with fakes.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from datetime import datetime
from functools import partial

from tqe_monitor.config import ResolvedTarget
from tqe_monitor.errors import PollError, PollErrorReason
from tqe_monitor.logging_setup import get_logger
from tqe_monitor.metrics import MonitorMetrics
from tqe_monitor.poller import Poller, StatusOutcome, WalletOutcome, utc_now
from tqe_monitor.recorder import Recorder
from tqe_monitor.scheduler import PollJob

log = get_logger(__name__)


class Monitor:
    """Polls every configured service and target and records what it saw."""

    def __init__(
        self,
        targets: Sequence[ResolvedTarget],
        *,
        poller: Poller,
        recorder: Recorder,
        metrics: MonitorMetrics,
        clock: Callable[[], datetime] = utc_now,
    ) -> None:
        self._targets = {t.name: t for t in targets}
        self._services: dict[str, list[ResolvedTarget]] = {}
        for target in targets:
            self._services.setdefault(target.service, []).append(target)
        self._poller = poller
        self._recorder = recorder
        self._metrics = metrics
        self._clock = clock
        self._pending = {f"status:{s}" for s in self._services} | {
            f"wallet:{t}" for t in self._targets
        }
        for service, members in self._services.items():
            metrics.declare(service, [t.name for t in members])

    def jobs(self) -> list[PollJob]:
        """One status job per service and one wallet job per target."""
        jobs = []
        for service, members in self._services.items():
            interval, deadline = self._status_timing(members)
            jobs.append(
                PollJob(
                    f"status:{service}",
                    service,
                    "status",
                    interval,
                    deadline + 1,
                    partial(self.poll_status, service),
                )
            )
        for target in self._targets.values():
            deadline = max(target.wallet_interval, target.timeout)
            jobs.append(
                PollJob(
                    f"wallet:{target.name}",
                    target.service,
                    "wallet",
                    target.wallet_interval,
                    deadline + 1,
                    partial(self.poll_wallet, target.name),
                )
            )
        return jobs

    async def poll_status(self, service: str) -> None:
        """Poll a service's status, trying keys not known to be rejected first."""
        members = sorted(
            self._services[service],
            key=lambda t: self._recorder.key_rejected(service, t.name),
        )
        _, deadline = self._status_timing(members)
        at = self._clock()
        try:
            async with asyncio.timeout(deadline):
                outcome = await self._poller.poll_status(service, members)
        except TimeoutError:
            outcome = StatusOutcome(service, None, at, deadline, error=_deadline_error(deadline))
        self._recorder.status(outcome)
        self._pending.discard(f"status:{service}")

    async def poll_wallet(self, name: str) -> None:
        """Poll one target's wallet."""
        target = self._targets[name]
        deadline = max(target.wallet_interval, target.timeout)
        at = self._clock()
        try:
            async with asyncio.timeout(deadline):
                outcome = await self._poller.poll_wallet(target)
        except TimeoutError:
            outcome = WalletOutcome(
                target.service, name, at, deadline, error=_deadline_error(deadline)
            )
        self._recorder.wallet(outcome)
        self._pending.discard(f"wallet:{name}")

    def overrun(self, job: PollJob) -> None:
        """Count a skipped poll (the previous one of the same job was still running)."""
        self._metrics.overrun(job.service, job.endpoint)
        log.warning("poll_overrun", job=job.id)

    def readiness(self) -> tuple[bool, str]:
        """Ready once every service and every target has been polled at least once."""
        if not self._pending:
            return True, f"ready: {len(self._targets)} targets polled"
        total = len(self._targets) + len(self._services)
        return False, f"not ready: {len(self._pending)} of {total} first polls pending"

    @staticmethod
    def _status_timing(members: Sequence[ResolvedTarget]) -> tuple[float, float]:
        """A service's status interval (its targets' shortest) and a poll's deadline."""
        interval = min(t.status_interval for t in members)
        return interval, max(interval, *(t.timeout for t in members))


def _deadline_error(deadline: float) -> PollError:
    return PollError(PollErrorReason.TIMEOUT, f"poll did not finish within {deadline:g}s")
