"""Reading a request body: bounded in size and in time, and no timed wait for a body already in."""

from __future__ import annotations

import trio

from ...protocol import errors
from ..net.refusal import HttpError
from .exchange import Sink
from .server.asgi_io import Receive


async def read_body(headers: dict[bytes, bytes], receive: Receive, sink: Sink, limit: int, timeout: float) -> bytes:
    """The whole request body, at most ``limit`` bytes (413), arriving within ``timeout`` s (408)."""
    declared = headers.get(b"content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise too_large(limit)  # refused before reading a byte of it
    chunks, size = [], 0
    deadline = None  # set at the first wait: a body already here needs none
    nowait = sink.receive_nowait  # (the servers' scope extension: what has arrived, without waiting)
    while True:
        message = None
        if nowait is not None:
            message = nowait()
            if message is None:
                # A server may start the app before it has queued the body (hypercorn does, about
                # every other POST): one trip through the scheduler lets it, and costs less than
                # the timed wait below with its cancel scope and deadline.
                await trio.lowlevel.checkpoint()
                message = nowait()
        if message is None:
            if deadline is None:
                deadline = trio.current_time() + timeout
            with trio.move_on_at(deadline) as waited:
                message = await receive()
            if waited.cancelled_caught:
                raise HttpError(
                    408, errors.invalid_request(f"Request Timeout: the body did not arrive within {timeout:g} s")
                )
            assert message is not None  # (received: the scope was not cancelled)
        if message["type"] == "http.disconnect":
            raise HttpError(400, errors.invalid_request("client went away before sending the whole body"))
        body = message.get("body", b"")
        size += len(body)
        if size > limit:
            raise too_large(limit)
        chunks.append(body)
        if not message.get("more_body", False):
            sink.body_read = True
            return b"".join(chunks)


def too_large(limit: int) -> HttpError:
    return HttpError(413, errors.invalid_request(f"request body exceeds the limit of {limit} bytes"))
