"""``serve_http``: the MCP endpoint on hypercorn's Trio worker, embeddable with ``nursery.start``."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Awaitable, Callable, cast

import trio
from hypercorn.config import Config
from hypercorn.trio import serve as hypercorn_serve

from ...runtime.limits import SessionLimits
from ...state import StateUrl
from .shared_state import shared_state
from .asgi import McpHttpApp
from .authorization import resource_check
from .config import HttpConfig

if TYPE_CHECKING:
    from hypercorn.typing import ASGIFramework  # (McpHttpApp is one, reading ASGI's TypedDicts as plain dicts)

    from ...app import App


def hypercorn_config(host: str, port: int, limits: SessionLimits, http: HttpConfig, fd: int | None = None) -> Config:
    config = Config()
    if fd is not None:
        config.bind = [f"fd://{fd}"]  # a socket the parent bound and listens on (--workers)
    else:
        config.bind = [f"[{host}]:{port}" if ":" in host else f"{host}:{port}"]
    # hypercorn's own messages go to its logger, configured like every other (logs.py): no
    # handler of its own.  Its access log stays off: mcptrio logs each MCP request instead.
    config.accesslog = None
    config.errorlog = logging.getLogger("hypercorn.error")
    config.graceful_timeout = limits.shutdown_grace + 1
    # A connection must send a complete request head within this long (hypercorn's idle timer
    # runs until the headers are in), and an idle keep-alive connection is closed after it.
    config.keep_alive_timeout = http.header_timeout
    config.h11_max_incomplete_size = 64 * 1024
    return config


async def serve_http(app: App, *, host: str = "127.0.0.1", port: int = 8000, path: str = "/mcp",
                     config: HttpConfig | None = None, limits: SessionLimits | None = None,
                     shutdown_trigger: Callable[[], Awaitable[object]] | None = None,
                     state: str | StateUrl | None = None, fd: int | None = None,
                     task_status: trio.TaskStatus[str] = trio.TASK_STATUS_IGNORED) -> None:
    """Serve ``app`` over Streamable HTTP (both eras) until the trigger fires; ``task_status``
    gets the endpoint URL, e.g. ``http://127.0.0.1:8000/mcp`` (``port=0`` picks a free port).

    ``state``: a ``redis://`` URL whose store this process shares with others serving the same
    app (any request on any of them); ``fd``: serve on this listening socket instead of binding."""
    limits = limits or app.limits
    http_config = config or HttpConfig(path=path)
    if app.auth is not None:
        resource_check(app.auth, host)
    async with shared_state(app, state, http_config), app.running():
        await _serve(app, host, port, http_config, limits, shutdown_trigger, fd, task_status)


async def _serve(app: App, host: str, port: int, http_config: HttpConfig, limits: SessionLimits,
                 shutdown_trigger: Callable[[], Awaitable[object]] | None, fd: int | None,
                 task_status: trio.TaskStatus[str]) -> None:
    asgi = McpHttpApp(app, http_config, limits)
    hypercorn = hypercorn_config(host, port, limits, http_config, fd)

    async def trigger() -> None:
        if shutdown_trigger is None:
            await trio.sleep_forever()
        await shutdown_trigger()
        if fd is not None:
            # A worker sharing its socket with others (--workers): returning at once stops this
            # one accepting, so the others take every new connection, while it drains meanwhile.
            nursery.start_soon(asgi.shutdown)
            return
        await asgi.shutdown()  # alone: keep accepting, so new requests get a retryable 503

    async with trio.open_nursery() as nursery:
        binds = await nursery.start(lambda task_status: hypercorn_serve(
            cast("ASGIFramework", asgi), hypercorn, shutdown_trigger=trigger, task_status=task_status, mode="asgi"))
        url = f"{binds[0]}{http_config.path}"
        asgi.use_resource_url(url)
        task_status.started(url)
    if asgi.gate is not None:
        with trio.CancelScope(shield=True):
            await asgi.gate.aclose()
