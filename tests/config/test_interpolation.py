"""`${VAR}` interpolation: substitution, defaults, escapes and field-named problems."""

from __future__ import annotations

import pytest

from tqe_monitor.config.interpolation import interpolate

ENV = {"KEY": "k-123", "EMPTY": "", "HOST": "tqe.example.com"}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("${KEY}", "k-123"),
        ("https://${HOST}/v2", "https://tqe.example.com/v2"),
        ("${MISSING:-fallback}", "fallback"),
        ("${EMPTY:-fallback}", "fallback"),
        ("${KEY:-unused}", "k-123"),
        ("${MISSING:-}", ""),
        ("$${KEY}", "${KEY}"),
        ("plain text", "plain text"),
        ("$KEY", "$KEY"),
        ("${KEY}${HOST}", "k-123tqe.example.com"),
    ],
)
def test_substitutes(text: str, expected: str) -> None:
    result = interpolate({"a": text}, ENV)
    assert result.problems == []
    assert result.document == {"a": expected}


def test_walks_nested_mappings_and_lists_but_not_keys() -> None:
    document = {"${KEY}": {"list": ["${KEY}", 3, None, {"deep": "${HOST}"}]}}
    result = interpolate(document, ENV)
    assert result.document == {"${KEY}": {"list": ["k-123", 3, None, {"deep": "tqe.example.com"}]}}


def test_missing_variable_is_a_problem_named_by_field_path() -> None:
    document = {"targets": {"prod": {"api_key": "${PROD_KEY}"}}, "x": ["${NOPE}"]}
    result = interpolate(document, ENV)
    assert result.problems == [
        "targets.prod.api_key: environment variable PROD_KEY is not set",
        "x[0]: environment variable NOPE is not set",
    ]


def test_remembers_substituted_values_so_errors_can_be_scrubbed() -> None:
    result = interpolate({"a": "${KEY}", "b": "${MISSING:-dflt}"}, ENV)
    assert result.substituted == {"k-123", "dflt"}
