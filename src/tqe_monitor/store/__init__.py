"""Persistence: what tqe-monitor must remember across restarts.

`Store` is the interface the daemon uses; `SqliteStore` is the default implementation (one
process, one writer). A PostgreSQL store for several replicas can implement the same protocol.
"""

from tqe_monitor.store.base import HistoryEntry, Store, StoreError
from tqe_monitor.store.sqlite import SqliteStore

__all__ = ["HistoryEntry", "SqliteStore", "Store", "StoreError"]
