"""A session over one message stream (stdio, memory, WebSocket) as a supervised nursery of actors.

The reader turns frames into protocol events and never awaits handler work: answers the
protocol gives at once go to the writer's outbox, requests go to the dispatcher, which starts a
worker and returns.  The writer is the sole owner of ``stream.send``; if the stream breaks, the
whole session is cancelled.  Shutdown (end of input, or the ``shutdown`` event): stop reading,
give workers ``shutdown_grace`` seconds, cancel the rest (they are answered with an error, so
nothing in flight is lost), flush the writer, return.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import orjson
import trio

from ..framing import Oversize
from ..protocol.events import Dispatch
from .core import SessionCore
from .limits import SessionLimits

if TYPE_CHECKING:
    from ..protocol.events import IncomingRequest, Route
    from .host import Host
    from .stream import MessageStream

log = logging.getLogger("mcptrio.session")


class StreamSession(SessionCore):
    """One connection's session: reader, writer, dispatcher and workers in one nursery."""

    def __init__(
        self, host: Host, stream: MessageStream, limits: SessionLimits | None = None, *, transport: str = "memory"
    ) -> None:
        super().__init__(host, limits)
        self.stream = stream
        self.transport = transport
        self._outbox_send, self._outbox_receive = trio.open_memory_channel[bytes](self.limits.outbox_size)
        self._cancel_session = trio.CancelScope()

    async def send(self, message: dict[str, Any] | list[Any], route: Route | None = None) -> None:
        """Encode here, in the caller's task, so a value JSON can't carry fails where it came from."""
        await self._outbox_send.send(orjson.dumps(message))

    def post(self, message: dict[str, Any], route: Route | None = None) -> None:
        try:
            self._outbox_send.send_nowait(orjson.dumps(message))
        except trio.WouldBlock:
            log.warning("client is not reading; dropped %s", message.get("method"))
        except trio.ClosedResourceError:
            pass  # the session is ending

    def reply_nowait(self, request: IncomingRequest, message: dict[str, Any] | None) -> bool:
        if request.batch is not None:
            return False  # (its array goes out once complete: reply)
        if message is not None:
            try:
                self._outbox_send.send_nowait(orjson.dumps(message))
            except trio.WouldBlock:
                return False
        return True

    async def run(self, shutdown: trio.Event | None = None) -> None:
        """Serve until end of input or ``shutdown``; returns after draining."""
        with self._cancel_session:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self._writer)
                with self.host.attach(self):
                    async with trio.open_nursery() as workers:
                        self.dispatcher.nursery = workers
                        peer_gone = await self._read(shutdown)
                        if peer_gone:
                            self.dispatcher.cancel_all()  # nobody is left to answer
                        else:
                            await self.dispatcher.drain(self.limits.shutdown_grace)
                        self.dispatcher.close()
                await self._outbox_send.aclose()

    async def _read(self, shutdown: trio.Event | None) -> bool:
        """Read until end of input (False) or until the peer is gone altogether (True)."""
        peer_gone = False
        async with trio.open_nursery() as nursery:
            if shutdown is not None:
                nursery.start_soon(_cancel_when_set, shutdown, nursery.cancel_scope)
            while True:
                try:
                    frame = await self.stream.receive()
                except (trio.BrokenResourceError, trio.ClosedResourceError):
                    peer_gone = True
                    break
                if frame is None:
                    break
                if isinstance(frame, Oversize):
                    events = self.protocol.receive_oversize(frame.size, self.limits.max_message_size)
                else:
                    events = self.protocol.receive(frame)
                for event in events:
                    if type(event) is Dispatch:  # (the usual event: handled here, without a call to await)
                        if not self.dispatch(event.request):
                            await self.refuse_busy(event.request)
                    else:
                        await self.handle_event(event)
            nursery.cancel_scope.cancel()
        return peer_gone

    async def _writer(self) -> None:
        outbox = self._outbox_receive
        try:
            async for data in outbox:
                batch = [data]
                while len(batch) < 256:  # whatever else is queued goes out in the same write
                    try:
                        batch.append(outbox.receive_nowait())
                    except (trio.WouldBlock, trio.EndOfChannel):  # (closed: this batch is the last)
                        break
                await self.stream.send_many(batch)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            self._cancel_session.cancel()  # the peer is gone: end the session
        except Exception:
            log.exception("the session's writer failed")
            self._cancel_session.cancel()


async def _cancel_when_set(event: trio.Event, scope: trio.CancelScope) -> None:
    await event.wait()
    scope.cancel()
