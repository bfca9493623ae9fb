"""tqe-monitor: watches a Translation Quality Evaluation service for the teams that depend on it."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("tqe-monitor")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0+unknown"

__all__ = ["__version__"]
