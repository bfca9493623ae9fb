"""Routing: which channels hear about a condition, and with which reminder/resolve settings."""

from __future__ import annotations

import pytest

from tqe_monitor.notify.routing import ChannelPolicy, Route, Router

CHANNELS = {
    "slack": frozenset({"ops"}),
    "mail": frozenset({"oncall", "critical"}),
    "pager": frozenset({"critical"}),
}
DEFAULT = ChannelPolicy(repeat_interval=3600.0, send_resolved=True)


def router(*routes: Route) -> Router:
    return Router(CHANNELS, routes, repeat_interval=3600.0, send_resolved=True)


# (kind, severity, service, target)
DEGRADED = ("component_degraded", "warning", "tqe", "")
KEY_REJECTED = ("api_key_rejected", "critical", "tqe", "production")
WALLET_LOW_STAGING = ("wallet_low", "warning", "tqe", "staging")
OTHER_SERVICE = ("service_unreachable", "critical", "tqe-eu", "")


def test_without_routes_everything_goes_everywhere_with_the_defaults() -> None:
    for condition in (DEGRADED, KEY_REJECTED, WALLET_LOW_STAGING, OTHER_SERVICE):
        assert router().route(*condition) == dict.fromkeys(CHANNELS, DEFAULT)


@pytest.mark.parametrize(
    ("route", "condition", "expected"),
    [
        pytest.param(
            Route(kinds=frozenset({"component_degraded"}), channels=("slack",)),
            DEGRADED,
            {"slack"},
            id="kind-matches",
        ),
        pytest.param(
            Route(kinds=frozenset({"component_degraded"}), channels=("slack",)),
            KEY_REJECTED,
            set(),
            id="kind-differs",
        ),
        pytest.param(
            Route(severities=frozenset({"critical"}), channels=("pager",)),
            KEY_REJECTED,
            {"pager"},
            id="severity-matches",
        ),
        pytest.param(
            Route(severities=frozenset({"critical"}), channels=("pager",)),
            WALLET_LOW_STAGING,
            set(),
            id="severity-differs",
        ),
        pytest.param(
            Route(services=frozenset({"tqe-eu"}), channels=("mail",)),
            OTHER_SERVICE,
            {"mail"},
            id="service-matches",
        ),
        pytest.param(
            Route(services=frozenset({"tqe-eu"}), channels=("mail",)),
            DEGRADED,
            set(),
            id="service-differs",
        ),
        pytest.param(
            Route(targets=frozenset({"staging"}), channels=("slack",)),
            WALLET_LOW_STAGING,
            {"slack"},
            id="target-matches",
        ),
        pytest.param(
            Route(targets=frozenset({"staging"}), channels=("slack",)),
            KEY_REJECTED,
            set(),
            id="target-differs",
        ),
        pytest.param(
            Route(
                kinds=frozenset({"api_key_rejected"}),
                severities=frozenset({"critical"}),
                targets=frozenset({"staging"}),
                channels=("slack",),
            ),
            KEY_REJECTED,
            set(),
            id="every-field-must-match",
        ),
        pytest.param(Route(channels=("slack",)), OTHER_SERVICE, {"slack"}, id="empty-match-all"),
        pytest.param(
            Route(tags=frozenset({"critical"})), KEY_REJECTED, {"mail", "pager"}, id="by-tag"
        ),
        pytest.param(
            Route(channels=("slack",), tags=frozenset({"oncall"})),
            DEGRADED,
            {"slack", "mail"},
            id="by-name-and-tag",
        ),
        pytest.param(Route(tags=frozenset({"nobody"})), DEGRADED, set(), id="unknown-tag"),
    ],
)
def test_a_route_picks_channels_when_its_match_fits(
    route: Route, condition: tuple[str, str, str, str], expected: set[str]
) -> None:
    assert set(router(route).route(*condition)) == expected


def test_routes_add_up_and_a_condition_no_route_matches_reaches_no_channel() -> None:
    routes = (
        Route(severities=frozenset({"critical"}), tags=frozenset({"critical"})),
        Route(kinds=frozenset({"wallet_low"}), channels=("slack",)),
    )
    chosen = router(*routes)
    assert set(chosen.route(*KEY_REJECTED)) == {"mail", "pager"}
    assert set(chosen.route(*WALLET_LOW_STAGING)) == {"slack"}
    assert chosen.route(*DEGRADED) == {}


def test_the_first_matching_route_sets_a_channels_policy() -> None:
    routes = (
        Route(severities=frozenset({"critical"}), channels=("pager",), repeat_interval=600),
        Route(
            channels=("pager", "slack"),
            repeat_interval=60,
            send_resolved=False,
        ),
    )
    chosen = router(*routes).route(*KEY_REJECTED)
    assert chosen == {
        "pager": ChannelPolicy(600, True),  # first route; send_resolved from the default
        "slack": ChannelPolicy(60, False),
    }


def test_a_later_route_still_applies_where_the_first_does_not_match() -> None:
    routes = (
        Route(severities=frozenset({"critical"}), channels=("pager",), repeat_interval=600),
        Route(channels=("pager",), repeat_interval=60, send_resolved=False),
    )
    assert router(*routes).route(*DEGRADED) == {"pager": ChannelPolicy(60, False)}


def test_channels_lists_every_configured_channel() -> None:
    assert router().channels == ["mail", "pager", "slack"]
