"""One session as a supervised nursery of actors: reader, writer, dispatcher, a worker per request.

The reader turns frames into protocol events and never awaits handler work: answers the
protocol gives at once go to the writer's outbox, requests go to the dispatcher, which starts a
worker and returns.  The writer is the sole owner of ``stream.send``.  If the writer's stream
breaks, the whole session is cancelled.  Shutdown (end of input, or the ``shutdown`` event):
stop reading, give workers ``shutdown_grace`` seconds, cancel the rest (they are answered with
an error, so nothing in flight is lost), flush the writer, return.
"""

from __future__ import annotations

import sys
import traceback
from typing import TYPE_CHECKING, Any

import orjson
import trio

from ..framing import Oversize
from ..protocol import errors
from ..protocol.events import Cancel, ClientReply, Dispatch, IncomingRequest, Notified, Send
from ..protocol.session import ServerProtocol, error_message
from .client_calls import ClientCalls
from .limits import SessionLimits
from .worker import Dispatcher

if TYPE_CHECKING:
    from ..app import App
    from ..transports.base import MessageStream


class Session:
    """The runtime side of one connection; handlers reach it through their Context."""

    def __init__(self, app: App, stream: MessageStream, limits: SessionLimits | None = None) -> None:
        self.app = app
        self.stream = stream
        self.limits = limits or app.limits
        self.protocol = ServerProtocol(app.identity)
        self._outbox_send, self._outbox_receive = trio.open_memory_channel[Any](self.limits.outbox_size)
        self.client_calls = ClientCalls(self.send)
        self.dispatcher = Dispatcher(self)
        self.subscriptions: set[str] = set()  # legacy resources/subscribe
        self._cancel_session = trio.CancelScope()

    # -- what workers and contexts call ---------------------------------------------------

    async def send(self, message: dict[str, Any] | list[Any]) -> None:
        """Encode here, in the caller's task, so a value JSON can't carry fails where it came from."""
        await self._outbox_send.send(orjson.dumps(message))

    async def notify(self, request: IncomingRequest, method: str, params: dict[str, Any]) -> None:
        """A notification about ``request`` (progress, log) while it is in flight."""
        await self.send({"jsonrpc": "2.0", "method": method, "params": params})

    async def call_client(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        return await self.client_calls.call(method, params, self.limits.client_request_timeout)

    # -- the actors -----------------------------------------------------------------------

    async def run(self, shutdown: trio.Event | None = None) -> None:
        """Serve until end of input or ``shutdown``; returns after draining."""
        with self._cancel_session:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self._writer)
                with self.app.attach(self):
                    async with trio.open_nursery() as workers:
                        self.dispatcher.nursery = workers
                        await self._read(shutdown)
                        await self.dispatcher.drain(self.limits.shutdown_grace)
                await self._outbox_send.aclose()

    async def _read(self, shutdown: trio.Event | None) -> None:
        async with trio.open_nursery() as nursery:
            if shutdown is not None:
                nursery.start_soon(_cancel_when_set, shutdown, nursery.cancel_scope)
            while True:
                try:
                    frame = await self.stream.receive()
                except (trio.BrokenResourceError, trio.ClosedResourceError):
                    frame = None
                if frame is None:
                    break
                if isinstance(frame, Oversize):
                    events = self.protocol.receive_oversize(frame.size, self.limits.max_message_size)
                else:
                    events = self.protocol.receive(frame)
                for event in events:
                    await self._handle(event)
            nursery.cancel_scope.cancel()

    async def _handle(self, event: Any) -> None:
        if isinstance(event, Dispatch):
            if not self.dispatcher.start(event.request):
                self.protocol.finished(event.request.id)
                err = errors.internal_error(
                    f"too many requests in flight (limit {self.limits.max_in_flight}); retry later"
                )
                await self.reply(event.request, error_message(event.request.id, err))
        elif isinstance(event, Send):
            await self.send(event.message)
        elif isinstance(event, Cancel):
            self.dispatcher.cancel(event.request_id)
        elif isinstance(event, ClientReply):
            self.client_calls.reply(event.request_id, event.result, event.error)
        elif isinstance(event, Notified):
            self.app.on_client_notification(event.method, event.params)

    async def reply(self, request: IncomingRequest, message: dict[str, Any] | None) -> None:
        """Send a request's answer (None: it was cancelled), through its batch if it had one."""
        if request.batch is not None:
            complete = request.batch.add(message)
            if complete is not None:
                await self.send(complete)
        elif message is not None:
            await self.send(message)

    async def _writer(self) -> None:
        try:
            async for data in self._outbox_receive:
                await self.stream.send(data)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            self._cancel_session.cancel()  # the peer is gone: end the session
        except Exception:
            traceback.print_exc(file=sys.stderr)
            self._cancel_session.cancel()


async def _cancel_when_set(event: trio.Event, scope: trio.CancelScope) -> None:
    await event.wait()
    scope.cancel()
