"""One caller's request forwarded to an upstream, and what the upstream sends back for it.

The upstream session is shared: many callers' requests are in flight on it at once.  What it sends
during a request is given back to that request's caller:

- progress, by a progress token of the gateway's own per call (exact on every transport);
- a question (``elicitation/create``, ``sampling/createMessage``, ``roots/list``): a 2026-07-28
  upstream answers the call with an ``InputRequiredResult`` (exact), whose questions are the
  caller's, under the upstream's own keys, and the call is sent again with the answers and the
  upstream's ``requestState``; a legacy upstream pushes it, and it goes to the caller whose call is
  the only one in flight; with several in flight the upstream gets an error saying the gateway
  cannot tell whose it is;
- log messages: like a pushed question; with several calls in flight they go to the gateway's log.

The caller's question is asked with ``ctx.ask_many``, in the caller's era: a 2026-07-28 caller gets
an ``InputRequiredResult``, and its retry runs the call upstream again, where the same question is
answered from the retry's ``inputResponses``.  A 2026-07-28 upstream is told the caller's own
capabilities, so it decides what to ask as it would for the caller.  Cancelling the caller cancels
the upstream request.
"""

from __future__ import annotations

import contextvars
import hashlib
import itertools
import logging
import math
from typing import TYPE_CHECKING, Any

import attrs
import orjson
import trio

from ..app.errors import ClientCapabilityMissing, InputRequired
from ..app.tasks.methods import client_declares
from ..protocol import errors
from ..protocol.errors import McpError
from ..protocol.session import LOG_LEVELS, META_CAPABILITIES, META_LOG_LEVEL

if TYPE_CHECKING:
    from ..app.context import Context

log = logging.getLogger("mcptrio.gateway")

OUTBOX = 256  # what the upstream sends for one call and its caller has not taken yet; more is dropped
MAX_ROUNDS = 10  # input round trips with a 2026-07-28 upstream for one call
GATHER = 0.02  # seconds a pushed question waits for others pushed with it (a legacy upstream, a 2026-07-28 caller)
_tokens = itertools.count(1)
current: contextvars.ContextVar[Call | None] = contextvars.ContextVar("mcptrio.gateway.call", default=None)


@attrs.define(eq=False)
class Call:
    """A caller's request in flight on an upstream session.

    Nothing runs beside a call until the upstream sends something for it: then its pump (what is
    delivered, in order) or a gathering of pushed questions is started in ``nursery``, the link's."""

    ctx: Context
    via: object = None  # the caller's own upstream session it goes over (None: the shared one)
    nursery: trio.Nursery | None = None  # where what runs beside the call is started, on demand
    token: str = attrs.field(factory=lambda: f"mcptrio-gateway-{next(_tokens)}")
    scope: trio.CancelScope = attrs.field(kw_only=True)
    # When the upstream's timeout for it ends: its link cancels ``scope`` then (``Link._time_calls``).
    due: float = attrs.field(kw_only=True, default=math.inf)
    # What stopped it on the caller's side (a 2026-07-28 question to ask first), raised once it ends.
    stopped: BaseException | None = None
    questions: dict[str, dict[str, Any]] = attrs.field(factory=dict)  # for a 2026-07-28 caller, by key
    ended: trio.Event = attrs.field(factory=trio.Event)
    _send: trio.MemorySendChannel[dict[str, Any]] | None = None
    _pumping: trio.CancelScope | None = None
    _pumped: trio.Event | None = None

    def deliver(self, message: dict[str, Any]) -> None:
        """Pass a notification to the caller, in the order they came (never waits)."""
        if self._send is None:
            if self.nursery is None or self.ended.is_set():
                return
            self._send, receive = trio.open_memory_channel[dict[str, Any]](OUTBOX)
            self._pumping, self._pumped = trio.CancelScope(), trio.Event()
            self.nursery.start_soon(self._pump, receive, self._pumping, self._pumped)
        try:
            self._send.send_nowait(message)
        except (trio.WouldBlock, trio.ClosedResourceError):
            pass

    async def _pump(
        self, receive: trio.MemoryReceiveChannel[dict[str, Any]], scope: trio.CancelScope, pumped: trio.Event
    ) -> None:
        try:
            with scope:
                async for message in receive:
                    params = message.get("params") or {}
                    try:
                        if message["method"] == "notifications/progress":
                            total = params.get("total")
                            await self.ctx.progress(params["progress"], total, params.get("message"))
                        elif params.get("level") in LOG_LEVELS:
                            await self.ctx.log(params["level"], params.get("data"), params.get("logger"))
                    except (ValueError, KeyError, TypeError):  # (progress that went down, a malformed message)
                        continue
        except Exception:  # (the caller's connection went away meanwhile: never the link's end)
            log.debug("passing on what the upstream sent for a call failed", exc_info=True)
        finally:
            pumped.set()

    async def drained(self) -> None:
        """What came before the answer has been passed on (the pump, if one started, has ended)."""
        if self._send is not None and self._pumped is not None:
            self._send.close()
            await self._pumped.wait()

    def stop_pump(self) -> None:
        if self._pumping is not None:
            self._pumping.cancel()

    async def ask(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """The caller's answer to a legacy upstream's pushed question; what the caller cannot answer
        is an error for the upstream.

        A 2026-07-28 caller is asked in the call's answer: the questions the upstream pushes at
        once (within ``GATHER`` seconds of each other) go out together, each keyed by what it asks,
        so that the retry, which runs the call upstream again, finds each answer however the
        upstream orders its questions then."""
        key = question_key(method, params)
        try:
            return await self.ctx.ask(method, params, key=key)
        except InputRequired as exc:
            self.questions.update(exc.requests)
            if self.nursery is not None:
                self.nursery.start_soon(self._ask_caller, len(self.questions))
            await self.ended.wait()
            raise McpError(
                errors.INTERNAL_ERROR, "the gateway's caller is asked first; the call will be sent again"
            ) from None
        except ClientCapabilityMissing as exc:
            raise McpError(errors.INVALID_REQUEST, str(exc)) from None
        except McpError as exc:
            # A question the call needs and the caller cannot answer fails the call, as it would
            # have failed in front of the upstream.  (Not roots: an upstream asks for them for its
            # session, at any time, and gets the error.)
            if exc.code == errors.MISSING_REQUIRED_CLIENT_CAPABILITY and method != "roots/list":
                self.stopped = exc
                self.scope.cancel()
            raise

    async def _ask_caller(self, asked: int) -> None:
        await trio.sleep(GATHER)
        if len(self.questions) == asked and self.stopped is None:  # (no other question came meanwhile)
            self.stopped = InputRequired(dict(self.questions))
            self.scope.cancel()

    async def answers(self, requests: Any) -> dict[str, Any]:
        """The caller's answers to a 2026-07-28 upstream's ``inputRequests`` (InputRequired: the
        caller is asked first)."""
        if not isinstance(requests, dict) or not all(
            isinstance(r, dict) and isinstance(r.get("method"), str) for r in requests.values()
        ):
            raise McpError(errors.INTERNAL_ERROR, "the upstream asked for input in a form that is not inputRequests")
        try:
            return await self.ctx.ask_many(
                {key: {"method": r["method"], "params": r.get("params") or {}} for key, r in requests.items()}
            )
        except ClientCapabilityMissing as exc:
            raise McpError(errors.MISSING_REQUIRED_CLIENT_CAPABILITY, str(exc)) from None
        except ValueError as exc:  # (a method that is not a server→client request)
            raise McpError(
                errors.INTERNAL_ERROR, f"the upstream asked for input the gateway cannot pass on: {exc}"
            ) from None


def question_key(method: str, params: dict[str, Any]) -> str:
    """The key of a pushed question, made of what it asks: the same question, the same key."""
    digest = hashlib.sha256(orjson.dumps(params, option=orjson.OPT_SORT_KEYS)).hexdigest()[:16]
    return f"{method.split('/')[0]}-{digest}"


def forwarded_meta(ctx: Context, call: Call, modern: bool) -> dict[str, Any]:
    """The caller's ``_meta`` for the upstream: its own keys (trace context, say) and log level, with
    the gateway's progress token; not the protocol's envelope, which the upstream session has its own
    of, but for a ``modern`` upstream the caller's capabilities."""
    meta = {
        key: value
        for key, value in ctx.meta.items()
        if key != "progressToken" and (key == META_LOG_LEVEL or not key.startswith("io.modelcontextprotocol/"))
    }
    if ctx.incoming.progress_token is not None:
        meta["progressToken"] = call.token
    if modern:
        meta[META_CAPABILITIES] = ctx.client_capabilities
    return meta


async def run(call: Call, ask: Any, method: str, params: dict[str, Any], meta: dict[str, Any]) -> dict[str, Any] | None:
    """Send the request and wait for its answer, delivering what comes for it meanwhile; None if
    its scope's deadline passed first.  ``ask`` is the upstream session's ``RawClient.request``."""
    reset = current.set(call)
    failure: Exception | None = None
    result: dict[str, Any] | None = None
    try:
        try:
            with call.scope:
                result = await _rounds(call, ask, method, params, meta)
        except Exception as exc:
            failure = exc
        await call.drained()  # what came before the answer is passed on first
    finally:
        current.reset(reset)
        call.stop_pump()  # (the caller gave up meanwhile: nothing more for it)
        call.ended.set()
    if call.stopped is not None:
        raise call.stopped
    if failure is not None:
        raise failure
    return result


async def _rounds(call: Call, ask: Any, method: str, params: dict[str, Any], meta: dict[str, Any]) -> dict[str, Any]:
    """The request, sent again with the caller's answers while the upstream asks for input.  A task
    the upstream starts is the caller's when it speaks the tasks extension (``tasks.py``), else it
    is followed to its end here."""
    follow = not (call.ctx.era == "modern" and client_declares(call.ctx))
    for _ in range(MAX_ROUNDS):
        result: dict[str, Any] = await ask(method, params, meta=meta, follow_task=follow)
        if result.get("resultType") != "input_required":
            return result
        params = {**params, "inputResponses": await call.answers(result.get("inputRequests"))}
        if "requestState" in result:
            params["requestState"] = result["requestState"]
        else:
            params.pop("requestState", None)
    raise McpError(errors.INTERNAL_ERROR, f"the upstream asked for input more than {MAX_ROUNDS} times")
