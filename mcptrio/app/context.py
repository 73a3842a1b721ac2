"""What a handler sees: the request it serves and the ways it may talk back to the client.

A handler declares a parameter annotated ``Context`` and receives one per request.  The same
calls work in both eras: in a legacy session ``elicit``/``sample``/``list_roots`` send a request
to the client and await its answer; in the 2026-07-28 era they end this round with an
``InputRequiredResult`` and return the client's answer when it retries (multi round-trip).
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, TypeVar

import attrs
import trio

from ..protocol import errors
from ..protocol.errors import McpError
from ..protocol.methods import METHODS
from ..protocol.session import LOG_LEVELS
from .errors import ClientCapabilityMissing, InputRequired, StartTask
from .http_request import HttpRequest
from .namespaces import own_uri, served_uri

if TYPE_CHECKING:
    from ..auth.principal import Principal
    from ..protocol.events import IncomingRequest
    from ..runtime.core import SessionCore as Session

T = TypeVar("T")

NO_ANSWERS: Mapping[str, Any] = MappingProxyType({})  # a request that brings no answers of earlier rounds

# The first revision that has each server→client request (the others exist since 2024-11-05).
ASKABLE_SINCE = {"elicitation/create": "2025-06-18"}

# Which client capability each server→client method needs.
REQUIRED_CAPABILITY = {
    "elicitation/create": "elicitation",
    "sampling/createMessage": "sampling",
    "roots/list": "roots",
}


class Context:
    """What a handler knows of its request and can do for it.

    A tool, resource or prompt function gets one by declaring a parameter annotated ``Context``
    (any name); it is not part of the tool's schema.  Through it the handler reports progress,
    logs to the client, asks the client for input (elicitation, sampling, roots: in a legacy
    session as server-to-client requests, in the 2026-07-28 era by multi round-trip), and reads
    the request's deadline, era, client and principal.
    """

    # Set on an instance only when they change (one Context is made per request).
    _last_progress: float | None = None
    _input_counter = 0
    task_wanted = False  # (set by tools/call for an input_first tool the client may run as a task)
    namespace = ""  # (set when the component that runs is served in a namespace: namespaces.py)

    def __init__(
        self,
        session: Session,
        request: IncomingRequest,
        deadline: float,
        input_responses: Mapping[str, Any] = NO_ANSWERS,
        app: Any = None,
    ) -> None:
        self._session = session
        self._app = app
        self._request = request
        self.deadline = deadline
        self._input_responses = input_responses

    # -- what the request is --------------------------------------------------------------

    @property
    def request_id(self) -> str | int:
        return self._request.id

    @property
    def method(self) -> str:
        return self._request.method

    @property
    def era(self) -> str:
        """``"legacy"`` (initialize handshake) or ``"modern"`` (2026-07-28, stateless)."""
        return self._request.era

    @property
    def protocol_version(self) -> str:
        return self._request.version

    @property
    def client_info(self) -> dict[str, Any] | None:
        return self._request.client_info

    @property
    def client_capabilities(self) -> dict[str, Any]:
        return self._request.client_capabilities

    @property
    def meta(self) -> dict[str, Any]:
        return self._request.params.get("_meta") or {}

    @property
    def params(self) -> dict[str, Any]:
        """The request's raw ``params`` (read them, don't change them)."""
        return self._request.params

    @property
    def app(self) -> Any:
        """The App serving this request, e.g. to call ``notify_tools_changed()``."""
        return self._app

    @property
    def session_id(self) -> str | None:
        """The transport's session id (legacy Streamable HTTP), else None."""
        return self._session.session_id

    @property
    def transport(self) -> str:
        """What carries this request: ``stdio``, ``http``, ``websocket``, ``sse`` or ``memory``."""
        return self._session.transport

    @property
    def client_address(self) -> str | None:
        """The client's network address (HTTP, WebSocket; as the server sees it, so a proxy's when
        behind one), else None."""
        return self._session.client_address

    @property
    def principal(self) -> Principal | None:
        """Who made the request, once authorization is on; None without it."""
        principal: Principal | None = self._request.principal  # (the protocol layer does not know auth)
        return principal

    @property
    def auth(self) -> Principal | None:
        """The ``mcptrio.auth.Principal`` of the request's access token (subject, client id,
        scopes, expiry, claims) when the server checks tokens; None otherwise (and on stdio)."""
        principal: Principal | None = self._request.principal  # (the protocol layer does not know auth)
        return principal

    @property
    def http(self) -> HttpRequest | None:
        """The Streamable HTTP request this message came in (headers, client address, principal);
        None on stdio, WebSocket, the 2024-11-05 HTTP+SSE transport and in memory."""
        http = self._request.http
        return http if isinstance(http, HttpRequest) else None

    @property
    def session_key(self) -> object:
        """An opaque, hashable handle of the client's session: a key for per-session caches."""
        return self._session

    @property
    def session(self) -> Session:
        """The runtime's session the request arrived on (``mcptrio.runtime.core.SessionCore``):
        where its messages are sent, and a legacy session's resource subscriptions.  The method
        handlers use it; a tool, resource or prompt has what it needs in the calls below."""
        return self._session

    @property
    def incoming(self) -> IncomingRequest:
        """The request as the protocol layer handed it on (``mcptrio.protocol.events.IncomingRequest``):
        its ``route`` on the transport and its method's row of ``mcptrio.protocol.methods``."""
        return self._request

    @property
    def input_responses(self) -> Mapping[str, Any]:
        """The client's answers gathered so far in a 2026-07-28 multi round-trip request, by key
        (what ``ask`` returns once the client has answered); empty in a legacy session."""
        return self._input_responses

    def time_left(self) -> float:
        """Seconds until this request's deadline."""
        return self.deadline - trio.current_time()

    @property
    def sync(self) -> SyncContext:
        """For a plain ``def`` handler (it runs in a worker thread): the calls below as blocking ones,
        ``ctx.sync.progress(1, 3)``, ``ctx.sync.info("...")``, ``ctx.sync.elicit(...)``; each
        raises ``trio.Cancelled`` once the request was cancelled."""
        return SyncContext(self)

    # -- notifications about this request -------------------------------------------------

    async def progress(self, progress: float, total: float | None = None, message: str | None = None) -> None:
        """Report progress, if the client asked for it (a ``progressToken``); values must increase."""
        if self._last_progress is not None and progress <= self._last_progress:
            raise ValueError(f"progress must increase: {progress} after {self._last_progress}")
        self._last_progress = progress
        token = self._request.progress_token
        if token is None:
            return
        params: dict[str, Any] = {"progressToken": token, "progress": progress}
        if total is not None:
            params["total"] = total
        if message is not None:
            params["message"] = message
        await self._session.notify(self._request, "notifications/progress", params)

    async def log(self, level: str, data: Any, logger: str | None = None) -> None:
        """Send a log message for this request, if the client's level lets it through."""
        if level not in LOG_LEVELS:
            raise ValueError(f"unknown log level {level!r}; use one of {', '.join(LOG_LEVELS)}")
        if not self._session.protocol.should_log(self._request, level):
            return
        params: dict[str, Any] = {"level": level, "data": data}
        if logger is not None:
            params["logger"] = logger
        await self._session.notify(self._request, "notifications/message", params)

    async def debug(self, data: Any) -> None:
        await self.log("debug", data)

    async def info(self, data: Any) -> None:
        await self.log("info", data)

    async def warning(self, data: Any) -> None:
        await self.log("warning", data)

    async def error(self, data: Any) -> None:
        await self.log("error", data)

    async def close_sse_stream(self) -> None:
        """Legacy Streamable HTTP (SEP-1699): end this request's SSE response now; the client
        resumes with ``Last-Event-ID`` and receives the rest.  A no-op on other transports."""
        await self._session.close_stream(self._request)

    # -- this server's own resources -------------------------------------------------------

    async def read_resource(self, uri: str) -> list[dict[str, Any]]:
        """Read one of this server's resources as the client would (``resources/read``): through
        the middleware, with the caller's scopes, raising the ``McpError`` a client would get (an
        unknown URI: ``-32002``); returns its ``contents``.  A handler served in a namespace reads its
        own resources by the URIs it gave them, and gets them back with those URIs."""
        namespace = self.namespace
        if namespace:
            uri = served_uri(self._app, namespace, uri) or uri
        request = attrs.evolve(
            self._request,
            id=f"{self._request.id}/read",
            method="resources/read",
            params={"uri": uri},
            spec=METHODS["resources/read"],
            progress_token=None,
            batch=None,
        )
        app = self._app
        principal = request.principal
        if principal is not None:
            app.scopes.check(principal, request.method, request.params)
        result = await app.handler(self._session, request, self.deadline)
        contents: list[dict[str, Any]] = result["contents"]
        if namespace:
            return [{**item, "uri": own_uri(namespace, item["uri"]) or item["uri"]} for item in contents]
        return contents

    # -- tasks ----------------------------------------------------------------------------

    async def start_task(self) -> None:
        """In a tool declared ``task=..., input_first=True``: hand the rest of the work to a task
        (the client gets ``CreateTaskResult`` now).  Code before this call runs again in the task,
        where input gathered so far is returned as it was: keep it to gathering input.  Returns at
        once when the call is not becoming a task (the client does not support tasks)."""
        if self.task_wanted:
            raise StartTask()

    # -- asking the client ----------------------------------------------------------------

    async def elicit(self, message: str, requested_schema: dict[str, Any], *, key: str | None = None) -> dict[str, Any]:
        """Ask the user for structured input (form mode); returns the ElicitResult as a dict."""
        params = {"mode": "form", "message": message, "requestedSchema": requested_schema}
        if self._request.era == "legacy" and self._request.version < "2025-11-25":
            params.pop("mode")
        return await self.ask("elicitation/create", params, key=key)

    async def elicit_url(
        self, message: str, url: str, elicitation_id: str | None = None, *, key: str | None = None
    ) -> dict[str, Any]:
        """Send the user to a URL (URL mode elicitation); returns the ElicitResult as a dict."""
        params: dict[str, Any] = {"mode": "url", "message": message, "url": url}
        if self._request.era == "legacy" and elicitation_id is not None:
            params["elicitationId"] = elicitation_id
        return await self.ask("elicitation/create", params, key=key)

    async def sample(
        self, messages: list[dict[str, Any]] | str, max_tokens: int, *, key: str | None = None, **options: Any
    ) -> dict[str, Any]:
        """Ask the client's LLM for a completion; returns the CreateMessageResult as a dict.

        ``messages`` may be a plain string (one user text message); ``options`` are further
        ``sampling/createMessage`` params in snake_case (``system_prompt``, ``temperature``, ...).
        """
        if isinstance(messages, str):
            messages = [{"role": "user", "content": {"type": "text", "text": messages}}]
        params: dict[str, Any] = {"messages": messages, "maxTokens": max_tokens}
        for name, value in options.items():
            head, *rest = name.split("_")
            params[head + "".join(part.title() for part in rest)] = value
        return await self.ask("sampling/createMessage", params, key=key)

    async def list_roots(self, *, key: str | None = None) -> list[dict[str, Any]]:
        """The client's roots (``roots/list``)."""
        result = await self.ask("roots/list", {}, key=key)
        roots = result.get("roots")
        if not isinstance(roots, list):
            raise McpError(errors.INVALID_PARAMS, "client answered roots/list without a roots list")
        return roots

    async def ask(self, method: str, params: dict[str, Any], *, key: str | None = None) -> dict[str, Any]:
        """Send one server→client request (any era) and return the client's result."""
        if key is None:
            self._input_counter += 1
            key = f"{method.split('/')[0]}-{self._input_counter}"
        answers = await self.ask_many({key: {"method": method, "params": params}})
        return answers[key]

    async def ask_many(self, requests: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
        """Several server→client requests at once, keyed by your names; returns results by key.

        In the 2026-07-28 era all of them that are still unanswered go out in one
        ``InputRequiredResult``; in a legacy session they are sent concurrently.
        """
        for request in requests.values():
            self._check_capability(request["method"], request["params"])
        if self._request.era == "modern":
            missing = {k: r for k, r in requests.items() if k not in self._input_responses}
            if missing:
                raise InputRequired(missing)
            return {k: self._input_responses[k] for k in requests}
        route = self._request.route

        async def call(method: str, params: dict[str, Any]) -> dict[str, Any]:
            return await self._session.call_client(method, params, route)

        if len(requests) == 1:
            [(key, request)] = requests.items()
            return {key: await call(request["method"], request["params"])}
        answers: dict[str, dict[str, Any]] = {}

        async def one(key: str, request: dict[str, Any]) -> None:
            answers[key] = await call(request["method"], request["params"])

        try:
            async with trio.open_nursery() as nursery:
                for key, request in requests.items():
                    nursery.start_soon(one, key, request)
        except ExceptionGroup as group:
            # Report the first failure as the handler would see a single call fail.
            # (An ExceptionGroup holds no trio.Cancelled, a BaseException: a group with one is not caught here.)
            first = group.exceptions[0]
            if isinstance(first, Exception):
                raise first from None
            raise
        return answers

    def _check_capability(self, method: str, params: dict[str, Any]) -> None:
        capability = REQUIRED_CAPABILITY.get(method)
        if capability is None:
            raise ValueError(f"{method} is not a server→client request")
        since = ASKABLE_SINCE.get(method, "")
        if self._request.era == "legacy" and self._request.version < since:
            raise ClientCapabilityMissing(
                f"{method} needs protocol {since} or later; this session speaks {self._request.version}"
            )
        declared = self._request.client_capabilities.get(capability)
        if declared is not None and params.get("mode") == "url":
            # Elicitation modes (2025-11-25+): {} means form only; URL mode must be named.
            if not (isinstance(declared, dict) and "url" in declared):
                capability, declared = "elicitation.url", None
        if declared is None:
            if self._request.era == "modern":
                raise McpError(
                    errors.MISSING_REQUIRED_CLIENT_CAPABILITY,
                    f"this request needs the client capability {capability!r}",
                    {"requiredCapabilities": _capability_object(capability)},
                )
            raise ClientCapabilityMissing(
                f"the client did not declare the {capability!r} capability, so {method} cannot be used"
            )


class SyncContext:
    """``ctx.sync``: the Context's calls for a plain ``def`` handler, which runs in a worker thread.

    Each goes back to the Trio thread (``trio.from_thread.run``) and blocks the handler's thread
    until it is done.  Once the request was cancelled, each raises ``trio.Cancelled`` instead, so
    a handler that reports progress stops at its next report.
    """

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    def run(self, fn: Callable[..., Awaitable[T]], *args: Any, **kwargs: Any) -> T:
        """``await fn(*args, **kwargs)`` in the Trio thread, from the handler's thread."""
        trio.from_thread.check_cancelled()
        return trio.from_thread.run(functools.partial(fn, *args, **kwargs))

    def time_left(self) -> float:
        """Seconds until the request's deadline."""
        return self.ctx.deadline - trio.from_thread.run_sync(trio.current_time)

    def check_cancelled(self) -> None:
        """Raise ``trio.Cancelled`` if the request was cancelled (its answer is gone already)."""
        trio.from_thread.check_cancelled()

    def progress(self, progress: float, total: float | None = None, message: str | None = None) -> None:
        self.run(self.ctx.progress, progress, total, message)

    def log(self, level: str, data: Any, logger: str | None = None) -> None:
        self.run(self.ctx.log, level, data, logger)

    def debug(self, data: Any) -> None:
        self.run(self.ctx.log, "debug", data)

    def info(self, data: Any) -> None:
        self.run(self.ctx.log, "info", data)

    def warning(self, data: Any) -> None:
        self.run(self.ctx.log, "warning", data)

    def error(self, data: Any) -> None:
        self.run(self.ctx.log, "error", data)

    def elicit(self, message: str, requested_schema: dict[str, Any], *, key: str | None = None) -> dict[str, Any]:
        return self.run(self.ctx.elicit, message, requested_schema, key=key)

    def sample(
        self, messages: list[dict[str, Any]] | str, max_tokens: int, *, key: str | None = None, **options: Any
    ) -> dict[str, Any]:
        return self.run(self.ctx.sample, messages, max_tokens, key=key, **options)

    def list_roots(self, *, key: str | None = None) -> list[dict[str, Any]]:
        return self.run(self.ctx.list_roots, key=key)

    def read_resource(self, uri: str) -> list[dict[str, Any]]:
        return self.run(self.ctx.read_resource, uri)


def _capability_object(capability: str) -> dict[str, Any]:
    """``"elicitation.url"`` → ``{"elicitation": {"url": {}}}``."""
    head, _, sub = capability.partition(".")
    return {head: {sub: {}} if sub else {}}
