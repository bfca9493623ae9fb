"""Turn whatever `GET /wallet` answered into a WalletReading.

The remaining words are required: without them the poll failed (BAD_PAYLOAD). The last-update
timestamp is best effort: when auto-detection finds none, or none readable, `updated_at` is None
and the balance is still reported. A bare number (or numeric string) payload is the balance.
See `wallet_keys` for which keys are recognised and which wins when several are present.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from datetime import datetime
from typing import Final

from tqe_monitor.models import WalletReading
from tqe_monitor.normalizer.keys import (
    MAX_CONTAINERS,
    MAX_DEPTH,
    MAX_ITEMS,
    describe_shape,
    items_of,
    kind_of,
    printable_key,
    words_of,
)
from tqe_monitor.normalizer.mapping import WalletMapping, bad_payload, resolve_path
from tqe_monitor.normalizer.numbers import read_word_count
from tqe_monitor.normalizer.timestamps import parse_timestamp
from tqe_monitor.normalizer.wallet_keys import balance_rank, timestamp_rank

_EXPECTED: Final = (
    "expected the remaining words as a whole number under a key such as remaining_words, "
    "words_remaining, balance, words or credits (e.g. "
    '{"remaining_words": 12345, "updated_at": "2026-11-21T04:35:00Z"})'
)
_MAX_NAMED_KEYS: Final = 5


def normalize_wallet(payload: object, mapping: WalletMapping | None = None) -> WalletReading:
    """Read the remaining words and the last-update time from a parsed JSON `payload`.

    Raises only PollError(BAD_PAYLOAD): when the remaining words cannot be found or read, or a
    mapped path does not resolve to something readable. A mapped `updated_at` that holds JSON
    null means "no timestamp" (None), not an error.
    """
    mapping = mapping if mapping is not None else WalletMapping()
    auto_detects = mapping.remaining_words is None or mapping.updated_at is None
    evidence = _collect(payload) if auto_detects else _Evidence()
    if mapping.remaining_words is not None:
        remaining = _mapped_word_count(payload, mapping.remaining_words)
    else:
        remaining = _detected_word_count(payload, evidence)
    if mapping.updated_at is not None:
        updated_at = _mapped_timestamp(payload, mapping.updated_at)
    else:
        updated_at = min(evidence.timestamps, default=(0, 0, 0, None))[3]
    return WalletReading(remaining_words=remaining, updated_at=updated_at)


def _mapped_word_count(payload: object, path: str) -> int:
    value = resolve_path(payload, path)
    count = read_word_count(value)
    if count is None:
        raise bad_payload(
            f"mapping path {path!r} (remaining_words) holds {kind_of(value)}, "
            "expected a whole number of words"
        )
    return count


def _mapped_timestamp(payload: object, path: str) -> datetime | None:
    value = resolve_path(payload, path)
    if value is None:
        return None
    parsed = parse_timestamp(value)
    if parsed is None:
        raise bad_payload(
            f"mapping path {path!r} (updated_at) holds {kind_of(value)} that is not a timestamp, "
            "expected ISO 8601 or epoch seconds/milliseconds"
        )
    return parsed


def _detected_word_count(payload: object, evidence: _Evidence) -> int:
    if evidence.counts:
        return min(evidence.counts)[3]
    if evidence.unreadable_keys:
        named = ", ".join(evidence.unreadable_keys[:_MAX_NAMED_KEYS])
        raise bad_payload(
            f"wallet payload not readable: key(s) {named} held no whole number of words; "
            f"{_EXPECTED}"
        )
    raise bad_payload(f"wallet payload not recognised: {_EXPECTED}; {describe_shape(payload)}")


# (rank, depth, order, value): min() picks the most specific key, then the shallowest, then the
# first seen.
_Ranked = tuple[int, int, int, int]
_RankedTime = tuple[int, int, int, datetime | None]


@dataclass
class _Evidence:
    counts: list[_Ranked] = field(default_factory=list)
    timestamps: list[_RankedTime] = field(default_factory=list)
    unreadable_keys: list[str] = field(default_factory=list)


def _collect(payload: object) -> _Evidence:
    """Walk the payload breadth first, noting every candidate balance and timestamp."""
    evidence = _Evidence()
    bare_count = read_word_count(payload)
    if bare_count is not None:
        evidence.counts.append((0, 0, 0, bare_count))
        return evidence
    queue: deque[tuple[object, int, tuple[str, ...]]] = deque([(payload, 0, ())])
    visited = order = 0
    while queue and visited < MAX_CONTAINERS:
        node, depth, parent_words = queue.popleft()
        visited += 1
        entries: list[tuple[tuple[str, ...], object]] = []
        if isinstance(node, dict):
            for key, value in items_of(node):
                key_words = words_of(key)
                order += 1
                _note(evidence, key, value, words=(key_words, parent_words), at=(depth, order))
                entries.append((key_words, value))
        elif isinstance(node, list | tuple):
            entries = [(parent_words, item) for item in node[:MAX_ITEMS]]
        else:
            continue
        if depth + 1 < MAX_DEPTH:
            queue.extend(
                (value, depth + 1, key_words)
                for key_words, value in entries
                if isinstance(value, dict | list | tuple)
            )
    return evidence


def _note(
    evidence: _Evidence,
    key: str,
    value: object,
    *,
    words: tuple[tuple[str, ...], tuple[str, ...]],
    at: tuple[int, int],
) -> None:
    """Record `key` (its words and its parent's) at (depth, order) if it is a candidate."""
    if isinstance(value, dict | list | tuple):
        return
    (key_words, parent_words), (depth, order) = words, at
    rank = balance_rank(key_words, parent_words)
    if rank is not None:
        count = read_word_count(value)
        if count is not None:
            evidence.counts.append((rank, depth, order, count))
        elif len(evidence.unreadable_keys) < _MAX_NAMED_KEYS:
            evidence.unreadable_keys.append(printable_key(key))
    time_rank = timestamp_rank("".join(key_words))
    if time_rank is not None:
        parsed = parse_timestamp(value)
        if parsed is not None:
            evidence.timestamps.append((time_rank, depth, order, parsed))
