"""Legacy sessions shared by several processes (``--state redis://…``): any request on any worker.

A session's record (version, client info and capabilities, log level, subscriptions, principal,
the components switched for it alone)
lives in the shared state; a worker that meets a session id it does not hold builds a local
core from it, and every use renews and re-reads it (one round trip), so a DELETE, an expiry or a
``logging/setLevel`` on another worker is seen at the next request.  What stays per process is
what runs: a request's worker, its cancel scope, a pending server→client call.  So a
``notifications/cancelled`` or a client's answer that lands on another worker is relayed to the
worker that holds the request (the fan-out), and every event is also appended to the session's
event log in the shared state, so a client resumes with ``Last-Event-ID`` on any worker.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import orjson
import trio

from ....app.visibility import Switches
from ....protocol import errors
from ....protocol.events import RequestId
from ....protocol.session import INITIALIZING, READY, error_message
from ....state import StateUnavailable
from ...net.refusal import HttpError, retry_later
from .. import sse
from ..exchange import Sink

if TYPE_CHECKING:
    from ....state.fanout import ClientReplied, RequestCancelled
    from ....state.redis import RedisState
    from .sessions import HttpSession

log = logging.getLogger("mcptrio.http")
APPEND_LAG = 2.0  # seconds an event written to a client may take to reach the shared log

TAIL_BLOCK = 1.0  # seconds a resumed stream waits for more events before it checks its writer is alive


def record_of(session: HttpSession) -> dict[str, Any]:
    protocol = session.protocol
    return {
        "v": protocol.legacy_version,
        "caps": protocol.client_capabilities,
        "info": protocol.client_info,
        "lvl": protocol.log_level,
        "subs": sorted(session.subscriptions),
        "bind": session.binding,
        "ready": protocol.state == READY,
        "vis": session.switches.to_json() if session.switches is not None else None,
    }


def changed_fields(session: HttpSession, before: dict[str, Any]) -> dict[str, Any]:
    """What a request changed in the record (log level, subscriptions, initialized)."""
    now = record_of(session)
    return {name: now[name] for name in ("lvl", "subs", "ready", "vis") if now[name] != before.get(name)}


def restore(session: HttpSession, record: dict[str, Any]) -> None:
    """Bring a local core up to date with the shared record."""
    protocol = session.protocol
    protocol.legacy_version = record.get("v")
    protocol.client_capabilities = record.get("caps") or {}
    protocol.client_info = record.get("info")
    protocol.log_level = record.get("lvl")
    if protocol.state != READY:
        protocol.state = READY if record.get("ready") else INITIALIZING
    session.subscriptions = set(record.get("subs") or ())
    session.binding = record.get("bind")
    session.switches = Switches.from_json(record.get("vis"))
    if session.switches is not None:
        session.app.visibility.session_switched()


def unavailable(request_id: RequestId | None = None) -> HttpError:
    return retry_later("the shared session store is unreachable: retry shortly", request_id)


def relay_targets(session: HttpSession, value: Any) -> list[RequestCancelled | ClientReplied]:
    """Cancellations and client answers in a POST body that belong to no request of this
    worker: for the worker that holds it."""
    from ....state.fanout import ClientReplied, RequestCancelled

    assert session.session_id is not None
    items = value if isinstance(value, list) else [value]
    out: list[RequestCancelled | ClientReplied] = []
    for item in items:
        if not isinstance(item, dict) or item.get("jsonrpc") != "2.0":
            continue
        if item.get("method") == "notifications/cancelled" and isinstance(item.get("params"), dict):
            request_id = item["params"].get("requestId")
            if _is_id(request_id) and request_id not in session.protocol.in_flight:
                out.append(RequestCancelled(session.session_id, request_id))
        elif "method" not in item and _is_id(item.get("id")) and not session.client_calls.pending(item["id"]):
            result, error = item.get("result"), item.get("error")
            out.append(
                ClientReplied(
                    session.session_id,
                    item["id"],
                    result if isinstance(result, dict) else None,
                    error if isinstance(error, dict) else None,
                )
            )
    return out


def apply_relayed(session: HttpSession, message: RequestCancelled | ClientReplied) -> None:
    """A cancellation or client answer relayed from another worker, for a request held here."""
    from ....state.fanout import RequestCancelled

    if isinstance(message, RequestCancelled):
        if message.request_id in session.protocol.in_flight:
            session.dispatcher.cancel(message.request_id)
    else:
        session.client_calls.reply(message.request_id, message.result, message.error)


def _is_id(value: Any) -> bool:
    """A JSON-RPC request id: a string or an integer (not a bool); nothing else names a request."""
    return isinstance(value, (str, int)) and not isinstance(value, bool)


async def resume_elsewhere(
    shared: RedisState,
    session: HttpSession,
    stream: int,
    seq: int,
    sink: Sink,
    receive: Any,
    headers: list[tuple[bytes, bytes]],
) -> None:
    """``Last-Event-ID`` names a stream another worker wrote: replay what the client missed from
    the shared log, then follow it live until its final answer.  If the worker writing it died,
    the request is not re-run: the client gets an error for it instead of waiting forever."""
    from ....state.fanout import StreamCarried

    events, after, writer = await shared.events_after(session.session_id or "", stream, seq)
    # The writer's events reach the log from a queue that never makes its request wait, so an event
    # the client has seen may not be stored yet: the stream is unknown only once that lag has passed.
    with trio.move_on_after(APPEND_LAG):
        while writer is None:
            await trio.sleep(0.05)
            events, after, writer = await shared.events_after(session.session_id or "", stream, seq)
    if writer is None and not events:
        raise HttpError(404, errors.invalid_request("Last-Event-ID names no stream of this session"))
    await sink.start(200, sse.SSE_HEADERS + headers)
    log.debug("resuming a stream of session %s… that another worker writes", (session.session_id or "")[:6])
    await shared.publish(StreamCarried(session.session_id or "", stream, True))
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_until_disconnect, receive, nursery.cancel_scope)
            final = False
            while True:
                for n, data, final in events:  # noqa: B007 - the last event's flag is read after the loop
                    seq = n
                    if data:
                        await sink.write(sse.event(data, f"{stream}-{n}"))
                if final or sink.ended:
                    break
                if writer is not None and not await shared.worker_alive(writer[0]):
                    await _writer_died(sink, stream, seq, writer[1], session)
                    break
                events, after = await shared.tail(session.session_id or "", stream, seq, after, TAIL_BLOCK)
            await sink.write(b"", end=True)
            nursery.cancel_scope.cancel()
    except StateUnavailable:
        await sink.write(b"", end=True)  # the client reconnects with its last id once the store is back
    finally:
        with trio.CancelScope(shield=True), trio.move_on_after(1):
            try:
                await shared.publish(StreamCarried(session.session_id or "", stream, False))
            except StateUnavailable:
                pass


async def replay(
    shared: RedisState, session: HttpSession, stream: int, seq: int, sink: Sink, headers: list[tuple[bytes, bytes]]
) -> None:
    """Start the response with the events of ``stream`` after ``seq`` (a GET stream resumed here)."""
    events, _, _ = await shared.events_after(session.session_id or "", stream, seq)
    await sink.start(200, sse.SSE_HEADERS + headers)
    for n, data, _ in events:
        if data:
            await sink.write(sse.event(data, f"{stream}-{n}"))


async def _writer_died(sink: Sink, stream: int, seq: int, request_id: RequestId, session: HttpSession) -> None:
    log.warning(
        "a resumed stream's worker is gone: request %r of session %s… was not completed",
        request_id,
        (session.session_id or "")[:6],
    )
    err = errors.unavailable("the worker running this request stopped before it finished; it was not re-run")
    await sink.write(sse.event(orjson.dumps(error_message(request_id, err)), f"{stream}-{seq + 1}"))


async def _until_disconnect(receive: Any, scope: trio.CancelScope) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass
    scope.cancel()
