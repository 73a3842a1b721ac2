"""WebSocket transport on trio-websocket: one JSON-RPC message per text frame, subprotocol ``mcp``.

Each connection is one session (either era, as on stdio).  The upgrade is refused with 403 for a
bad Origin and 421 for a bad Host, and with 503 when the connection would pass a stream limit
(a connection is long-lived like a listen stream: net/front_door.py); a message over the limit
closes the connection with 1009.  With authorization on, the resource metadata is served as plain
HTTP on the same port (``websocket_metadata``), where a client refused with 401 finds it.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

import trio
from trio_websocket import ConnectionClosed, WebSocketConnection, WebSocketRequest, wrap_server_stream

from ..auth.errors import AuthError
from ..auth.gate import Gate
from ..auth.principal import Principal, client_key
from ..framing import Oversize
from ..runtime.limits import SessionLimits
from ..runtime.stream import OneByOne
from ..runtime.stream_session import StreamSession
from .net import front_door
from .net.authorization import expiry_deadline, resource_check
from .net.config import HttpConfig
from .net.front_door import Capacity
from .net.refusal import HttpError
from .net.shared_state import shared_state
from .websocket_metadata import Replayed, answered_plainly, read_head

if TYPE_CHECKING:
    from ..app import App
    from ..state import StateUrl

SUBPROTOCOL = "mcp"


class WebSocketMessageStream(OneByOne):
    def __init__(self, connection: WebSocketConnection) -> None:
        self.connection = connection

    async def receive(self) -> bytes | Oversize | None:
        try:
            message = await self.connection.get_message()
        except ConnectionClosed:
            # Unlike stdin EOF, a closed WebSocket cannot carry answers: the session cancels.
            raise trio.BrokenResourceError("websocket closed") from None
        return message.encode() if isinstance(message, str) else message

    async def send(self, data: bytes) -> None:
        try:
            await self.connection.send_message(data.decode())
        except ConnectionClosed:
            raise trio.BrokenResourceError("websocket closed") from None


async def serve_websocket(
    app: App,
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    path: str = "/mcp",
    config: HttpConfig | None = None,
    limits: SessionLimits | None = None,
    shutdown_trigger: Callable[[], Awaitable[object]] | None = None,
    state: str | StateUrl | None = None,
    task_status: trio.TaskStatus[str] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Serve ``app`` over WebSocket until the trigger fires; ``task_status`` gets the ``ws://`` URL.
    ``state``: share sealing keys and change notifications with other processes (see serve_http)."""
    if state is not None and app.shared is None:
        async with shared_state(app, state, config or HttpConfig(path=path)):
            await serve_websocket(
                app,
                host=host,
                port=port,
                path=path,
                config=config,
                limits=limits,
                shutdown_trigger=shutdown_trigger,
                state=state,
                task_status=task_status,
            )
        return
    limits = limits or app.limits
    config = config or HttpConfig(path=path)
    proxies = config.proxy_networks
    shutdown = trio.Event()
    live: set[StreamSession] = set()
    capacity = Capacity(config.max_requests, config.max_streams, config.max_streams_per_client)
    all_ended = trio.Event()

    async def handler(request: WebSocketRequest, peer: str | None) -> None:
        headers = {name.lower(): value for name, value in request.headers}
        # wsproto keeps Host out of extra_headers; trio-websocket exposes it only on its event.
        host = getattr(getattr(request, "_event", None), "host", None)
        if host is not None:
            headers[b"host"] = host.encode("latin-1") if isinstance(host, str) else host
        refused = front_door.check(headers, config)
        if refused is not None:
            await request.reject(refused[0], body=refused[1].encode())
            return
        if request.path.split("?")[0].rstrip("/") != config.path.rstrip("/"):
            await request.reject(404, body=b"Not Found")
            return
        if shutdown.is_set():  # draining: new connections go to another instance
            await request.reject(
                503, extra_headers=[(b"retry-after", b"1")], body=b"Service Unavailable: the server is draining; retry"
            )
            return
        if SUBPROTOCOL not in request.proposed_subprotocols:
            await request.reject(400, body=b"Bad Request: the WebSocket subprotocol 'mcp' is required")
            return
        principal: Principal | None = None
        if gate is not None:  # the token is checked on the upgrade request: refused before it is accepted
            query = request.path.partition("?")[2].encode("latin-1")
            try:
                principal = await gate.authenticate(headers.get(b"authorization"), query)
            except AuthError as error:
                status, extra, body = gate.challenge(error)
                await request.reject(status, extra_headers=extra, body=body)
                return
        client_address = front_door.client_address(peer, headers.get(b"x-forwarded-for"), proxies)
        key = client_key(principal, client_address)
        try:
            capacity.open_stream(key, "WebSocket connection")
        except HttpError as full:
            await request.reject(503, extra_headers=full.headers, body=full.body())
            return
        try:
            await _serve_connection(request, principal, client_address)
        finally:
            capacity.close_stream(key)

    async def _serve_connection(
        request: WebSocketRequest, principal: Principal | None, client_address: str | None
    ) -> None:
        connection = await request.accept(subprotocol=SUBPROTOCOL)
        session = StreamSession(app, WebSocketMessageStream(connection), limits, transport="websocket")
        session.principal = principal
        session.client_address = client_address
        live.add(session)
        ending = trio.Event()  # the server's shutdown, or the token's expiry: the session drains
        try:
            async with trio.open_nursery() as timers:
                timers.start_soon(_set_when, shutdown, ending)
                timers.start_soon(_set_at, expiry_deadline(principal), ending)
                await session.run(ending)
                timers.cancel_scope.cancel()
            await connection.aclose()
        finally:
            live.discard(session)
            if not live:
                all_ended.set()

    async def connection(stream: trio.SocketStream) -> None:
        """Read the request head first: the resource metadata is answered here (plain HTTP), and
        anything else goes on to trio-websocket as an upgrade."""
        try:
            try:
                peer: str | None = str(stream.socket.getpeername()[0])
                head = None
                with trio.move_on_after(config.header_timeout):
                    head = await read_head(stream, config.max_head_size)
                if head is None or await answered_plainly(stream, head, gate):
                    return
            except (trio.BrokenResourceError, OSError):  # (the client left)
                return
            async with trio.open_nursery() as reader:
                request = None
                with trio.move_on_after(config.header_timeout):
                    request = await wrap_server_stream(
                        reader, Replayed(stream, head), max_message_size=limits.max_message_size
                    )
                if request is not None:
                    await handler(request, peer)
                reader.cancel_scope.cancel()
        finally:
            await trio.aclose_forcefully(stream)

    gate: Gate | None = None
    if app.auth is not None:
        resource_check(app.auth, host)
    async with app.running(), trio.open_nursery() as nursery:
        listeners = await nursery.start(
            functools.partial(trio.serve_tcp, connection, port, host=host, handler_nursery=nursery)
        )
        bound_port = listeners[0].socket.getsockname()[1]
        shown = f"[{host}]" if ":" in host else host
        url = f"ws://{shown}:{bound_port}{config.path}"
        if app.auth is not None:
            # The resource tokens name: the public URL, else this endpoint as an http URL (what an
            # authorization server takes as a resource indicator, and where the metadata would be).
            gate = Gate(app.auth, app.auth.public_url or "http" + url[len("ws") :])
        task_status.started(url)
        if shutdown_trigger is not None:
            await shutdown_trigger()
        else:
            await trio.sleep_forever()
        shutdown.set()  # every session drains: grace period, then its requests are cancelled
        if live:
            with trio.move_on_after(limits.shutdown_grace + 1):
                await all_ended.wait()
        nursery.cancel_scope.cancel()
    if gate is not None:
        with trio.CancelScope(shield=True):
            await gate.aclose()


async def _set_when(event: trio.Event, then: trio.Event) -> None:
    await event.wait()
    then.set()


async def _set_at(deadline: float, then: trio.Event) -> None:
    await trio.sleep_until(deadline)
    then.set()
