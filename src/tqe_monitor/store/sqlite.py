"""The default store: one SQLite file in WAL mode, written by one process.

Why SQLite: zero operations for a single daemon, atomic commits, and a file users can inspect.
Opening checks the file thoroughly (integrity, schema version, writability) and fails with a
`StoreError` that says what is wrong: a monitor that silently reset its memory would repeat
every alert it had already sent.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from itertools import groupby
from pathlib import Path

from tqe_monitor.models import Component, ComponentState
from tqe_monitor.store.base import HistoryEntry, StoreError, WalletSample
from tqe_monitor.store.migrations import CURRENT_VERSION, MIGRATIONS
from tqe_monitor.store.outbox import SqliteOutbox
from tqe_monitor.tracking import StateChange
from tqe_monitor.tracking.conditions import (
    ConditionKey,
    ConditionKind,
    ConditionState,
    Severity,
    Transition,
)

# What a failed write can raise besides sqlite3.Error: details that are not JSON (TypeError,
# ValueError) or a number SQLite cannot hold (OverflowError). All are reported as StoreError, so
# the recorder counts them and monitoring goes on.
_WRITE_ERRORS = (sqlite3.Error, TypeError, ValueError, OverflowError)


def _ts(moment: datetime) -> float:
    return moment.timestamp()


def _dt(seconds: float) -> datetime:
    return datetime.fromtimestamp(seconds, UTC)


class SqliteStore:
    """A `Store` backed by one SQLite database file."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        try:
            if str(path) != ":memory:":
                self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
            self._db.execute("PRAGMA busy_timeout = 5000")
            self._check_integrity()
            self._db.execute("PRAGMA journal_mode = WAL")
            self._db.execute("PRAGMA synchronous = NORMAL")
            self._migrate()
        except StoreError:
            self._close_quietly()
            raise
        except sqlite3.DatabaseError as exc:
            self._close_quietly()
            raise StoreError(f"storage.path {self.path}: cannot use the store: {exc}") from None
        except OSError as exc:
            where = f" ({exc.filename})" if exc.filename else ""
            raise StoreError(
                f"storage.path {self.path}: cannot use the store: {exc.strerror}{where}"
            ) from None

    def _close_quietly(self) -> None:
        """Release the file after a failed open (the connection may not exist yet)."""
        db = getattr(self, "_db", None)
        if db is not None:
            db.close()

    def _check_integrity(self) -> None:
        result = self._db.execute("PRAGMA quick_check").fetchone()
        if result is None or result[0] != "ok":
            detail = result[0] if result else "no answer"
            raise StoreError(
                f"storage.path {self.path}: the database is corrupt ({detail}); "
                "restore a backup or move the file away to start with an empty store"
            )

    def _migrate(self) -> None:
        version = self._db.execute("PRAGMA user_version").fetchone()[0]
        if version > CURRENT_VERSION:
            raise StoreError(
                f"storage.path {self.path}: schema version {version} is newer than this "
                f"tqe-monitor supports ({CURRENT_VERSION}); upgrade tqe-monitor"
            )
        # BEGIN IMMEDIATE takes the write lock: an unwritable file fails here, at start.
        self._db.execute("BEGIN IMMEDIATE")
        try:
            for number in range(version, CURRENT_VERSION):
                for statement in MIGRATIONS[number].split(";"):
                    if statement.strip():
                        self._db.execute(statement)
            self._db.execute(f"PRAGMA user_version = {CURRENT_VERSION}")
            self._db.execute("COMMIT")
        except BaseException:
            self._db.execute("ROLLBACK")
            raise

    def commit(
        self,
        *,
        transitions: Sequence[Transition] = (),
        state_changes: Sequence[StateChange] = (),
        samples: Sequence[WalletSample] = (),
    ) -> None:
        """Write one poll's results in one transaction."""
        if not (transitions or state_changes or samples):
            return
        with self._transaction() as db:
            for t in transitions:
                details = json.dumps(dict(t.details), default=str)
                db.execute(
                    "INSERT INTO condition_history (at, condition_id, service, target, name,"
                    " severity, raised, since, details) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        _ts(t.at),
                        t.key.id,
                        t.key.service,
                        t.key.target,
                        t.key.name,
                        t.severity.value,
                        int(t.raised),
                        _ts(t.since),
                        details,
                    ),
                )
                if t.raised:
                    db.execute(
                        "INSERT OR REPLACE INTO conditions (id, kind, service, target, detail,"
                        " severity, since, details) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                        (
                            t.key.id,
                            t.key.kind.value,
                            t.key.service,
                            t.key.target,
                            t.key.detail,
                            t.severity.value,
                            _ts(t.since),
                            details,
                        ),
                    )
                else:
                    db.execute("DELETE FROM conditions WHERE id = ?", (t.key.id,))
            for c in state_changes:
                db.execute(
                    "INSERT OR REPLACE INTO component_states VALUES (?, ?, ?, ?)",
                    (c.service, c.component.value, c.current.value, _ts(c.since)),
                )
                db.execute(
                    "INSERT INTO state_history (at, service, component, from_state, to_state)"
                    " VALUES (?, ?, ?, ?, ?)",
                    (
                        _ts(c.since),
                        c.service,
                        c.component.value,
                        c.previous.value if c.previous else None,
                        c.current.value,
                    ),
                )
            db.executemany(
                "INSERT INTO wallet_samples VALUES (?, ?, ?, ?)",
                [(s.service, s.target, _ts(s.at), s.words) for s in samples],
            )

    def active_conditions(self) -> list[ConditionState]:
        rows = self._db.execute(
            "SELECT kind, service, target, detail, severity, since, details FROM conditions"
        ).fetchall()
        states = []
        for kind, service, target, detail, severity, since, details in rows:
            key = ConditionKey(ConditionKind(kind), service, target, detail)
            states.append(
                ConditionState(key, Severity(severity), True, _dt(since), json.loads(details))
            )
        return states

    def component_states(self) -> list[tuple[str, Component, ComponentState, datetime]]:
        rows = self._db.execute("SELECT service, component, state, since FROM component_states")
        return [(s, Component(c), ComponentState(st), _dt(t)) for s, c, st, t in rows]

    def wallet_samples(self, since: datetime) -> dict[tuple[str, str], list[tuple[datetime, int]]]:
        return dict(self.each_wallet_samples(since))

    def each_wallet_samples(
        self, since: datetime
    ) -> Iterator[tuple[tuple[str, str], list[tuple[datetime, int]]]]:
        """The samples since `since`, one target at a time (oldest first). A restart of a daemon
        with 10,000 targets reads millions of samples: as one dict of tuples they would take
        ~0.5 GB at once, target by target they take a few kB."""
        rows = self._db.execute(
            "SELECT service, target, at, words FROM wallet_samples WHERE at >= ?"
            " ORDER BY service, target, at",
            (_ts(since),),
        )
        for pair, group in groupby(rows, key=lambda row: (row[0], row[1])):
            yield pair, [(_dt(at), words) for _, _, at, words in group]

    def retain(self, services: set[str], targets: set[tuple[str, str]]) -> int:
        """Drop remembered state of services and targets no longer configured."""
        removed = 0
        with self._transaction():
            for row_id, service, target in self._db.execute(
                "SELECT id, service, target FROM conditions"
            ).fetchall():
                keep = (service, target) in targets if target else service in services
                if not keep:
                    self._db.execute("DELETE FROM conditions WHERE id = ?", (row_id,))
                    removed += 1
            for (service,) in self._db.execute(
                "SELECT DISTINCT service FROM component_states"
            ).fetchall():
                if service not in services:
                    self._db.execute("DELETE FROM component_states WHERE service = ?", (service,))
                    removed += 1
        return removed

    def history(self, *, since: datetime, target: str | None = None) -> list[HistoryEntry]:
        entries: list[HistoryEntry] = []
        if target is None:
            for at, service, component, old, new in self._db.execute(
                "SELECT at, service, component, from_state, to_state FROM state_history"
                " WHERE at >= ?",
                (_ts(since),),
            ):
                entries.append(
                    HistoryEntry(
                        _dt(at), service, "", "state", component, f"{old or 'none'} -> {new}"
                    )
                )
        query = (
            "SELECT at, service, target, name, severity, raised, details FROM condition_history"
            " WHERE at >= ? AND (? IS NULL OR target = ?)"
        )
        params = (_ts(since), target, target)
        for at, service, tgt, name, severity, raised, details in self._db.execute(query, params):
            entries.append(
                HistoryEntry(
                    _dt(at),
                    service,
                    tgt,
                    "condition",
                    name,
                    "raised" if raised else "resolved",
                    severity,
                    json.loads(details),
                )
            )
        return sorted(entries, key=lambda e: e.at)

    def prune(self, before: datetime) -> int:
        """Delete wallet samples and history older than `before` (retention)."""
        cutoff = _ts(before)
        with self._transaction():
            removed = 0
            for table in ("wallet_samples", "condition_history", "state_history"):
                removed += self._db.execute(f"DELETE FROM {table} WHERE at < ?", (cutoff,)).rowcount  # noqa: S608
        return removed

    @property
    def outbox(self) -> SqliteOutbox:
        """The notification outbox, on the same connection (one writer)."""
        return SqliteOutbox(self._db)

    def close(self) -> None:
        self._db.close()

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """All or nothing: whatever fails rolls back, so no half-written poll is ever seen (not
        even by this connection) and the next write starts clean."""
        try:
            self._db.execute("BEGIN")
            yield self._db
            self._db.execute("COMMIT")
        except BaseException as exc:
            self._rollback()
            if isinstance(exc, _WRITE_ERRORS):
                raise StoreError(f"storage.path {self.path}: write failed: {exc}") from None
            raise

    def _rollback(self) -> None:
        # A closed connection raises on `in_transaction` too: nothing is left to roll back.
        with contextlib.suppress(sqlite3.Error):
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")
