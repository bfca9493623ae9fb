"""Logging: formats, levels, and no secret in any line, tracebacks included."""

from __future__ import annotations

import io
import json
import logging

import pytest
import structlog

from tqe_monitor.logging_setup import configure_logging, get_logger
from tqe_monitor.redaction import Redactor

KEY = "sk-live-SECRET-0123456789"
URL = "slack://TokenAAAA1111/TokenBBBB2222/TokenCCCC3333"

# Made at import time, as every module does, before logging is configured.
module_logger = get_logger("tests.observability")


@pytest.fixture(autouse=True)
def _restore_logging() -> object:
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    yield
    root.handlers[:] = handlers
    root.setLevel(level)
    structlog.reset_defaults()


def configured(fmt: str = "json", level: str = "info") -> io.StringIO:
    stream = io.StringIO()
    redactor = Redactor([KEY])
    redactor.add(URL, "TokenAAAA1111", "TokenBBBB2222", "TokenCCCC3333")
    configure_logging(redactor, level=level, fmt=fmt, stream=stream)  # type: ignore[arg-type]
    return stream


def test_a_logger_made_at_import_uses_the_later_configuration() -> None:
    stream = configured("json")
    module_logger.info("hello", n=1)
    line = json.loads(stream.getvalue().splitlines()[-1])
    assert line["event"] == "hello"
    assert line["logger"] == "tests.observability"
    assert line["level"] == "info"


@pytest.mark.parametrize("fmt", ["json", "console"])
def test_secrets_in_fields_and_messages_are_masked(fmt: str) -> None:
    stream = configured(fmt)
    module_logger.warning(f"calling with {KEY}", header=KEY, url=URL, part="TokenBBBB2222")
    text = stream.getvalue()
    assert "***" in text
    for secret in (KEY, URL, "TokenAAAA1111", "TokenBBBB2222"):
        assert secret not in text


@pytest.mark.parametrize("fmt", ["json", "console"])
def test_tracebacks_carry_no_local_variables(fmt: str) -> None:
    stream = configured(fmt)
    api_key_local = "a-different-secret-not-in-the-redactor-42"

    def failing() -> None:
        headers = {"X-Api-Key": api_key_local}
        raise RuntimeError(f"request failed with {len(headers)} header")

    try:
        failing()
    except RuntimeError:
        module_logger.exception("poll_crashed")
    text = stream.getvalue()
    assert "RuntimeError" in text
    assert api_key_local not in text


def test_standard_library_loggers_are_rendered_and_scrubbed_too() -> None:
    stream = configured("json")
    logging.getLogger("some.library").warning("connecting with %s", KEY)
    line = json.loads(stream.getvalue().splitlines()[-1])
    assert line["event"] == "connecting with ***"


@pytest.mark.parametrize("library", ["httpx", "httpcore", "apscheduler", "apprise"])
def test_chatty_libraries_are_held_at_warning(library: str) -> None:
    stream = configured("json", level="debug")
    logging.getLogger(library).info("GET https://tqe.example.com/v2/wallet")
    assert stream.getvalue() == ""
    logging.getLogger(library).warning("something worth knowing")
    assert "something worth knowing" in stream.getvalue()


def test_level_filters_our_own_lines() -> None:
    stream = configured("json", level="warning")
    module_logger.info("quiet")
    module_logger.error("loud")
    events = [json.loads(line)["event"] for line in stream.getvalue().splitlines()]
    assert events == ["loud"]
