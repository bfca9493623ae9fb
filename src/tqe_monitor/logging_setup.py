"""Structured logging: JSON for machines, readable lines for people, secrets never.

Every line, ours or a library's, passes through the same `Redactor` after rendering, so a secret
that slipped into any field is masked. Tracebacks are rendered without local variables (structlog
shows them by default, and locals hold API keys). Chatty libraries are held at WARNING: httpx
logs every request at INFO, URLs included.
"""

from __future__ import annotations

import logging
import sys
from typing import Any, Literal, TextIO, cast

import structlog
from structlog.tracebacks import ExceptionDictTransformer
from structlog.typing import EventDict, Processor, WrappedLogger

from tqe_monitor.redaction import Redactor

LogFormat = Literal["auto", "json", "console"]
QUIET_LIBRARIES = ("httpx", "httpcore", "apscheduler", "apprise", "aiohttp.access", "asyncio")


class _RedactingRenderer:
    """Wraps the final renderer and scrubs its output string."""

    def __init__(self, renderer: Processor, redactor: Redactor) -> None:
        self._renderer = renderer
        self._redactor = redactor

    def __call__(self, logger: WrappedLogger, name: str, event_dict: EventDict) -> str:
        rendered = self._renderer(logger, name, event_dict)
        text = rendered if isinstance(rendered, str) else str(rendered)
        return self._redactor(text)


def configure_logging(
    redactor: Redactor,
    *,
    level: str = "info",
    fmt: LogFormat = "auto",
    stream: TextIO | None = None,
) -> None:
    """Configure structlog and the standard library's logging for the whole process."""
    out = stream or sys.stderr
    use_json = fmt == "json" or (fmt == "auto" and not out.isatty())
    shared: list[Processor] = [
        structlog.contextvars.merge_contextvars,
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
        structlog.processors.StackInfoRenderer(),
    ]
    renderer: Processor
    if use_json:
        shared.append(
            structlog.processors.ExceptionRenderer(ExceptionDictTransformer(show_locals=False))
        )
        renderer = structlog.processors.JSONRenderer()
    else:
        renderer = structlog.dev.ConsoleRenderer(
            colors=out.isatty(), exception_formatter=structlog.dev.plain_traceback
        )
    final = _RedactingRenderer(renderer, redactor)
    numeric_level = logging.getLevelNamesMapping()[level.upper()]

    structlog.configure(
        processors=[*shared, final],
        wrapper_class=structlog.make_filtering_bound_logger(numeric_level),
        logger_factory=structlog.WriteLoggerFactory(file=out),
        cache_logger_on_first_use=False,
    )

    handler = logging.StreamHandler(out)
    handler.setFormatter(
        structlog.stdlib.ProcessorFormatter(
            foreign_pre_chain=[*shared, structlog.stdlib.add_logger_name],
            processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta, final],
        )
    )
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(numeric_level)
    for name in QUIET_LIBRARIES:
        logging.getLogger(name).setLevel(max(logging.WARNING, numeric_level))


def get_logger(name: str, **context: Any) -> structlog.typing.FilteringBoundLogger:
    """A logger bound to `name` (the module) and any extra context.

    Modules call this at import time, before `configure_logging` runs; a logger bound then
    would keep structlog's default configuration (no level filter, no JSON, no redaction) for
    the life of the process. So the binding happens at each call, under the configuration of
    that moment.
    """
    return cast(structlog.typing.FilteringBoundLogger, _LazyLogger({"logger": name, **context}))


class _LazyLogger:
    """Binds its context to a logger of the current configuration on every use."""

    def __init__(self, context: dict[str, Any]) -> None:
        self._context = context

    def __getattr__(self, attribute: str) -> Any:
        return getattr(structlog.get_logger().bind(**self._context), attribute)
