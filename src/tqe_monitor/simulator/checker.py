"""POST /check: reading the request body and producing a plausible, deterministic evaluation.

The evaluation is derived from the text alone (no randomness), so a test can predict it:
- empty translation, or a translation identical to the source: a major error;
- a translation less than half or more than twice the source's length in words: a major error;
- a number in the source that is missing from the translation: a minor error;
- the same word twice in a row in the translation ("the the"): a fluency issue;
- a one-word source: flagged ambiguous (too little context to judge).
Verdict: "fail" with any major error, "pass_with_issues" with only minor/fluency ones, else "pass".
Words charged: the number of whitespace-separated words of the source.

The body must be a JSON object with `source`, `target` (or `translation`), `source_lang` and
`target_lang`, and optionally `explanation_lang` (default "en"). Any other field is refused with
400, so a client that misspells a field finds out at once instead of being silently ignored.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from typing import Final

from tqe_monitor.simulator.vocabulary import InvalidInput, read_mapping

_FIELDS = frozenset({"source", "target", "translation", "source_lang", "target_lang",
                     "explanation_lang"})  # fmt: skip
_LANGUAGE = re.compile(r"[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})*")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_EXPLANATIONS: Final[dict[str, dict[str, str]]] = {
    "en": {"major": "The translation distorts or omits the meaning of the source.",
           "minor": "Some details differ from the source.",
           "fluency": "The translation does not read naturally."},
    "fr": {"major": "La traduction déforme ou omet le sens du texte source.",
           "minor": "Certains détails diffèrent du texte source.",
           "fluency": "La traduction ne se lit pas naturellement."},
    "de": {"major": "Die Übersetzung verfälscht oder lässt den Sinn des Ausgangstexts aus.",
           "minor": "Einige Details weichen vom Ausgangstext ab.",
           "fluency": "Die Übersetzung liest sich nicht natürlich."},
    "es": {"major": "La traducción distorsiona u omite el sentido del texto original.",
           "minor": "Algunos detalles difieren del texto original.",
           "fluency": "La traducción no se lee con naturalidad."},
}  # fmt: skip


@dataclass(frozen=True)
class Segment:
    """One bilingual segment to evaluate."""

    source: str
    target: str
    source_lang: str
    target_lang: str
    explanation_lang: str = "en"

    @property
    def word_count(self) -> int:
        """The words the check costs: the source's whitespace-separated words."""
        return len(self.source.split())


def parse_segment(body: object) -> Segment:
    """The segment in a /check body; `translation` is accepted as another name for `target`."""
    data = read_mapping(body, "", _FIELDS)
    source = data.get("source")
    if not isinstance(source, str) or not source.split():
        raise InvalidInput("source", "required: a string with at least one word")
    if "target" in data and "translation" in data:
        raise InvalidInput("translation", "give target or translation, not both")
    target_name = "translation" if "translation" in data else "target"
    target = data.get(target_name)
    if not isinstance(target, str):
        raise InvalidInput(target_name, "required: a string")
    return Segment(
        source=source,
        target=target,
        source_lang=_language(data.get("source_lang"), "source_lang"),
        target_lang=_language(data.get("target_lang"), "target_lang"),
        explanation_lang=_language(data.get("explanation_lang", "en"), "explanation_lang"),
    )


def _language(value: object, field: str) -> str:
    if not isinstance(value, str) or not _LANGUAGE.fullmatch(value):
        raise InvalidInput(field, "required: a language code such as en, fr or pt-BR")
    return value


def evaluate(segment: Segment) -> dict[str, object]:
    """The check result for `segment` (see the module docstring for the rules)."""
    source_words, target_words = segment.source.split(), segment.target.split()
    major: list[dict[str, str]] = []
    minor: list[dict[str, str]] = []
    fluency: list[dict[str, str]] = []
    if not target_words:
        major.append({"category": "omission", "description": "The translation is empty."})
    elif segment.target.strip() == segment.source.strip():
        major.append({"category": "untranslated", "description": "The source was not translated."})
    elif len(target_words) * 2 < len(source_words):
        major.append({"category": "omission", "description": "Much of the source is missing."})
    elif len(target_words) > 2 * len(source_words):
        major.append({"category": "addition", "description": "The translation adds content."})
    for number in sorted(
        set(_NUMBER.findall(segment.source)) - set(_NUMBER.findall(segment.target))
    ):
        minor.append({"category": "number", "description": f"The number {number} is missing."})
    lowered = [word.lower() for word in target_words]
    for first, second in itertools.pairwise(lowered):
        if first == second:
            fluency.append({"category": "repetition", "description": f"Repeated word: {first}."})
    texts = _EXPLANATIONS.get(segment.explanation_lang.lower()[:2], _EXPLANATIONS["en"])
    explanations = {
        dimension: texts[dimension]
        for dimension, issues in (("major", major), ("minor", minor), ("fluency", fluency))
        if issues
    }
    verdict = "fail" if major else ("pass_with_issues" if minor or fluency else "pass")
    return {
        "major_errors": major,
        "minor_errors": minor,
        "fluency_issues": fluency,
        "explanations": explanations,
        "explanation_lang": segment.explanation_lang,
        "verdict": verdict,
        "ambiguous": len(source_words) == 1,
        "words_charged": segment.word_count,
    }
