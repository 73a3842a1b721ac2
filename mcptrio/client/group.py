"""Many servers at once: a ``Client`` for each server of an ``mcpServers`` file (or of any
entries), connected side by side; one that cannot be reached is set aside with its error instead
of ending the others.

    async with mcptrio.client.connect_all("mcp.json") as group:
        for server, tool in await group.list_tools():
            ...
        result = await group.call_tool("files", "read_file", {"path": "README.md"})
"""

from __future__ import annotations

import contextlib
import math
import os
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping
from typing import Any, TypeVar

import trio

from .. import wire
from ..protocol.errors import McpError
from .connect import connect
from .servers_file import ServerEntry, read_servers
from .session import Client

T = TypeVar("T")
CONNECT_WITHIN = 60.0  # seconds for one server to connect and answer its handshake


class ClientGroup:
    """The connected clients by server name (``clients``), and the servers that could not be
    reached, with why (``failures``)."""

    def __init__(self) -> None:
        self.clients: dict[str, Client] = {}
        self.failures: dict[str, BaseException] = {}

    def __getitem__(self, name: str) -> Client:
        if name not in self.clients:
            why = self.failures.get(name)
            raise KeyError(f"server {name!r} is not connected{f': {why}' if why else ''}")
        return self.clients[name]

    async def each(self, ask: Callable[[Client], Awaitable[T]]) -> dict[str, T | McpError]:
        """``ask`` every client at once; each server's answer, or its error."""
        answers: dict[str, T | McpError] = {}

        async def one(name: str, client: Client) -> None:
            try:
                answers[name] = await ask(client)
            except McpError as error:
                answers[name] = error

        async with trio.open_nursery() as nursery:
            for name, client in self.clients.items():
                nursery.start_soon(one, name, client)
        return {name: answers[name] for name in self.clients}

    async def list_tools(self) -> list[tuple[str, wire.Tool]]:
        """Every server's tools, each with its server's name (a server that fails adds none)."""
        listed = await self.each(lambda client: client.list_tools())
        return [(name, tool) for name, tools in listed.items() if not isinstance(tools, McpError) for tool in tools]

    async def call_tool(self, server: str, name: str, arguments: dict[str, Any] | None = None) -> wire.CallToolResult:
        return await self[server].call_tool(name, arguments)


@contextlib.asynccontextmanager
async def connect_all(
    servers: str | os.PathLike[str] | Mapping[str, ServerEntry] | Iterable[ServerEntry],
    *,
    names: Iterable[str] | None = None,
    auth: Callable[[ServerEntry], Any] | None = None,
    **options: Any,
) -> AsyncIterator[ClientGroup]:
    """Connect to every server of an ``mcpServers`` file (a path) or of the entries given, side by
    side; ``names``: only these (an unknown one is a ``ValueError``).  ``auth(entry)``: each
    server's own ``auth`` (an ``OAuth`` keeps one server's tokens), or None.  ``options`` go to
    each ``connect()`` (an entry's headers, environment and folder are its own)."""
    if isinstance(servers, (str, os.PathLike)):
        entries = list(read_servers(servers).values())
    elif isinstance(servers, Mapping):
        entries = list(servers.values())
    else:
        entries = list(servers)
    if names is not None:
        wanted = list(names)
        known = {entry.name for entry in entries}
        unknown = [name for name in wanted if name not in known]
        if unknown:
            raise ValueError(f"no server named {', '.join(map(repr, unknown))} (known: {', '.join(sorted(known))})")
        entries = [entry for entry in entries if entry.name in wanted]
    group = ClientGroup()
    ready = trio.Semaphore(0)  # one release per server, connected or not
    done = trio.Event()

    async def hold(entry: ServerEntry) -> None:
        """Connect, and keep the connection open (in this task, which owns it) until the block ends."""
        extra: dict[str, Any] = dict(options)
        if entry.headers:
            extra["headers"] = {**(options.get("headers") or {}), **entry.headers}
        if entry.command is not None:
            extra.update(env=entry.env or None, cwd=entry.cwd)
        if auth is not None and (login := auth(entry)) is not None:
            extra["auth"] = login
        released = False
        try:
            with trio.CancelScope(deadline=trio.current_time() + CONNECT_WITHIN) as limit:
                async with connect(entry.target, **extra) as client:
                    limit.deadline = math.inf
                    group.clients[entry.name] = client
                    ready.release()
                    released = True
                    await done.wait()
            if limit.cancelled_caught:
                group.failures[entry.name] = TimeoutError(f"no answer within {CONNECT_WITHIN:g} s")
        except (McpError, OSError, ValueError, ImportError) as exc:
            group.failures[entry.name] = exc
        finally:
            group.clients.pop(entry.name, None)
            if not released:
                ready.release()

    async with trio.open_nursery() as nursery:
        for entry in entries:
            nursery.start_soon(hold, entry)
        for _ in entries:
            await ready.acquire()
        group.clients = {entry.name: group.clients[entry.name] for entry in entries if entry.name in group.clients}
        try:
            yield group
        finally:
            done.set()
