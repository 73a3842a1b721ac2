"""The public client: typed results, both eras, callbacks for what a server asks of its client."""

from __future__ import annotations

import contextlib
import itertools
from typing import Any, AsyncIterator, Awaitable, Callable, TypeVar, overload

import trio

from .. import wire
from ..protocol.errors import McpError
from ..protocol.session import META_SUBSCRIPTION_ID
from .raw import Client as RawClient

Progress = Callable[[float, float | None, str | None], Any]
Answer = Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]
T = TypeVar("T")


class Client:
    """A connected MCP client (``mcptrio.client.connect``).

    Results are the wire classes (``wire.CallToolResult``, ``wire.Tool``, ...); a JSON-RPC error
    from the server raises ``McpError`` with its ``code``, ``message`` and ``data``.  Cancelling
    the caller's cancel scope while a request is waiting tells the server (``notifications/
    cancelled``; over HTTP in the 2026-07-28 era, the request's response is closed).
    """

    def __init__(self, raw: RawClient) -> None:
        self.raw = raw
        self._tokens = itertools.count(1)
        self._progress: dict[Any, Progress] = {}
        raw.on_notification.append(self._on_notification)
        self.server_info: wire.Implementation | None = None
        self.server_capabilities: dict[str, Any] = {}
        self.instructions: str | None = None

    @property
    def era(self) -> str:
        return self.raw.era

    @property
    def protocol_version(self) -> str:
        return self.raw.version

    # -- requests -----------------------------------------------------------------------------

    @overload
    async def request(self, method: str, params: dict[str, Any] | None = None,
                      result: None = None) -> dict[str, Any]: ...
    @overload
    async def request(self, method: str, params: dict[str, Any] | None, result: type[T]) -> T: ...
    @overload
    async def request(self, method: str, params: dict[str, Any] | None = None, *, result: type[T]) -> T: ...

    async def request(self, method: str, params: dict[str, Any] | None = None, result: Any = None) -> Any:
        """Any request; its result structured as ``result`` (a wire class), else the plain dict.
        Input requests (2026-07-28) and tasks are answered and followed to the end."""
        answer = await self.raw.request(method, params, resolve_input=True)
        return wire.structure(answer, result) if result is not None else answer

    async def _pages(self, method: str, field: str, result: Any) -> list[Any]:
        items: list[Any] = []
        cursor = None
        for _ in range(10_000):  # a server that never stops paging is refused, not followed forever
            page = await self.request(method, {"cursor": cursor} if cursor else {}, result)
            items += getattr(page, field)
            cursor = page.next_cursor
            if not cursor:
                return items
        raise McpError(-32000, f"{method}: more than 10,000 pages")

    async def list_tools(self) -> list[wire.Tool]:
        return await self._pages("tools/list", "tools", wire.ListToolsResult)

    async def list_resources(self) -> list[wire.Resource]:
        return await self._pages("resources/list", "resources", wire.ListResourcesResult)

    async def list_resource_templates(self) -> list[wire.ResourceTemplate]:
        return await self._pages("resources/templates/list", "resource_templates", wire.ListResourceTemplatesResult)

    async def list_prompts(self) -> list[wire.Prompt]:
        return await self._pages("prompts/list", "prompts", wire.ListPromptsResult)

    async def call_tool(self, name: str, arguments: dict[str, Any] | None = None, *,
                        progress: Progress | None = None) -> wire.CallToolResult:
        """Call a tool; ``progress(progress, total, message)`` hears its progress notifications.
        A tool's own failure is a result with ``is_error``; a protocol error raises McpError."""
        params: dict[str, Any] = {"name": name, "arguments": arguments or {}}
        token = None
        if progress is not None:
            token = f"mcptrio-progress-{next(self._tokens)}"
            self._progress[token] = progress
            params["_meta"] = {"progressToken": token}
        try:
            return await self.request("tools/call", params, wire.CallToolResult)
        finally:
            if token is not None:
                self._progress.pop(token, None)

    async def read_resource(self, uri: str) -> wire.ReadResourceResult:
        return await self.request("resources/read", {"uri": uri}, wire.ReadResourceResult)

    async def get_prompt(self, name: str, arguments: dict[str, str] | None = None) -> wire.GetPromptResult:
        return await self.request("prompts/get", {"name": name, "arguments": arguments or {}}, wire.GetPromptResult)

    async def complete(self, ref: dict[str, Any], argument: dict[str, str],
                       context: dict[str, Any] | None = None) -> wire.CompleteResult:
        params: dict[str, Any] = {"ref": ref, "argument": argument}
        if context is not None:
            params["context"] = context
        return await self.request("completion/complete", params, wire.CompleteResult)

    async def subscribe(self, uri: str) -> None:
        """Legacy sessions: ``notifications/resources/updated`` for ``uri`` from now on (see ``notifications``)."""
        await self.request("resources/subscribe", {"uri": uri})

    @contextlib.asynccontextmanager
    async def listen(self, **notifications: Any) -> AsyncIterator[AsyncIterator[dict[str, Any]]]:
        """2026-07-28: open a ``subscriptions/listen`` stream for the notifications named
        (``toolsListChanged=True``, ``resourceSubscriptions=["uri"]``, ...) and iterate over what it
        delivers; leaving the block closes the stream."""
        if self.era != "modern":
            raise McpError(-32601, "subscriptions/listen is a 2026-07-28 method: use subscribe() in a legacy session")
        seen = len(self.raw.notifications)
        request_id, answer = await self.raw.start_request("subscriptions/listen", {"notifications": notifications})

        def ours(message: dict[str, Any]) -> bool:
            meta = (message.get("params") or {}).get("_meta") or {}
            return bool(meta.get(META_SUBSCRIPTION_ID) == request_id)

        async def answered() -> dict[str, Any] | None:
            """The stream's answer (it ended: an error, or closed at shutdown; {} if the
            connection ended), or None once anything else has arrived."""
            arrived = self.raw._arrived
            try:
                return answer.receive_nowait()
            except trio.WouldBlock:
                await arrived.wait()
                return None
            except trio.EndOfChannel:
                return {}

        while not any(ours(m) and m["method"] == "notifications/subscriptions/acknowledged"
                      for m in self.raw.notifications[seen:]):  # live from the acknowledgment on
            ended = await answered()
            if ended is not None:
                raise McpError.from_dict(ended.get("error"), "the stream ended before it was acknowledged")

        async def delivered() -> AsyncIterator[dict[str, Any]]:
            nonlocal seen
            while True:
                while seen < len(self.raw.notifications):
                    message = self.raw.notifications[seen]
                    seen += 1
                    if ours(message) and message["method"] != "notifications/subscriptions/acknowledged":
                        yield message
                ended = await answered()
                if ended is None:
                    continue
                if "error" in ended:
                    raise McpError.from_dict(ended["error"], "listen failed")
                return  # the server closed the stream (shutdown), or the connection ended

        try:
            yield delivered()
        finally:
            with trio.CancelScope(shield=True), trio.move_on_after(2):
                await self.raw._tell_cancelled(request_id)

    async def notifications(self, method: str | None = None) -> AsyncIterator[dict[str, Any]]:
        """The server's notifications as they arrive (``method``: only those), from now on."""
        seen = len(self.raw.notifications)
        while True:
            while seen < len(self.raw.notifications):
                message = self.raw.notifications[seen]
                seen += 1
                if method is None or message["method"] == method:
                    yield message
            await self.raw._arrived.wait()

    async def ping(self) -> None:
        await self.request("ping")

    # -- what the server sends --------------------------------------------------------------------

    def _on_notification(self, message: dict[str, Any]) -> Any:
        if message["method"] != "notifications/progress":
            return None
        params: Any = message.get("params") or {}  # (JSON from the server)
        callback = self._progress.get(params.get("progressToken"))
        if callback is None:
            return None
        return callback(params.get("progress"), params.get("total"), params.get("message"))

