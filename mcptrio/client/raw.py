"""A small MCP client over a message stream, for tests and for driving a server by hand.

It speaks both eras: ``era="legacy"`` performs the initialize handshake; ``era="modern"``
puts the 2026-07-28 ``_meta`` envelope on every request and, with ``resolve_input=True``,
answers ``InputRequiredResult``s from its handlers and retries (multi round-trip).
``follow_task`` polls a task of either era to its end.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
from collections.abc import Awaitable, Callable
from typing import Any, cast

import orjson
import trio

from ..protocol.errors import METHOD_NOT_FOUND, McpError
from ..protocol.session import META_LOG_LEVEL
from ..protocol.versions import LATEST_LEGACY, LATEST_MODERN

ServerRequestHandler = Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]
TaskWatcher = Callable[[dict[str, Any]], Any]

CLIENT_INFO = {"name": "mcptrio-testing", "version": "0"}
MAX_RECOVERIES = 2  # per request: the same session again, then a new one

log = logging.getLogger("mcptrio.client")


class Answer:
    """Where the response to one request waits for its one task: a memory channel's part that a
    request needs, without its cost."""

    __slots__ = ("_message", "_closed", "_task")

    def __init__(self) -> None:
        self._message: dict[str, Any] | None = None
        self._closed = False
        self._task: trio.lowlevel.Task | None = None

    def send_nowait(self, message: dict[str, Any]) -> None:
        self._message = message
        self._wake()

    def close(self) -> None:
        """No response will come (the connection ended)."""
        self._closed = True
        self._wake()

    def _wake(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            trio.lowlevel.reschedule(task)

    async def receive(self) -> dict[str, Any]:
        """The response (EndOfChannel: none will come)."""
        if self._message is None and not self._closed:
            self._task = trio.lowlevel.current_task()

            def abort(_: Any) -> trio.lowlevel.Abort:
                self._task = None
                return trio.lowlevel.Abort.SUCCEEDED

            await trio.lowlevel.wait_task_rescheduled(abort)
        else:  # (it came while the request was sent: the sending has waited for it already)
            await trio.lowlevel.checkpoint_if_cancelled()
        if self._message is None:
            raise trio.EndOfChannel
        return self._message


Slot = trio.MemorySendChannel[dict[str, Any]] | Answer


class RawClient:
    """Send requests, await their answers; notifications collect in ``notifications``."""

    def __init__(
        self,
        end: Any,
        *,
        era: str = "legacy",
        version: str | None = None,
        capabilities: dict[str, Any] | None = None,
        handlers: dict[str, ServerRequestHandler] | None = None,
        client_info: dict[str, Any] | None = None,
        cancel_when_cancelled: bool = False,
        keep_notifications: bool = True,
        skip_noise: bool = False,
    ) -> None:
        self.end = end
        # A long-lived client (a gateway's upstream session) keeps none: its listeners see each one.
        self.keep_notifications = keep_notifications
        # A line that is not JSON is logged and skipped, rather than ending the connection.
        self.skip_noise = skip_noise
        self.ended = trio.Event()  # set once the connection is over
        self._noise = 0
        self.client_info = client_info or CLIENT_INFO
        # A caller cancelled while waiting: tell the server (notifications/cancelled; over HTTP in
        # the 2026-07-28 era, close the request's response).  Off for protocol tests by default.
        self.cancel_when_cancelled = cancel_when_cancelled
        self.on_notification: list[Callable[[dict[str, Any]], Any]] = []
        self.era = era
        self.version = version or (LATEST_MODERN if era == "modern" else LATEST_LEGACY)
        self.capabilities = capabilities if capabilities is not None else {}
        self.handlers = handlers or {}
        self.log_level: str | None = None  # 2026-07-28: asked on every request (_meta), when set
        # Asked when a request failed for its connection or session: True to send it again.
        self.recover: Callable[[str, dict[str, Any], McpError], Awaitable[bool]] | None = None
        self.notifications: list[dict[str, Any]] = []
        self.unmatched: list[Any] = []  # answers with a null or unknown id, batch arrays
        self.initialize_result: dict[str, Any] | None = None
        self._ids = itertools.count(1)
        self._waiting: dict[Any, Slot] = {}  # where each request in flight wants its response
        self._arrived: trio.Event | None = None  # (made when someone waits: most messages have no watcher)
        self._nursery: trio.Nursery | None = None
        self._over = False  # the reader has seen the connection end: no answer will come
        self._not_json: str | None = None  # the start of what the server sent that was not JSON, if it did

    # -- lifecycle --------------------------------------------------------------------------

    async def run(self, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """Background reader: routes responses, notifications and server→client requests."""
        async with trio.open_nursery() as nursery:
            self._nursery = nursery
            if hasattr(self.end, "route"):  # (an end that can take an answer in its caller's task)
                self.end.route = self._route
            task_status.started()
            while True:
                try:
                    data = await self.end.receive()
                except (trio.EndOfChannel, trio.ClosedResourceError, trio.BrokenResourceError):
                    break
                try:
                    message = orjson.loads(data)
                except orjson.JSONDecodeError:
                    if self.skip_noise:
                        self._noise += 1  # (the first few are worth a warning; a flood, not a line each)
                        level = logging.WARNING if self._noise <= 3 else logging.DEBUG
                        log.log(level, "the server wrote a line that is not JSON, skipped: %r", data[:80])
                        continue
                    # (a stdio server printing to stdout what should go to stderr: nothing after it can be trusted)
                    self._not_json = data[:80].decode(errors="replace")
                    break
                self._route(message)
            self._over = True
            if hasattr(self.end, "route"):
                self.end.route = None
            self.ended.set()
            for channel in self._waiting.values():
                channel.close()
            nursery.cancel_scope.cancel()  # the connection is over: stop answering server requests

    def _route(self, message: Any) -> None:
        if isinstance(message, dict) and "method" in message and "id" in message:
            assert self._nursery is not None
            self._nursery.start_soon(self._answer_server_request, message)
        elif isinstance(message, dict) and "method" in message:
            if self.keep_notifications:
                self.notifications.append(message)
            for listener in self.on_notification:
                try:
                    outcome = listener(message)
                except Exception:  # a caller's callback must not end the connection's reader
                    log.exception("a notification callback failed on %s", message["method"])
                    continue
                if outcome is not None and hasattr(outcome, "__await__"):
                    assert self._nursery is not None
                    self._nursery.start_soon(_wait, outcome)
        elif isinstance(message, dict) and message.get("id") in self._waiting:
            self._waiting.pop(message["id"]).send_nowait(message)
        else:
            self.unmatched.append(message)
        if self._arrived is not None:
            self._arrived.set()
            self._arrived = None

    async def _answer_server_request(self, message: dict[str, Any]) -> None:
        handler = self.handlers.get(message["method"])
        if handler is None:
            reply = {
                "jsonrpc": "2.0",
                "id": message["id"],
                "error": {"code": -32601, "message": f"client has no handler for {message['method']}"},
            }
        else:
            try:
                reply = {"jsonrpc": "2.0", "id": message["id"], "result": await handler(message.get("params", {}))}
            except McpError as err:  # a handler refuses: the server gets this JSON-RPC error
                reply = {"jsonrpc": "2.0", "id": message["id"], "error": err.to_dict()}
        try:
            await self.end.send(orjson.dumps(reply))
        except (trio.ClosedResourceError, trio.BrokenResourceError):
            pass  # the client has closed its end meanwhile: the answer has nowhere to go

    async def initialize(self, version: str | None = None) -> dict[str, Any]:
        params = {
            "protocolVersion": version or self.version,
            "capabilities": self.capabilities,
            "clientInfo": self.client_info,
        }
        result = await self.request("initialize", params, envelope=False)
        self.initialize_result = result
        await self.notify("notifications/initialized")
        return result

    # -- messages ---------------------------------------------------------------------------

    def envelope(self, params: dict[str, Any] | None, meta: dict[str, Any] | None = None) -> dict[str, Any]:
        """``params`` with this client's modern ``_meta`` fields added (modern era only)."""
        params = dict(params or {})
        merged = dict(params.get("_meta") or {})
        if self.era == "modern":
            merged.setdefault("io.modelcontextprotocol/protocolVersion", self.version)
            merged.setdefault("io.modelcontextprotocol/clientCapabilities", self.capabilities)
            merged.setdefault("io.modelcontextprotocol/clientInfo", self.client_info)
            if self.log_level is not None:
                merged.setdefault(META_LOG_LEVEL, self.log_level)
        merged.update(meta or {})
        if merged:
            params["_meta"] = merged
        return params

    async def send_raw(self, frame: bytes) -> None:
        await self.end.send(frame)

    async def send(self, message: Any) -> None:
        await self.end.send(orjson.dumps(message))

    async def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        await self.send(message)

    async def start_request(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        *,
        meta: dict[str, Any] | None = None,
        envelope: bool = True,
        request_id: Any = None,
    ) -> tuple[Any, trio.MemoryReceiveChannel[dict[str, Any]]]:
        """Send a request without waiting; returns its id and a channel that gets the response."""
        send, receive = trio.open_memory_channel[dict[str, Any]](1)
        request_id = await self._send_request(method, params, send, meta=meta, envelope=envelope, request_id=request_id)
        return request_id, receive

    async def _send_request(
        self,
        method: str,
        params: dict[str, Any] | None,
        slot: Slot,
        *,
        meta: dict[str, Any] | None = None,
        envelope: bool = True,
        request_id: Any = None,
        waiting: bool = False,
    ) -> Any:
        """Send a request whose response goes to ``slot``; its id.  ``waiting``: the caller waits for the
        answer, and an end that can (``exchange``: HTTP) takes it in the caller's task, when cancelling
        the caller tells the server anyway (``cancel_when_cancelled``)."""
        request_id = next(self._ids) if request_id is None else request_id
        if self._over:  # (nothing would close its slot: it would wait for ever)
            raise await self._ended(method)
        self._waiting[request_id] = slot
        body = self.envelope(params, meta) if envelope else dict(params or {})
        message = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": body}
        exchange = getattr(self.end, "exchange", None) if waiting and self.cancel_when_cancelled else None
        try:
            if exchange is not None:
                await exchange(message, orjson.dumps(message))
            else:
                await self.send(message)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            self._waiting.pop(request_id, None)
            raise await self._ended(method) from None
        return request_id

    async def response(
        self, method: str, params: dict[str, Any] | None = None, *, request_id: Any = None, **kwargs: Any
    ) -> dict[str, Any]:
        """The whole response message (result or error) to one request (``kwargs``: as ``start_request``)."""
        answer = Answer()
        request_id = next(self._ids) if request_id is None else request_id
        try:
            await self._send_request(method, params, answer, request_id=request_id, waiting=True, **kwargs)
            return await answer.receive()
        except trio.Cancelled:
            if self.cancel_when_cancelled:
                self._waiting.pop(request_id, None)
                with trio.CancelScope(shield=True), trio.move_on_after(2):
                    await self.cancel_request(request_id)
            raise
        except trio.EndOfChannel:
            raise await self._ended(method) from None

    async def _ended(self, method: str) -> McpError:
        """The error for a request the connection ended before answering, saying why when the end can
        (``why_ended``: a server process's exit status and last lines of stderr)."""
        why_ended = getattr(self.end, "why_ended", None)
        if self._not_json is not None:
            why = f": the server sent a message that is not JSON: {self._not_json!r}"
        else:
            why = f": {await why_ended()}" if why_ended is not None else ""
        return McpError(-32000, f"the connection ended before the answer to {method}{why}", {"transport": True})

    async def cancel_request(self, request_id: Any) -> None:
        """Give up on ``request_id``: a task still waiting for its answer gets an error saying so at
        once (an answer that comes after is ignored, as the spec asks), and the server is told
        (2026-07-28 over HTTP: the request's response is closed; otherwise ``notifications/cancelled``)."""
        slot = self._waiting.pop(request_id, None)
        if slot is not None:
            error = {"code": -32000, "message": "the request was cancelled by the client", "data": {"cancelled": True}}
            with contextlib.suppress(trio.WouldBlock, trio.ClosedResourceError, trio.BrokenResourceError):
                slot.send_nowait({"jsonrpc": "2.0", "id": request_id, "error": error})
        abort = getattr(self.end, "abort", None)
        if self.era == "modern" and abort is not None:
            abort(request_id)  # HTTP, 2026-07-28: closing the response is the cancellation
            return
        try:
            await self.notify("notifications/cancelled", {"requestId": request_id, "reason": "cancelled by the client"})
        except (trio.ClosedResourceError, trio.BrokenResourceError, OSError):
            pass

    async def request(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        *,
        resolve_input: bool = False,
        follow_task: bool = True,
        on_task: TaskWatcher | None = None,
        **kwargs: Any,
    ) -> dict[str, Any]:
        """The result of a request; an error response raises ``McpError``.

        ``resolve_input``: answer an ``InputRequiredResult`` through ``handlers`` and retry.
        ``follow_task``: a ``CreateTaskResult`` (2026-07-28 tasks extension) is followed to its
        end (``follow_task()``, ``on_task`` seeing each state) and its result returned as if no
        task had happened.
        """
        params = dict(params or {})
        recoveries = 0
        while True:
            message = await self.response(method, params, **kwargs)
            if "error" in message:
                error = McpError.from_dict(message["error"])
                if (
                    self.recover is not None
                    and recoveries < MAX_RECOVERIES
                    and await self.recover(method, params, error)
                ):
                    recoveries += 1
                    continue  # asked again, under a new id (on a new session, if the old one was lost)
                raise error
            result: dict[str, Any] = message["result"]
            if follow_task and result.get("resultType") == "task":
                return await self.follow_task(result, on_task=on_task, **kwargs)
            if not (resolve_input and result.get("resultType") == "input_required"):
                return result
            answers = {}
            for key, request in (result.get("inputRequests") or {}).items():
                answers[key] = await self._answer(request)
            params["inputResponses"] = answers
            if "requestState" in result:
                params["requestState"] = result["requestState"]
            else:
                params.pop("requestState", None)

    async def _answer(self, request: dict[str, Any]) -> dict[str, Any]:
        """Answer an input request (multi round-trip, a task's ``inputRequests``) by a handler."""
        handler = self.handlers.get(request.get("method", ""))
        if handler is None:
            raise McpError(
                METHOD_NOT_FOUND, f"the server asks {request.get('method')!r}, and this client has no handler for it"
            )
        return await handler(request.get("params", {}))

    async def follow_task(
        self, task: dict[str, Any], *, on_task: TaskWatcher | None = None, **kwargs: Any
    ) -> dict[str, Any]:
        """Poll a task until it ends, at the interval the server suggests; its result.

        ``task``: a 2026-07-28 ``CreateTaskResult``, whose ``inputRequests`` are answered through
        ``handlers`` (``tasks/update``), or in a legacy session the ``task`` of a 2025-11-25
        one, whose questions come as ordinary server requests and whose result is fetched with
        ``tasks/result``.  A failed task raises its error; a cancelled one ``McpError``.
        ``on_task`` sees each state polled.  Cancelled meanwhile, with ``cancel_when_cancelled``,
        the client sends ``tasks/cancel``.
        """
        task_id = task["taskId"]
        try:
            if self.era == "legacy":
                return await self._follow_legacy(task, on_task, **kwargs)
            return await self._follow_modern(task, on_task, **kwargs)
        except trio.Cancelled:
            if self.cancel_when_cancelled:
                with trio.CancelScope(shield=True), trio.move_on_after(2):
                    try:
                        await self.request("tasks/cancel", {"taskId": task_id}, follow_task=False, **kwargs)
                    except McpError:  # ended meanwhile, or gone: nothing left to cancel
                        pass
            raise

    async def _follow_modern(self, task: dict[str, Any], on_task: TaskWatcher | None, **kwargs: Any) -> dict[str, Any]:
        task_id = task["taskId"]
        answered: set[str] = set()
        while True:
            await trio.sleep(_interval(task.get("pollIntervalMs")))
            task = await self.request("tasks/get", {"taskId": task_id}, follow_task=False, **kwargs)
            await _watch(on_task, task)
            status = task["status"]
            if status == "completed":
                return cast("dict[str, Any]", task["result"])
            if status == "failed":
                raise McpError.from_dict(task.get("error"), "the task failed")
            if status == "cancelled":
                raise McpError(-32603, f"task {task_id} was cancelled")
            if status == "input_required":
                answers = {}
                for key, request in (task.get("inputRequests") or {}).items():
                    if key not in answered:  # (each key once: a later poll may still show it)
                        answers[key] = await self._answer(request)
                        answered.add(key)
                if answers:
                    await self.request(
                        "tasks/update", {"taskId": task_id, "inputResponses": answers}, follow_task=False, **kwargs
                    )

    async def _follow_legacy(self, task: dict[str, Any], on_task: TaskWatcher | None, **kwargs: Any) -> dict[str, Any]:
        """2025-11-25: poll ``tasks/get``; once the task has ended, or waits for input (the spec:
        call ``tasks/result`` then, which gives the server a stream to ask on), ``tasks/result``
        answers what the call would have."""
        task_id = task["taskId"]
        while task["status"] == "working":
            await trio.sleep(_interval(task.get("pollInterval")))
            task = await self.request("tasks/get", {"taskId": task_id}, **kwargs)
            await _watch(on_task, task)
        if task["status"] == "cancelled":
            raise McpError(-32603, f"task {task_id} was cancelled")
        return await self.request("tasks/result", {"taskId": task_id}, **kwargs)

    async def call_tool(self, name: str, arguments: dict[str, Any] | None = None, **kwargs: Any) -> dict[str, Any]:
        return await self.request("tools/call", {"name": name, "arguments": arguments or {}}, **kwargs)

    @property
    def arrival(self) -> trio.Event:
        """Set when the next message arrives: take it before looking at what has arrived, then wait on it."""
        if self._arrived is None:
            self._arrived = trio.Event()
        return self._arrived

    async def wait_for_notification(self, method: str, count: int = 1) -> list[dict[str, Any]]:
        """Wait until ``count`` notifications named ``method`` have arrived; return them."""
        while True:
            found = [n for n in self.notifications if n["method"] == method]
            if len(found) >= count:
                return found
            await self.arrival.wait()

    async def wait_for_unmatched(self, count: int = 1) -> list[Any]:
        while len(self.unmatched) < count:
            await self.arrival.wait()
        return self.unmatched


def _interval(suggested: Any) -> float:
    """Seconds until the next poll: the server's suggestion (ms), at least 10 ms; 1 s without one."""
    if not isinstance(suggested, (int, float)) or isinstance(suggested, bool):
        return 1.0
    return max(suggested, 10) / 1000


async def _watch(on_task: TaskWatcher | None, task: dict[str, Any]) -> None:
    """Show a task's state to a caller's callback, whose failure never ends the call."""
    if on_task is None:
        return
    try:
        outcome = on_task(task)
        if outcome is not None and hasattr(outcome, "__await__"):
            await outcome
    except Exception:
        log.exception("a task callback failed")


async def _wait(awaitable: Any) -> None:
    try:
        await awaitable
    except Exception:
        log.exception("a notification callback failed")
