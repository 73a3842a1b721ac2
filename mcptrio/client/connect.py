"""``connect(target)``: a URL, a command line, or an App in this process; either era."""

from __future__ import annotations

import contextlib
import logging
import os
import shlex
import ssl
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any, cast
from urllib.parse import urlsplit

import trio

from ..groups import leaves
from ..protocol.errors import UNSUPPORTED_PROTOCOL_VERSION, McpError
from ..protocol.session import LOG_LEVELS
from ..protocol.versions import LATEST_LEGACY, LATEST_MODERN, MODERN_VERSIONS
from .http import RETRY_AFTER
from .pooling import KEEPALIVE_EXPIRY
from .raw import RawClient
from .recovery import SessionLost
from .session import TASKS_EXTENSION, Answer, Client
from .tls import Verify, failure_reason, ssl_context
from .urls import is_url, url_problem

if TYPE_CHECKING:
    import httpx

    from ..app import App

Token = str | Callable[[], Awaitable[str]]
CLIENT_INFO = {"name": "mcptrio", "version": "0"}
CONNECT_TIMEOUT = 30.0  # seconds for a connection (and a WebSocket's handshake), as httpx's connect timeout
MAX_UPGRADES = 4  # WebSocket handshakes per connect: refused for a token, then with one (a refresh, a step-up)
log = logging.getLogger("mcptrio.client")


@contextlib.asynccontextmanager
async def connect(
    target: str | Sequence[str] | App,
    *,
    era: str | None = None,
    elicitation: Answer | None = None,
    sampling: Answer | None = None,
    roots: Answer | None = None,
    token: Token | None = None,
    auth: httpx.Auth | None = None,
    headers: dict[str, str] | None = None,
    client_info: dict[str, Any] | None = None,
    tasks: bool | None = None,
    log_level: str | None = None,
    verify: Verify = True,
    keep_stderr: bool = False,
    env: dict[str, str] | None = None,
    cwd: str | None = None,
    listen: bool | None = None,
    on_session_lost: SessionLost | None = None,
    long_lived: bool = False,
    max_message_size: int | None = None,
) -> AsyncIterator[Client]:
    """Connect to an MCP server and yield a ready ``Client``.

    ``target``: an ``http(s)://`` or ``ws(s)://`` URL, a command line (a list, or a string split
    like a shell would) to run and speak to over stdio, or an ``App`` served in this process.
    ``era``: ``"modern"`` (2026-07-28), ``"legacy"`` (the initialize handshake), or None: ask
    with ``server/discover`` and fall back to ``initialize`` if the server does not know it.
    ``elicitation``, ``sampling``, ``roots``: async callables answering what the server asks
    (``params`` in, a result out); the client declares exactly those capabilities (and the tasks
    extension for a call that runs as a task).
    ``token``: a bearer token, or an async callable returning one (asked before every request).
    ``auth``: how to get one when the server asks: ``mcptrio.client.oauth.OAuth()`` logs the
    user in, ``ClientCredentials(...)`` uses a program's own; any ``httpx.Auth`` does (over
    WebSocket it is asked for the upgrade request's headers, and told of a 401 or 403 refusal).
    ``tasks``: run task tools as tasks, followed to their end by ``call_tool``: True, every tool
    that can; None (default), only those that must; False, none (see ``Client``).
    ``log_level``: the least severe log message the server should send (``"debug"`` …
    ``"emergency"``): ``logging/setLevel`` in a legacy session, each request's
    ``_meta`` in the 2026-07-28 era (whose server sends none unless asked).
    ``listen``: open a legacy HTTP session's GET stream, where the server sends what belongs to no
    request (change notifications, a task's questions): None (default) when the client answers
    questions (``elicitation``, ``sampling``, ``roots``) or runs tasks, and at the first
    ``notifications()`` or ``subscribe()``.
    ``on_session_lost(old_id, new_id)``: told when a legacy HTTP session the server lost (404) was
    replaced by a new one (see ``mcptrio.client.recovery``).
    ``verify``: which TLS certificates ``https://`` and ``wss://`` trust: an ``ssl.SSLContext``,
    a CA file (or directory), False for none; True (default) honours ``SSL_CERT_FILE`` and
    ``SSL_CERT_DIR`` (see ``mcptrio.client.tls.ssl_context``).
    ``env``, ``cwd``: a command's variables (added to this process's environment) and folder.
    ``keep_stderr``: a command's stderr is read here instead of shared with this process; when
    the server ends before it answers, the error says how it exited and the last lines it wrote.
    ``long_lived``: a client that runs for a long time (a gateway's upstream session) keeps no
    list of the notifications it got (``notifications()`` sees none; each goes to the callables in
    ``client.raw.on_notification``), and a
    command's line on stdout that is not JSON is logged and skipped instead of ending the connection.
    ``max_message_size``: a command's message over this many bytes ends the connection.
    """
    if era not in (None, "legacy", "modern"):
        raise ValueError(f"era must be 'legacy', 'modern' or None, got {era!r}")
    if token is not None and auth is not None:
        raise ValueError("pass token or auth, not both")
    if log_level is not None and log_level not in LOG_LEVELS:
        raise ValueError(f"log_level must be one of {', '.join(LOG_LEVELS)}, got {log_level!r}")
    handlers = {
        method: answer
        for method, answer in (
            ("elicitation/create", elicitation),
            ("sampling/createMessage", sampling),
            ("roots/list", roots),
        )
        if answer is not None
    }
    capabilities: dict[str, Any] = {}
    if elicitation is not None:
        capabilities["elicitation"] = {}
    if sampling is not None:
        capabilities["sampling"] = {}
    if roots is not None:
        capabilities["roots"] = {}
    try:
        async with _end(
            target, token if auth is None else auth, headers, verify, keep_stderr, env, cwd, max_message_size
        ) as end:
            raw = RawClient(
                end,
                era=era or "modern",
                capabilities=capabilities,
                handlers=handlers,
                client_info=client_info or CLIENT_INFO,
                cancel_when_cancelled=True,
                keep_notifications=not long_lived,
                skip_noise=long_lived,
            )
            async with trio.open_nursery() as nursery:
                await nursery.start(raw.run)
                client = Client(raw, tasks=tasks, on_session_lost=on_session_lost)
                await _handshake(client, era)
                await _after_handshake(client, log_level, listen)
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
            found = await _discover(raw)
        except McpError as exc:
            if era == "modern" or (
                isinstance(exc.data, dict) and (exc.data.get("transport") or exc.data.get("authorization"))
            ):
                raise  # (a server that is gone, or refused us, is not one that does not know server/discover)
        else:
            versions = found.get("supportedVersions") or []
            if era == "modern" or LATEST_MODERN in versions:
                raw.version = LATEST_MODERN if LATEST_MODERN in versions or not versions else versions[-1]
                client.describe_server(found)
                return
    raw.era, raw.version = "legacy", LATEST_LEGACY
    client.describe_server(await raw.initialize())


async def _after_handshake(client: Client, log_level: str | None, listen: bool | None) -> None:
    raw = client.raw
    if raw.era == "modern":
        raw.log_level = log_level
        if client.tasks:  # (every request: the tasks/* methods must declare it too)
            raw.capabilities["extensions"] = {**(raw.capabilities.get("extensions") or {}), TASKS_EXTENSION: {}}
        return
    if listen or (listen is None and (raw.handlers or client.tasks)):
        await client.open_stream()  # HTTP: the session's GET stream (a task's questions come on it)
    if log_level is not None and "logging" in client.server_capabilities:
        await raw.request("logging/setLevel", {"level": log_level})


async def _discover(raw: RawClient) -> dict[str, Any]:
    """``server/discover``; refused for its version (-32022), asked again once at the newest
    version both sides speak."""
    try:
        return await raw.request("server/discover", {})
    except McpError as error:
        data = error.data if isinstance(error.data, dict) else {}
        offered = data.get("supported") or data.get("supportedVersions") or []
        mutual = [version for version in MODERN_VERSIONS if version in offered]
        if error.code != UNSUPPORTED_PROTOCOL_VERSION or not mutual:
            raise
        raw.version = mutual[0]
        return await raw.request("server/discover", {})


@contextlib.asynccontextmanager
async def _end(
    target: Any,
    token: Token | httpx.Auth | None,
    headers: dict[str, str] | None,
    verify: Verify,
    keep_stderr: bool,
    env: dict[str, str] | None = None,
    cwd: str | None = None,
    max_message_size: int | None = None,
) -> AsyncIterator[Any]:
    from ..app import App

    if isinstance(target, str) and is_url(target) and (problem := url_problem(target)) is not None:
        raise ValueError(problem)
    if isinstance(target, App):
        async with _in_process(target) as end:
            yield end
    elif isinstance(target, str) and target.startswith(("http://", "https://")):
        async with _http(target, token, headers, ssl_context(verify)) as end:
            yield end
    elif isinstance(target, str) and target.startswith(("ws://", "wss://")):
        async with _websocket(target, token, headers, ssl_context(verify)) as end:
            yield end
    else:
        from .process import process_end

        command = shlex.split(target) if isinstance(target, str) else list(target)
        if not command:
            raise ValueError("an empty command line")
        environment = {**os.environ, **env} if env else None
        async with process_end(
            command, wait=5, keep_stderr=keep_stderr, env=environment, cwd=cwd, max_message_size=max_message_size
        ) as end:
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
async def _http(
    url: str, token: Token | httpx.Auth | None, headers: dict[str, str] | None, context: ssl.SSLContext
) -> AsyncIterator[Any]:
    """The end of an HTTP session: on the lean client of http11.py, unless an ``httpx.Auth`` (OAuth, which
    takes part in the requests) needs httpx."""
    from .http import HttpEnd, Transport

    async with contextlib.AsyncExitStack() as stack:
        transport: Transport
        if token is not None and not isinstance(token, str) and hasattr(token, "async_auth_flow"):
            transport = await stack.enter_async_context(_httpx(cast("httpx.Auth", token), context))
        else:
            from .http11 import Pool

            transport = Pool(context, token=token, connect_timeout=CONNECT_TIMEOUT)
            stack.push_async_callback(transport.aclose)
        nursery = await stack.enter_async_context(trio.open_nursery())
        end = HttpEnd(url, transport, nursery, headers)
        try:
            yield end
        finally:
            with trio.CancelScope(shield=True), trio.move_on_after(5):
                await end.close()
            nursery.cancel_scope.cancel()


@contextlib.asynccontextmanager
async def _httpx(auth: httpx.Auth, context: ssl.SSLContext) -> AsyncIterator[Any]:
    try:
        import httpx
    except ImportError:
        raise ImportError("connecting with an httpx.Auth needs httpx: pip install 'mcptrio[client]'") from None
    from .http import HttpxTransport

    # (trust_env off: no proxies or .netrc from the environment; SSL_CERT_FILE is in the context)
    async with httpx.AsyncClient(
        timeout=httpx.Timeout(CONNECT_TIMEOUT, read=None),
        trust_env=False,
        verify=context,
        limits=httpx.Limits(keepalive_expiry=KEEPALIVE_EXPIRY),
        auth=auth,
    ) as http:
        yield HttpxTransport(http)


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
async def _websocket(
    url: str, token: Token | httpx.Auth | None, headers: dict[str, str] | None, context: ssl.SSLContext
) -> AsyncIterator[Any]:
    """A WebSocket connection whose TCP and TLS handshakes are done here, before trio-websocket
    gets the stream: its own TLS handshake runs late, in its reader task, and a failure there
    (an untrusted certificate) left it waiting for its 60 s connect timeout, saying nothing why
    (trio-websocket issue 199).  Here it fails at once and says what was wrong.  An upgrade
    refused with 401 or 403 goes to the ``auth`` (``UpgradeAuth``), and is made again if it got
    a token."""
    from trio_websocket import HandshakeError, wrap_client_stream

    from .upgrade_auth import UpgradeAuth

    parts = urlsplit(url)
    host, secure = parts.hostname or "", parts.scheme == "wss"
    port = parts.port or (443 if secure else 80)
    address = f"[{host}]" if ":" in host else host
    host_header = address if parts.port is None else f"{address}:{port}"
    resource = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    extra = [(k.encode(), v.encode()) for k, v in (headers or {}).items()]
    auth = UpgradeAuth(url, token)
    for _ in range(MAX_UPGRADES):
        stream = await _connected(url, host, port, context if secure else None)
        upgraded = False
        try:
            async with trio.open_nursery() as nursery:
                with trio.move_on_after(CONNECT_TIMEOUT) as upgrading:
                    connection = await wrap_client_stream(
                        nursery,
                        stream,
                        host_header,
                        resource,
                        subprotocols=["mcp"],
                        extra_headers=extra + await auth.headers(),
                    )
                if upgrading.cancelled_caught:
                    raise ConnectionError(f"{url}: no answer to the WebSocket handshake within {CONNECT_TIMEOUT:g} s")
                upgraded = True
                await auth.accepted()
                try:
                    yield _WebSocketEnd(connection)
                finally:
                    with trio.CancelScope(shield=True), trio.move_on_after(5):
                        await connection.aclose()
                    nursery.cancel_scope.cancel()
            return
        except BaseExceptionGroup as group:  # the reader task's refusal (HTTP 401 on the upgrade, say)
            found = leaves(group)
            refused = [exc for exc in found if isinstance(exc, HandshakeError)]
            if upgraded or len(found) != 1 or not refused:
                raise
            if not await auth.refused(refused[0]):
                raise ConnectionError(f"{url}: {_refusal(refused[0])}") from refused[0]
        finally:
            await trio.aclose_forcefully(stream)  # (closed already, unless the handshake failed)
    raise ConnectionError(f"{url}: the WebSocket handshake was refused {MAX_UPGRADES} times")


async def _connected(
    url: str, host: str, port: int, context: ssl.SSLContext | None
) -> trio.SocketStream | trio.SSLStream[trio.SocketStream]:
    """A TCP connection, with its TLS handshake done when ``context`` is given; ConnectionError
    (what went wrong, in a line) when it fails or takes longer than CONNECT_TIMEOUT.  A connection
    refused is tried once more after RETRY_AFTER seconds (a server restarting)."""
    stream: trio.SocketStream | trio.SSLStream[trio.SocketStream] | None = None
    try:
        with trio.fail_after(CONNECT_TIMEOUT):
            try:
                tcp = await trio.open_tcp_stream(host, port)
            except OSError as exc:  # (refused, reset: nothing was sent, so once more after a pause)
                log.info("%s: %s; trying once more in %g s", url, failure_reason(exc), RETRY_AFTER)
                await trio.sleep(RETRY_AFTER)
                tcp = await trio.open_tcp_stream(host, port)
            stream = tcp
            if context is not None:
                stream = trio.SSLStream(tcp, context, server_hostname=host, https_compatible=True)
                await stream.do_handshake()
        return stream
    except BaseException as exc:
        if stream is not None:
            await trio.aclose_forcefully(stream)
        if isinstance(exc, trio.TooSlowError):
            raise ConnectionError(f"{url}: no connection within {CONNECT_TIMEOUT:g} s") from None
        if isinstance(exc, trio.BrokenResourceError):  # the TLS handshake failed (its cause says why)
            raise ConnectionError(f"{url}: {failure_reason(exc)}") from exc
        raise


def _refusal(exc: BaseException) -> str:
    status = getattr(exc, "status_code", None)
    body = getattr(exc, "body", None)
    detail = body.decode(errors="replace")[:200] if isinstance(body, bytes) else ""
    return (
        f"the WebSocket handshake was refused: HTTP {status} {detail}".rstrip()
        if status
        else f"the WebSocket handshake failed: {failure_reason(exc)}"
    )
