"""The simulated world: keys and balances, component states, faults, shape and the timeline.

Pure: no I/O and no clock. Every method takes `now`, the scenario time in seconds since the
simulator started (the server turns wall time into scenario time, applying `speed`). That keeps
the timeline unit-testable without sleeping.

Things that change with time are computed lazily rather than by a background task:
- a draining balance is `balance_at(now)` = balance at the last change minus rate x elapsed;
- timeline events are applied, each at its own scheduled instant, whenever `now` passes them;
- maintenance windows and fault durations are compared with `now` when asked.
Times only move forward: a `now` older than one already seen is treated as that later time.

With `repeat`, the story restarts every `repeat` seconds: the world is reset to the scenario's
starting state (discarding changes made through the control API) and the timeline replays.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from tqe_monitor.simulator.account import Account
from tqe_monitor.simulator.actions import (
    Action,
    AddFault,
    ClearFaults,
    Drain,
    FaultSpec,
    Maintenance,
    Revoke,
    SetKey,
    SetShape,
    SetStatus,
    TopUp,
)
from tqe_monitor.simulator.scenario import Scenario
from tqe_monitor.simulator.vocabulary import Component, Endpoint, InvalidInput, Shape, State


@dataclass
class ActiveFault:
    """A fault being injected; `remaining` requests (None: no limit) until `expires_at`."""

    spec: FaultSpec
    remaining: int | None
    expires_at: float | None

    def expired(self, now: float) -> bool:
        return (self.remaining is not None and self.remaining <= 0) or (
            self.expires_at is not None and now >= self.expires_at
        )


@dataclass(frozen=True)
class MaintenanceWindow:
    start: float
    end: float
    components: tuple[Component, ...]


class Access(StrEnum):
    """The outcome of checking an API key (the values double as error codes sent to clients)."""

    GRANTED = "granted"
    MISSING = "missing_api_key"
    INVALID = "invalid_api_key"
    REVOKED = "revoked_api_key"
    NO_SCOPE = "insufficient_scope"


class World:
    """The simulated service's state; see the module docstring for how time is handled."""

    def __init__(self, scenario: Scenario) -> None:
        self._scenario = scenario
        self._now = 0.0
        self._cycle = 0
        self._next_event = 0
        self._reset(0.0)

    def __repr__(self) -> str:  # the default would list the accounts, keys included
        return f"World(now={self._now:g}, keys={len(self._accounts)}, shape={self._shape})"

    # -- time ---------------------------------------------------------------------------------

    def advance(self, now: float) -> float:
        """Apply everything due by `now`; returns the (monotonic) time actually used."""
        now = max(now, self._now)
        self._now = now
        repeat = self._scenario.repeat
        if repeat is not None and now >= (self._cycle + 1) * repeat:
            # Cycles skipped entirely need no replay: the reset wipes whatever they did.
            self._cycle = int(now // repeat)
            self._next_event = 0
            self._reset(self._cycle * repeat)
        cycle_start = self._cycle * repeat if repeat is not None else 0.0
        timeline = self._scenario.timeline
        while self._next_event < len(timeline):
            event = timeline[self._next_event]
            due = cycle_start + event.at
            if due > now:
                break
            self._next_event += 1
            self._apply(event.action, due)
        self._forget_past(now)
        return now

    def _reset(self, now: float) -> None:
        self._accounts = {
            key: Account(
                words=float(spec.balance),
                anchor=now,
                updated_at=now,
                scope=spec.scope,
                revoked=spec.revoked,
                words_per_second=spec.words_per_second,
            )
            for key, spec in self._scenario.keys.items()
        }
        self._base_status = dict(self._scenario.status)
        self._status_changed_at = now
        self._maintenance: list[MaintenanceWindow] = []
        self._faults: list[ActiveFault] = []
        self._shape = self._scenario.shape

    def _forget_past(self, now: float) -> None:
        if self._maintenance:
            for window in self._maintenance:
                if window.end <= now:
                    self._status_changed_at = max(self._status_changed_at, window.end)
            self._maintenance = [w for w in self._maintenance if w.end > now]
        if self._faults:
            self._faults = [fault for fault in self._faults if not fault.expired(now)]

    # -- changes --------------------------------------------------------------------------------

    def apply(self, action: Action, *, now: float) -> None:
        """Apply one action at `now` (the control API and the Python API come through here).

        Raises InvalidInput for an action on a key that does not exist.
        """
        self._apply(action, self.advance(now))

    def _apply(self, action: Action, now: float) -> None:
        match action:
            case SetStatus():
                for component, state in (
                    (Component.PLATFORM, action.platform),
                    (Component.AI_SERVICE, action.ai_service),
                ):
                    if state is not None and self._base_status[component] is not state:
                        self._base_status[component] = state
                        self._status_changed_at = now
            case Maintenance():
                if action.duration > 0:
                    end = now + action.duration
                    self._maintenance.append(MaintenanceWindow(now, end, action.components))
                    self._status_changed_at = now
            case SetKey():
                self._set_key(action, now)
            case TopUp():
                self._account(action.key).add(action.words, now)
            case Revoke():
                self._account(action.key).revoked = True
            case Drain():
                account = self._account(action.key)
                account.settle(now)
                account.words_per_second = action.words_per_second
            case AddFault():
                spec = action.fault
                expires = None if spec.duration is None else now + spec.duration
                self._faults.append(ActiveFault(spec, spec.count, expires))
            case ClearFaults():
                self._faults.clear()
            case SetShape():
                self._shape = action.shape

    def _set_key(self, action: SetKey, now: float) -> None:
        account = self._accounts.get(action.key)
        if account is None:
            account = Account(words=0.0, anchor=now, updated_at=now)
            self._accounts[action.key] = account
        if action.balance is not None:
            account.settle(now)
            account.words = float(action.balance)
            account.updated_at = now
        if action.scope is not None:
            account.scope = action.scope
        if action.revoked is not None:
            account.revoked = action.revoked

    def _account(self, key: str) -> Account:
        account = self._accounts.get(key)
        if account is None:
            raise InvalidInput("key", "no such key")
        return account

    # -- what the service endpoints need -------------------------------------------------------

    def status(self, *, now: float) -> dict[Component, State]:
        """The states /status reports: maintenance windows override the base states."""
        self.advance(now)
        status = dict(self._base_status)
        for window in self._maintenance:
            for component in window.components:
                status[component] = State.MAINTENANCE
        return status

    def status_updated_at(self, *, now: float) -> float:
        self.advance(now)
        return max([self._status_changed_at, *(window.start for window in self._maintenance)])

    def shape(self, *, now: float) -> Shape:
        self.advance(now)
        return self._shape

    def authorize(self, key: str | None, *, now: float, needs_scope: bool = True) -> Access:
        """One of the `Access` values for a request carrying `key` (None: no header).

        Scope guards the protected resources (wallet, check); any valid key may read /status.
        """
        self.advance(now)
        if key is None:
            return Access.MISSING
        account = self._accounts.get(key)
        if account is None:
            return Access.INVALID
        if account.revoked:
            return Access.REVOKED
        return Access.GRANTED if account.scope or not needs_scope else Access.NO_SCOPE

    def wallet(self, key: str, *, now: float) -> tuple[int, float]:
        """(remaining words, time of the last balance change) for an existing key."""
        now = self.advance(now)
        account = self._account(key)
        return account.remaining_words(now), account.updated_at_time(now)

    def charge(self, key: str, words: int, *, now: float) -> bool:
        """Take `words` from the key's balance; False (and nothing taken) if it has too few."""
        now = self.advance(now)
        account = self._account(key)
        if account.remaining_words(now) < words:
            return False
        account.add(-words, now)
        return True

    def take_fault(self, endpoint: Endpoint, *, now: float) -> FaultSpec | None:
        """The fault to apply to this request, if any (oldest first); counts it as used."""
        now = self.advance(now)
        for fault in self._faults:
            if fault.spec.endpoint in (endpoint, Endpoint.ALL) and not fault.expired(now):
                if fault.remaining is not None:
                    fault.remaining -= 1
                spec = fault.spec
                self._forget_past(now)
                return spec
        return None

    # -- inspection -----------------------------------------------------------------------------

    def snapshot(self, *, now: float) -> dict[str, object]:
        """Everything, JSON-ready, for GET /_sim/state (times are scenario seconds)."""
        now = self.advance(now)
        return {
            "now": now,
            "cycle": self._cycle,
            "shape": self._shape.value,
            "status": {c.value: s.value for c, s in self.status(now=now).items()},
            "base_status": {c.value: s.value for c, s in self._base_status.items()},
            "maintenance": [
                {"start": w.start, "end": w.end, "components": [c.value for c in w.components]}
                for w in self._maintenance
            ],
            "keys": {
                key: {
                    "balance": account.remaining_words(now),
                    "updated_at": account.updated_at_time(now),
                    "words_per_second": account.words_per_second,
                    "scope": account.scope,
                    "revoked": account.revoked,
                }
                for key, account in self._accounts.items()
            },
            "faults": [
                {
                    "endpoint": fault.spec.endpoint.value,
                    "kind": fault.spec.kind.value,
                    "remaining": fault.remaining,
                    "expires_at": fault.expires_at,
                    "delay": fault.spec.delay,
                    "status_code": fault.spec.status_code,
                    "retry_after": fault.spec.retry_after,
                }
                for fault in self._faults
            ],
        }
