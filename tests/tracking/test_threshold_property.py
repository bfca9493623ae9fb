"""Hysteresis for any sequence of balances: one raise per crossing, resolves past the margin."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from tqe_monitor.tracking.conditions import ConditionBook, ConditionKind, Severity
from tqe_monitor.tracking.wallet import Threshold, WalletPolicy, WalletWatch

T0 = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)
TIERS = (
    Threshold(100_000, Severity.WARNING, "100000"),
    Threshold(10_000, Severity.CRITICAL, "10000"),
)


def tier_transitions(
    policy: WalletPolicy, balances: list[int]
) -> dict[str, list[tuple[bool, int]]]:
    """Feed `balances` a minute apart; per tier, the (raised, balance at the time) transitions."""
    watch = WalletWatch("tqe", "team-a", policy, started=T0)
    book = ConditionBook()
    found: dict[str, list[tuple[bool, int]]] = {t.tier: [] for t in policy.thresholds}
    for minute, balance in enumerate(balances):
        analysis = watch.observe(book, balance, T0 + timedelta(minutes=minute))
        for transition in analysis.transitions:
            if transition.key.kind is ConditionKind.WALLET_LOW:
                found[transition.key.detail].append((transition.raised, balance))
    return found


def downward_crossings(balances: list[int], threshold: int) -> int:
    """Steps from at-or-above the threshold (or the start) to below it."""
    crossings, above = 0, True
    for balance in balances:
        below = balance < threshold
        crossings += below and above
        above = not below
    return crossings


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 300_000), max_size=60))
def test_each_tier_raises_once_per_crossing_and_resolves_past_the_margin(
    balances: list[int],
) -> None:
    found = tier_transitions(WalletPolicy(thresholds=TIERS), balances)
    for threshold in TIERS:
        transitions = found[threshold.tier]
        assert [raised for raised, _ in transitions] == [
            index % 2 == 0 for index in range(len(transitions))
        ], "transitions alternate, starting with a raise"
        raises = [balance for raised, balance in transitions if raised]
        resolves = [balance for raised, balance in transitions if not raised]
        assert len(raises) <= downward_crossings(balances, threshold.words)
        assert all(balance < threshold.words for balance in raises)
        assert all(balance * 100 >= threshold.words * 105 for balance in resolves)


@settings(max_examples=300, deadline=None)
@given(
    threshold=st.integers(1, 1_000_000),
    margin=st.sampled_from([0.0, 0.01, 0.05, 0.1, 0.25]),
    offsets=st.lists(st.integers(-200, 200), max_size=40),
    step=st.sampled_from([1, 10, 1_000]),
)
def test_any_threshold_and_margin_follow_the_hysteresis_model(
    threshold: int, margin: float, offsets: list[int], step: int
) -> None:
    """Against a model: raise when armed and below; resolve at threshold * (1 + margin) or more.

    Balances are the threshold plus offsets in units of `step`: step 1 probes the edges word by
    word, larger steps reach the margin of large thresholds."""
    balances = [max(0, threshold + offset * step) for offset in offsets]
    policy = WalletPolicy(
        thresholds=(Threshold(threshold, Severity.WARNING, "t"),),
        rearm_margin=margin,
        forecast_within=timedelta(0),
    )
    rearm_at = threshold * (1 + Fraction(str(margin)))  # exact: no float noise in the model
    expected: list[tuple[bool, int]] = []
    active = False
    for balance in balances:
        if not active and balance < threshold:
            active = True
            expected.append((True, balance))
        elif active and balance >= rearm_at:
            active = False
            expected.append((False, balance))
    assert tier_transitions(policy, balances)["t"] == expected
