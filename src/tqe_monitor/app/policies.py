"""Turns configuration into the tracker's policies (config -> state tracker)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import timedelta

from tqe_monitor.config import ResolvedTarget, Settings
from tqe_monitor.notify.routing import Route, Router
from tqe_monitor.tracking.conditions import ConditionKind, Confirmation, Severity
from tqe_monitor.tracking.wallet import Threshold, WalletPolicy

# Defaults that differ from "confirm at once": one failed poll is a blip, three are an outage.
DEFAULT_CONFIRMATIONS: Mapping[ConditionKind, Confirmation] = {
    ConditionKind.SERVICE_UNREACHABLE: Confirmation(enter_after=3, leave_after=1),
}
STALE_AFTER_INTERVALS = 3


def confirmations(settings: Settings) -> dict[ConditionKind, Confirmation]:
    """Defaults overlaid with `conditions:` from the config, per condition kind."""
    merged = dict(DEFAULT_CONFIRMATIONS)
    for name, configured in settings.conditions.items():
        merged[ConditionKind(name)] = Confirmation(configured.enter_after, configured.leave_after)
    return merged


def wallet_policy(target: ResolvedTarget) -> WalletPolicy:
    """The wallet policy of one target: absolute tiers computed from percentages."""
    wallet = target.config.wallet
    thresholds = []
    for tier in wallet.thresholds:
        if tier.below is not None:
            thresholds.append(Threshold(tier.below, Severity(tier.severity), str(tier.below)))
        elif tier.below_percent is not None and wallet.capacity is not None:
            words = int(wallet.capacity * tier.below_percent / 100)
            name = f"{tier.below_percent:g}pct"
            thresholds.append(Threshold(words, Severity(tier.severity), name))
    stale_after = wallet.stale_after or STALE_AFTER_INTERVALS * target.wallet_interval
    return WalletPolicy(
        thresholds=tuple(sorted(thresholds, key=lambda t: -t.words)),
        rearm_margin=wallet.rearm_margin_percent / 100,
        forecast_window=timedelta(seconds=wallet.forecast_window),
        forecast_within=timedelta(seconds=wallet.forecast_within),
        stale_after=timedelta(seconds=stale_after),
    )


def wallet_policies(targets: Sequence[ResolvedTarget]) -> dict[tuple[str, str], WalletPolicy]:
    return {(t.service, t.name): wallet_policy(t) for t in targets}


def router(settings: Settings, channel_tags: Mapping[str, frozenset[str]]) -> Router:
    """The notification router from `notifications.routes` (everything everywhere if none)."""
    config = settings.notifications
    routes = [
        Route(
            kinds=frozenset(route.match.kinds),
            severities=frozenset(route.match.severities),
            services=frozenset(route.match.services),
            targets=frozenset(route.match.targets),
            channels=tuple(route.channels),
            tags=frozenset(route.tags),
            repeat_interval=route.repeat_interval,
            send_resolved=route.send_resolved,
        )
        for route in config.routes
    ]
    return Router(
        channel_tags,
        routes,
        repeat_interval=config.repeat_interval,
        send_resolved=config.send_resolved,
    )
