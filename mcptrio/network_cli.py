"""``mcptrio serve --transport http|ws``: kept apart so stdio start-up never imports hypercorn."""

from __future__ import annotations

import sys
from typing import Any

import trio

from .app import App
from .serve import wait_for_signals
from .transports.http import HttpConfig, serve_http


def serve(app: App, options: dict[str, Any]) -> int:
    host, port, path = options["host"], options["port"], options["path"]
    if options["transport"] == "http":
        config = HttpConfig(path=path, legacy_sse=options["legacy_sse"], **_allowed(host))

        async def main() -> None:
            async with trio.open_nursery() as nursery:
                url = await nursery.start(lambda task_status: serve_http(
                    app, host=host, port=port, config=config, shutdown_trigger=wait_for_signals,
                    task_status=task_status))
                print(f"mcptrio: serving {', '.join(app.plugins)} at {url}", file=sys.stderr)

        trio.run(main)
        return 0
    from .transports.websocket import serve_websocket

    async def main_ws() -> None:
        async with trio.open_nursery() as nursery:
            url = await nursery.start(lambda task_status: serve_websocket(
                app, host=host, port=port, path=path, shutdown_trigger=wait_for_signals, task_status=task_status))
            print(f"mcptrio: serving {', '.join(app.plugins)} at {url}", file=sys.stderr)

    trio.run(main_ws)
    return 0


def _allowed(host: str) -> dict[str, Any]:
    """Binding a non-loopback address also allows that address as Host and Origin."""
    default = HttpConfig().allowed_hosts
    if host in default or host in ("0.0.0.0", "::"):
        return {}
    return {"allowed_hosts": default + (host,)}
