"""Embedding API: serve an App from your own Trio program.

``await nursery.start(serve_stdio, app)`` returns once the server is ready.  Every ``serve_*``
takes ``shutdown_trigger``, an async callable whose return starts a graceful shutdown (stop
reading, let in-flight requests finish within the grace period, cancel the rest, flush).
"""

from __future__ import annotations

import os
import signal
from collections.abc import Awaitable, Callable

import trio

from .app import App
from .runtime.limits import SessionLimits
from .runtime.stream import MessageStream
from .runtime.stream_session import StreamSession
from .transports.stdio import open_stdio_stream, stdout_reserved_for_messages

ShutdownTrigger = Callable[[], Awaitable[object]]


class ServeError(Exception):
    """The server could not start (one line for the user; exit status 2)."""


async def wait_for_signals(*signals: int) -> None:
    """A shutdown trigger: returns at the first of ``signals`` (default SIGTERM, SIGINT)."""
    with trio.open_signal_receiver(*(signals or (signal.SIGTERM, signal.SIGINT))) as received:
        async for _ in received:
            return


async def serve_stream(
    app: App,
    stream: MessageStream,
    *,
    limits: SessionLimits | None = None,
    shutdown_trigger: ShutdownTrigger | None = None,
    transport: str = "memory",
    task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Serve one session over any message stream until it ends or the trigger fires; ``transport``
    names what carries it (``stdio``, ``memory``, ...) for logs and telemetry."""
    session = StreamSession(app, stream, limits, transport=transport)
    shutdown = trio.Event()
    async with app.running(), trio.open_nursery() as nursery:
        if shutdown_trigger is not None:

            async def watch() -> None:
                await shutdown_trigger()
                shutdown.set()

            nursery.start_soon(watch)
        task_status.started()
        await session.run(shutdown)
        nursery.cancel_scope.cancel()


async def serve_stdio(
    app: App,
    *,
    limits: SessionLimits | None = None,
    shutdown_trigger: ShutdownTrigger | None = None,
    reserve_stdout: bool = True,
    threads: bool | None = None,
    task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Serve over this process's stdin/stdout until stdin closes or the trigger fires.
    ``threads``: read and write them in worker threads (None: where Trio cannot otherwise, as on
    Windows, or when ``MCPTRIO_STDIO=threads``; see ``transports/stdio.py``)."""
    limits = limits or app.limits
    if reserve_stdout:
        with stdout_reserved_for_messages() as message_fd:
            await _serve_fds(app, message_fd, limits, shutdown_trigger, threads, task_status)
    else:
        await _serve_fds(app, os.dup(1), limits, shutdown_trigger, threads, task_status)


async def _serve_fds(
    app: App,
    message_fd: int,
    limits: SessionLimits,
    shutdown_trigger: ShutdownTrigger | None,
    threads: bool | None,
    task_status: trio.TaskStatus[None],
) -> None:
    stream = open_stdio_stream(message_fd, limits.max_message_size, threads=threads)
    try:
        await serve_stream(
            app, stream, limits=limits, shutdown_trigger=shutdown_trigger, transport="stdio", task_status=task_status
        )
    finally:
        with trio.CancelScope(shield=True):
            await stream.aclose()
