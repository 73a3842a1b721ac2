"""``connect(target)``: a URL, a command line, or an App in this process; either era."""

from __future__ import annotations

import contextlib
import shlex
from typing import TYPE_CHECKING, Any, AsyncIterator, Awaitable, Callable, Sequence

import trio

from .. import wire
from ..groups import leaves
from ..protocol.errors import McpError
from ..protocol.session import META_SERVER_INFO
from ..protocol.versions import LATEST_LEGACY, LATEST_MODERN
from .raw import Client as RawClient
from .session import Answer, Client

if TYPE_CHECKING:
    from ..app import App

Token = str | Callable[[], Awaitable[str]]
CLIENT_INFO = {"name": "mcptrio", "version": "0"}


@contextlib.asynccontextmanager
async def connect(target: str | Sequence[str] | App, *, era: str | None = None,
                  elicitation: Answer | None = None, sampling: Answer | None = None,
                  roots: Answer | None = None, token: Token | None = None,
                  headers: dict[str, str] | None = None,
                  client_info: dict[str, Any] | None = None) -> AsyncIterator[Client]:
    """Connect to an MCP server and yield a ready ``Client``.

    ``target``: an ``http(s)://`` or ``ws(s)://`` URL, a command line (a list, or a string split
    like a shell would) to run and speak to over stdio, or an ``App`` served in this process.
    ``era``: ``"modern"`` (2026-07-28), ``"legacy"`` (the initialize handshake), or None: ask
    with ``server/discover`` and fall back to ``initialize`` if the server does not know it.
    ``elicitation``, ``sampling``, ``roots``: async callables answering what the server asks
    (``params`` in, a result out); the client declares exactly those capabilities.
    ``token``: a bearer token, or an async callable returning one (asked before every request).
    """
    if era not in (None, "legacy", "modern"):
        raise ValueError(f"era must be 'legacy', 'modern' or None, got {era!r}")
    handlers = {method: answer for method, answer in (("elicitation/create", elicitation),
                                                      ("sampling/createMessage", sampling),
                                                      ("roots/list", roots)) if answer is not None}
    capabilities: dict[str, Any] = {}
    if elicitation is not None:
        capabilities["elicitation"] = {}
    if sampling is not None:
        capabilities["sampling"] = {}
    if roots is not None:
        capabilities["roots"] = {}
    try:
        async with _end(target, token, headers) as end:
            raw = RawClient(end, era=era or "modern", capabilities=capabilities, handlers=handlers,
                            client_info=client_info or CLIENT_INFO, cancel_when_cancelled=True)
            async with trio.open_nursery() as nursery:
                await nursery.start(raw.run)
                client = Client(raw)
                await _handshake(client, era)
                try:
                    yield client
                finally:
                    nursery.cancel_scope.cancel()
    except BaseExceptionGroup as group:  # the nurseries' wrapping: one error comes out as itself
        found = leaves(group)
        if len(found) == 1:
            raise found[0] from None
        raise



async def _handshake(client: Client, era: str | None) -> None:
    raw = client.raw
    if era != "legacy":
        try:
            found = await raw.request("server/discover", {})
        except McpError:
            if era == "modern":
                raise
        else:
            versions = found.get("supportedVersions") or []
            if era == "modern" or LATEST_MODERN in versions:
                raw.version = LATEST_MODERN if LATEST_MODERN in versions or not versions else versions[-1]
                _describe(client, found)
                return
    raw.era, raw.version = "legacy", LATEST_LEGACY
    _describe(client, await raw.initialize())


def _describe(client: Client, result: dict[str, Any]) -> None:
    meta = given if isinstance(given := result.get("_meta"), dict) else {}
    info = result.get("serverInfo") or meta.get(META_SERVER_INFO)
    client.server_info = wire.structure(info, wire.Implementation) if isinstance(info, dict) else None
    client.server_capabilities = result.get("capabilities") or {}
    client.instructions = result.get("instructions")
    if client.raw.era == "legacy" and isinstance(result.get("protocolVersion"), str):
        client.raw.version = result["protocolVersion"]


@contextlib.asynccontextmanager
async def _end(target: Any, token: Token | None, headers: dict[str, str] | None) -> AsyncIterator[Any]:
    from ..app import App

    if isinstance(target, App):
        async with _in_process(target) as end:
            yield end
    elif isinstance(target, str) and target.startswith(("http://", "https://")):
        async with _http(target, token, headers) as end:
            yield end
    elif isinstance(target, str) and target.startswith(("ws://", "wss://")):
        async with _websocket(target, token, headers) as end:
            yield end
    else:
        from .process import process_end

        command = shlex.split(target) if isinstance(target, str) else list(target)
        if not command:
            raise ValueError("an empty command line")
        async with process_end(command, wait=5) as end:
            yield end


@contextlib.asynccontextmanager
async def _in_process(app: App) -> AsyncIterator[Any]:
    from ..serve import serve_stream
    from ..transports.memory import memory_pair

    server_end, client_end = memory_pair(app.limits.max_message_size)

    async def serve() -> None:
        try:
            await serve_stream(app, server_end)
        finally:
            await server_end.outgoing.aclose()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(serve)
        yield client_end
        await client_end.close()


@contextlib.asynccontextmanager
async def _http(url: str, token: Token | None, headers: dict[str, str] | None) -> AsyncIterator[Any]:
    try:
        import httpx
    except ImportError:
        raise ImportError("connecting over HTTP needs httpx: pip install 'mcptrio[client]'") from None
    from .http import HttpEnd

    async with httpx.AsyncClient(timeout=httpx.Timeout(30.0, read=None), trust_env=False,
                                 auth=_bearer(httpx, token)) as http, trio.open_nursery() as nursery:
        end = HttpEnd(url, http, nursery, headers)
        try:
            yield end
        finally:
            with trio.CancelScope(shield=True), trio.move_on_after(5):
                await end.close()
            nursery.cancel_scope.cancel()


def _bearer(httpx: Any, token: Token | None) -> Any:
    if token is None:
        return None
    known: Token = token  # (the narrowing, for the class below)

    class Bearer(httpx.Auth):  # type: ignore[misc]  # (httpx, imported when needed, is Any here)
        async def async_auth_flow(self, request: Any) -> Any:
            value = known if isinstance(known, str) else await known()
            request.headers["authorization"] = f"Bearer {value}"
            yield request

    return Bearer()


class _WebSocketEnd:
    def __init__(self, connection: Any) -> None:
        self.connection = connection

    async def send(self, frame: bytes) -> None:
        await self.connection.send_message(frame.decode())

    async def receive(self) -> bytes:
        from trio_websocket import ConnectionClosed

        try:
            message = await self.connection.get_message()
        except ConnectionClosed:
            raise trio.EndOfChannel from None
        return message.encode() if isinstance(message, str) else message

    async def close(self) -> None:
        await self.connection.aclose()


@contextlib.asynccontextmanager
async def _websocket(url: str, token: Token | None, headers: dict[str, str] | None) -> AsyncIterator[Any]:
    from trio_websocket import open_websocket_url

    extra = [(k.encode(), v.encode()) for k, v in (headers or {}).items()]
    if token is not None:
        value = token if isinstance(token, str) else await token()
        extra.append((b"authorization", f"Bearer {value}".encode()))
    async with open_websocket_url(url, subprotocols=["mcp"], extra_headers=extra) as connection:
        yield _WebSocketEnd(connection)
