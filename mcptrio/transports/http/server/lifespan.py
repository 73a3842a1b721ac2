"""An ASGI app's lifespan, as a server runs it: startup before the first connection, shutdown
after the last; an app without one (it returns or raises at once) is served without."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

import trio

from .asgi_io import Receive, Send

log = logging.getLogger("mcptrio.http")

ASGI_VERSION = {"version": "3.0", "spec_version": "2.3"}
Asgi = Callable[[dict[str, Any], Receive, Send], Awaitable[None]]


class Lifespan:
    """The app's ASGI lifespan, run in its own task for as long as the server serves."""

    def __init__(self) -> None:
        self.to_app_send, self.to_app = trio.open_memory_channel[dict[str, Any]](1)
        self.from_app_send, self.from_app = trio.open_memory_channel[dict[str, Any]](1)
        self.unsupported = False

    async def receive(self) -> dict[str, Any]:
        return await self.to_app.receive()

    async def send(self, message: dict[str, Any]) -> None:
        await self.from_app_send.send(message)

    async def shutdown(self) -> None:
        if self.unsupported:
            return
        await self.to_app_send.send({"type": "lifespan.shutdown"})
        message = await self.from_app.receive()
        if message["type"] == "lifespan.shutdown.failed":
            log.error("the ASGI app's shutdown failed: %s", message.get("message", ""))


async def run_lifespan(app: Asgi, task_status: trio.TaskStatus[Lifespan]) -> None:
    """Starts the app's lifespan and reports it; an app without one (it returns or raises at once) is served without."""
    lifespan = Lifespan()
    scope = {"type": "lifespan", "asgi": ASGI_VERSION, "state": {}}

    async def run() -> None:
        try:
            await app(scope, lifespan.receive, lifespan.send)
        except Exception:
            log.debug("the ASGI app has no lifespan", exc_info=True)
        finally:
            lifespan.unsupported = True
            await lifespan.from_app_send.send({"type": "lifespan.unsupported"})

    async with trio.open_nursery() as nursery:
        nursery.start_soon(run)
        await lifespan.to_app_send.send({"type": "lifespan.startup"})
        message = await lifespan.from_app.receive()
        if message["type"] == "lifespan.startup.failed":
            raise RuntimeError(f"the ASGI app's startup failed: {message.get('message', '')}")
        task_status.started(lifespan)
