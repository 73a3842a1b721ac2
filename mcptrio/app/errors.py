"""Exceptions a handler raises (or meets) that the app layer turns into MCP answers."""

from __future__ import annotations


class ToolError(Exception):
    """Raise from a tool to return an ``isError`` result whose text is this message (from a
    resource or prompt handler: a -32602 error with this message).

    Any other exception also becomes an ``isError`` result, but with a generic text: its
    message may hold internal detail (paths, hosts), so it goes to the log only.
    """


class ClientCapabilityMissing(Exception):
    """A handler asked the client for something it did not declare it can do (legacy era)."""


class StartTask(Exception):
    """Raised by ``ctx.start_task()`` in a tool that gathers input first: hand off to a task now."""
