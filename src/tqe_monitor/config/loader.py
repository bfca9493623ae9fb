"""Reads the configuration: file discovery, YAML, interpolation, environment, validation, keys.

Everything that can go wrong becomes a `ConfigError` holding one line per problem, each naming the
field path (`targets.production.base_url: ...`). Those lines are built from pydantic's error
types and our own messages, never from the rejected values, and are scrubbed of every secret
we know of before anyone prints them.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import yaml
from pydantic import ValidationError
from pydantic_core import ErrorDetails

from tqe_monitor.config.interpolation import interpolate
from tqe_monitor.config.models import Settings, TargetConfig
from tqe_monitor.redaction import Redactor, url_secrets

ENV_CONFIG_PATH = "TQE_MONITOR_CONFIG"
DEFAULT_CONFIG_PATH = Path("tqe-monitor.yaml")
_SECRET_ENV_MARKERS = ("API_KEY", "NOTIFICATIONS", "URL", "TOKEN", "PASSWORD", "SECRET")


class ConfigError(Exception):
    """The configuration cannot be used. `problems` holds one printable line per problem."""

    def __init__(self, problems: Iterable[str]) -> None:
        self.problems = list(problems)
        super().__init__("\n".join(self.problems))


@dataclass(frozen=True)
class ResolvedTarget:
    """A target ready to poll: defaults applied, service derived and the key read."""

    name: str
    service: str
    base_url: str
    api_key: str = field(repr=False)
    status_interval: float
    wallet_interval: float
    timeout: float
    retries: int
    config: TargetConfig = field(repr=False)


@dataclass(frozen=True)
class LoadedConfig:
    """Validated settings plus what the loader learned on the way."""

    settings: Settings
    path: Path
    redactor: Redactor


def config_path(cli_value: str | None, environ: Mapping[str, str] = os.environ) -> Path:
    """`--config`, else `$TQE_MONITOR_CONFIG`, else `./tqe-monitor.yaml`."""
    if cli_value:
        return Path(cli_value)
    return Path(environ.get(ENV_CONFIG_PATH) or DEFAULT_CONFIG_PATH)


def load_config(path: Path) -> LoadedConfig:
    """Read and validate the file at `path`, with environment overrides from `os.environ`."""
    redactor = Redactor(_secret_env_values(os.environ))
    document = _read_yaml(path)
    interpolated = interpolate(document, os.environ)
    redactor.add(*interpolated.substituted, *_raw_secrets(interpolated.document))
    if interpolated.problems:
        raise ConfigError(redactor(p) for p in interpolated.problems)
    if not isinstance(interpolated.document, dict):
        raise ConfigError([f"{path}: the top level must be a mapping of sections"])
    try:
        settings = Settings(**{str(k): v for k, v in interpolated.document.items()})
    except ValidationError as exc:
        raise ConfigError(redactor(line) for line in render_validation_errors(exc)) from None
    redactor.add(*settings_secrets(settings))
    return LoadedConfig(settings=settings, path=path, redactor=redactor)


def resolve_targets(
    settings: Settings, read_text: Callable[[Path], str] = Path.read_text
) -> list[ResolvedTarget]:
    """Apply defaults and read `api_key_file`s. Unreadable key files are a ConfigError."""
    problems: list[str] = []
    resolved: list[ResolvedTarget] = []
    defaults = settings.defaults
    for name, target in settings.targets.items():
        key = key_from(target, read_text)
        if isinstance(key, KeyFileProblem):
            problems.append(f"targets.{name}.api_key_file: {key.message}")
            continue
        resolved.append(
            ResolvedTarget(
                name=name,
                service=target.service_name,
                base_url=target.base_url,
                api_key=key,
                status_interval=target.status_interval or defaults.status_interval,
                wallet_interval=target.wallet_interval or defaults.wallet_interval,
                timeout=target.timeout or defaults.timeout,
                retries=defaults.retries,
                config=target,
            )
        )
    if problems:
        raise ConfigError(problems)
    return resolved


@dataclass(frozen=True)
class KeyFileProblem:
    """Why a key file could not be used (the message names the path, never the contents)."""

    message: str


def key_from(target: TargetConfig, read_text: Callable[[Path], str]) -> str | KeyFileProblem:
    """The target's API key, from `api_key` or from the first line of `api_key_file`."""
    if target.api_key is not None:
        return target.api_key.get_secret_value().strip()
    assert target.api_key_file is not None  # guaranteed by TargetConfig's validator
    try:
        text = read_text(target.api_key_file)
    except OSError as exc:
        return KeyFileProblem(f"cannot read {target.api_key_file}: {exc.strerror or 'error'}")
    except UnicodeDecodeError:
        return KeyFileProblem(f"{target.api_key_file} is not UTF-8 text")
    key = text.strip()
    if len(key) < 4 or "\n" in key:
        return KeyFileProblem(f"{target.api_key_file} must hold one API key on one line")
    return key


def settings_secrets(settings: Settings) -> set[str]:
    """Every secret the settings hold directly: API keys and channel URLs (with their parts)."""
    found: set[str] = set()
    for target in settings.targets.values():
        if target.api_key is not None:
            found.add(target.api_key.get_secret_value().strip())
    for channel in settings.notifications.channels.values():
        found |= url_secrets(channel.url.get_secret_value())
    if settings.notifications.apprise_config is not None:
        found |= _apprise_config_secrets(settings.notifications.apprise_config)
    return found


def _apprise_config_secrets(path: Path) -> set[str]:
    """Every URL in an Apprise config file (text or YAML) is a secret, with its token parts."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return set()  # the notifier reports an unreadable file when it loads it
    found: set[str] = set()
    for token in text.replace('"', " ").replace("'", " ").split():
        if "://" in token:
            found |= url_secrets(token.split("=", 1)[-1] if "=" in token.split("://")[0] else token)
    return found


def render_validation_errors(exc: ValidationError) -> list[str]:
    """One line per error: `field.path: what is wrong`. Input values are never included."""
    lines = []
    for error in exc.errors(include_input=False, include_url=False, include_context=False):
        path, message = _field_and_message(error)
        lines.append(f"{path}: {message}")
    return lines


def _field_and_message(error: ErrorDetails) -> tuple[str, str]:
    path = _format_loc(error["loc"])
    kind, message = error["type"], error["msg"]
    if kind == "missing":
        message = "required"
    elif kind == "extra_forbidden":
        message = "unknown setting (check the spelling)"
    elif kind == "too_short" and path == "targets":
        message = "at least one target is required"
    elif kind in ("value_error", "assertion_error"):
        message = message.removeprefix("Value error, ").removeprefix("Assertion failed, ")
        field_name, sep, rest = message.partition(": ")
        if sep and field_name.isidentifier():
            path, message = f"{path}.{field_name}" if path else field_name, rest
    return path or "<root>", message


def _format_loc(loc: tuple[int | str, ...]) -> str:
    path = ""
    for part in loc:
        if isinstance(part, int):
            path += f"[{part}]"
        elif part.startswith(("function-", "function_")):
            continue  # pydantic's internal validator names say nothing to a user
        else:
            path = f"{path}.{part}" if path else part
    return path


def _read_yaml(path: Path) -> object:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        message = f"{path}: config file not found (use --config or ${ENV_CONFIG_PATH})"
        raise ConfigError([message]) from None
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else "not UTF-8 text"
        raise ConfigError([f"{path}: cannot read: {reason}"]) from None
    try:
        return yaml.safe_load(text) or {}
    except yaml.MarkedYAMLError as exc:
        # The exception's own text quotes the offending line, which may hold a key: use only
        # the position and the parser's description of the problem.
        mark = exc.problem_mark
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else "unknown position"
        raise ConfigError([f"{path}: invalid YAML at {where}: {exc.problem}"]) from None
    except yaml.YAMLError:
        raise ConfigError([f"{path}: invalid YAML"]) from None


def _raw_secrets(document: object) -> set[str]:
    """Secrets in the raw document, found before validation so even rejected values are masked."""
    found: set[str] = set()
    if not isinstance(document, dict):
        return found
    targets = document.get("targets")
    if isinstance(targets, dict):
        for target in targets.values():
            if isinstance(target, dict) and isinstance(target.get("api_key"), str):
                found.add(target["api_key"].strip())
    notifications = document.get("notifications")
    channels = notifications.get("channels") if isinstance(notifications, dict) else None
    if isinstance(channels, dict):
        for channel in channels.values():
            if isinstance(channel, dict) and isinstance(channel.get("url"), str):
                found |= url_secrets(channel["url"])
    return found


def _secret_env_values(environ: Mapping[str, str]) -> set[str]:
    """Values of TQE_MONITOR_* overrides that may hold secrets (keys, URLs, tokens)."""
    return {
        value
        for name, value in environ.items()
        if name.upper().startswith("TQE_MONITOR_")
        and any(marker in name.upper() for marker in _SECRET_ENV_MARKERS)
    }
