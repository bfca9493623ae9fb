"""Which wallet keys hold the remaining words and the last-update time, most specific first.

Remaining words -- a key is read by its words together with its parent's words when the parent
is itself wallet-ish ({"balance": {"words": 1}} reads as "balance words"). Ranks, best first:

    0  words + remaining/left/available/balance   remaining_words, wordsLeft, word_balance
    1  remaining/left/available + balance/credits/quota   remaining_quota, available_balance
    2  remaining/left/available                   remaining, available
    3  balance                                    balance, current_balance
    4  words                                      words, word_count
    5  credits                                    credits
    6  quota                                      quota
    7  wallet                                     {"wallet": 123}

A key with any word outside the wallet vocabulary is ignored (`words_used`, `remaining_days`,
`total_words`), as is anything under a usage or rate-limit parent ({"rate_limit": {"remaining":
59}}); under a total/limit parent only "remaining"-like keys count ({"limits": {"total": 9}}).
Ties go to the shallower key, then to the one seen first.
"""

from __future__ import annotations

from typing import Final

_WORDS: Final = frozenset({"words", "word", "wordcount"})
_REMAINING: Final = frozenset({"remaining", "left", "available"})
_BALANCE: Final = frozenset({"balance"})
_CREDITS: Final = frozenset({"credits", "credit"})
_QUOTA: Final = frozenset({"quota"})
_WALLET: Final = frozenset({"wallet"})
_FILLER: Final = frozenset({"count", "amount", "value", "number", "num", "of", "current", "user"})
_WALLET_VOCABULARY: Final = (
    _WORDS | _REMAINING | _BALANCE | _CREDITS | _QUOTA | _WALLET | _FILLER | {"account"}
)
_FOREIGN_PARENTS: Final = frozenset(
    {"rate", "ratelimit", "request", "requests", "usage", "used", "consumed", "spent", "history"}
)
_CAP_PARENTS: Final = frozenset(
    {"total", "limit", "limits", "max", "maximum", "initial", "purchased", "plan"}
)

_TIMESTAMP_KEYS: Final[tuple[frozenset[str], ...]] = (
    frozenset(
        {
            "lastupdate", "lastupdated", "lastupdatedat", "lastupdateat", "lastupdatetime",
            "lastupdatedtime", "lastupdatetimestamp", "lastupdatedtimestamp", "lastupdatedon",
        }
    ),
    frozenset(
        {
            "updatedat", "updated", "updatetime", "updatedtime", "updatedon", "updatetimestamp",
            "updatedtimestamp", "lastmodified", "lastmodifiedat", "modifiedat", "modified",
            "lastchanged", "changedat", "lastrefresh", "lastrefreshed", "refreshedat",
            "lastsync", "lastsynced", "syncedat",
        }
    ),
    frozenset({"asof", "asat", "validasof"}),
    frozenset({"timestamp", "ts", "datetime", "time", "date", "at"}),
)  # fmt: skip
"""Last-update keys by rank (compact spelling): last_update*, then updated*/modified*, then
as_of, then the generic timestamp/time/date."""


def balance_rank(key_words: tuple[str, ...], parent_words: tuple[str, ...]) -> int | None:
    """The rank (see module doc) of a key as the remaining-words field; None if it is not one."""
    if not key_words or not set(key_words) <= _WALLET_VOCABULARY:
        return None
    name = set(key_words)
    parent = set(parent_words)
    if parent & _FOREIGN_PARENTS:
        return None
    if parent & _CAP_PARENTS and not name & _REMAINING:
        return None
    if parent and parent <= _WALLET_VOCABULARY:
        name |= parent
    return _rank_of(name)


def _rank_of(name: set[str]) -> int | None:
    says_words, says_remaining = bool(name & _WORDS), bool(name & _REMAINING)
    if says_words and (says_remaining or name & _BALANCE):
        return 0
    if says_remaining and name & (_BALANCE | _CREDITS | _QUOTA):
        return 1
    ranked = (_REMAINING, _BALANCE, _WORDS, _CREDITS, _QUOTA, _WALLET)
    return next((2 + rank for rank, words in enumerate(ranked) if name & words), None)


def timestamp_rank(compact_key: str) -> int | None:
    """The rank of a key (compact spelling) as the last-update field; None if it is not one."""
    return next(
        (rank for rank, keys in enumerate(_TIMESTAMP_KEYS) if compact_key in keys),
        None,
    )
