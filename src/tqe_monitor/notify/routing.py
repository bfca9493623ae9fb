"""Which channels hear about a condition, and with which reminder and resolve settings.

Every route whose `match` fits a condition contributes its channels (picked by name or by tag);
for a channel named by several routes, the first route's settings win. With no routes at all,
everything goes to every channel: the safe default for a monitoring tool is to tell someone.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ChannelPolicy:
    """How one channel treats one condition."""

    repeat_interval: float
    send_resolved: bool


@dataclass(frozen=True, slots=True)
class Route:
    """A routing rule; empty match lists match everything."""

    kinds: frozenset[str] = frozenset()
    severities: frozenset[str] = frozenset()
    services: frozenset[str] = frozenset()
    targets: frozenset[str] = frozenset()
    channels: tuple[str, ...] = ()
    tags: frozenset[str] = frozenset()
    repeat_interval: float | None = None
    send_resolved: bool | None = None

    def matches(self, kind: str, severity: str, service: str, target: str) -> bool:
        return all(
            not allowed or value in allowed
            for allowed, value in (
                (self.kinds, kind),
                (self.severities, severity),
                (self.services, service),
                (self.targets, target),
            )
        )


class Router:
    """Picks channels for conditions."""

    def __init__(
        self,
        channel_tags: Mapping[str, frozenset[str]],
        routes: Sequence[Route],
        *,
        repeat_interval: float,
        send_resolved: bool,
    ) -> None:
        self._channel_tags = dict(channel_tags)
        self._routes = list(routes)
        self._default = ChannelPolicy(repeat_interval, send_resolved)

    @property
    def channels(self) -> list[str]:
        return sorted(self._channel_tags)

    def route(
        self, kind: str, severity: str, service: str, target: str
    ) -> dict[str, ChannelPolicy]:
        """channel name -> policy, for a condition of this kind, severity, service and target."""
        if not self._routes:
            return dict.fromkeys(self._channel_tags, self._default)
        chosen: dict[str, ChannelPolicy] = {}
        for route in self._routes:
            if not route.matches(kind, severity, service, target):
                continue
            policy = ChannelPolicy(
                route.repeat_interval
                if route.repeat_interval is not None
                else self._default.repeat_interval,
                route.send_resolved
                if route.send_resolved is not None
                else self._default.send_resolved,
            )
            for name, tags in self._channel_tags.items():
                if name in route.channels or (route.tags & tags):
                    chosen.setdefault(name, policy)
        return chosen
