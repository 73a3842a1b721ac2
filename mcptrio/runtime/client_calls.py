"""Server→client requests of the legacy era: the pending table, with a timeout on each."""

from __future__ import annotations

import itertools
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..protocol.events import RequestId, Route

import attrs
import trio


class ClientRequestFailed(Exception):
    """The client answered a server→client request with an error (``code``, ``message``,
    ``data`` are its JSON-RPC error), or not in time (``code`` is None)."""

    def __init__(self, text: str, error: dict[str, Any] | None = None) -> None:
        super().__init__(text)
        error = error or {}
        code = error.get("code")
        self.code: int | None = code if isinstance(code, int) and not isinstance(code, bool) else None
        message = error.get("message")
        self.message: str = message if isinstance(message, str) else text
        self.data = error.get("data")


@attrs.define(slots=True, eq=False)
class _Pending:
    done: trio.Event = attrs.field(factory=trio.Event)
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None


class ClientCalls:
    """Sends requests to the client through ``send`` and matches the client's replies by id."""

    def __init__(self, send: Callable[[dict[str, Any], Any], Awaitable[None]], prefix: str = "mcptrio-") -> None:
        self._send = send
        self._pending: dict[str, _Pending] = {}
        self._ids = itertools.count(1)
        self._prefix = prefix  # (processes sharing a session each use their own)

    def pending(self, request_id: RequestId) -> bool:
        """Is a call with this id waiting for the client's answer here?"""
        return isinstance(request_id, str) and request_id in self._pending

    async def call(
        self, method: str, params: dict[str, Any], timeout: float, route: Route | None = None
    ) -> dict[str, Any]:
        request_id = f"{self._prefix}{next(self._ids)}"
        pending = self._pending[request_id] = _Pending()
        try:
            await self._send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}, route)
            with trio.move_on_after(timeout):
                await pending.done.wait()
        except trio.Cancelled:
            with trio.CancelScope(shield=True), trio.move_on_after(1):
                await self._cancel(request_id, "the request that asked for it was cancelled", route)
            raise
        finally:
            del self._pending[request_id]
        if not pending.done.is_set():
            await self._cancel(request_id, "timed out", route)
            raise ClientRequestFailed(f"the client did not answer {method} within {timeout:g} s")
        if pending.error is not None:
            message = pending.error.get("message", "error")
            raise ClientRequestFailed(f"the client answered {method} with an error: {message}", pending.error)
        assert pending.result is not None
        return pending.result

    async def _cancel(self, request_id: str, reason: str, route: Route | None) -> None:
        params = {"requestId": request_id, "reason": reason}
        await self._send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": params}, route)

    def reply(self, request_id: RequestId, result: dict[str, Any] | None, error: dict[str, Any] | None) -> None:
        """The client answered; unknown or late ids are ignored."""
        pending = self._pending.get(request_id) if isinstance(request_id, str) else None
        if pending is None or pending.done.is_set():
            return
        pending.result, pending.error = result, error
        pending.done.set()
