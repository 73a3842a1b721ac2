"""The public client: typed results, both eras, callbacks for what a server asks of its client."""

from __future__ import annotations

import contextlib
import itertools
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, TypeVar, overload

import trio

from .. import wire
from ..protocol.errors import HEADER_MISMATCH, METHOD_NOT_FOUND, MISSING_REQUIRED_CLIENT_CAPABILITY, McpError
from ..protocol.session import META_CAPABILITIES, META_SERVER_INFO, META_SUBSCRIPTION_ID
from .http import mirrored_params
from .raw import RawClient
from .recovery import SessionLost, SessionRecovery
from .tool_headers import header_problem

Progress = Callable[[float, float | None, str | None], Any]
Answer = Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]
T = TypeVar("T")

TASKS_EXTENSION = "io.modelcontextprotocol/tasks"
log = logging.getLogger("mcptrio.client")
LEGACY_TASKS_SINCE = "2025-11-25"


class Client:
    """A connected MCP client (``mcptrio.client.connect``).

    Results are the wire classes (``wire.CallToolResult``, ``wire.Tool``, ...); a JSON-RPC error
    from the server raises ``McpError`` with its ``code``, ``message`` and ``data``.  Cancelling
    the caller's cancel scope while a request is waiting tells the server (``notifications/
    cancelled``; over HTTP in the 2026-07-28 era, the request's response is closed).

    ``tasks`` (``connect(tasks=...)``): whether a tool that can run as a task does.  True: every
    one that can; None: those that must (2026-07-28: after the server answered ``-32021``
    asking for the tasks extension; 2025-11-25: those listed ``taskSupport: "required"``);
    False: none.  A task is followed to its end by ``call_tool`` (see ``RawClient.follow_task``).
    """

    def __init__(
        self, raw: RawClient, *, tasks: bool | None = None, on_session_lost: SessionLost | None = None
    ) -> None:
        self.raw = raw
        self.tasks = tasks
        self._tokens = itertools.count(1)
        self._progress: dict[Any, Progress] = {}
        self._tools: dict[str, wire.Tool] = {}  # as last listed (task support, Mcp-Param-* headers)
        self._task_only: set[str] = set()  # 2026-07-28 tools the server would only run as tasks
        raw.on_notification.append(self._on_notification)
        self.server_info: wire.Implementation | None = None
        self.server_capabilities: dict[str, Any] = {}
        self.instructions: str | None = None
        self.recovery = SessionRecovery(
            raw, describe=self.describe_server, repeatable=self._repeatable, on_session_lost=on_session_lost
        )
        raw.recover = self.recovery

    def describe_server(self, result: dict[str, Any]) -> None:
        """Take what the server says of itself (an ``initialize`` or ``server/discover`` result)."""
        meta = given if isinstance(given := result.get("_meta"), dict) else {}
        info = result.get("serverInfo") or meta.get(META_SERVER_INFO)
        self.server_info = wire.structure(info, wire.Implementation) if isinstance(info, dict) else None
        self.server_capabilities = result.get("capabilities") or {}
        self.instructions = result.get("instructions")
        if self.raw.era == "legacy" and isinstance(result.get("protocolVersion"), str):
            self.raw.version = result["protocolVersion"]

    async def _repeatable(self, name: str) -> bool:
        """May this tool run twice: is it annotated read-only or idempotent?"""
        if name not in self._tools:
            await self.list_tools()
        tool = self._tools.get(name)
        annotations = tool.annotations if tool is not None else None
        return bool(annotations is not None and (annotations.read_only_hint or annotations.idempotent_hint))

    @property
    def era(self) -> str:
        return self.raw.era

    @property
    def protocol_version(self) -> str:
        return self.raw.version

    # -- requests -----------------------------------------------------------------------------

    @overload
    async def request(
        self, method: str, params: dict[str, Any] | None = None, result: None = None
    ) -> dict[str, Any]: ...
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
        """The server's tools (over HTTP, without those whose ``x-mcp-header`` annotations break the
        spec's rules: each is logged and left out)."""
        tools: list[wire.Tool] = await self._pages("tools/list", "tools", wire.ListToolsResult)
        mirrored = getattr(self.raw.end, "mirrored", None)  # (HTTP: the Mcp-Param-* headers of each tool)
        if isinstance(mirrored, dict):
            tools = [tool for tool in tools if not _rejected(tool)]
        self._tools = {tool.name: tool for tool in tools}
        if isinstance(mirrored, dict):
            mirrored.clear()
            mirrored.update({tool.name: found for tool in tools if (found := mirrored_params(tool.input_schema))})
        return tools

    async def list_resources(self) -> list[wire.Resource]:
        return await self._pages("resources/list", "resources", wire.ListResourcesResult)

    async def list_resource_templates(self) -> list[wire.ResourceTemplate]:
        return await self._pages("resources/templates/list", "resource_templates", wire.ListResourceTemplatesResult)

    async def list_prompts(self) -> list[wire.Prompt]:
        return await self._pages("prompts/list", "prompts", wire.ListPromptsResult)

    async def call_tool(
        self,
        name: str,
        arguments: dict[str, Any] | None = None,
        *,
        progress: Progress | None = None,
        on_task: Callable[[dict[str, Any]], Any] | None = None,
    ) -> wire.CallToolResult:
        """Call a tool; ``progress(progress, total, message)`` hears its progress notifications
        (a 2026-07-28 task sends none: its status messages come as ``(0, None, message)``).
        A tool's own failure is a result with ``is_error``; a protocol error raises McpError, as
        does a task that failed or was cancelled.  A task is followed to its end (``tasks``),
        ``on_task(task)`` seeing each state polled; cancelling the caller's scope meanwhile sends
        ``tasks/cancel``."""
        params: dict[str, Any] = {"name": name, "arguments": arguments or {}}
        token = None
        watchers = [on_task] if on_task is not None else []
        if progress is not None:
            token = f"mcptrio-progress-{next(self._tokens)}"
            self._progress[token] = progress
            params["_meta"] = {"progressToken": token}
            watchers.append(_status_reporter(progress))
        on_task = _each(watchers) if watchers else None
        try:
            if self.era == "legacy":
                answer = await self._call_legacy(params, on_task)
            else:
                answer = await self._call_modern(params, on_task)
            return wire.structure(answer, wire.CallToolResult)
        finally:
            if token is not None:
                self._progress.pop(token, None)

    async def _call_modern(self, params: dict[str, Any], on_task: Any) -> dict[str, Any]:
        name = params["name"]
        declare = self.tasks is None and name in self._task_only
        relisted = False
        while True:
            # (the extension declared on this call and its tasks/* requests only; tasks=True: on every request)
            meta = {META_CAPABILITIES: self._with_tasks()} if declare else None
            try:
                return await self.raw.request("tools/call", params, resolve_input=True, on_task=on_task, meta=meta)
            except McpError as error:
                if (
                    error.code == MISSING_REQUIRED_CLIENT_CAPABILITY
                    and self.tasks is None
                    and not declare
                    and TASKS_EXTENSION in _required_extensions(error)
                ):
                    declare = True  # the server runs this tool only as a task: ask again, declaring them
                    self._task_only.add(name)
                elif error.code == HEADER_MISMATCH and not relisted:
                    relisted = True  # the tool's Mcp-Param-* arguments changed (the spec: list, retry)
                    await self.list_tools()
                else:
                    raise

    async def _call_legacy(self, params: dict[str, Any], on_task: Any) -> dict[str, Any]:
        name = params["name"]
        if await self._legacy_task(name, relist=False):
            params["task"] = {}
        try:
            answer = await self.raw.request("tools/call", params, resolve_input=True)
        except McpError as error:  # -32601: perhaps a tool that runs only as a task (not listed yet)
            if error.code != METHOD_NOT_FOUND or "task" in params or not await self._legacy_task(name, relist=True):
                raise
            retry = True
        else:  # (the TypeScript SDK answers that refusal as the tool's own error: isError)
            retry = bool(answer.get("isError")) and "task" not in params and name not in self._tools
            retry = retry and await self._legacy_task(name, relist=True)
        if retry:
            params["task"] = {}
            answer = await self.raw.request("tools/call", params, resolve_input=True)
        task = answer.get("task")
        if "task" in params and isinstance(task, dict) and "content" not in answer:
            return await self.raw.follow_task(task, on_task=on_task)
        return answer

    async def _legacy_task(self, name: str, *, relist: bool) -> bool:
        """2025-11-25: does this call ask for a task (the server takes them, the tool is listed so)?"""
        if self.tasks is False or self.protocol_version < LEGACY_TASKS_SINCE:
            return False
        offered = self.server_capabilities.get("tasks")
        requests = offered.get("requests") if isinstance(offered, dict) else None
        tools = requests.get("tools") if isinstance(requests, dict) else None
        if not (isinstance(tools, dict) and "call" in tools):
            return False
        if relist or (self.tasks and name not in self._tools):
            await self.list_tools()
        tool = self._tools.get(name)
        execution = tool.extra.get("execution") if tool is not None else None
        support = execution.get("taskSupport") if isinstance(execution, dict) else None
        return support == "required" or (self.tasks is True and support == "optional")

    def _with_tasks(self) -> dict[str, Any]:
        extensions = self.raw.capabilities.get("extensions") or {}
        return {**self.raw.capabilities, "extensions": {**extensions, TASKS_EXTENSION: {}}}

    async def read_resource(self, uri: str) -> wire.ReadResourceResult:
        return await self.request("resources/read", {"uri": uri}, wire.ReadResourceResult)

    async def get_prompt(self, name: str, arguments: dict[str, str] | None = None) -> wire.GetPromptResult:
        return await self.request("prompts/get", {"name": name, "arguments": arguments or {}}, wire.GetPromptResult)

    async def complete(
        self, ref: dict[str, Any], argument: dict[str, str], context: dict[str, Any] | None = None
    ) -> wire.CompleteResult:
        params: dict[str, Any] = {"ref": ref, "argument": argument}
        if context is not None:
            params["context"] = context
        return await self.request("completion/complete", params, wire.CompleteResult)

    async def subscribe(self, uri: str) -> None:
        """Legacy sessions: ``notifications/resources/updated`` for ``uri`` from now on (see ``notifications``)."""
        await self.open_stream()
        await self.request("resources/subscribe", {"uri": uri})

    async def open_stream(self) -> None:
        """A legacy HTTP session: open its GET stream, where the server sends what belongs to no
        request (done when needed: ``connect(listen=...)``)."""
        open_stream = getattr(self.raw.end, "open_stream", None)
        if open_stream is not None and self.era == "legacy":
            await open_stream()

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
            arrived = self.raw.arrival
            try:
                return answer.receive_nowait()
            except trio.WouldBlock:
                await arrived.wait()
                return None
            except trio.EndOfChannel:
                return {}

        while not any(
            ours(m) and m["method"] == "notifications/subscriptions/acknowledged" for m in self.raw.notifications[seen:]
        ):  # live from the acknowledgment on
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
                await self.raw.cancel_request(request_id)

    async def notifications(self, method: str | None = None) -> AsyncIterator[dict[str, Any]]:
        """The server's notifications as they arrive (``method``: only those), from now on."""
        seen = len(self.raw.notifications)
        await self.open_stream()
        while True:
            while seen < len(self.raw.notifications):
                message = self.raw.notifications[seen]
                seen += 1
                if method is None or message["method"] == method:
                    yield message
            await self.raw.arrival.wait()

    async def ping(self) -> None:
        """A round trip to the server, to see that it is there and answering: ``ping`` in a
        legacy session; ``server/discover`` in the 2026-07-28 era, which has no ping."""
        await self.request("ping" if self.era == "legacy" else "server/discover")

    # -- what the server sends --------------------------------------------------------------------

    def _on_notification(self, message: dict[str, Any]) -> Any:
        if message["method"] == "notifications/tools/list_changed":
            self._tools = {}
            self._task_only.clear()
        if message["method"] != "notifications/progress":
            return None
        params: Any = message.get("params") or {}  # (JSON from the server)
        callback = self._progress.get(params.get("progressToken"))
        if callback is None:
            return None
        return callback(params.get("progress"), params.get("total"), params.get("message"))


def _rejected(tool: wire.Tool) -> bool:
    problem = header_problem(tool.input_schema)
    if problem is not None:
        log.warning("left out tool %r: %s", tool.name, problem)
    return problem is not None


def _required_extensions(error: McpError) -> dict[str, Any]:
    """The extensions a -32021 error says the client must declare."""
    data = error.data if isinstance(error.data, dict) else {}
    required = data.get("requiredCapabilities")
    extensions = required.get("extensions") if isinstance(required, dict) else None
    return extensions if isinstance(extensions, dict) else {}


def _each(watchers: list[Callable[[dict[str, Any]], Any]]) -> Callable[[dict[str, Any]], Any]:
    async def watch(task: dict[str, Any]) -> None:
        for watcher in watchers:
            outcome = watcher(task)
            if outcome is not None and hasattr(outcome, "__await__"):
                await outcome

    return watch


def _status_reporter(progress: Progress) -> Any:
    """A 2026-07-28 task's status messages (it has no progress notifications) to ``progress``."""
    shown: list[str | None] = [None]

    def on_task(task: dict[str, Any]) -> Any:
        message = task.get("statusMessage")
        if isinstance(message, str) and message != shown[0] and task.get("status") in ("working", "input_required"):
            shown[0] = message
            return progress(0, None, message)
        return None

    return on_task
