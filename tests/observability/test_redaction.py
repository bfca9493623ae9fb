"""The Redactor and the secret parts of Apprise URLs."""

from __future__ import annotations

import pytest

from tqe_monitor.redaction import Redactor, url_secrets


def test_masks_every_occurrence_longest_first() -> None:
    redact = Redactor(["abcd1234", "abcd1234-extended"])
    assert redact("k=abcd1234-extended and abcd1234") == "k=*** and ***"


def test_short_values_are_not_treated_as_secrets() -> None:
    redact = Redactor(["abc", ""])
    assert not redact
    assert redact("abc abc") == "abc abc"


def test_regex_characters_in_secrets_are_literal() -> None:
    redact = Redactor(["a.b*c+d(e)"])
    assert redact("x a.b*c+d(e) axbbcd") == "x *** axbbcd"


@pytest.mark.parametrize(
    ("url", "secret_parts", "kept"),
    [
        (
            "slack://TokenAAAA1111/TokenBBBB2222/TokenCCCC3333",
            {"TokenAAAA1111", "TokenBBBB2222", "TokenCCCC3333"},
            set(),
        ),
        (
            "mailto://alerts:p%40ssw0rd@smtp.example.com",
            {"p%40ssw0rd", "p@ssw0rd"},
            {"smtp.example.com"},
        ),
        (
            "json://hooks.example.com/api/hook-abcdef123?token=qwerty12345",
            {"hook-abcdef123", "qwerty12345"},
            {"hooks.example.com"},
        ),
    ],
    ids=["slack-tokens", "mail-password", "webhook-path-and-query"],
)
def test_url_secrets(url: str, secret_parts: set[str], kept: set[str]) -> None:
    found = url_secrets(url)
    assert url in found
    assert secret_parts <= found
    assert not (kept & found)
