"""Versioned schema migrations for the SQLite store (`PRAGMA user_version` is the version).

Migrations only ever append: a released migration is never edited, so every database walks the
same path to the current schema. A database from a newer release is refused, not downgraded.
"""

from __future__ import annotations

MIGRATIONS: tuple[str, ...] = (
    # 1: conditions, history, component states, wallet samples
    """
    CREATE TABLE conditions (
        id TEXT PRIMARY KEY,
        kind TEXT NOT NULL,
        service TEXT NOT NULL,
        target TEXT NOT NULL,
        detail TEXT NOT NULL,
        severity TEXT NOT NULL,
        since REAL NOT NULL,
        details TEXT NOT NULL
    );
    CREATE TABLE condition_history (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        at REAL NOT NULL,
        condition_id TEXT NOT NULL,
        service TEXT NOT NULL,
        target TEXT NOT NULL,
        name TEXT NOT NULL,
        severity TEXT NOT NULL,
        raised INTEGER NOT NULL,
        since REAL NOT NULL,
        details TEXT NOT NULL
    );
    CREATE INDEX condition_history_at ON condition_history (at);
    CREATE TABLE component_states (
        service TEXT NOT NULL,
        component TEXT NOT NULL,
        state TEXT NOT NULL,
        since REAL NOT NULL,
        PRIMARY KEY (service, component)
    );
    CREATE TABLE state_history (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        at REAL NOT NULL,
        service TEXT NOT NULL,
        component TEXT NOT NULL,
        from_state TEXT,
        to_state TEXT NOT NULL
    );
    CREATE INDEX state_history_at ON state_history (at);
    CREATE TABLE wallet_samples (
        service TEXT NOT NULL,
        target TEXT NOT NULL,
        at REAL NOT NULL,
        words INTEGER NOT NULL
    );
    CREATE INDEX wallet_samples_target_at ON wallet_samples (service, target, at);
    CREATE INDEX wallet_samples_at ON wallet_samples (at);
    """,
    # 2: the notification outbox
    """
    ALTER TABLE condition_history ADD COLUMN notified INTEGER NOT NULL DEFAULT 0;
    CREATE INDEX condition_history_pending ON condition_history (notified, seq);
    CREATE TABLE notifications (
        id TEXT PRIMARY KEY,
        created_at REAL NOT NULL,
        first_event_at REAL NOT NULL,
        service TEXT NOT NULL,
        category TEXT NOT NULL,
        notify_type TEXT NOT NULL,
        title TEXT NOT NULL,
        body TEXT NOT NULL
    );
    CREATE TABLE deliveries (
        notification_id TEXT NOT NULL REFERENCES notifications (id),
        channel TEXT NOT NULL,
        state TEXT NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        next_attempt_at REAL NOT NULL,
        last_error TEXT,
        done_at REAL,
        PRIMARY KEY (notification_id, channel)
    );
    CREATE INDEX deliveries_due ON deliveries (state, next_attempt_at);
    CREATE TABLE announced (
        condition_id TEXT NOT NULL,
        channel TEXT NOT NULL,
        last_sent_at REAL NOT NULL,
        PRIMARY KEY (condition_id, channel)
    );
    """,
)

CURRENT_VERSION = len(MIGRATIONS)
