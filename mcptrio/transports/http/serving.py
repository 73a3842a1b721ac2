"""``serve_http``: the MCP endpoint on mcptrio's HTTP/1.1 server (http11_server.py) or on hypercorn
(hypercorn_server.py), with TLS if asked, embeddable with ``nursery.start``."""

from __future__ import annotations

import socket
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Literal

import trio

from ...runtime.limits import SessionLimits
from ..net.authorization import resource_check
from ..net.config import HttpConfig
from ..net.shared_state import shared_state
from .asgi import McpHttpApp
from .server.http11_server import Http11Server
from .server.rfc9112 import ConnectionServer

if TYPE_CHECKING:
    from ...app import App
    from ...state import StateUrl
    from .server.tls import TlsSettings

HttpServerName = Literal["builtin", "hypercorn"]
HTTP_SERVERS: tuple[HttpServerName, ...] = ("builtin", "hypercorn")


async def open_listeners(host: str, port: int, fd: int | None = None) -> list[trio.SocketListener]:
    """The listening sockets: bound here, or the one the parent bound and listens on (``fd``: --workers)."""
    if fd is not None:
        return [trio.SocketListener(trio.socket.from_stdlib_socket(socket.socket(fileno=fd)))]
    return await trio.open_tcp_listeners(port, host=host)


def endpoint_url(listener: trio.SocketListener, path: str, scheme: str = "http") -> str:
    host, port = listener.socket.getsockname()[:2]
    return f"{scheme}://[{host}]:{port}{path}" if ":" in host else f"{scheme}://{host}:{port}{path}"


async def serve_http(
    app: App,
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    path: str = "/mcp",
    config: HttpConfig | None = None,
    limits: SessionLimits | None = None,
    shutdown_trigger: Callable[[], Awaitable[object]] | None = None,
    state: str | StateUrl | None = None,
    fd: int | None = None,
    http_server: HttpServerName = "builtin",
    tls: TlsSettings | None = None,
    task_status: trio.TaskStatus[str] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Serve ``app`` over Streamable HTTP (both eras) until the trigger fires; ``task_status``
    gets the endpoint URL, e.g. ``http://127.0.0.1:8000/mcp`` (``port=0`` picks a free port).

    ``state``: a ``redis://`` URL whose store this process shares with others serving the same
    app (any request on any of them); ``fd``: serve on this listening socket instead of binding;
    ``http_server``: ``"builtin"`` (mcptrio's HTTP/1.1 server) or ``"hypercorn"`` (HTTP/1.1, and
    HTTP/2 over TLS); ``tls``: the certificate and key of an ``https://`` endpoint (``TlsError``,
    before anything starts, if they can't be used)."""
    limits = limits or app.limits
    http_config = config or HttpConfig(path=path)
    make_server = server_factory(http_server, http_config, limits, tls)
    if app.auth is not None:
        resource_check(app.auth, host)
    async with shared_state(app, state, http_config), app.running():
        await _serve(app, host, port, http_config, limits, shutdown_trigger, fd, make_server, task_status)


def server_factory(
    name: HttpServerName, http_config: HttpConfig, limits: SessionLimits, tls: TlsSettings | None
) -> Callable[[McpHttpApp], ConnectionServer]:
    """How to make the named server for the endpoint, with the certificates already loaded."""
    server_class: type[ConnectionServer]
    if name == "builtin":
        server_class = Http11Server
    elif name == "hypercorn":
        from .server.hypercorn_server import HypercornServer

        server_class = HypercornServer
    else:
        raise ValueError(f"http_server must be one of {', '.join(HTTP_SERVERS)}, got {name!r}")
    options: dict[str, Any] = {
        "header_timeout": http_config.header_timeout,
        "keep_alive_timeout": http_config.keep_alive_timeout,
        "max_head_size": http_config.max_head_size,
        "max_headers": http_config.max_headers,
        "write_timeout": http_config.write_timeout,
        "max_connections": http_config.max_connections,
        "graceful_timeout": limits.shutdown_grace + 1,
    }
    if tls is not None:
        options["tls"] = tls.context(server_class.alpn)
        options["refusal_tls"] = tls.context(("http/1.1",))  # (a 503 to a connection over the limit)
    return lambda asgi: server_class(asgi, **options)


async def _serve(
    app: App,
    host: str,
    port: int,
    http_config: HttpConfig,
    limits: SessionLimits,
    shutdown_trigger: Callable[[], Awaitable[object]] | None,
    fd: int | None,
    make_server: Callable[[McpHttpApp], ConnectionServer],
    task_status: trio.TaskStatus[str],
) -> None:
    asgi = McpHttpApp(app, http_config, limits)
    server = make_server(asgi)
    listeners = await open_listeners(host, port, fd)

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
        await nursery.start(server.serve, listeners, trigger)
        url = endpoint_url(listeners[0], http_config.path, "http" if server.tls is None else "https")
        asgi.use_resource_url(url)
        task_status.started(url)
    if asgi.gate is not None:
        with trio.CancelScope(shield=True):
            await asgi.gate.aclose()
