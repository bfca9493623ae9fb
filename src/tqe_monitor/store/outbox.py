"""The notification outbox in SQLite: pending events, planned notifications, deliveries.

Durable by construction: every condition transition is already a row of `condition_history`
(committed with the poll that caused it); a row is marked notified in the same transaction that
writes the notifications planned from it. A delivery row per (notification, channel) makes
"each channel at most once per notification" a primary key, and survives restarts.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from tqe_monitor.store.base import StoreError

NOTIFIED_NO, NOTIFIED_YES, NOTIFIED_HELD = 0, 1, 2


def _ts(moment: datetime) -> float:
    return moment.timestamp()


def _dt(seconds: float) -> datetime:
    return datetime.fromtimestamp(seconds, UTC)


@dataclass(frozen=True, slots=True)
class PendingEvent:
    """A condition transition not yet turned into notifications."""

    seq: int
    at: datetime
    condition_id: str
    service: str
    target: str
    name: str
    severity: str
    raised: bool
    since: datetime
    details: dict[str, Any]


@dataclass(frozen=True, slots=True)
class PlannedNotification:
    """A message to send to some channels; `id` is its idempotency key."""

    id: str
    created_at: datetime
    first_event_at: datetime
    service: str
    category: str
    notify_type: str
    title: str
    body: str
    channels: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Delivery:
    """One channel's delivery of one notification."""

    notification_id: str
    channel: str
    attempts: int
    created_at: datetime
    first_event_at: datetime
    notify_type: str
    title: str
    body: str


class SqliteOutbox:
    """Outbox operations on the store's connection (one writer: the daemon)."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db

    def pending_events(self, since: datetime) -> list[PendingEvent]:
        """Transitions newer than `since` that no notification was planned from yet."""
        rows = self._db.execute(
            "SELECT seq, at, condition_id, service, target, name, severity, raised, since,"
            " details FROM condition_history WHERE notified = 0 AND at >= ? ORDER BY seq",
            (_ts(since),),
        ).fetchall()
        return [
            PendingEvent(
                seq,
                _dt(at),
                cid,
                service,
                target,
                name,
                severity,
                bool(raised),
                _dt(began),
                json.loads(details),
            )
            for seq, at, cid, service, target, name, severity, raised, began, details in rows
        ]

    def announced(self) -> dict[str, dict[str, datetime]]:
        """condition id -> channel -> when it was last told (raise or reminder)."""
        found: dict[str, dict[str, datetime]] = {}
        for condition_id, channel, last in self._db.execute(
            "SELECT condition_id, channel, last_sent_at FROM announced"
        ):
            found.setdefault(condition_id, {})[channel] = _dt(last)
        return found

    def plan(
        self,
        notifications: Sequence[PlannedNotification],
        consumed: dict[int, int],
        announce: Iterable[tuple[str, str, datetime]] = (),
        unannounce: Iterable[tuple[str, str]] = (),
    ) -> None:
        """Atomically: write notifications and their deliveries, mark events, update announced."""
        db = self._db
        try:
            db.execute("BEGIN")
            for n in notifications:
                db.execute(
                    "INSERT INTO notifications VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        n.id,
                        _ts(n.created_at),
                        _ts(n.first_event_at),
                        n.service,
                        n.category,
                        n.notify_type,
                        n.title,
                        n.body,
                    ),
                )
                db.executemany(
                    "INSERT OR IGNORE INTO deliveries (notification_id, channel, state,"
                    " attempts, next_attempt_at) VALUES (?, ?, 'pending', 0, ?)",
                    [(n.id, channel, _ts(n.created_at)) for channel in n.channels],
                )
            db.executemany(
                "UPDATE condition_history SET notified = ? WHERE seq = ?",
                [(state, seq) for seq, state in consumed.items()],
            )
            db.executemany(
                "INSERT OR REPLACE INTO announced VALUES (?, ?, ?)",
                [(cid, channel, _ts(at)) for cid, channel, at in announce],
            )
            db.executemany(
                "DELETE FROM announced WHERE condition_id = ? AND channel = ?", list(unannounce)
            )
            db.execute("COMMIT")
        except sqlite3.Error as exc:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise StoreError(f"outbox write failed: {exc}") from None

    def due(self, now: datetime, limit: int = 100) -> list[Delivery]:
        """Pending deliveries whose next attempt is due, oldest first."""
        rows = self._db.execute(
            "SELECT d.notification_id, d.channel, d.attempts, n.created_at, n.first_event_at,"
            " n.notify_type, n.title, n.body FROM deliveries d JOIN notifications n"
            " ON n.id = d.notification_id WHERE d.state = 'pending' AND d.next_attempt_at <= ?"
            " ORDER BY d.next_attempt_at LIMIT ?",
            (_ts(now), limit),
        ).fetchall()
        return [
            Delivery(nid, channel, attempts, _dt(created), _dt(first), kind, title, body)
            for nid, channel, attempts, created, first, kind, title, body in rows
        ]

    def record_attempt(
        self,
        delivery: Delivery,
        *,
        state: str,
        at: datetime,
        next_attempt_at: datetime | None = None,
        error: str | None = None,
    ) -> None:
        """Record an attempt's outcome: state 'sent', 'pending' (retry later) or 'dropped'."""
        try:
            self._db.execute(
                "UPDATE deliveries SET state = ?, attempts = attempts + 1, next_attempt_at = ?,"
                " last_error = ?, done_at = ? WHERE notification_id = ? AND channel = ?"
                " AND state = 'pending'",
                (
                    state,
                    _ts(next_attempt_at or at),
                    error,
                    _ts(at) if state != "pending" else None,
                    delivery.notification_id,
                    delivery.channel,
                ),
            )
        except sqlite3.Error as exc:
            raise StoreError(f"outbox write failed: {exc}") from None

    def queue_depth(self) -> int:
        """Deliveries still pending."""
        row = self._db.execute("SELECT COUNT(*) FROM deliveries WHERE state = 'pending'")
        return int(row.fetchone()[0])

    def prune(self, before: datetime) -> int:
        """Forget finished notifications older than `before`."""
        cutoff = _ts(before)
        removed = self._db.execute(
            "DELETE FROM deliveries WHERE state != 'pending' AND done_at < ?", (cutoff,)
        ).rowcount
        self._db.execute(
            "DELETE FROM notifications WHERE created_at < ? AND id NOT IN"
            " (SELECT notification_id FROM deliveries)",
            (cutoff,),
        )
        return int(removed)
