"""Plans notifications from condition events: grouping, routing, maintenance, reminders.

Pure: it reads events, who was told what (`announced`) and the active conditions, and returns
a `Plan` that the outbox writes in one transaction. Rules:
- events of one service are grouped until the oldest is `group_wait` old, then each channel gets
  one message for the whole group (500 targets failing together is one message, not 500);
- a resolve is sent only to channels that were told about the raise (and want resolves);
- while a service is in maintenance, its degraded / unknown / unreachable raises are held back;
  when maintenance ends, one summary lists what is still active, and those count as told;
- every `repeat_interval` an active, told condition is repeated as a reminder.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from itertools import groupby

from tqe_monitor.notify.messages import MessageLine, render
from tqe_monitor.notify.routing import Router
from tqe_monitor.store.outbox import NOTIFIED_HELD, NOTIFIED_YES, PendingEvent, PlannedNotification
from tqe_monitor.tracking.conditions import ConditionKind, ConditionState

HELD_DURING_MAINTENANCE = frozenset(
    {
        ConditionKind.COMPONENT_DEGRADED,
        ConditionKind.COMPONENT_UNKNOWN,
        ConditionKind.SERVICE_UNREACHABLE,
    }
)
Announced = dict[str, dict[str, datetime]]


@dataclass
class Plan:
    """What to write to the outbox, atomically."""

    notifications: list[PlannedNotification] = field(default_factory=list)
    consumed: dict[int, int] = field(default_factory=dict)
    announce: list[tuple[str, str, datetime]] = field(default_factory=list)
    unannounce: list[tuple[str, str]] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.notifications or self.consumed or self.announce or self.unannounce)


@dataclass(frozen=True)
class MessageSettings:
    dashboard_url: str | None = None
    title_template: str | None = None
    body_template: str | None = None


def kind_of(condition_id: str) -> ConditionKind:
    return ConditionKind(condition_id.split("|", 1)[0])


class Planner:
    """Turns events and active conditions into planned notifications."""

    def __init__(
        self,
        router: Router,
        *,
        group_wait: float,
        new_id: Callable[[], str],
        settings: MessageSettings | None = None,
    ) -> None:
        self._router = router
        self._group_wait = timedelta(seconds=group_wait)
        self._new_id = new_id
        self._settings = settings or MessageSettings()

    def events(
        self,
        events: Sequence[PendingEvent],
        announced: Announced,
        active: Sequence[ConditionState],
        now: datetime,
    ) -> Plan:
        """Plan messages for every service group whose oldest event is `group_wait` old."""
        plan = Plan()
        told = {cid: dict(channels) for cid, channels in announced.items()}
        in_maintenance = {
            s.key.service for s in active if s.key.kind is ConditionKind.COMPONENT_MAINTENANCE
        }
        ordered = sorted(events, key=lambda e: (e.service, e.seq))
        for service, group_iter in groupby(ordered, key=lambda e: e.service):
            group = list(group_iter)
            if now - min(e.at for e in group) < self._group_wait:
                continue
            lines: dict[str, list[MessageLine]] = {}
            maintenance_ended = False
            for event in group:
                kind = kind_of(event.condition_id)
                routes = self._router.route(kind.value, event.severity, service, event.target)
                line = MessageLine(
                    "raised" if event.raised else "resolved",
                    event.name,
                    event.severity,
                    service,
                    event.target,
                    event.since,
                    event.at,
                    event.details,
                )
                if event.raised and service in in_maintenance and kind in HELD_DURING_MAINTENANCE:
                    plan.consumed[event.seq] = NOTIFIED_HELD
                    continue
                plan.consumed[event.seq] = NOTIFIED_YES
                for channel, policy in routes.items():
                    if event.raised:
                        lines.setdefault(channel, []).append(line)
                        told.setdefault(event.condition_id, {})[channel] = now
                        plan.announce.append((event.condition_id, channel, now))
                    elif channel in told.get(event.condition_id, {}):
                        if policy.send_resolved:
                            lines.setdefault(channel, []).append(line)
                        told[event.condition_id].pop(channel)
                        plan.unannounce.append((event.condition_id, channel))
                if kind is ConditionKind.COMPONENT_MAINTENANCE and not event.raised:
                    maintenance_ended = service not in in_maintenance
            if maintenance_ended:
                # After the whole group: a condition raised in it is already told, so the
                # summary does not list it a second time as "still active".
                self._after_maintenance(service, active, told, lines, plan=plan, now=now)
            self._emit(service, lines, group, plan=plan, now=now)
        return plan

    def reminders(
        self, active: Sequence[ConditionState], announced: Announced, now: datetime
    ) -> Plan:
        """Repeat active conditions whose channels were last told `repeat_interval` ago."""
        plan = Plan()
        by_service: dict[str, dict[str, list[MessageLine]]] = {}
        for state in active:
            key = state.key
            routes = self._router.route(
                key.kind.value, state.severity.value, key.service, key.target
            )
            for channel, last in announced.get(key.id, {}).items():
                policy = routes.get(channel)
                if policy is None or (now - last).total_seconds() < policy.repeat_interval:
                    continue
                line = MessageLine(
                    "reminder",
                    key.name,
                    state.severity.value,
                    key.service,
                    key.target,
                    state.since,
                    now,
                    state.details,
                )
                by_service.setdefault(key.service, {}).setdefault(channel, []).append(line)
                plan.announce.append((key.id, channel, now))
        for service, lines in by_service.items():
            self._emit(service, lines, [], plan=plan, now=now, category="reminder")
        return plan

    def _after_maintenance(
        self,
        service: str,
        active: Iterable[ConditionState],
        told: Announced,
        lines: dict[str, list[MessageLine]],
        *,
        plan: Plan,
        now: datetime,
    ) -> None:
        held = [
            s for s in active if s.key.service == service and s.key.kind in HELD_DURING_MAINTENANCE
        ]
        for state in held:
            key = state.key
            routes = self._router.route(key.kind.value, state.severity.value, service, key.target)
            for channel in routes:
                if channel in told.get(key.id, {}):
                    continue
                lines.setdefault(channel, []).append(
                    MessageLine(
                        "still_active",
                        key.name,
                        state.severity.value,
                        service,
                        key.target,
                        state.since,
                        now,
                        state.details,
                    )
                )
                told.setdefault(key.id, {})[channel] = now
                plan.announce.append((key.id, channel, now))

    def _emit(
        self,
        service: str,
        lines: dict[str, list[MessageLine]],
        group: Sequence[PendingEvent],
        *,
        plan: Plan,
        now: datetime,
        category: str = "event",
    ) -> None:
        """One notification per distinct message; channels with the same lines share it."""
        by_content: dict[tuple[tuple[str, str, str, datetime], ...], list[str]] = {}
        content_of: dict[tuple[tuple[str, str, str, datetime], ...], list[MessageLine]] = {}
        for channel, channel_lines in lines.items():
            if channel_lines:
                identity = tuple((ln.verb, ln.name, ln.target, ln.at) for ln in channel_lines)
                by_content.setdefault(identity, []).append(channel)
                content_of[identity] = channel_lines
        for identity, channels in by_content.items():
            content = content_of[identity]
            ref = self._new_id()
            title, body, notify_type = render(
                service,
                content,
                ref,
                dashboard_url=self._settings.dashboard_url,
                title_template=self._settings.title_template,
                body_template=self._settings.body_template,
            )
            first = min([line.at for line in content] + [e.at for e in group])
            plan.notifications.append(
                PlannedNotification(
                    ref,
                    now,
                    first,
                    service,
                    category,
                    notify_type,
                    title,
                    body,
                    tuple(sorted(channels)),
                )
            )
