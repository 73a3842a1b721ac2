"""The deprecated HTTP+SSE transport of 2024-11-05, for old clients (off unless enabled).

``GET {path}/sse`` opens a stream whose first event, ``endpoint``, names the POST URL of this
session; every JSON-RPC message the client POSTs there is accepted with 202 and answered on the
stream.  The stream is one ordinary session (reader, writer, workers) that ends with the GET.
"""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs

import trio

from ....framing import Oversize
from ....runtime.limits import SessionLimits
from ....runtime.stream import OneByOne
from ....runtime.stream_session import StreamSession
from ...net import authorization
from .. import sse
from ..exchange import Sink

if TYPE_CHECKING:
    from ....app import App


class SseStream(OneByOne):
    """Frames POSTed for this session in; messages out as SSE events on the GET response."""

    def __init__(self, sink: Sink, limit: int) -> None:
        self.sink = sink
        self.binding: str | None = sink.principal.binding if sink.principal is not None else None
        self.inbox_send, self.inbox = trio.open_memory_channel[bytes](64)
        self.limit = limit

    async def receive(self) -> bytes | Oversize | None:
        try:
            frame = await self.inbox.receive()
        except (trio.EndOfChannel, trio.ClosedResourceError):
            return None
        return Oversize(len(frame)) if len(frame) > self.limit else frame

    async def send(self, data: bytes) -> None:
        if self.sink.ended:
            raise trio.BrokenResourceError("the SSE stream has ended")
        await self.sink.write(sse.event(data))


class LegacySseEndpoints:
    """The two endpoints, and the live streams by session id."""

    def __init__(self, app: App, limits: SessionLimits, base_path: str, keepalive: float) -> None:
        self.app = app
        self.limits = limits
        self.sse_path = base_path.rstrip("/") + "/sse"
        self.messages_path = base_path.rstrip("/") + "/messages"
        self.keepalive = keepalive
        self.streams: dict[str, SseStream] = {}

    async def get(self, receive: Any, sink: Sink, shutdown: trio.Event) -> None:
        session_id = secrets.token_urlsafe(24)
        stream = SseStream(sink, self.limits.max_message_size)
        self.streams[session_id] = stream
        try:
            await sink.start(200, list(sse.SSE_HEADERS))
            endpoint = f"{self.messages_path}?session_id={session_id}".encode()
            await sink.write(b"event: endpoint\ndata: " + endpoint + b"\n\n")
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self._until_disconnect, receive, stream, nursery.cancel_scope)
                nursery.start_soon(self._keepalive, sink)
                nursery.start_soon(self._end_input_at, authorization.expiry_deadline(sink.principal), stream)
                session = StreamSession(self.app, stream, self.limits, transport="sse")
                session.principal = sink.principal
                await session.run(shutdown)
                nursery.cancel_scope.cancel()
            await sink.write(b"", end=True)
        finally:
            del self.streams[session_id]

    async def _until_disconnect(self, receive: Any, stream: SseStream, scope: trio.CancelScope) -> None:
        while (await receive())["type"] != "http.disconnect":
            pass
        await stream.inbox_send.aclose()  # end of input: the session drains

    @staticmethod
    async def _end_input_at(deadline: float, stream: SseStream) -> None:
        """The token the stream was opened with expires: no more input, the session drains and the
        stream ends (the client reconnects with a fresh token)."""
        await trio.sleep_until(deadline)
        await stream.inbox_send.aclose()

    async def _keepalive(self, sink: Sink) -> None:
        while not sink.ended:
            await trio.sleep(self.keepalive)
            await sink.write(sse.COMMENT)

    def stream_for(self, query_string: bytes) -> SseStream | None:
        values = parse_qs(query_string.decode("latin-1")).get("session_id")
        return self.streams.get(values[0]) if values else None
