"""TLS and basic auth for the HTTP endpoints, configured like Prometheus' exporter-toolkit.

The file format is the exporter-toolkit "web config" that Prometheus users already know:

    tls_server_config:
      cert_file: /etc/tqe-monitor/tls.crt
      key_file: /etc/tqe-monitor/tls.key
    basic_auth_users:
      prometheus: $2y$10$...   # bcrypt hash, e.g. from `htpasswd -nBC 10 "" | tr -d ':'`

Passwords are stored as bcrypt hashes only. Checking bcrypt is slow on purpose, so a verified
credential is remembered (as a SHA-256 of the header) to keep scrapes cheap.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import ssl
from dataclasses import dataclass, field
from pathlib import Path

import bcrypt
import yaml

from tqe_monitor.config import ConfigError

_KNOWN_KEYS = {"tls_server_config", "basic_auth_users", "http_server_config"}


@dataclass(frozen=True)
class WebConfig:
    """What the web config file says; the empty default means plain HTTP without auth."""

    cert_file: Path | None = None
    key_file: Path | None = None
    basic_auth_users: dict[str, bytes] = field(default_factory=dict, repr=False)

    @property
    def tls(self) -> bool:
        return self.cert_file is not None

    def ssl_context(self) -> ssl.SSLContext | None:
        """A server TLS context (TLS 1.2+), or None for plain HTTP."""
        if self.cert_file is None or self.key_file is None:
            return None
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.minimum_version = ssl.TLSVersion.TLSv1_2
        context.load_cert_chain(self.cert_file, self.key_file)
        return context


def load_web_config(path: Path) -> WebConfig:
    """Read and check a web config file; every problem is a ConfigError naming the field."""
    where = f"server.web_config_file ({path})"
    try:
        document = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except OSError as exc:
        raise ConfigError([f"{where}: cannot read: {exc.strerror}"]) from None
    except (yaml.YAMLError, UnicodeDecodeError):
        raise ConfigError([f"{where}: not a valid YAML file"]) from None
    if not isinstance(document, dict):
        raise ConfigError([f"{where}: the top level must be a mapping"])
    problems = [f"{where}: {key}: unknown setting" for key in document if key not in _KNOWN_KEYS]
    tls = document.get("tls_server_config") or {}
    cert, key = tls.get("cert_file"), tls.get("key_file")
    if bool(cert) != bool(key):
        problems.append(f"{where}: tls_server_config: cert_file and key_file go together")
    for name, value in (("cert_file", cert), ("key_file", key)):
        if value and not Path(value).is_file():
            problems.append(f"{where}: tls_server_config.{name}: no such file: {value}")
    users: dict[str, bytes] = {}
    for user, hashed in (document.get("basic_auth_users") or {}).items():
        if not isinstance(hashed, str) or not hashed.startswith(("$2a$", "$2b$", "$2y$")):
            problems.append(f"{where}: basic_auth_users.{user}: must be a bcrypt hash")
            continue
        users[str(user)] = hashed.replace("$2y$", "$2b$", 1).encode()
    if problems:
        raise ConfigError(problems)
    return WebConfig(
        cert_file=Path(cert) if cert else None,
        key_file=Path(key) if key else None,
        basic_auth_users=users,
    )


class BasicAuth:
    """Checks `Authorization: Basic` headers against the configured bcrypt hashes."""

    def __init__(self, users: dict[str, bytes]) -> None:
        self._users = users
        self._verified: set[bytes] = set()

    @property
    def enabled(self) -> bool:
        return bool(self._users)

    def check(self, header: str | None) -> bool:
        """True if auth is off or the header carries a valid user and password."""
        if not self._users:
            return True
        if not header or not header.startswith("Basic "):
            return False
        digest = hashlib.sha256(header.encode()).digest()
        if any(hmac.compare_digest(digest, seen) for seen in self._verified):
            return True
        try:
            user, _, password = base64.b64decode(header[6:], validate=True).decode().partition(":")
        except (binascii.Error, UnicodeDecodeError):
            return False
        hashed = self._users.get(user)
        if hashed is None or not bcrypt.checkpw(password.encode(), hashed):
            return False
        self._verified.add(digest)
        return True
