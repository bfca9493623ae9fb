"""Scrubs secrets from any text before it leaves the process.

API keys and Apprise URLs must never appear in logs, metrics, notifications, exceptions or
`check-config` output. Code is written not to put them there; this is the second line of defence
applied to every log line and every error we print, so one slip does not become a leak.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from urllib.parse import parse_qsl, unquote, urlsplit

MASK = "***"
_MIN_LENGTH = 4
_MIN_URL_PART = 6
# Apprise URL parameters that name hosts, addresses and options, never credentials. Every other
# parameter's value is treated as a secret: masking too much is better than leaking a token.
_PLAIN_QUERY_PARAMETERS = frozenset(
    {
        "smtp",
        "from",
        "to",
        "cc",
        "bcc",
        "name",
        "format",
        "overflow",
        "method",
        "mode",
        "secure",
        "verify",
        "rto",
        "cto",
        "image",
        "avatar",
        "footer",
        "batch",
        "reply",
        "priority",
        "lang",
        "region",
        "port",
        "timeout",
        "retry",
        "wait",
        "optional",
    }
)


class Redactor:
    """Replaces every known secret in a string with `***` (longest secrets first)."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        self._secrets: set[str] = set()
        self._pattern: re.Pattern[str] | None = None
        self.add(*secrets)

    def add(self, *secrets: str) -> None:
        """Register more secrets; values shorter than 4 characters are ignored (too common)."""
        fresh = {s for s in secrets if len(s) >= _MIN_LENGTH} - self._secrets
        if not fresh:
            return
        self._secrets |= fresh
        ordered = sorted(self._secrets, key=len, reverse=True)
        self._pattern = re.compile("|".join(re.escape(s) for s in ordered))

    def __call__(self, text: str) -> str:
        if self._pattern is None:
            return text
        return self._pattern.sub(MASK, text)

    def __bool__(self) -> bool:
        return bool(self._secrets)

    def __repr__(self) -> str:
        return f"Redactor({len(self._secrets)} secrets)"


def url_secrets(url: str) -> set[str]:
    """The whole URL plus the parts of it that are likely tokens or passwords.

    Apprise URLs carry secrets in many places (`slack://TokenA/TokenB/TokenC`,
    `mailto://user:password@host`, `json://host/path?token=...`), and a library may print only
    a part of the URL. Dotted host names are kept readable; everything token-like is masked.
    """
    found = {url}
    parts = urlsplit(url)
    if parts.password:
        found |= {parts.password, unquote(parts.password)}
    netloc_host = parts.netloc.rpartition("@")[2]
    if "." not in netloc_host and len(netloc_host) >= _MIN_URL_PART:
        found.add(netloc_host)
    for segment in parts.path.split("/"):
        if len(segment) >= _MIN_URL_PART:
            found |= {segment, unquote(segment)}
    for name, value in parse_qsl(parts.query):
        if name.lower() not in _PLAIN_QUERY_PARAMETERS and len(value) >= _MIN_URL_PART:
            found.add(value)
    return found
