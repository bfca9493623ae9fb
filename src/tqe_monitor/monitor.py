"""The monitoring pipeline for a set of targets: poll -> track -> publish.

One `Monitor` knows which targets belong to which service, runs each poll through the `Poller`,
feeds the outcome to the state tracker and publishes the result as metrics. It owns no I/O of
its own: the poller, metrics, tracker and clock are given to it, so tests drive it with fakes.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from datetime import datetime
from functools import partial
from typing import Any

from tqe_monitor.config import ResolvedTarget
from tqe_monitor.errors import PollError, PollErrorReason
from tqe_monitor.logging_setup import get_logger
from tqe_monitor.metrics import MonitorMetrics
from tqe_monitor.models import Component
from tqe_monitor.poller import Poller, StatusOutcome, WalletOutcome, utc_now
from tqe_monitor.scheduler import PollJob
from tqe_monitor.tracking import ComponentTracker

log = get_logger(__name__)


class Monitor:
    """Polls, tracks and publishes the state of every configured target and service."""

    def __init__(
        self,
        targets: Sequence[ResolvedTarget],
        *,
        poller: Poller,
        metrics: MonitorMetrics,
        tracker: ComponentTracker,
        clock: Callable[[], datetime] = utc_now,
    ) -> None:
        self._targets = {t.name: t for t in targets}
        self._services: dict[str, list[ResolvedTarget]] = {}
        for target in targets:
            self._services.setdefault(target.service, []).append(target)
        self._poller = poller
        self._metrics = metrics
        self._tracker = tracker
        self._clock = clock
        self._rejected: set[str] = set()
        self._pending = {f"status:{s}" for s in self._services} | {
            f"wallet:{t}" for t in self._targets
        }
        self._wallets: dict[str, WalletOutcome] = {}
        self._statuses: dict[str, StatusOutcome] = {}
        for service, members in self._services.items():
            metrics.declare(service, [t.name for t in members])

    def jobs(self) -> list[PollJob]:
        """One status job per service and one wallet job per target."""
        jobs = []
        for service, members in self._services.items():
            interval = min(t.status_interval for t in members)
            deadline = max(interval, *(t.timeout for t in members))
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
        """Poll a service's status, trying accepted keys first."""
        members = sorted(self._services[service], key=lambda t: t.name in self._rejected)
        deadline = max(min(t.status_interval for t in members), *(t.timeout for t in members))
        at = self._clock()
        try:
            async with asyncio.timeout(deadline):
                outcome = await self._poller.poll_status(service, members)
        except TimeoutError:
            outcome = StatusOutcome(service, None, at, deadline, error=_deadline_error(deadline))
        self.record_status(outcome)

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
        self.record_wallet(outcome)

    def record_status(self, outcome: StatusOutcome) -> None:
        """Apply a status poll outcome to the tracker and the metrics."""
        service = outcome.service
        error = outcome.error.reason if outcome.error else None
        self._metrics.status_polled(service, outcome.at, outcome.duration, error)
        for name in outcome.rejected_targets:
            self._set_key_accepted(service, name, accepted=False)
        if outcome.reading is not None and outcome.target is not None:
            self._set_key_accepted(service, outcome.target, accepted=True)
        if outcome.error is not None:
            log.warning(
                "status_poll_failed",
                service=service,
                reason=str(error),
                detail=outcome.error.message,
            )
        for change in self._tracker.observe(service, outcome.reading, outcome.at):
            log.info(
                "state_changed",
                service=service,
                component=str(change.component),
                previous=str(change.previous),
                current=str(change.current),
            )
        for component in Component:
            current = self._tracker.current(service, component)
            if current is not None:
                self._metrics.component_state(service, component, *current)
        self._statuses[service] = outcome
        self._pending.discard(f"status:{service}")

    def record_wallet(self, outcome: WalletOutcome) -> None:
        """Apply a wallet poll outcome to the metrics."""
        error = outcome.error.reason if outcome.error else None
        self._metrics.wallet_polled(
            outcome.service, outcome.target, outcome.at, outcome.duration, error
        )
        if outcome.reading is not None:
            self._metrics.wallet_read(
                outcome.service,
                outcome.target,
                outcome.reading.remaining_words,
                outcome.reading.updated_at,
            )
            self._set_key_accepted(outcome.service, outcome.target, accepted=True)
        elif outcome.error is not None:
            if outcome.error.reason is PollErrorReason.AUTH:
                self._set_key_accepted(outcome.service, outcome.target, accepted=False)
            log.warning(
                "wallet_poll_failed",
                service=outcome.service,
                target=outcome.target,
                reason=str(error),
                detail=outcome.error.message,
            )
        self._wallets[outcome.target] = outcome
        self._pending.discard(f"wallet:{outcome.target}")

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

    def snapshot(self) -> dict[str, Any]:
        """The live state for /api/state."""
        services = {}
        for service in self._services:
            components = {}
            for component in Component:
                current = self._tracker.current(service, component)
                if current is not None:
                    components[str(component)] = {
                        "state": str(current[0]),
                        "since": current[1].isoformat(),
                    }
            status = self._statuses.get(service)
            services[service] = {
                "up": status is not None and status.error is None,
                "components": components,
            }
        wallets = {}
        for name, target in self._targets.items():
            outcome = self._wallets.get(name)
            reading = outcome.reading if outcome else None
            wallets[name] = {
                "service": target.service,
                "up": outcome is not None and outcome.error is None,
                "remaining_words": reading.remaining_words if reading else None,
                "updated_at": reading.updated_at.isoformat()
                if reading and reading.updated_at
                else None,
                "api_key_rejected": name in self._rejected,
            }
        return {"services": services, "wallets": wallets}

    def _set_key_accepted(self, service: str, target: str, *, accepted: bool) -> None:
        was_rejected = target in self._rejected
        if accepted:
            self._rejected.discard(target)
        else:
            self._rejected.add(target)
        if was_rejected == accepted:  # a change
            log.info(
                "api_key_" + ("accepted" if accepted else "rejected"),
                service=service,
                target=target,
            )
        self._metrics.key_accepted(service, target, accepted)


def _deadline_error(deadline: float) -> PollError:
    return PollError(PollErrorReason.TIMEOUT, f"poll did not finish within {deadline:g}s")
