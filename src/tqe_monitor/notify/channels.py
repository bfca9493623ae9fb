"""Delivery through Apprise: one Apprise instance per channel, so each outcome is per channel.

Facts this is built around (Apprise 2.x): `async_notify` returns an AppriseResult that is
falsy when any service failed; URLs added with tags only fire when notified with a matching
tag, so channel URLs are added untagged (routing uses our own tags) and an Apprise config file
is notified with the special tag "all". Bodies are declared plain text: undeclared, an HTML
service such as email takes them for HTML and runs the lines together. Error texts are built
here from counts only: Apprise's own log lines can name hosts and paths of the URL, which may
carry tokens.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import apprise
from apprise.decorators import notify

from tqe_monitor.config import ConfigError
from tqe_monitor.config.models import NotificationsConfig

APPRISE_CONFIG_CHANNEL = "apprise_config"
_NOTIFY_TYPES = {
    "info": apprise.NotifyType.INFO,
    "success": apprise.NotifyType.SUCCESS,
    "warning": apprise.NotifyType.WARNING,
    "failure": apprise.NotifyType.FAILURE,
}


@notify(on="console", name="tqe-monitor console")  # type: ignore[untyped-decorator,no-untyped-call]
def _console(body: str, title: str, notify_type: str, *args: Any, **kwargs: Any) -> bool:
    """`console://`: prints notifications to stdout (the demo uses it)."""
    print(f"\n=== {notify_type.upper()}: {title}\n{body}\n", file=sys.stdout, flush=True)
    return True


@dataclass(frozen=True, slots=True)
class SendResult:
    ok: bool
    error: str | None = None


class Channel(Protocol):
    """Something a notification can be delivered to."""

    name: str
    tags: frozenset[str]

    async def send(self, title: str, body: str, notify_type: str) -> SendResult: ...


class AppriseChannel:
    """A configured channel: one Apprise URL, or an Apprise config file."""

    def __init__(
        self, name: str, tags: frozenset[str], *, url: str | None = None, config: Path | None = None
    ) -> None:
        self.name = name
        self.tags = tags
        self._apprise = apprise.Apprise()
        self._tag: str | None = None
        if url is not None and not self._apprise.add(url):
            raise ConfigError([f"notifications.channels.{name}.url: not a URL Apprise supports"])
        if config is not None:
            source = apprise.AppriseConfig()
            if not source.add(str(config)) or not self._apprise.add(source):
                raise ConfigError([f"notifications.apprise_config: cannot load {config}"])
            self._tag = "all"

    async def send(self, title: str, body: str, notify_type: str) -> SendResult:
        kind = _NOTIFY_TYPES.get(notify_type, apprise.NotifyType.INFO)
        try:
            result = await self._apprise.async_notify(
                body=body,
                title=title,
                notify_type=kind,
                body_format=apprise.NotifyFormat.TEXT,
                tag=self._tag,
            )
        except Exception as exc:  # a plugin bug must not stop delivery of everything else
            return SendResult(False, f"apprise raised {type(exc).__name__}")
        if result:
            return SendResult(True)
        total = len(getattr(result, "results", ())) or 1
        failed = getattr(result, "failed_count", total)
        return SendResult(False, f"{failed} of {total} endpoint(s) did not accept it")


def build_channels(config: NotificationsConfig) -> dict[str, Channel]:
    """The configured channels, keyed by name."""
    channels: dict[str, Channel] = {}
    for name, channel in config.channels.items():
        channels[name] = AppriseChannel(
            name, frozenset(channel.tags), url=channel.url.get_secret_value()
        )
    if config.apprise_config is not None:
        channels[APPRISE_CONFIG_CHANNEL] = AppriseChannel(
            APPRISE_CONFIG_CHANNEL, frozenset(), config=config.apprise_config
        )
    return channels
