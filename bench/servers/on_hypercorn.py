"""The same ASGI apps on stock hypercorn (Trio worker): what mcptrio's own HTTP server
(``mcptrio/transports/http/server/http11_server.py``, which ``mcptrio serve`` runs) is measured against.

    python on_hypercorn.py bare --port N                          # bare_asgi.py's app
    python on_hypercorn.py mcptrio --port N --response-mode auto  # McpHttpApp serving the bench plugin (or json)

The hypercorn settings are the ones mcptrio used before it had its own server; the MCP app is
mounted as docs/guides/embedding.md shows (lifespan on, the drain trigger wrapped).
"""

from __future__ import annotations

import argparse
import logging

import trio
from hypercorn.config import Config
from hypercorn.trio import serve


def config(host: str, port: int) -> Config:
    config = Config()
    config.bind = [f"{host}:{port}"]
    config.accesslog = None
    config.errorlog = "-"
    config.loglevel = "WARNING"
    config.keep_alive_timeout = 30
    config.h11_max_incomplete_size = 64 * 1024
    return config


async def serve_mcptrio(host: str, port: int, mode: str) -> None:
    from mcptrio.plugins import build_app
    from mcptrio.transports.http import HttpConfig, McpHttpApp

    app = build_app(["bench"])
    asgi = McpHttpApp(app, HttpConfig(response_mode=mode))
    async with app.running():
        await serve(asgi, config(host, port), mode="asgi")  # type: ignore[arg-type]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("which", choices=("bare", "mcptrio"))
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--response-mode", default="auto", choices=("auto", "json"))
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    if args.which == "bare":
        from bare_asgi import app

        trio.run(serve, app, config(args.host, args.port))
    else:
        trio.run(serve_mcptrio, args.host, args.port, args.response_mode)


if __name__ == "__main__":
    main()
