"""Start-up steps shared by the commands: load the config or explain why not."""

from __future__ import annotations

import sys
from typing import TextIO

from tqe_monitor.client import RetryPolicy, TqeClient
from tqe_monitor.config import ConfigError, LoadedConfig, config_path, load_config
from tqe_monitor.httpcore_workaround import remember_missing_sniffio


def load_or_report(cli_path: str | None, err: TextIO | None = None) -> LoadedConfig | None:
    """Load the config; on failure print one line per problem to `err` and return None."""
    path = config_path(cli_path)
    try:
        return load_config(path)
    except ConfigError as exc:
        report_config_error(exc, err)
        return None


def report_config_error(exc: ConfigError, err: TextIO | None = None) -> None:
    """Print a ConfigError's problems (already scrubbed of secrets), one per line."""
    for problem in exc.problems:
        print(f"config error: {problem}", file=err or sys.stderr)


def build_client(retries: int, max_connections: int = 100) -> TqeClient:
    """The one shared upstream client of a process."""
    remember_missing_sniffio()  # a fifth less CPU per request; see the module
    return TqeClient(retry=RetryPolicy(attempts=retries + 1), max_connections=max_connections)
