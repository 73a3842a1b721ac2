"""``mcptrio serve --transport http|ws``: kept apart so stdio start-up never imports hypercorn."""

from __future__ import annotations

import logging
from typing import Any

import trio

from .app import App
from .serve import wait_for_signals
from .transports.http import HttpConfig, serve_http

log = logging.getLogger("mcptrio")


def serve(app: App, options: dict[str, Any]) -> int:
    host, port, path = options["host"], options["port"], options["path"]
    config = HttpConfig(path=path, legacy_sse=options["legacy_sse"], response_mode=options["response_mode"],
                        allowed_hosts=allowed_hosts(host, options["allowed_hosts"]),
                        allowed_origins=tuple(options["allowed_origins"]))
    if options["transport"] == "http":
        server: Any = serve_http
    else:
        from .transports.websocket import serve_websocket

        server = serve_websocket

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            url = await nursery.start(lambda task_status: server(
                app, host=host, port=port, config=config, shutdown_trigger=wait_for_signals,
                task_status=task_status))
            log.info("serving %s at %s", ", ".join(app.plugins), url)

    trio.run(main)
    return 0


def allowed_hosts(host: str, extra: tuple[str, ...]) -> tuple[str, ...]:
    """Loopback names, the names given, and a specific bound address itself."""
    names = HttpConfig().allowed_hosts + tuple(name.lower() for name in extra)
    if host not in names and host not in ("0.0.0.0", "::"):
        names += (host,)
    return names
