"""Test helpers, public like ``trio.testing``: an in-memory client connected to an App.

async with mcptrio.testing.open_client(app) as client:
    result = await client.call_tool("echo", {"text": "hi"})
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

import trio

from ..app import App
from ..runtime.limits import SessionLimits
from ..serve import serve_stream
from ..transports.memory import memory_pair
from .client import RawClient, ServerRequestHandler
from .process import open_process_client


@contextlib.asynccontextmanager
async def open_client(
    app: App,
    *,
    era: str = "legacy",
    version: str | None = None,
    capabilities: dict[str, Any] | None = None,
    handlers: dict[str, ServerRequestHandler] | None = None,
    initialize: bool = True,
    limits: SessionLimits | None = None,
    shutdown: trio.Event | None = None,
) -> AsyncIterator[RawClient]:
    """Serve ``app`` in memory and yield a connected client (initialized in the legacy era).

    Leaving the block closes the client's input, which drains the server like stdin EOF.
    ``shutdown``, when set, starts a graceful shutdown as a signal would.
    """
    limits = limits or app.limits
    server_end, client_end = memory_pair(limits.max_message_size)
    client = RawClient(client_end, era=era, version=version, capabilities=capabilities, handlers=handlers)
    async with trio.open_nursery() as nursery:
        trigger = shutdown.wait if shutdown is not None else None
        nursery.start_soon(_serve_then_close, app, server_end, limits, trigger)
        await nursery.start(client.run)
        if initialize and era == "legacy":
            await client.initialize()
        yield client
        await client_end.close()


async def _serve_then_close(app: App, stream: Any, limits: SessionLimits, trigger: Any) -> None:
    try:
        await serve_stream(app, stream, limits=limits, shutdown_trigger=trigger)
    finally:
        await stream.outgoing.aclose()


__all__ = ["RawClient", "open_client", "open_process_client"]
