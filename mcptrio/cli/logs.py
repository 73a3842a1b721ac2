"""Logging for ``mcptrio serve``: one handler on the root logger, text or JSON lines on stderr.

Only the command calls ``configure``: a program that embeds mcptrio keeps its own logging setup
(the loggers are ``mcptrio.*``; one line per request goes to ``mcptrio.access``).  httpx's
messages (the client of an authorization server) take the same way.

Structured fields travel in ``extra={"fields": {...}}``: the JSON format puts them at the top
level of the line's object, the text format appends them as ``key=value``.
"""

from __future__ import annotations

import logging
import re
import sys
import time
from typing import IO, Any

import orjson

LEVELS = ("debug", "info", "warning", "error")
FORMATS = ("text", "json")


_second: list[Any] = [None, ""]  # the last whole second formatted, and its text (one strftime a second)
_NEEDS_QUOTES = re.compile(r'[ "=\n]')


def _timestamp(record: logging.LogRecord) -> str:
    """ISO 8601 in UTC with milliseconds."""
    second = int(record.created)
    if second != _second[0]:
        _second[:] = [second, time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second))]
    return f"{_second[1]}.{int(record.msecs):03d}Z"


class JsonFormatter(logging.Formatter):
    """One JSON object per line: ts, level, logger, msg, the record's fields, and exc if any."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "ts": _timestamp(record),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        fields = getattr(record, "fields", None)
        if isinstance(fields, dict):
            line.update(fields)
        if record.exc_info:
            line["exc"] = self.formatException(record.exc_info)
        return orjson.dumps(line, default=str).decode()


class TextFormatter(logging.Formatter):
    """``2026-11-25T10:00:00.000Z INFO mcptrio.access tools/call echo ok method=tools/call ...``"""

    def format(self, record: logging.LogRecord) -> str:
        text = f"{_timestamp(record)} {record.levelname} {record.name} {record.getMessage()}"
        fields = getattr(record, "fields", None)
        if isinstance(fields, dict) and fields:
            text += " " + " ".join(f"{key}={_text_value(value)}" for key, value in fields.items())
        if record.exc_info:
            text += "\n" + self.formatException(record.exc_info)
        return text


def _text_value(value: Any) -> str:
    if type(value) is not str:
        return str(value)
    return value if value and _NEEDS_QUOTES.search(value) is None else orjson.dumps(value).decode()


def configure(level: str = "info", fmt: str = "text", stream: IO[str] | None = None) -> None:
    """Send every logger's records at ``level`` or above to ``stream`` (stderr) as ``fmt``.

    The process's own setup, for ``mcptrio serve``: it replaces the root logger's handlers."""
    wanted = level
    level = level.lower() if isinstance(level, str) else level  # "INFO" as well as "info"
    if level not in LEVELS:
        raise ValueError(f"log level must be one of {', '.join(LEVELS)}, not {wanted!r}")
    if fmt not in FORMATS:
        raise ValueError(f"log format must be text or json, not {fmt!r}")
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(JsonFormatter() if fmt == "json" else TextFormatter())
    root = logging.getLogger()
    root.handlers = [handler]
    root.setLevel(level.upper())
    for name in ("httpx", "httpcore"):
        logger = logging.getLogger(name)
        logger.handlers = []
        logger.propagate = True
        # their INFO (httpx's line per request to the authorization server) repeats or details
        # what mcptrio says itself: shown at debug only
        logger.setLevel(logging.DEBUG if level == "debug" else logging.WARNING)


# The start-up line's logger: at INFO whatever the log level, so a server that says nothing else
# still says once that it is serving (``--quiet`` turns it off).
READY = logging.getLogger("mcptrio.ready")


def ready(what: str, quiet: bool = False) -> None:
    """Say once, on stderr through the configured handler, that the server serves and where:
    ``mcptrio 1.2 serving notes over stdio: waiting for a client on stdin``."""
    from .. import __version__

    READY.setLevel(logging.CRITICAL + 1 if quiet else logging.INFO)
    READY.info("mcptrio %s serving %s", __version__, what)
