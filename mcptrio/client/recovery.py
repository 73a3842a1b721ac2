"""A lost legacy session is not the end: when the server answers ``404`` for the session (a restart,
a load balancer that sent the request elsewhere), the client starts a new one and asks again.

What had not reached the server (a 404 is refused before anything runs) is asked again on the new
session.  A request whose connection broke after it was sent may have run: it is asked again only
when repeating it is harmless — any request but ``tools/call``, and a tool annotated
``idempotentHint`` or ``readOnlyHint``; otherwise the caller gets an ``McpError`` whose
``data.mayHaveRun`` is true.  The same rule holds in the 2026-07-28 era, where asking again needs no
new session.  (A connection that could not be made at all is tried again by ``HttpEnd`` itself.)
One new session per failed request at most; each is logged, and told to
``on_session_lost(old_id, new_id)`` when given.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

import trio

from ..protocol.errors import McpError
from .raw import RawClient

log = logging.getLogger("mcptrio.client")
SessionLost = Callable[[str | None, str | None], Any]


class SessionRecovery:
    def __init__(
        self,
        raw: RawClient,
        *,
        describe: Callable[[dict[str, Any]], None],
        repeatable: Callable[[str], Awaitable[bool]],
        on_session_lost: SessionLost | None = None,
    ) -> None:
        self.raw = raw
        self.describe = describe  # takes the new initialize result
        self.repeatable = repeatable  # may this tool be called twice?
        self.on_session_lost = on_session_lost
        self.sessions_started = 0
        self._lock = trio.Lock()

    async def __call__(self, method: str, params: dict[str, Any], error: McpError) -> bool:
        end = self.raw.end
        data = error.data if isinstance(error.data, dict) else {}
        if not hasattr(end, "forget_session") or method == "initialize":
            return False
        lost = self.raw.era == "legacy" and data.get("httpStatus") == 404 and data.get("sessionId") is not None
        broken = bool(data.get("transport") or lost) and data.get("mayHaveRun") is True
        if not lost and not broken:
            return False
        if broken and method == "tools/call" and not await self.repeatable(str(params.get("name"))):
            raise McpError(
                error.code,
                f"the connection broke during tools/call {params.get('name')!r}, which may "
                "have run: not called again, since the tool is not annotated idempotentHint "
                f"or readOnlyHint ({error.message})",
                {**data, "mayHaveRun": True},
            )
        if lost:
            await self.new_session(data["sessionId"])
        return True

    async def new_session(self, lost: str) -> None:
        """Initialize a new session in place of ``lost`` (once: requests that failed together wait
        for the first one's)."""
        end: Any = self.raw.end
        async with self._lock:
            if end.session_id != lost:
                return  # (another request started the new session already)
            listening = bool(getattr(end, "listening", False))
            end.forget_session()
            self.describe(await self.raw.initialize())
            self.sessions_started += 1
            log.warning("the server lost session %s (HTTP 404): started session %s", lost, end.session_id)
            if listening:
                await end.open_stream()
            if self.on_session_lost is not None:
                outcome = self.on_session_lost(lost, end.session_id)
                if outcome is not None and hasattr(outcome, "__await__"):
                    await outcome
