"""A ``Link``: one upstream served by one app — its long-lived session, its catalogue, its state.

Theory of operation.  ``attach`` adds to the app a lifespan that starts every link of the app in
parallel and does not wait for them: the app serves at once, each upstream's components appearing
(``list_changed``) when its session is up.  A link keeps ONE session with its upstream (a stdio
process, an HTTP session, or the 2026-07-28 stateless equivalent) and every caller's request goes
over it (``calls.py``).  Its lists are cached in the app's registry tables until the upstream says
one changed.  When the session ends (the process exited or was killed, the connection broke, it
did not answer its handshake within ``start_timeout``, or a ping every ``ping_interval`` went
unanswered for ``timeout``), the calls in flight get an error naming the upstream, its components
leave the tables (``list_changed``), and it is started again after a back-off that doubles from
half a second to thirty.  Each worker process has its own links.

What is bound to a session upstream is the gateway's: a subscription is made upstream when a
caller subscribes (``resources/subscribe``, or a listen stream's ``resourceSubscriptions``), made
again on each new session, and ``notifications/resources/updated`` goes to whoever subscribed
here; the upstream is asked for every log message, and each caller gets those its own level lets
through.  With ``sessions = "per-caller"`` a legacy caller's session has an upstream session of
its own besides (``private.py``), where the upstream's questions are that caller's.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import math
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol

import trio

from ..app.middleware import CallNext, Request
from ..app.namespaces import own_uri, prefixed_uri
from ..app.registry import Registry
from ..client.connect import connect
from ..protocol import errors
from ..protocol.errors import RESOURCE_NOT_FOUND_LEGACY, McpError
from ..sweeps import slices, sweep_period
from ..wire import unstructure
from . import calls, catalogue, tasks
from .private import PrivateSessions
from .telemetry import upstream_span

if TYPE_CHECKING:
    from ..app import App
    from ..client.session import Client


class Spec(Protocol):
    """What a link reads of its ``Upstream`` (``upstream.py``), which it is given (read-only)."""

    @property
    def name(self) -> str: ...
    @property
    def headers(self) -> dict[str, str]: ...
    @property
    def env(self) -> dict[str, str]: ...
    @property
    def cwd(self) -> str | None: ...
    @property
    def ca_file(self) -> str | None: ...
    @property
    def era(self) -> str | None: ...
    @property
    def timeout(self) -> float: ...
    @property
    def start_timeout(self) -> float: ...
    @property
    def ping_interval(self) -> float: ...
    @property
    def sessions(self) -> str: ...
    @property
    def required(self) -> bool: ...
    @property
    def prefix(self) -> str: ...
    @property
    def target(self) -> str | list[str]: ...
    @property
    def describe(self) -> str: ...
    def bearer(self) -> str | None: ...


log = logging.getLogger("mcptrio.gateway")

FIRST_DELAY = 0.5
MAX_DELAY = 30.0
CALL_SWEEP = 1.0  # seconds between two looks for calls past their upstream's timeout, at most
CHANGED = {
    "notifications/tools/list_changed": ("tools",),
    "notifications/prompts/list_changed": ("prompts",),
    "notifications/resources/list_changed": ("resources", "templates"),
}

_gateways: weakref.WeakKeyDictionary[App, Gateway] = weakref.WeakKeyDictionary()


class UpstreamUnavailable(McpError):
    """A request for an upstream that is down, or that went down while it was in flight."""


class Link:
    def __init__(self, app: App, upstream: Spec) -> None:
        self.app = app
        self.upstream = upstream
        self.name = upstream.name
        self.prefix = upstream.prefix
        self.owner = f"upstream {upstream.name}"
        self.client: Client | None = None
        self.state = "starting"  # "up" | "down"
        self.why = "starting"
        self.restarts = 0
        self.catalogue: dict[str, dict[str, Any]] = {}
        self.wanted: set[str] = set()  # the upstream's URIs callers have subscribed to (here)
        self.subscribed: set[str] = set()  # those this session has subscribed to (upstream)
        self._calls: dict[str, calls.Call] = {}
        self._changed: set[str] = set()
        self._change = trio.Event()
        self._listening = trio.CancelScope()  # a 2026-07-28 upstream's listen stream (cancelled: opened again)
        self._listened: set[str] = set()  # the URIs it was opened for
        self.private = PrivateSessions(self)  # sessions = "per-caller": a legacy caller's own sessions
        self.nursery: trio.Nursery | None = None  # (while it runs: what runs beside a call starts here)

    # -- the session, kept up ----------------------------------------------------------------

    async def run(self) -> None:
        try:
            async with trio.open_nursery() as nursery:
                self.private.nursery = self.nursery = nursery
                nursery.start_soon(self._time_calls)
                await self._keep_up()
        finally:  # (the app stopped serving: nothing of this session may be used by a later one)
            self._went_down()
            self.state, self.why = "starting", "starting"

    async def _keep_up(self) -> None:
        delay = FIRST_DELAY
        while True:
            try:
                if await self._session():
                    delay = FIRST_DELAY
            except (McpError, OSError, ValueError, trio.TooSlowError) as exc:
                self.why = str(exc) or type(exc).__name__
            except Exception as exc:  # (whatever a broken upstream makes the client raise: never the gateway's end)
                self.why = f"{type(exc).__name__}: {exc}"
                log.debug("upstream %s failed", self.name, exc_info=True)
            self._went_down()
            log.warning("upstream %s is down (%s): starting it again in %.1f s", self.name, self.why, delay)
            await trio.sleep(delay)
            delay = min(delay * 2, MAX_DELAY)
            self.restarts += 1

    async def _time_calls(self) -> None:
        """End every call the upstream has not answered within its timeout.  One task looking a few
        times per timeout rather than a deadline per call: Trio registers a scope's deadline on
        entry and drops it on exit, a cost on every call for a timeout that rarely fires."""
        period = sweep_period([self.upstream.timeout], CALL_SWEEP)
        while True:
            await trio.sleep(period)
            now = trio.current_time()
            async for part in slices(self._calls.values()):
                for call in part:
                    if call.due <= now:
                        call.scope.cancel()

    async def _session(self) -> bool:
        """One session, until it ends; whether it was up (answered its handshake and lists)."""
        upstream = self.upstream
        starting = trio.CancelScope(deadline=trio.current_time() + upstream.start_timeout)
        with starting:
            async with self.connect(None) as client:
                await self._refresh(client, ("tools", "resources", "prompts"))
                starting.deadline = math.inf
                self.client, self.state, self.why = client, "up", ""
                log.info("upstream %s is up (%s, %s)", self.name, upstream.describe, client.protocol_version)
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(self._refresher, client)
                    if client.era == "modern":
                        nursery.start_soon(self._listen, client)
                    for uri in sorted(self.wanted):  # (callers' subscriptions, made again on a new session)
                        nursery.start_soon(self._subscribe_upstream, uri)
                    unanswered = await self._pinged(client)
                    nursery.cancel_scope.cancel()
                if unanswered is not None:
                    self.why = unanswered
                else:
                    why_ended = getattr(client.raw.end, "why_ended", None)
                    self.why = await why_ended() if why_ended is not None else "the connection ended"
                return True
        if starting.cancelled_caught:
            raise trio.TooSlowError(f"it did not start and answer within {upstream.start_timeout:g} s")
        return False

    async def _pinged(self, client: Client) -> str | None:
        """Until the connection ends (None), or the upstream leaves a ping unanswered for its
        ``timeout`` (why, in words): a server that hangs, or an HTTP one gone away, is noticed even
        when nobody calls it."""
        while True:
            with trio.move_on_after(self.upstream.ping_interval):
                await client.raw.ended.wait()
                return None
            try:
                with trio.fail_after(self.upstream.timeout):
                    await client.ping()
            except trio.TooSlowError:
                return f"it left a ping unanswered for {self.upstream.timeout:g} s"
            except McpError as exc:
                if isinstance(exc.data, dict) and exc.data.get("transport"):
                    return str(exc)
                # (an error answer is an answer: the server is there)

    @contextlib.asynccontextmanager
    async def connect(self, via: object) -> AsyncIterator[Client]:
        """An upstream session: the shared one (``via`` None) or a caller's own (``via``: its
        session), whose questions and notifications go to the calls made through it."""
        upstream = self.upstream
        async with connect(
            upstream.target,
            era=upstream.era,
            elicitation=self._asker("elicitation/create", via),
            sampling=self._asker("sampling/createMessage", via),
            roots=self._asker("roots/list", via),
            token=upstream.bearer(),
            headers=upstream.headers or None,
            verify=upstream.ca_file or True,
            env=upstream.env or None,
            cwd=upstream.cwd,
            log_level="debug",  # (every message: each caller's own level is applied as it is passed on)
            long_lived=True,
            max_message_size=self.app.limits.max_message_size,  # (the limit a client has)
        ) as client:
            client.raw.on_notification.append(functools.partial(self._on_notification, via))
            yield client

    def _went_down(self) -> None:
        self.client, self.state = None, "down"
        self.subscribed.clear()
        for call in list(self._calls.values()):
            call.stopped = self.unavailable()  # (what the call raises, rather than a time-out)
            call.scope.cancel()
        self.catalogue = {}
        self._install()

    async def _listen(self, client: Client) -> None:
        """A 2026-07-28 upstream tells of changes on a ``subscriptions/listen`` stream only: keep one
        open (what it delivers comes to ``_on_notification``), opened again with the resources
        subscribed to whenever they change."""
        while True:
            wanted: dict[str, Any] = {
                "toolsListChanged": True,
                "promptsListChanged": True,
                "resourcesListChanged": True,
            }
            self._listening = listening = (
                trio.CancelScope()
            )  # (before the request: a subscription meanwhile cancels it)
            self._listened = set(self.wanted)
            if self._listened:
                wanted["resourceSubscriptions"] = sorted(self._listened)
            request_id, answer = await client.raw.start_request("subscriptions/listen", {"notifications": wanted})
            with listening:
                try:
                    ended = await answer.receive()
                except trio.EndOfChannel:
                    return  # (the connection ended)
                if "error" in ended:
                    log.info("upstream %s: no listen stream: %s", self.name, ended["error"].get("message"))
                    return
                await trio.sleep(FIRST_DELAY)  # (the upstream closed it: open it again, without hurry)
            if listening.cancelled_caught:
                await client.raw.cancel_request(request_id)

    async def _refresher(self, client: Client) -> None:
        while True:
            await self._change.wait()
            self._change = trio.Event()
            kinds, self._changed = tuple(self._changed), set()
            try:
                await self._refresh(client, kinds)
            except McpError as exc:
                log.warning("upstream %s: its lists could not be read again: %s", self.name, exc)

    async def _refresh(self, client: Client, kinds: tuple[str, ...]) -> None:
        offered = client.server_capabilities
        completes = "completions" in offered
        with trio.fail_after(self.upstream.timeout):
            if "tools" in kinds:
                listed = [unstructure(t) for t in await client.list_tools()] if "tools" in offered else []
                self.catalogue["tools"] = catalogue.tools(self, listed)
            if "resources" in kinds or "templates" in kinds:
                found = [unstructure(r) for r in await client.list_resources()] if "resources" in offered else []
                self.catalogue["resources"] = catalogue.resources(self, found)
                found = (
                    [unstructure(t) for t in await client.list_resource_templates()] if "resources" in offered else []
                )
                self.catalogue["templates"] = catalogue.templates(self, found, completes)
            if "prompts" in kinds:
                found = [unstructure(p) for p in await client.list_prompts()] if "prompts" in offered else []
                self.catalogue["prompts"] = catalogue.prompts(self, found, completes)
        self._install()

    def _install(self) -> None:
        self._reshape()
        changed, refused = self.app.replace_components(self.owner, self.catalogue)
        for what in refused:
            log.warning("upstream %s: %s is left out", self.name, what)
        if changed:
            self.app.lists_changed_here(changed)

    def _reshape(self) -> None:
        """Its tools the app reshapes (``App.reshape_when_served``: ``[serve.reshape.TOOL]``)."""
        tools = self.catalogue.get("tools") or {}
        waiting = [(name, changes) for name, changes in self.app.reshape_waiting if name in tools]
        if not waiting:
            return
        holder = Registry(self.name)
        holder.tools.update(tools)
        for name, changes in waiting:
            try:
                holder.reshape_tool(name, **changes)
            except ValueError as exc:
                log.warning("upstream %s: %s", self.name, exc)
        self.catalogue["tools"] = dict(holder.tools)

    # -- what the upstream sends ---------------------------------------------------------------

    def _on_notification(self, via: object, message: dict[str, Any]) -> Awaitable[None] | None:
        method = message["method"]
        params = message.get("params") or {}
        if method == "notifications/progress":
            call = self._calls.get(params.get("progressToken"))  # type: ignore[arg-type]
            if call is not None:
                call.deliver(message)
        elif method == "notifications/message":
            only = self._only_call(via)
            if only is not None:
                only.deliver(message)
            else:
                log.debug("upstream %s logged: %s", self.name, params.get("data"))
        elif via is not None:
            pass  # (a caller's own session: its lists and subscriptions are the shared session's)
        elif method in CHANGED:
            self._changed.update(CHANGED[method])
            self._change.set()
        elif method == "notifications/resources/updated" and isinstance(params.get("uri"), str):
            self.app.audience.resource_updated(prefixed_uri(self.prefix, params["uri"]))
        return None

    def _only_call(self, via: object) -> calls.Call | None:
        """The call a pushed question or log message of the session ``via`` is for: the one whose
        task asks (a 2026-07-28 upstream's), else the only call in flight on a shared session, else
        any of a caller's own session (they are all that caller's)."""
        found = calls.current.get()
        if found is not None and found.via is via:
            return found
        mine = [call for call in self._calls.values() if call.via is via]
        return mine[0] if len(mine) == 1 or (mine and via is not None) else None

    def _asker(self, method: str, via: object) -> Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]:
        async def ask(params: dict[str, Any]) -> dict[str, Any]:
            call = self._only_call(via)
            if call is None:
                in_flight = any(other.via is via for other in self._calls.values())
                why = (
                    f"the gateway cannot tell which of the calls in flight {method} is for"
                    if in_flight
                    else f"{method} came with no call in flight on the shared session: the gateway has no caller to ask"
                )
                raise McpError(errors.INTERNAL_ERROR, f'{why} (serve this upstream with sessions = "per-caller")')
            return await call.ask(method, params)

        return ask

    # -- what callers send ----------------------------------------------------------------------

    async def forward(self, ctx: Any, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """The upstream's result for the caller's request; an error naming the upstream when it is
        down, goes down meanwhile, or does not answer within its ``timeout``."""
        via = ctx.session_key if self.upstream.sessions == "per-caller" and ctx.era == "legacy" else None
        client = self.client if via is None else await self.private.client_for(via)
        if client is None:
            raise self.unavailable()
        due = trio.current_time() + self.upstream.timeout
        call = calls.Call(ctx, via=via, nursery=self.nursery, scope=trio.CancelScope(), due=due)
        self._calls[call.token] = call
        meta = calls.forwarded_meta(ctx, call, client.raw.era == "modern")
        target = params.get("name") if isinstance(params.get("name"), str) else None
        try:
            with upstream_span(self.app.telemetry, self.name, method, target, meta):
                result = await calls.run(call, client.raw.request, method, params, meta)
        except McpError as exc:
            if isinstance(exc.data, dict) and exc.data.get("transport"):
                raise self.unavailable(str(exc)) from None
            raise
        finally:
            self._calls.pop(call.token, None)
        if result is None:
            if client.raw.ended.is_set() or (via is None and self.client is not client):
                raise self.unavailable()
            raise McpError(
                errors.INTERNAL_ERROR,
                f"upstream {self.name!r} did not answer {method} within {self.upstream.timeout:g} s",
                {"upstream": self.name},
            )
        if result.get("resultType") == "task":
            return tasks.served(self.name, result)
        result.pop("resultType", None)  # (the caller's era says whether it has one: the app's to add)
        return result

    def unavailable(self, why: str | None = None) -> UpstreamUnavailable:
        return UpstreamUnavailable(
            errors.INTERNAL_ERROR,
            f"upstream {self.name!r} is unavailable: {why or self.why or self.state}",
            {"upstream": self.name},
        )

    def tool_caller(self, name: str) -> Callable[..., Awaitable[dict[str, Any]]]:
        async def call_tool(**arguments: Any) -> dict[str, Any]:
            ctx = arguments.pop(catalogue.CTX)
            return await self.forward(ctx, "tools/call", {"name": name, "arguments": arguments})

        return call_tool

    def reader(self) -> Callable[..., Awaitable[list[dict[str, Any]]]]:
        async def read(**variables: Any) -> list[dict[str, Any]]:
            ctx = variables[catalogue.CTX]
            served = ctx.params["uri"]
            uri = own_uri(self.prefix, served) or served
            try:
                result = await self.forward(ctx, "resources/read", {"uri": uri})
            except McpError as exc:
                if exc.code == RESOURCE_NOT_FOUND_LEGACY or (exc.code == errors.INVALID_PARAMS and "uri" in str(exc)):
                    raise LookupError(uri) from None  # (answered in the caller's era's form)
                raise
            contents = result.get("contents") or []
            for item in contents:
                if isinstance(item, dict) and isinstance(item.get("uri"), str):
                    item["uri"] = prefixed_uri(self.prefix, item["uri"])
            return contents

        return read

    def prompter(self, name: str) -> Callable[..., Awaitable[dict[str, Any]]]:
        async def get_prompt(**arguments: Any) -> dict[str, Any]:
            ctx = arguments.pop(catalogue.CTX)
            return await self.forward(ctx, "prompts/get", {"name": name, "arguments": arguments})

        return get_prompt

    def completer(self, ref: dict[str, Any], argument: str) -> Callable[..., Awaitable[list[str]]]:
        async def complete(value: str, context_arguments: dict[str, Any], **kwargs: Any) -> list[str]:
            params: dict[str, Any] = {"ref": ref, "argument": {"name": argument, "value": value}}
            if context_arguments:
                params["context"] = {"arguments": context_arguments}
            result = await self.forward(kwargs[catalogue.CTX], "completion/complete", params)
            values = (result.get("completion") or {}).get("values") or []
            return [v for v in values if isinstance(v, str)]

        return complete

    async def subscribe(self, served: str) -> None:
        """Subscribe upstream to the resource served as ``served``, once per session (and again on
        each new session)."""
        uri = own_uri(self.prefix, served)
        if uri is None:
            return
        self.wanted.add(uri)
        await self._subscribe_upstream(uri)

    async def _subscribe_upstream(self, uri: str) -> None:
        client = self.client
        if client is None or uri in self.subscribed:
            return
        resources = client.server_capabilities.get("resources")
        if not (isinstance(resources, dict) and resources.get("subscribe")):
            return
        self.subscribed.add(uri)
        if client.era == "modern":
            if uri not in self._listened:
                self._listening.cancel()  # (opened again, with this URI too)
            return
        try:
            with trio.fail_after(self.upstream.timeout):
                await client.raw.request("resources/subscribe", {"uri": uri})
        except (McpError, trio.TooSlowError) as exc:
            self.subscribed.discard(uri)
            log.warning("upstream %s: subscribing to %s failed: %s", self.name, uri, exc)

    def report(self) -> dict[str, Any]:
        shown: dict[str, Any] = {"state": self.state, "restarts": self.restarts}
        if self.state != "up":
            shown["why"] = self.why
        return shown


class Gateway:
    """An app's links: started together by one lifespan, and the middleware that serves what is
    bound to a session (subscriptions) or to an upstream that is down (its calls)."""

    def __init__(self, app: App) -> None:
        self.links: list[Link] = []
        app.lifespans.append(self.lifespan)
        app.use(self.middleware)
        app.readiness.append(self.readiness)
        app.offering.append(self.offering)
        app.session_hooks.append(self)

    def opened(self, session: object) -> None:
        pass

    def closed(self, session: object) -> None:
        """A caller's session ended: so do its own upstream sessions."""
        for link in self.links:
            link.private.close(session)

    async def lifespan(self, app: App) -> AsyncIterator[None]:
        async with trio.open_nursery() as nursery:
            for link in self.links:
                nursery.start_soon(link.run)
            yield
            nursery.cancel_scope.cancel()

    async def middleware(self, request: Request, call_next: CallNext) -> dict[str, Any]:
        method = request.method
        if method in tasks.METHODS:
            found = tasks.upstream_of(request.params, {link.name: link for link in self.links})
            if found is not None:
                link, params = found
                request.state["upstream"] = link.name  # (the access log names it)
                return tasks.served(link.name, await link.forward(request.context, method, params))
        owner = _owner(request)
        if owner is not None and owner.startswith("upstream "):
            request.state["upstream"] = owner.removeprefix("upstream ")
        if method == "tools/call" and request.name is not None:
            for link in self.links:
                if link.state != "up" and link.prefix and request.name.startswith(f"{link.prefix}_"):
                    if request.name not in request.context.app.tools:
                        raise link.unavailable()
        if method == "subscriptions/listen":  # (before: the stream is answered only when it ends)
            wanted = request.params.get("notifications")
            uris = wanted.get("resourceSubscriptions") if isinstance(wanted, dict) else None
            await self._subscribe(uris if isinstance(uris, list) else [])
        result = await call_next(request)
        if method == "resources/subscribe":
            await self._subscribe([request.params.get("uri")])
        return result

    async def _subscribe(self, uris: list[Any]) -> None:
        for uri in uris:
            if isinstance(uri, str):
                for link in self.links:
                    await link.subscribe(uri)

    def offering(self, era: str, version: str) -> dict[str, Any]:
        """The tasks extension, to a 2026-07-28 caller, when an upstream that is up offers it (its
        tasks are handed on: ``tasks.py``)."""
        if era != "modern":
            return {}
        for link in self.links:
            client = link.client
            extensions = client.server_capabilities.get("extensions") if client is not None else None
            if client is not None and client.era == "modern" and isinstance(extensions, dict):
                if tasks.EXTENSION in extensions:
                    return {"extensions": {tasks.EXTENSION: {}}}
        return {}

    def readiness(self) -> tuple[str, Any, bool]:
        shown = {link.name: link.report() for link in self.links}
        ready = all(link.state == "up" for link in self.links if link.upstream.required)
        return "upstreams", shown, ready


def _owner(request: Request) -> str | None:
    """Who serves what the request names (a tool, a prompt, a resource), if anyone does."""
    app = request.context.app
    name = request.name
    if name is None:
        return None
    entry = {"tools/call": app.tools, "prompts/get": app.prompts}.get(request.method, {}).get(name)
    if entry is None and request.method == "resources/read":
        entry = app.resources.get(name)
        if entry is None:
            entry = next((t for t in app.templates.values() if t.match(name) is not None), None)
    return getattr(entry, "owner", None)


def links_of(app: App) -> list[Link]:
    """The upstreams ``app`` serves (``App.proxy``), each with its ``state``, ``why`` and ``client``."""
    gateway = _gateways.get(app)
    return list(gateway.links) if gateway is not None else []


def attach(app: App, upstream: Spec) -> Link:
    """Serve ``upstream`` from ``app`` while it runs (``App.proxy``)."""
    gateway = _gateways.get(app)
    if gateway is None:
        gateway = _gateways[app] = Gateway(app)
    if any(link.name == upstream.name for link in gateway.links):
        raise ValueError(f"two upstreams named {upstream.name!r}")
    link = Link(app, upstream)
    gateway.links.append(link)
    return link
