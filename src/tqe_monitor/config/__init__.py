"""Configuration: the schema (`models`), and reading it from YAML and the environment (`loader`)."""

from tqe_monitor.config.loader import (
    ConfigError,
    LoadedConfig,
    ResolvedTarget,
    config_path,
    load_config,
    resolve_targets,
)
from tqe_monitor.config.models import Settings, TargetConfig

__all__ = [
    "ConfigError",
    "LoadedConfig",
    "ResolvedTarget",
    "Settings",
    "TargetConfig",
    "config_path",
    "load_config",
    "resolve_targets",
]
