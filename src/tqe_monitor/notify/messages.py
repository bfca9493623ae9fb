"""What a notification says: a title a person can act on from a lock screen, and a body with
since-when, what it was before, the balance and forecast where relevant, and a dashboard link.

Pure text from condition events; nothing secret is ever an input here (events carry names,
states and numbers only). Titles and bodies can be overridden with `string.Template` strings.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from string import Template
from typing import Any

SEVERITY_RANK = {"info": 0, "warning": 1, "critical": 2}
NOTIFY_TYPES = {"info": "info", "warning": "warning", "critical": "failure"}
DEFAULT_BODY = "$lines$dashboard\n\nref: $ref"
MAX_LINES = 100


@dataclass(frozen=True, slots=True)
class MessageLine:
    """One condition's part of a message."""

    verb: str  # raised | resolved | reminder | still_active
    name: str
    severity: str
    service: str
    target: str
    since: datetime
    at: datetime
    details: dict[str, Any] = field(default_factory=dict)


def describe(name: str) -> str:
    """A condition name in words: wallet_below_100000 -> 'wallet below 100,000 words'."""
    if name.startswith("wallet_below_"):
        tier = name.removeprefix("wallet_below_")
        if tier.endswith("pct"):
            return f"wallet below {tier.removesuffix('pct')}%"
        return f"wallet below {int(tier):,} words" if tier.isdigit() else f"wallet below {tier}"
    fixed = {
        "service_unreachable": "service unreachable",
        "api_key_rejected": "API key rejected",
        "wallet_exhausted": "wallet exhausted",
        "wallet_depletion_forecast": "words will run out soon",
        "wallet_stale": "wallet not readable",
    }
    if name in fixed:
        return fixed[name]
    for component, label in (("ai_service_", "AI service"), ("platform_", "platform")):
        if name.startswith(component):
            state = name.removeprefix(component)
            return f"{label} in maintenance" if state == "maintenance" else f"{label} {state}"
    return name.replace("_", " ")


def _duration(seconds: float) -> str:
    seconds = max(0, int(seconds))
    if seconds < 120:
        return f"{seconds}s"
    if seconds < 7200:
        return f"{seconds // 60}m"
    if seconds < 172800:
        return f"{seconds // 3600}h{(seconds % 3600) // 60:02d}m"
    return f"{seconds // 86400}d{(seconds % 86400) // 3600}h"


def _facts(details: dict[str, Any]) -> list[str]:
    facts = []
    if isinstance(details.get("state"), str):
        facts.append(f"service reports {details['state']}")
    if isinstance(details.get("remaining_words"), int):
        facts.append(f"{details['remaining_words']:,} words left")
    if isinstance(details.get("threshold_words"), int):
        facts.append(f"threshold {details['threshold_words']:,}")
    if isinstance(details.get("burn_rate_per_hour"), int | float):
        facts.append(f"burning {details['burn_rate_per_hour']:,.0f} words/h")
    if isinstance(details.get("seconds_to_zero"), int | float):
        facts.append(f"runs out in ~{_duration(details['seconds_to_zero'])}")
    if isinstance(details.get("reason"), str):
        facts.append(f"last error: {details['reason']}")
    return facts


def _parse_time(value: object) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        return None


def render_line(line: MessageLine) -> str:
    """One line per condition, e.g. 'RAISED [warning] AI service degraded - since 12:00:05Z'."""
    where = f"{line.target}: " if line.target else ""
    when = f"{line.since:%Y-%m-%d %H:%M:%S}Z"
    what = f"{where}{describe(line.name)}"
    active_for = _duration((line.at - line.since).total_seconds())
    if line.verb == "resolved":
        raised = _parse_time(line.details.get("active_since")) or line.since
        active_for = _duration((line.at - raised).total_seconds())
        head = f"RESOLVED {what} (was active {active_for}, since {raised:%Y-%m-%d %H:%M:%S}Z)"
    elif line.verb == "reminder":
        head = f"STILL ACTIVE [{line.severity}] {what} (for {active_for}, since {when})"
    elif line.verb == "still_active":
        head = f"STILL ACTIVE AFTER MAINTENANCE [{line.severity}] {what} (since {when})"
    else:
        head = f"RAISED [{line.severity}] {what} (since {when})"
    facts = _facts(line.details)
    return head + (": " + ", ".join(facts) if facts else "")


def _capped(lines: Sequence[MessageLine]) -> list[str]:
    """At most MAX_LINES lines: services cap message sizes (Apprise: 32 KiB), and a truncated
    message would lose its `ref`. The title still counts every condition."""
    rendered = [render_line(line) for line in lines[:MAX_LINES]]
    if len(lines) > MAX_LINES:
        rendered.append(f"... and {len(lines) - MAX_LINES} more (see /api/state or history)")
    return rendered


def render(
    service: str,
    lines: Sequence[MessageLine],
    ref: str,
    *,
    dashboard_url: str | None = None,
    title_template: str | None = None,
    body_template: str | None = None,
    extra: Sequence[str] = (),
) -> tuple[str, str, str]:
    """(title, body, apprise notify type) for one message about one service."""
    active = [line for line in lines if line.verb != "resolved"]
    worst = max((line.severity for line in active), key=SEVERITY_RANK.__getitem__, default="")
    notify_type = NOTIFY_TYPES[worst] if worst else "success"
    label = worst.upper() if worst else "RESOLVED"
    if len(lines) == 1:
        only = lines[0]
        where = f"{service}/{only.target}" if only.target else service
        summary = describe(only.name)
        if only.verb == "reminder":
            summary = f"still {summary}"
    else:
        where = service
        counts: dict[str, int] = {}
        for line in lines:
            verb = "still active" if line.verb in ("reminder", "still_active") else line.verb
            counts[verb] = counts.get(verb, 0) + 1
        summary = ", ".join(f"{n} {verb}" for verb, n in counts.items())
    values = {
        "severity": label,
        "service": service,
        "target": lines[0].target if len(lines) == 1 else "",
        "where": where,
        "summary": summary,
        "count": str(len(lines)),
        "lines": "\n".join([*extra, *_capped(lines)]),
        "dashboard": f"\n\nDashboard: {dashboard_url}" if dashboard_url else "",
        "dashboard_url": dashboard_url or "",
        "ref": ref,
    }
    title = Template(title_template or "[$severity] $where: $summary").safe_substitute(values)
    body = Template(body_template or DEFAULT_BODY).safe_substitute(values)
    return title, body, notify_type
