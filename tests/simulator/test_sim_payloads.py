"""Payload shapes and the /check evaluation (pure renderers and rules)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from tqe_monitor.simulator import Component, InvalidInput, Shape, State
from tqe_monitor.simulator.checker import Segment, evaluate, parse_segment
from tqe_monitor.simulator.shapes import render_status, render_wallet

MOMENT = datetime(2026, 11, 21, 4, 35, 0, tzinfo=UTC)
STATUS = {Component.PLATFORM: State.DEGRADED, Component.AI_SERVICE: State.MAINTENANCE}


@pytest.mark.parametrize(
    ("shape", "expected"),
    [
        pytest.param(Shape.DEFAULT, {"platform": {"status": "Degraded Performance"},
                                     "ai_service": {"status": "Under Maintenance"},
                                     "updated_at": "2026-11-21T04:35:00Z"}, id="default"),
        pytest.param(Shape.ENVELOPE_CAMEL, {"data": {"platformStatus": "Degraded Performance",
                                                     "aiServiceStatus": "Under Maintenance"}},
                     id="envelope_camel"),
        pytest.param(Shape.COMPONENTS_LIST, {"components": [
                         {"name": "Platform", "state": "degraded_performance"},
                         {"name": "AI Service", "state": "under_maintenance"}]},
                     id="components_list"),
        pytest.param(Shape.KEBAB, {"platform-status": "DEGRADED",
                                   "ai-service-status": "MAINTENANCE"}, id="kebab"),
        pytest.param(Shape.CUSTOM, {"svc": {"p": "amber", "m": "blue"}}, id="custom"),
    ],
)  # fmt: skip
def test_status_shapes(shape: Shape, expected: dict[str, object]) -> None:
    assert render_status(shape, STATUS, MOMENT) == expected


@pytest.mark.parametrize(
    ("shape", "expected"),
    [
        pytest.param(Shape.DEFAULT, {"remaining_words": 12345,
                                     "last_update": "2026-11-21T04:35:00Z"}, id="default"),
        pytest.param(Shape.ENVELOPE_CAMEL, {"data": {"remainingWords": 12345,
                                                     "lastUpdated": 1795235700000}},
                     id="envelope_camel"),
        pytest.param(Shape.COMPONENTS_LIST, {"wallet": {"words_remaining": "12,345",
                                                        "updated": 1795235700}},
                     id="components_list"),
        pytest.param(Shape.KEBAB, {"word-balance": 12345,
                                   "last-modified": "2026-11-21 04:35:00"}, id="kebab"),
        pytest.param(Shape.CUSTOM, {"acct": {"w": 12345, "t": "2026-11-21T04:35:00+00:00"}},
                     id="custom"),
    ],
)  # fmt: skip
def test_wallet_shapes(shape: Shape, expected: dict[str, object]) -> None:
    assert render_wallet(shape, 12345, MOMENT) == expected


def test_every_operational_status_reads_as_fully_operational() -> None:
    everything_fine = dict.fromkeys(Component, State.OPERATIONAL)
    body = render_status(Shape.DEFAULT, everything_fine, MOMENT)
    assert body["platform"] == body["ai_service"] == {"status": "Fully Operational"}


def segment(source: str, target: str, lang: str = "en") -> Segment:
    return Segment(source, target, "en", "fr", lang)


@pytest.mark.parametrize(
    ("source", "target", "verdict", "categories"),
    [
        pytest.param("The cat sleeps.", "Le chat dort.", "pass", [], id="clean"),
        pytest.param("The cat sleeps.", "   ", "fail", ["omission"], id="empty"),
        pytest.param("The cat sleeps.", "The cat sleeps.", "fail", ["untranslated"],
                     id="untranslated"),
        pytest.param("one two three four five", "un deux", "fail", ["omission"], id="short"),
        pytest.param("hello there", "bonjour a b c d e", "fail", ["addition"], id="long"),
        pytest.param("Pay 30 euros now", "Payez euros maintenant", "pass_with_issues",
                     ["number"], id="number"),
        pytest.param("The cat sleeps", "Le le chat dort", "pass_with_issues", ["repetition"],
                     id="repetition"),
    ],
)  # fmt: skip
def test_evaluation_rules(source: str, target: str, verdict: str, categories: list[str]) -> None:
    result = evaluate(segment(source, target))
    found = []
    for part in ("major_errors", "minor_errors", "fluency_issues"):
        issues = result[part]
        assert isinstance(issues, list)
        found += [issue["category"] for issue in issues]
    assert (result["verdict"], found) == (verdict, categories)
    assert result["words_charged"] == len(source.split())


def test_explanations_only_for_dimensions_with_issues_in_the_asked_language() -> None:
    result = evaluate(segment("Pay 30 now", "Payez payez maintenant", lang="fr"))
    explanations = result["explanations"]
    assert isinstance(explanations, dict)
    assert set(explanations) == {"minor", "fluency"}
    assert explanations["minor"].startswith("Certains")


def test_a_single_word_is_ambiguous() -> None:
    assert evaluate(segment("Bank", "Banque"))["ambiguous"] is True
    assert evaluate(segment("The bank", "La banque"))["ambiguous"] is False


BODY = {"source": "a b c", "target": "x y z", "source_lang": "en", "target_lang": "pt-BR"}


def test_parse_segment_accepts_translation_as_target_and_defaults_explanations_to_english() -> None:
    body = {k: v for k, v in BODY.items() if k != "target"} | {"translation": "x y"}
    assert parse_segment(body) == Segment("a b c", "x y", "en", "pt-BR", "en")


@pytest.mark.parametrize(
    ("body", "field"),
    [
        pytest.param([1], "", id="not-an-object"),
        pytest.param(BODY | {"source": "  "}, "source", id="blank-source"),
        pytest.param({k: v for k, v in BODY.items() if k != "target"}, "target", id="no-target"),
        pytest.param(BODY | {"translation": "x"}, "translation", id="target-and-translation"),
        pytest.param(BODY | {"source_lang": 7}, "source_lang", id="source-lang-type"),
        pytest.param({k: v for k, v in BODY.items() if k != "target_lang"}, "target_lang",
                     id="no-target-lang"),
        pytest.param(BODY | {"explanation_lang": "english please"}, "explanation_lang",
                     id="explanation-lang"),
        pytest.param(BODY | {"sauce": "x"}, "sauce", id="unknown-field"),
    ],
)  # fmt: skip
def test_parse_segment_errors_name_the_field(body: object, field: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        parse_segment(body)
    assert caught.value.field == field
