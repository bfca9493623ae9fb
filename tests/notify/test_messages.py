"""Message text: condition names in words, one line per condition, titles, types, templates."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from tqe_monitor.notify.messages import MessageLine, describe, render, render_line

SINCE = datetime(2026, 1, 2, 12, 0, 5, tzinfo=UTC)


def line(
    verb: str = "raised",
    name: str = "ai_service_degraded",
    severity: str = "warning",
    target: str = "",
    *,
    at: datetime | None = None,
    details: dict[str, Any] | None = None,
) -> MessageLine:
    return MessageLine(verb, name, severity, "tqe", target, SINCE, at or SINCE, details or {})


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("wallet_below_100000", "wallet below 100,000 words"),
        ("wallet_below_500", "wallet below 500 words"),
        ("wallet_below_10pct", "wallet below 10%"),
        ("wallet_below_12.5pct", "wallet below 12.5%"),
        ("wallet_below_custom", "wallet below custom"),
        ("service_unreachable", "service unreachable"),
        ("api_key_rejected", "API key rejected"),
        ("wallet_exhausted", "wallet exhausted"),
        ("wallet_depletion_forecast", "words will run out soon"),
        ("wallet_stale", "wallet not readable"),
        ("ai_service_degraded", "AI service degraded"),
        ("ai_service_unknown", "AI service unknown"),
        ("ai_service_maintenance", "AI service in maintenance"),
        ("platform_degraded", "platform degraded"),
        ("platform_maintenance", "platform in maintenance"),
        ("something_new_here", "something new here"),
    ],
    ids=str,
)
def test_describe_says_a_condition_name_in_words(name: str, words: str) -> None:
    assert describe(name) == words


@pytest.mark.parametrize(
    ("message_line", "text"),
    [
        pytest.param(
            line(details={"state": "degraded"}),
            "RAISED [warning] AI service degraded (since 2026-01-02 12:00:05Z): "
            "service reports degraded",
            id="raised-component",
        ),
        pytest.param(
            line(name="api_key_rejected", severity="critical", target="production"),
            "RAISED [critical] production: API key rejected (since 2026-01-02 12:00:05Z)",
            id="raised-target-no-facts",
        ),
        pytest.param(
            line(
                name="wallet_below_100000",
                target="staging",
                details={
                    "remaining_words": 12345,
                    "threshold_words": 100000,
                    "burn_rate_per_hour": 2500.4,
                    "seconds_to_zero": 7200,
                },
            ),
            "RAISED [warning] staging: wallet below 100,000 words (since 2026-01-02 12:00:05Z): "
            "12,345 words left, threshold 100,000, burning 2,500 words/h, runs out in ~2h00m",
            id="raised-wallet-facts",
        ),
        pytest.param(
            line(name="service_unreachable", severity="critical", details={"reason": "timeout"}),
            "RAISED [critical] service unreachable (since 2026-01-02 12:00:05Z): "
            "last error: timeout",
            id="raised-reason",
        ),
        pytest.param(
            line(
                "resolved",
                at=SINCE + timedelta(minutes=30),
                details={"active_since": "2026-01-02T10:30:05+00:00", "state": "operational"},
            ),
            "RESOLVED AI service degraded (was active 2h00m, since 2026-01-02 10:30:05Z): "
            "service reports operational",
            id="resolved-uses-active-since",
        ),
        pytest.param(
            line("resolved", at=SINCE + timedelta(seconds=90)),
            "RESOLVED AI service degraded (was active 90s, since 2026-01-02 12:00:05Z)",
            id="resolved-without-active-since",
        ),
        pytest.param(
            line("reminder", at=SINCE + timedelta(hours=4)),
            "STILL ACTIVE [warning] AI service degraded (for 4h00m, since 2026-01-02 12:00:05Z)",
            id="reminder",
        ),
        pytest.param(
            line("reminder", at=SINCE + timedelta(days=2, hours=3)),
            "STILL ACTIVE [warning] AI service degraded (for 2d3h, since 2026-01-02 12:00:05Z)",
            id="reminder-days",
        ),
        pytest.param(
            line("reminder", at=SINCE + timedelta(minutes=5), details={"state": "degraded"}),
            "STILL ACTIVE [warning] AI service degraded (for 5m, since 2026-01-02 12:00:05Z): "
            "service reports degraded",
            id="reminder-with-facts",
        ),
        pytest.param(
            line("still_active", at=SINCE + timedelta(hours=1), details={"state": "degraded"}),
            "STILL ACTIVE AFTER MAINTENANCE [warning] AI service degraded "
            "(since 2026-01-02 12:00:05Z): service reports degraded",
            id="still-active-after-maintenance",
        ),
    ],
)
def test_render_line(message_line: MessageLine, text: str) -> None:
    assert render_line(message_line) == text


@pytest.mark.parametrize(
    ("lines", "title", "notify_type"),
    [
        pytest.param(
            [line()], "[WARNING] tqe: AI service degraded", "warning", id="single-warning"
        ),
        pytest.param(
            [line(name="api_key_rejected", severity="critical", target="production")],
            "[CRITICAL] tqe/production: API key rejected",
            "failure",
            id="single-critical-target",
        ),
        pytest.param(
            [line(name="platform_maintenance", severity="info")],
            "[INFO] tqe: platform in maintenance",
            "info",
            id="single-info",
        ),
        pytest.param(
            [line("resolved")], "[RESOLVED] tqe: AI service degraded", "success", id="resolved"
        ),
        pytest.param(
            [line("reminder")],
            "[WARNING] tqe: still AI service degraded",
            "warning",
            id="single-reminder",
        ),
        pytest.param(
            [
                line(name="api_key_rejected", severity="critical", target=f"t{i}")
                for i in range(200)
            ],
            "[CRITICAL] tqe: 200 raised",
            "failure",
            id="grouped-raised",
        ),
        pytest.param(
            [
                line(),
                line(name="wallet_stale", target="a"),
                line("resolved", name="service_unreachable", severity="critical"),
            ],
            "[WARNING] tqe: 2 raised, 1 resolved",
            "warning",  # a resolved critical does not make the message critical
            id="grouped-mixed",
        ),
        pytest.param(
            [line("resolved"), line("resolved", name="platform_degraded")],
            "[RESOLVED] tqe: 2 resolved",
            "success",
            id="grouped-resolved",
        ),
        pytest.param(
            [line("reminder"), line("still_active", name="service_unreachable", severity="info")],
            "[WARNING] tqe: 2 still active",
            "warning",
            id="grouped-still-active",
        ),
    ],
)
def test_render_title_and_notify_type(
    lines: list[MessageLine], title: str, notify_type: str
) -> None:
    rendered_title, _, rendered_type = render("tqe", lines, "ref123")
    assert (rendered_title, rendered_type) == (title, notify_type)


def test_render_body_has_one_line_per_condition_then_the_dashboard_then_the_ref() -> None:
    lines = [line(), line(name="platform_degraded")]
    _, body, _ = render("tqe", lines, "abc123", dashboard_url="https://grafana.example.com/d/x")
    assert body == (
        f"{render_line(lines[0])}\n{render_line(lines[1])}\n\n"
        "Dashboard: https://grafana.example.com/d/x\n\nref: abc123"
    )


def test_render_body_without_a_dashboard_has_no_dashboard_line() -> None:
    _, body, _ = render("tqe", [line()], "abc123")
    assert "Dashboard" not in body
    assert body == f"{render_line(line())}\n\nref: abc123"


def test_render_puts_extra_lines_first() -> None:
    _, body, _ = render("tqe", [line()], "r1", extra=["Maintenance is over."])
    assert body.startswith(f"Maintenance is over.\n{render_line(line())}")


def test_templates_override_title_and_body() -> None:
    lines = [line(name="api_key_rejected", severity="critical", target="production")]
    title, body, notify_type = render(
        "tqe",
        lines,
        "r9",
        dashboard_url="https://dash",
        title_template="TQE $severity: $where $summary ($count) $unknown",
        body_template="$service|$target|$lines|$dashboard_url|$ref",
    )
    assert title == "TQE CRITICAL: tqe/production API key rejected (1) $unknown"
    assert body == f"tqe|production|{render_line(lines[0])}|https://dash|r9"
    assert notify_type == "failure"
