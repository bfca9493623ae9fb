"""Applies poll outcomes: state tracker -> store -> metrics -> whoever listens for transitions.

One poll's results are committed to the store in one transaction before they are published, so
a crash never leaves a condition announced but forgotten. A store that fails at run time (disk
full) is logged and counted, and monitoring goes on: the metrics stay true even if memory is lost.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from tqe_monitor.condition_metrics import ConditionMetrics
from tqe_monitor.errors import PollErrorReason
from tqe_monitor.logging_setup import get_logger
from tqe_monitor.metrics import MonitorMetrics
from tqe_monitor.models import Component
from tqe_monitor.poller import StatusOutcome, WalletOutcome
from tqe_monitor.store import Store, StoreError
from tqe_monitor.store.base import WalletSample
from tqe_monitor.tracking import ComponentTracker, StateChange
from tqe_monitor.tracking.conditions import ConditionKey, ConditionKind, Transition
from tqe_monitor.tracking.tracker import Tracker
from tqe_monitor.tracking.wallet import WalletPolicy

log = get_logger(__name__)
TransitionSink = Callable[[Sequence[Transition]], None]


class Recorder:
    """Owns the live state of all targets and keeps metrics and store in step with it."""

    def __init__(
        self,
        *,
        metrics: MonitorMetrics,
        condition_metrics: ConditionMetrics,
        components: ComponentTracker,
        tracker: Tracker,
        store: Store,
        policies: dict[tuple[str, str], WalletPolicy],
        on_transitions: TransitionSink | None = None,
    ) -> None:
        self._metrics = metrics
        self._conditions = condition_metrics
        self._components = components
        self._tracker = tracker
        self._store = store
        self._policies = policies
        self._sink = on_transitions
        self._status: dict[str, StatusOutcome] = {}
        self._wallets: dict[tuple[str, str], WalletOutcome] = {}
        for (service, target), policy in policies.items():
            condition_metrics.declare_wallet(service, target, policy)

    def restore(self, now: datetime) -> None:
        """Load what the store remembers, so a restart neither repeats nor loses a condition.

        Conditions still true are simply kept (no new "raised"); those that ended while the
        daemon was down resolve on the first poll that sees them gone.
        """
        services = {service for service, _ in self._policies}
        dropped = self._store.retain(services, set(self._policies))
        for service, component, state, since in self._store.component_states():
            self._components.restore(service, component, state, since)
            self._metrics.component_state(service, component, state, since)
        longest = max((p.forecast_window for p in self._policies.values()), default=None)
        samples = self._store.each_wallet_samples(now - longest) if longest else iter(())
        conditions = self._store.active_conditions()
        wallets = self._tracker.restore(conditions, samples)
        for condition in conditions:
            self._conditions.condition_active(condition.key, condition.severity.value, True)
            if condition.key.kind is ConditionKind.API_KEY_REJECTED:
                self._metrics.key_accepted(condition.key.service, condition.key.target, False)
        # Breach gauges and the forecast from the restored state at once, not after the first
        # wallet poll: a breach gauge dropping to 0 across a restart would resolve and re-fire
        # alert rules built on it.
        for (service, target), policy in self._policies.items():
            forecast = self._tracker.watch(service, target).last_forecast
            self._conditions.wallet_analysis(service, target, forecast, policy, self._tracker.book)
        log.info(
            "state_restored",
            conditions=len(conditions),
            wallets=wallets,
            forgotten_unconfigured=dropped,
        )

    def status(self, outcome: StatusOutcome) -> None:
        """Apply one status poll."""
        service, at, reading = outcome.service, outcome.at, outcome.reading
        reason = outcome.error.reason if outcome.error else None
        self._metrics.status_polled(service, at, outcome.duration, reason)
        transitions: list[Transition] = []
        for name in outcome.rejected_targets:
            transitions += self._key(service, name, accepted=False, at=at)
        if reading is not None and outcome.target is not None:
            transitions += self._key(service, outcome.target, accepted=True, at=at)
        if outcome.error is not None:
            log.warning(
                "status_poll_failed",
                service=service,
                reason=str(reason),
                detail=outcome.error.message,
            )
        changes = self._components.observe(service, reading, at)
        transitions += self._tracker.status(service, reading, reason, at)
        for change in changes:
            self._metrics.component_state(service, change.component, change.current, change.since)
            self._conditions.state_changed(change)
            log.info(
                "state_changed",
                service=service,
                component=str(change.component),
                previous=str(change.previous),
                current=str(change.current),
            )
        self._status[service] = outcome
        self._commit(transitions, changes, [])

    def wallet(self, outcome: WalletOutcome) -> None:
        """Apply one wallet poll."""
        service, target, at, reading = outcome.service, outcome.target, outcome.at, outcome.reading
        reason = outcome.error.reason if outcome.error else None
        self._metrics.wallet_polled(service, target, at, outcome.duration, reason)
        transitions: list[Transition] = []
        samples: list[WalletSample] = []
        if reading is not None:
            self._metrics.wallet_read(service, target, reading.remaining_words, reading.updated_at)
            transitions += self._key(service, target, accepted=True, at=at)
            samples.append(WalletSample(service, target, at, reading.remaining_words))
        elif outcome.error is not None:
            if reason is PollErrorReason.AUTH:
                transitions += self._key(service, target, accepted=False, at=at)
            log.warning(
                "wallet_poll_failed",
                service=service,
                target=target,
                reason=str(reason),
                detail=outcome.error.message,
            )
        analysis = self._tracker.wallet(
            service, target, reading.remaining_words if reading else None, at
        )
        transitions += analysis.transitions
        policy = self._policies[(service, target)]
        self._conditions.wallet_analysis(
            service, target, analysis.forecast, policy, self._tracker.book
        )
        if analysis.top_up is not None:
            log.info(
                "wallet_topped_up",
                service=service,
                target=target,
                previous=analysis.top_up.previous,
                current=analysis.top_up.current,
            )
        self._wallets[(service, target)] = outcome
        self._commit(transitions, [], samples)

    def key_rejected(self, service: str, target: str) -> bool:
        """True while the target's API key is known to be rejected."""
        key = ConditionKey(ConditionKind.API_KEY_REJECTED, service, target)
        return self._tracker.book.is_active(key)

    def _key(self, service: str, target: str, *, accepted: bool, at: datetime) -> list[Transition]:
        self._metrics.key_accepted(service, target, accepted)
        return self._tracker.key(service, target, accepted, at)

    def _commit(
        self,
        transitions: Sequence[Transition],
        changes: Sequence[StateChange],
        samples: Sequence[WalletSample],
    ) -> None:
        try:
            self._store.commit(transitions=transitions, state_changes=changes, samples=samples)
        except StoreError as exc:
            self._metrics.store_error()
            log.error("store_write_failed", error=str(exc))
        for transition in transitions:
            self._conditions.condition(transition)
            log.info(
                "condition_" + ("raised" if transition.raised else "resolved"),
                condition=transition.key.name,
                service=transition.key.service,
                target=transition.key.target,
                severity=transition.severity.value,
                since=transition.since.isoformat(),
                **dict(transition.details),
            )
        if transitions and self._sink is not None:
            self._sink(transitions)

    def snapshot(self) -> dict[str, Any]:
        """The live state, as served by /api/state (documented in docs/api.md)."""
        services: dict[str, Any] = {}
        for service in sorted({s for s, _ in self._policies}):
            components = {}
            for component in Component:
                current = self._components.current(service, component)
                if current is not None:
                    components[component.value] = {
                        "state": current[0].value,
                        "since": current[1].isoformat(),
                    }
            status = self._status.get(service)
            services[service] = {
                "up": status is not None and status.error is None,
                "last_poll": status.at.isoformat() if status else None,
                "components": components,
            }
        wallets: dict[str, Any] = {}
        for (service, target), _ in sorted(self._policies.items()):
            outcome = self._wallets.get((service, target))
            reading = outcome.reading if outcome else None
            forecast = self._tracker.watch(service, target).last_forecast
            wallets[target] = {
                "service": service,
                "up": outcome is not None and outcome.error is None,
                "last_poll": outcome.at.isoformat() if outcome else None,
                "remaining_words": reading.remaining_words if reading else None,
                "updated_at": reading.updated_at.isoformat()
                if reading and reading.updated_at
                else None,
                "burn_rate_words_per_hour": forecast.burn_rate_per_hour if forecast else None,
                "depletion_seconds": forecast.seconds_to_zero if forecast else None,
                "api_key_rejected": self.key_rejected(service, target),
            }
        conditions = [
            {
                "id": state.key.id,
                "condition": state.key.name,
                "kind": state.key.kind.value,
                "service": state.key.service,
                "target": state.key.target,
                "severity": state.severity.value,
                "since": state.since.isoformat(),
                "details": state.details,
            }
            for state in self._tracker.book.active()
        ]
        return {"services": services, "wallets": wallets, "conditions": conditions}
