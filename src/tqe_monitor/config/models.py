"""The configuration schema: what a user may write in tqe-monitor.yaml, and what it means.

Validation lives here; reading files and the environment lives in `loader`. Field-level problems
raise `ValueError("field: message")` from model validators so the loader can name the exact field
(pydantic would otherwise report them against the enclosing object).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal, get_args

import httpx
from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    SecretStr,
    field_validator,
    model_validator,
)
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
)

from tqe_monitor.config.durations import Duration, PollInterval, Timeout, parse_duration
from tqe_monitor.normalizer import StatusMapping, WalletMapping

Severity = Literal["info", "warning", "critical"]
MIN_SECRET_LENGTH = 4


class StrictModel(BaseModel):
    """Unknown keys are errors: a typo in a monitoring config must not be silently ignored."""

    model_config = ConfigDict(extra="forbid", frozen=True)


def _listen_address(value: str) -> str:
    host, sep, port = value.rpartition(":")
    if not sep or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise ValueError("expected HOST:PORT, e.g. 127.0.0.1:9787 or 0.0.0.0:9787")
    if host.startswith("[") != host.endswith("]"):
        raise ValueError("an IPv6 host must be bracketed, e.g. [::1]:9787")
    return value


class ServerConfig(StrictModel):
    """Where the daemon serves /metrics, /healthz, /readyz and the state API."""

    listen: Annotated[str, Field(description="HOST:PORT to listen on")] = "127.0.0.1:9787"
    web_config_file: Path | None = None

    _check_listen = field_validator("listen")(_listen_address)


class StorageConfig(StrictModel):
    """Where conditions, history, wallet samples and the notification outbox are kept."""

    path: Path = Path("./tqe-monitor.db")
    retention: Annotated[float, BeforeValidator(parse_duration), Field(ge=3600)] = 30 * 86400.0


class DefaultsConfig(StrictModel):
    """Values every target inherits unless it sets its own."""

    status_interval: PollInterval = 30.0
    wallet_interval: PollInterval = 60.0
    timeout: Timeout = 10.0
    retries: Annotated[int, Field(ge=0, le=10)] = 2


class ThresholdConfig(StrictModel):
    """One low-balance tier: an absolute word count or a percentage of the wallet's capacity."""

    below: Annotated[int, Field(ge=0)] | None = None
    below_percent: Annotated[float, Field(gt=0, le=100)] | None = None
    severity: Severity

    @model_validator(mode="after")
    def _one_bound(self) -> ThresholdConfig:
        if (self.below is None) == (self.below_percent is None):
            raise ValueError("below: set exactly one of below or below_percent")
        return self


class WalletConfig(StrictModel):
    """How to judge a target's word balance."""

    capacity: Annotated[int, Field(gt=0)] | None = None
    thresholds: list[ThresholdConfig] = Field(default_factory=list)
    rearm_margin_percent: Annotated[float, Field(ge=0, le=100)] = 5.0
    forecast_window: Annotated[float, BeforeValidator(parse_duration), Field(ge=60)] = 6 * 3600.0
    forecast_within: Duration = 3 * 86400.0
    stale_after: Duration | None = None

    @model_validator(mode="after")
    def _percent_needs_capacity(self) -> WalletConfig:
        if self.capacity is None and any(t.below_percent is not None for t in self.thresholds):
            raise ValueError("capacity: required when a threshold uses below_percent")
        return self


class MappingConfig(StrictModel):
    """Field paths for payload shapes the normalizer does not recognise on its own."""

    status: StatusMapping | None = None
    wallet: WalletMapping | None = None


def _base_url(value: str) -> str:
    try:
        url = httpx.URL(value)
    except (httpx.InvalidURL, TypeError):
        raise ValueError("must be an http:// or https:// URL") from None
    if url.scheme not in ("http", "https") or not url.host:
        raise ValueError("must be an http:// or https:// URL")
    if url.userinfo:
        raise ValueError("must not contain credentials; use api_key or api_key_file")
    return value.rstrip("/")


class TargetConfig(StrictModel):
    """One API key to watch: its service, where to reach it and how to judge its wallet."""

    base_url: str
    service: Annotated[str, Field(min_length=1)] | None = None
    api_key: SecretStr | None = None
    api_key_file: Path | None = None
    status_interval: PollInterval | None = None
    wallet_interval: PollInterval | None = None
    timeout: Timeout | None = None
    wallet: WalletConfig = Field(default_factory=WalletConfig)
    mapping: MappingConfig = Field(default_factory=MappingConfig)

    _check_base_url = field_validator("base_url")(_base_url)

    @model_validator(mode="after")
    def _exactly_one_key(self) -> TargetConfig:
        if self.api_key is not None and self.api_key_file is not None:
            raise ValueError("api_key: set api_key or api_key_file, not both")
        if self.api_key is None and self.api_key_file is None:
            raise ValueError('api_key: required: set api_key (e.g. "${MY_KEY}") or api_key_file')
        if self.api_key is not None and len(self.api_key.get_secret_value().strip()) < (
            MIN_SECRET_LENGTH
        ):
            raise ValueError("api_key: is empty or too short to be an API key")
        return self

    @property
    def service_name(self) -> str:
        """The service this target belongs to: `service`, else the host of `base_url`."""
        return self.service or httpx.URL(self.base_url).host


class ConfirmationConfig(StrictModel):
    """Gatus-style thresholds: consecutive observations needed to raise and to resolve."""

    enter_after: Annotated[int, Field(ge=1, le=100)] = 1
    leave_after: Annotated[int, Field(ge=1, le=100)] = 1


ConditionName = Literal[
    "component_degraded",
    "component_maintenance",
    "component_unknown",
    "service_unreachable",
    "api_key_rejected",
    "wallet_low",
    "wallet_exhausted",
    "wallet_depletion_forecast",
    "wallet_stale",
]


class ChannelConfig(StrictModel):
    """One Apprise destination. The URL usually holds tokens, so it is a secret."""

    url: SecretStr
    tags: list[str] = Field(default_factory=list)


class RouteMatch(StrictModel):
    """Which conditions a route takes; an empty list matches everything."""

    kinds: list[str] = Field(default_factory=list)
    severities: list[Severity] = Field(default_factory=list)
    services: list[str] = Field(default_factory=list)
    targets: list[str] = Field(default_factory=list)


class RouteConfig(StrictModel):
    """Sends matching conditions to channels picked by name or by tag."""

    match: RouteMatch = Field(default_factory=RouteMatch)
    channels: list[str] = Field(default_factory=list)
    tags: list[str] = Field(default_factory=list)
    repeat_interval: Duration | None = None
    send_resolved: bool | None = None


class TemplatesConfig(StrictModel):
    """`string.Template` overrides for notification titles and bodies (see docs)."""

    title: str | None = None
    body: str | None = None


class NotificationsConfig(StrictModel):
    """Where people are told about conditions, and how often."""

    channels: dict[str, ChannelConfig] = Field(default_factory=dict)
    apprise_config: Path | None = None
    routes: list[RouteConfig] = Field(default_factory=list)
    group_wait: Duration = 10.0
    repeat_interval: Duration = 4 * 3600.0
    send_resolved: bool = True
    max_delivery_age: Annotated[float, BeforeValidator(parse_duration), Field(ge=60)] = 86400.0
    retry_initial: Annotated[float, BeforeValidator(parse_duration), Field(ge=0.1)] = 5.0
    retry_max: Annotated[float, BeforeValidator(parse_duration), Field(ge=0.1)] = 300.0
    dashboard_url: str | None = None
    templates: TemplatesConfig = Field(default_factory=TemplatesConfig)

    @model_validator(mode="after")
    def _routes_name_known_channels(self) -> NotificationsConfig:
        names = set(self.channels) | ({"apprise_config"} if self.apprise_config else set())
        for index, route in enumerate(self.routes):
            unknown = sorted(set(route.channels) - names)
            if unknown:
                raise ValueError(f"routes: route {index} names unknown channels: {unknown}")
            kinds = sorted(set(route.match.kinds) - set(get_args(ConditionName)))
            if kinds:
                raise ValueError(f"routes: route {index} matches unknown kinds: {kinds}")
        return self


class Settings(BaseSettings):
    """The whole configuration. Sources, highest priority first: the environment
    (`TQE_MONITOR_<SECTION>__<KEY>`), then the YAML document passed as init data."""

    model_config = SettingsConfigDict(
        env_prefix="TQE_MONITOR_",
        env_nested_delimiter="__",
        extra="forbid",
        frozen=True,
    )

    server: ServerConfig = Field(default_factory=ServerConfig)
    storage: StorageConfig = Field(default_factory=StorageConfig)
    defaults: DefaultsConfig = Field(default_factory=DefaultsConfig)
    targets: Annotated[dict[str, TargetConfig], Field(min_length=1)]
    conditions: dict[ConditionName, ConfirmationConfig] = Field(default_factory=dict)
    notifications: NotificationsConfig = Field(default_factory=NotificationsConfig)

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        # The loader passes the (interpolated) YAML document as init data; the environment must
        # override it, so env comes first. Dotenv and secrets dirs are not used.
        return (env_settings, init_settings)
