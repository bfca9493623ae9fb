"""normalize_wallet: one row per payload shape, plus the timestamp formats."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from tqe_monitor.errors import PollError, PollErrorReason
from tqe_monitor.normalizer import WalletMapping, normalize_wallet

T = datetime(2026, 11, 21, 4, 35, tzinfo=UTC)
EPOCH_S = 1_795_235_700  # == T
assert datetime.fromtimestamp(EPOCH_S, UTC) == T

# (payload, remaining_words, updated_at)
SHAPES = [
    pytest.param(
        {"remaining_words": 12345, "last_update": "2026-11-21T04:35:00Z"}, 12345, T, id="snake"
    ),
    pytest.param({"remainingWords": 10, "lastUpdated": EPOCH_S}, 10, T, id="camel-epoch-s"),
    pytest.param(
        {"Words-Remaining": "12,345", "UpdatedAt": "2026-11-21 04:35:00"},
        12345,
        T,
        id="kebab-pascal-grouped-string",
    ),
    pytest.param(
        {"data": {"balance": 500.0, "updated_at": EPOCH_S * 1000}},
        500,
        T,
        id="data-envelope-float-epoch-ms",
    ),
    pytest.param(
        {"wallet": {"balance": {"words": 123}, "updated": "2026-11-21T05:35:00+01:00"}},
        123,
        T,
        id="nested-balance-words",
    ),
    pytest.param(
        {"words": "12 345", "timestamp": str(EPOCH_S)}, 12345, T, id="space-grouped-string"
    ),
    pytest.param({"credits": 7}, 7, None, id="credits-no-timestamp"),
    pytest.param(
        {"remaining_quota": 9, "as_of": "2026-11-21T04:35:00.000Z"}, 9, T, id="remaining-quota"
    ),
    pytest.param(
        {"available_words": -20, "timestamp": "yesterday"},
        -20,
        None,
        id="negative-overdraft-garbage-time",
    ),
    pytest.param({"words": 1, "remaining_words": 2}, 2, None, id="specific-key-beats-words"),
    pytest.param(
        {"balance": 1, "data": {"words_left": 2}}, 2, None, id="specific-key-beats-shallower"
    ),
    pytest.param(
        {"result": {"quota": {"remaining": 80, "total": 100, "used": 20}}},
        80,
        None,
        id="quota-object",
    ),
    pytest.param(
        {"rate_limit": {"remaining": 59}, "words": 1000},
        1000,
        None,
        id="rate-limit-is-not-a-balance",
    ),
    pytest.param(
        {"total_words": 5000, "words_used": 1000, "balance": 4000},
        4000,
        None,
        id="total-and-used-ignored",
    ),
    pytest.param(
        {"user": {"account": {"wallet": {"amount": 42}}}}, 42, None, id="deep-amount-under-wallet"
    ),
    pytest.param([{"remaining": 3}], 3, None, id="list-wrapped"),
    pytest.param(77, 77, None, id="bare-number"),
    pytest.param("1,000", 1000, None, id="bare-numeric-string"),
    pytest.param({"remaining_words": 1, "updated_at": None}, 1, None, id="null-timestamp"),
    pytest.param(
        {
            "remaining_words": 1,
            "created_at": "2020-01-01T00:00:00Z",
            "last_update": "2026-11-21T04:35:00Z",
            "timestamp": 0,
        },
        1,
        T,
        id="last-update-beats-generic-timestamp",
    ),
]


@pytest.mark.parametrize(("payload", "remaining", "updated_at"), SHAPES)
def test_wallet_shapes(payload: object, remaining: int, updated_at: datetime | None) -> None:
    reading = normalize_wallet(payload)

    assert (reading.remaining_words, reading.updated_at) == (remaining, updated_at)


TIMESTAMPS = [
    pytest.param("2026-11-21T04:35:00Z", T, id="iso-z"),
    pytest.param("2026-11-21T06:35:00+02:00", T, id="iso-offset"),
    pytest.param("2026-11-21T04:35:00+0000", T, id="iso-offset-no-colon"),
    pytest.param("2026-11-21T04:35:00", T, id="iso-naive-is-utc"),
    pytest.param("2026-11-21 04:35:00", T, id="space-separator"),
    pytest.param("2026-11-21T04:35:00.000000Z", T, id="fractional-seconds"),
    pytest.param("2026-11-21", datetime(2026, 11, 21, tzinfo=UTC), id="date-only"),
    pytest.param(EPOCH_S, T, id="epoch-s-int"),
    pytest.param(float(EPOCH_S), T, id="epoch-s-float"),
    pytest.param(EPOCH_S * 1000, T, id="epoch-ms-int"),
    pytest.param(str(EPOCH_S), T, id="epoch-s-string"),
    pytest.param(str(EPOCH_S * 1000), T, id="epoch-ms-string"),
    pytest.param(f"{EPOCH_S}.0", T, id="epoch-s-decimal-string"),
    pytest.param(
        99_999_999_999,
        datetime(5138, 11, 16, 9, 46, 39, tzinfo=UTC),
        id="just-below-ms-cutoff-is-seconds",
    ),
    pytest.param(
        100_000_000_000, datetime(1973, 3, 3, 9, 46, 40, tzinfo=UTC), id="ms-cutoff-is-milliseconds"
    ),
    pytest.param("not a date", None, id="garbage"),
    pytest.param("", None, id="empty"),
    pytest.param(True, None, id="boolean"),
    pytest.param(float("nan"), None, id="nan"),
    pytest.param(float("inf"), None, id="inf"),
    pytest.param(10**30, None, id="out-of-range-number"),
    pytest.param("9999-12-31T23:59:59-05:00", None, id="out-of-range-after-utc-shift"),
    pytest.param({"iso": "2026-11-21T04:35:00Z"}, None, id="object"),
]


@pytest.mark.parametrize(("raw", "expected"), TIMESTAMPS)
def test_timestamps(raw: object, expected: datetime | None) -> None:
    reading = normalize_wallet({"remaining_words": 1, "updated_at": raw})

    assert reading.updated_at == expected
    if reading.updated_at is not None:
        assert reading.updated_at.utcoffset() is not None
        assert reading.updated_at.tzinfo is UTC


WORD_COUNTS = [
    pytest.param(0, 0, id="zero"),
    pytest.param(12.0, 12, id="integral-float"),
    pytest.param("12345", 12345, id="digits"),
    pytest.param(" 12345 ", 12345, id="padded"),
    pytest.param("12,345,678", 12345678, id="comma-groups"),
    pytest.param("1'234", 1234, id="apostrophe-groups"),
    pytest.param("-1,000", -1000, id="negative-grouped"),
    pytest.param("100.00", 100, id="zero-decimals"),
]


@pytest.mark.parametrize(("raw", "expected"), WORD_COUNTS)
def test_word_count_spellings(raw: object, expected: int) -> None:
    assert normalize_wallet({"remaining_words": raw}).remaining_words == expected


MAPPINGS = [
    pytest.param(
        {"x": {"n": "4,321"}, "y": [0, {"t": "2026-11-21T04:35:00Z"}]},
        WalletMapping(remaining_words="x.n", updated_at="y.1.t"),
        4321,
        T,
        id="both-paths-with-list-index",
    ),
    pytest.param(
        {"x": 5, "last_update": EPOCH_S},
        WalletMapping(remaining_words="x"),
        5,
        T,
        id="mapped-words-auto-timestamp",
    ),
    pytest.param(
        {"remaining_words": 5, "meta": {"when": EPOCH_S * 1000}},
        WalletMapping(updated_at="meta.when"),
        5,
        T,
        id="auto-words-mapped-timestamp",
    ),
    pytest.param(
        {"words": 1, "remaining_words": 2, "odd": {"n": 3}},
        WalletMapping(remaining_words="odd.n"),
        3,
        None,
        id="mapping-beats-detection",
    ),
    pytest.param(
        {"n": 1, "t": None},
        WalletMapping(remaining_words="n", updated_at="t"),
        1,
        None,
        id="mapped-null-timestamp-is-none",
    ),
]


@pytest.mark.parametrize(("payload", "mapping", "remaining", "updated_at"), MAPPINGS)
def test_wallet_mappings(
    payload: object, mapping: WalletMapping, remaining: int, updated_at: datetime | None
) -> None:
    reading = normalize_wallet(payload, mapping)

    assert (reading.remaining_words, reading.updated_at) == (remaining, updated_at)


BAD_PAYLOADS = [
    pytest.param(
        {"foo": 1, "bar": {"baz": 2}}, ["keys seen", "foo", "bar", "bar.baz"], id="no-known-keys"
    ),
    pytest.param({"balance": "plenty"}, ["balance"], id="not-a-number"),
    pytest.param({"remaining_words": True}, ["remaining_words"], id="bool-is-not-a-number"),
    pytest.param({"remaining_words": 12.5}, ["remaining_words"], id="fractional"),
    pytest.param({"remaining_words": float("nan")}, ["remaining_words"], id="nan"),
    pytest.param({"remaining_words": "12.345"}, ["remaining_words"], id="ambiguous-separator"),
    pytest.param({"remaining_words": "1,23,456"}, ["remaining_words"], id="bad-grouping"),
    pytest.param({"remaining_words": 2**60}, ["remaining_words"], id="beyond-float64-exactness"),
    pytest.param({"remaining_words": None}, ["remaining_words"], id="null"),
    pytest.param(
        {"usage": {"words": 10}, "limits": {"words": 100}},
        ["usage.words", "limits.words"],
        id="usage-and-limits-only",
    ),
    pytest.param({}, ["an object"], id="empty-object"),
    pytest.param(None, ["null"], id="null-payload"),
    pytest.param("lots", ["a string"], id="bare-string"),
]


@pytest.mark.parametrize(("payload", "named"), BAD_PAYLOADS)
def test_bad_payloads(payload: object, named: list[str]) -> None:
    with pytest.raises(PollError) as caught:
        normalize_wallet(payload)

    assert caught.value.reason is PollErrorReason.BAD_PAYLOAD
    assert "expected" in caught.value.message
    for text in named:
        assert text in caught.value.message


def test_unreadable_value_is_not_quoted() -> None:
    with pytest.raises(PollError) as caught:
        normalize_wallet({"balance": "sk-live-secret-looking-thing"})

    assert "sk-live" not in caught.value.message


BAD_MAPPINGS = [
    pytest.param({"a": 1}, WalletMapping(remaining_words="a.b"), "a.b", id="descend-into-number"),
    pytest.param({"a": {}}, WalletMapping(remaining_words="a.n"), "a.n", id="missing-key"),
    pytest.param({"a": "many"}, WalletMapping(remaining_words="a"), "'a'", id="words-not-a-number"),
    pytest.param(
        {"words": 1, "t": "soon"}, WalletMapping(updated_at="t"), "'t'", id="timestamp-unreadable"
    ),
    pytest.param({"words": 1}, WalletMapping(updated_at="t"), "'t'", id="timestamp-path-missing"),
    pytest.param({"n": [1]}, WalletMapping(remaining_words="n.-1"), "n.-1", id="negative-index"),
]


@pytest.mark.parametrize(("payload", "mapping", "named"), BAD_MAPPINGS)
def test_bad_mapping_paths(payload: object, mapping: WalletMapping, named: str) -> None:
    with pytest.raises(PollError) as caught:
        normalize_wallet(payload, mapping)

    assert caught.value.reason is PollErrorReason.BAD_PAYLOAD
    assert named in caught.value.message
