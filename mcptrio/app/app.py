"""The App: a registry that serves, composed of its own handlers and any plugins it includes.

It is the runtime's ``Host``: it hands the runtime one request handler (``pipeline.build``),
built from its method handlers and middleware, and hears of sessions and client notifications.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any, Protocol

import attrs
import trio

from ..protocol.session import ServerIdentity
from ..protocol.versions import at_least
from ..runtime.limits import SessionLimits
from . import composition, lifespan, pipeline
from .access_log import access_log as access_log_middleware
from .admission import RateLimit, RateLimiter, ToolCallLimiter
from .authorization import ScopeCheck
from .middleware import Middleware
from .namespaces import served_uri
from .notifications import Audience, Listener, task_session
from .registry import Registry
from .tasks.methods import EXTENSION
from .tasks.records import TaskRecord
from .tasks.runner import TaskRunner
from .tool_search import ToolSearch
from .visibility import KINDS, Rule, Switches, Visibility, changed_lists

if TYPE_CHECKING:
    from ..auth import AuthConfig
    from ..protocol.events import IncomingRequest
    from ..runtime.core import SessionCore
    from ..runtime.host import RequestHandler
    from ..state.fanout import FanoutMessage
    from ..state.redis import RedisState

log = logging.getLogger("mcptrio.app")

# Ranks of the built-in middleware the operator turns on: lower is further out.  User and
# plugin middleware run inside all of them, and the boundary (pipeline.py) inside those.
TELEMETRY, ACCESS_LOG, TOOL_SEARCH, AUTHORIZATION, RATE_LIMIT, CONCURRENCY = 10, 20, 22, 25, 30, 50
# Plain def handlers running at once, each in a worker thread (Trio's own default, too).
DEFAULT_THREAD_LIMIT = 40


class Proxied(Protocol):
    """What ``App.proxy`` serves: an upstream MCP server (``mcptrio.gateway.Upstream``)."""

    def attach(self, app: App, namespace: str | None) -> None: ...


# A report of readiness for ``/readyz``: (its key there, what it shows, whether it lets the server be ready).
Readiness = Callable[[], tuple[str, Any, bool]]


@attrs.frozen
class Notification:
    """A client notification, as a ``Registry.on_notification`` hook receives it."""

    method: str
    params: dict[str, Any]
    session_id: str | None  # the transport's session id, where it has one
    session_key: object  # an opaque, hashable handle of the client's session (for caches)


class SessionHooks(Protocol):
    """Told when a session opens and closes (e.g. to measure how long sessions last)."""

    def opened(self, session: SessionCore) -> None: ...

    def closed(self, session: SessionCore) -> None: ...


def _otel_in_use() -> bool:
    """Could an OpenTelemetry SDK be configured?  Only once the program, a plugin or the
    ``opentelemetry-instrument`` launcher imported the API, or the environment names a provider."""
    return (
        "opentelemetry.trace" in sys.modules
        or "opentelemetry.metrics" in sys.modules
        or bool(os.environ.get("OTEL_PYTHON_TRACER_PROVIDER") or os.environ.get("OTEL_PYTHON_METER_PROVIDER"))
    )


def _telemetry(wanted: Any) -> Any:
    """OpenTelemetry middleware when ``wanted`` (None: whenever ``opentelemetry-api`` is installed;
    a ``telemetry.Telemetry`` of your own: that one, e.g. with its own tracer and meter providers)."""
    if wanted is False:
        return None
    if wanted not in (None, True):
        return wanted
    try:
        from .telemetry import Telemetry
    except ImportError:
        if wanted:
            raise ImportError("telemetry needs opentelemetry-api: pip install 'mcptrio[otel]'") from None
        return None
    return Telemetry()


class App(Registry):
    """Everything one server offers, plus who it is and the limits its sessions run under.

    Operator features, each a built-in middleware outside the app's and plugins' own:
    ``access_log`` (one line per request on the ``mcptrio.access`` logger), ``telemetry``
    (OpenTelemetry; None: on when ``opentelemetry-api`` is installed),
    ``rate_limit`` (``"20/s"`` or a ``RateLimit`` with its burst: per principal, else address,
    else session) and ``max_tool_calls`` (server-wide, a call over it waits ``tool_call_wait``
    seconds for a slot), ``tasks`` (a ``TaskRunner``: its store, how many tasks may run at once,
    their TTL and poll interval), ``auth`` (an ``AuthConfig``: the network transports check bearer
    tokens, the pipeline checks the scopes each tool, prompt and resource needs).

    Who sees what (``visibility.py``, the "Who sees what" guide): ``visibility`` is ``"show"`` (every
    component the tag filters and rules let through is listed; a call without its scopes gets the
    ``insufficient_scope`` step-up) or ``"filter"`` (what a token lacks the scopes for is hidden too,
    and answered as an unknown name); ``include_tags``/``exclude_tags`` keep only, or drop, the
    components with those tags; ``visible`` is a rule ``(component, request) -> bool`` (or a list).
    ``tool_search=True`` (needs ``mcptrio[search]``): ``tools/list`` shows just ``search_tools`` and
    ``call_tool``, for catalogues too big to list (``tool_search.py``); direct calls keep working.

    Authoring: ``thread_limit`` is how many plain ``def`` handlers may run at once, each in a worker
    thread (more calls wait for a thread); ``inline_schemas=False`` keeps object types under
    ``$defs`` in the schemas of the tools registered on the app itself (see ``Registry``).
    """

    def __init__(
        self,
        name: str = "mcptrio",
        version: str = "0.1.0",
        *,
        title: str | None = None,
        instructions: str | None = None,
        limits: SessionLimits | None = None,
        page_size: int = 100,
        cache_ttl_ms: int = 0,
        cache_scope: str = "public",
        state_key: bytes | None = None,
        telemetry: Any = None,
        rate_limit: RateLimit | str | None = None,
        max_tool_calls: int | None = None,
        tool_call_wait: float = 5.0,
        auth: AuthConfig | None = None,
        tasks: TaskRunner | None = None,
        access_log: bool = False,
        thread_limit: int = DEFAULT_THREAD_LIMIT,
        inline_schemas: bool = True,
        visibility: str = "show",
        include_tags: Iterable[str] = (),
        exclude_tags: Iterable[str] = (),
        visible: Rule | Iterable[Rule] | None = None,
        tool_search: bool = False,
    ) -> None:
        super().__init__(name, title=title, version=version, inline_schemas=inline_schemas)
        if not (isinstance(thread_limit, int) and thread_limit >= 1):
            raise ValueError(f"thread_limit must be a whole number of threads, at least 1, not {thread_limit!r}")
        self.thread_limit = thread_limit
        self._thread_limiters: trio.lowlevel.RunVar[trio.CapacityLimiter] = trio.lowlevel.RunVar("mcptrio.threads")
        self.version = version
        self.limits = limits or SessionLimits()
        self.page_size = page_size
        self.identity = ServerIdentity(
            name,
            version,
            self.capabilities,
            title=title,
            instructions=instructions,
            cache_ttl_ms=cache_ttl_ms,
            cache_scope=cache_scope,
        )
        # Seals requestState.  Processes that share state (``share_state``) share its keys; else
        # set one key (or MCPTRIO_STATE_KEY) for every process that serves.
        env_key = os.environ.get("MCPTRIO_STATE_KEY")
        self._own_keys = [state_key or (env_key.encode() if env_key else os.urandom(32))]
        self.shared: RedisState | None = None  # the state shared with other processes, when there is one
        self.audience = Audience()
        self.plugins: list[str] = []
        self.reshaped: list[tuple[str, dict[str, Any]]] = []  # every reshape_tool, in order
        self.reshape_waiting: list[tuple[str, dict[str, Any]]] = []  # reshape_when_served, in order
        self.state: dict[str, Any] = {}  # what lifespans set up for handlers: ctx.app.state[...]
        self._lifespan_running = False
        self._uri_namespaces: tuple[str, ...] | None = None  # the namespaces resources are served in
        self.session_hooks: list[SessionHooks] = []
        self.readiness: list[Readiness] = []  # what else /readyz reports (a gateway's upstreams)
        # What else the server offers, by era and version: (era, version) -> capabilities (a gateway's upstreams').
        self.offering: list[Callable[[str, str], dict[str, Any]]] = []
        self._builtin: list[tuple[int, Middleware]] = []
        self._handler: RequestHandler | None = None
        self.telemetry: Any = None
        # telemetry=None with nothing of OpenTelemetry imported yet: looked at again when a session
        # opens and when the pipeline is built (a stdio server need not import it at all).
        self._telemetry_auto = self._telemetry_pending = telemetry is None
        if telemetry is not None or _otel_in_use():
            self._start_telemetry(telemetry)
        if access_log:
            self.use_builtin(ACCESS_LOG, access_log_middleware)
        if isinstance(rate_limit, str):
            rate_limit = RateLimit.parse(rate_limit)
        self.rate_limiter = RateLimiter(rate_limit) if rate_limit is not None else None
        if self.rate_limiter is not None:
            self.use_builtin(RATE_LIMIT, self.rate_limiter)
        self.auth = auth
        rules = () if visible is None else [visible] if callable(visible) else list(visible)
        self.visibility = Visibility(visibility, include_tags, exclude_tags, rules)
        if auth is not None:
            self.visibility.use_policy(auth.policy())
        self.tool_search = ToolSearch() if tool_search else None
        if self.tool_search is not None:
            self.use_builtin(TOOL_SEARCH, self.tool_search)
        self.tasks = tasks or TaskRunner()
        self.tasks.listeners.append(self.audience.task_changed)
        self._scopes: ScopeCheck | None = None
        if auth is not None:
            self.use_builtin(AUTHORIZATION, self.scopes)
        self.tool_calls = ToolCallLimiter(max_tool_calls, tool_call_wait) if max_tool_calls is not None else None
        if self.tool_calls is not None:
            self.use_builtin(CONCURRENCY, self.tool_calls)

    @property
    def thread_limiter(self) -> trio.CapacityLimiter:
        """The limiter the plain ``def`` handlers run under: ``thread_limit`` worker threads at once
        (one per Trio run: an App may be served by several runs, one after another)."""
        try:
            return self._thread_limiters.get()
        except LookupError:
            limiter = trio.CapacityLimiter(self.thread_limit)
            self._thread_limiters.set(limiter)
            return limiter

    def _start_telemetry(self, wanted: Any) -> None:
        self._telemetry_pending = False
        self.telemetry = _telemetry(wanted)
        if self.telemetry is not None:
            self.use_builtin(TELEMETRY, self.telemetry)
            self.session_hooks.append(self.telemetry)

    def _telemetry_now(self) -> None:
        """Automatic telemetry deferred at construction: on, once OpenTelemetry is in use."""
        if self._telemetry_pending and _otel_in_use():
            self._start_telemetry(None)

    @property
    def scopes(self) -> ScopeCheck:
        """The scopes each request needs (``auth``'s policy and each handler's): checked in the
        pipeline, and by HTTP before it dispatches.  Made when first asked for."""
        if self._scopes is None:
            from ..auth import ScopePolicy

            policy = self.auth.policy() if self.auth is not None else ScopePolicy()
            self._scopes = ScopeCheck(
                self, policy, hides=self.visibility.scopes_hide, by_name=self.tool_search is not None
            )
        return self._scopes

    @property
    def state_keys(self) -> list[bytes]:
        """The requestState sealing keys: the current one first (shared ones, with shared state)."""
        if self.shared is not None and self.shared.sealing_keys:
            return self.shared.sealing_keys
        return self._own_keys

    @property
    def state_key(self) -> bytes:
        return self.state_keys[0]

    def share_state(self, shared: RedisState) -> None:
        """Serve with state shared with other processes (``--state``): sealing keys, and change
        notifications that reach the sessions and listen streams of every process."""
        self.shared = shared
        shared.subscribe(self._on_fanout)
        self.tasks.share(shared)

    def _on_fanout(self, message: FanoutMessage) -> None:
        """Another worker's change, for this one's sessions and streams (its own it delivered itself)."""
        from ..state.fanout import ComponentsSwitched, ListChanged, ResourceUpdated, TaskChanged

        if isinstance(message, ListChanged):
            self.audience.list_changed(message.method, message.filter_key)
        elif isinstance(message, ResourceUpdated):
            for uri in self.served_uris(message.uri):
                self.audience.resource_updated(uri)
        elif isinstance(message, TaskChanged):
            self.audience.task_changed(TaskRecord.from_dict(message.record))
        elif isinstance(message, ComponentsSwitched):
            try:
                kinds = self._switch(message.on, message.names, message.tags)
            except ValueError as exc:  # (a worker serving other plugins)
                log.warning("a run-time switch from another worker was skipped: %s", exc)
                return
            self.lists_changed_here(kinds)

    async def _changed_everywhere(self, message: Callable[[Any], FanoutMessage], here: Callable[[], None]) -> None:
        """A change made here: for the other processes (at most once: a lost link loses it, logged),
        then for this one's sessions and streams (``here``), so that they fan out at the same time.
        ``message`` makes the fan-out's message from ``state.fanout``, which only shared state
        imports (a server on its own starts without it)."""
        if self.shared is None:
            here()
        else:
            from ..state import fanout

            await self.shared.tell_first(message(fanout), "a change notification", here)

    @property
    def sessions(self) -> set[SessionCore]:
        """The live sessions (legacy sessions and stream connections)."""
        return self.audience.sessions

    @property
    def listeners(self) -> set[Listener]:
        """The open ``subscriptions/listen`` streams (2026-07-28)."""
        return self.audience.listeners

    # -- the request pipeline -------------------------------------------------------------

    @property
    def handler(self) -> RequestHandler:
        """The one request handler the runtime runs in each worker: middleware, then the method."""
        if self._handler is None:
            self._handler = pipeline.build(self, self._builtin_pipeline(), self.middleware)
        return self._handler

    def header_params(self, tool: object) -> list[tuple[str, tuple[str, ...]]] | None:
        """The arguments of tool ``tool`` that 2026-07-28 clients mirror in ``Mcp-Param-*`` headers
        (name, path); None when there is no such tool."""
        entry = self.tools.get(tool) if isinstance(tool, str) else None
        if entry is None:
            return None
        return entry.signature.header_params if entry.reshape is None else entry.reshape.check.header_params

    def timed_out(self, request: IncomingRequest, timeout: float) -> dict[str, Any] | None:
        """What a request that ran out of time answers, when not the runtime's JSON-RPC error."""
        return pipeline.timed_out(request, timeout)

    def pipeline(self) -> list[Middleware]:
        """Every middleware, outermost first: built-in features by rank, then the app's and the
        plugins' in the order they were added.

        Telemetry that is on only because ``opentelemetry-api`` is installed (``telemetry=None``)
        joins when an SDK has been configured by the time the pipeline is built (the first
        request): with the API alone every span would be a no-op, and the pipeline it would add
        costs about a tenth of stdio's throughput.  ``telemetry=True`` keeps it always.  Until
        something imports OpenTelemetry (the program, a plugin, ``opentelemetry-instrument``),
        the App does not either: it is a tenth of a stdio server's start-up."""
        return self._builtin_pipeline() + self.middleware

    def _builtin_pipeline(self) -> list[Middleware]:
        self._telemetry_now()
        builtin = sorted(self._builtin, key=lambda item: item[0])
        skip = (
            self.telemetry
            if self._telemetry_auto and self.telemetry is not None and not self.telemetry.configured()
            else None
        )
        return [mw for _, mw in builtin if mw is not skip]

    def use(self, middleware: Middleware) -> Middleware:
        added = super().use(middleware)
        self._handler = None
        return added

    def take_handlers(self, fresh: Registry) -> None:
        """Serve ``fresh``'s tools, resources, prompts, middleware and hooks from now on, all at
        once (``--reload``): requests already running finish with what they started with.  The
        app's reshaped tools are reshaped in ``fresh`` first; a ValueError if one no longer can be,
        and nothing changes."""
        for name, changes in self.reshaped:
            Registry.reshape_tool(fresh, name, **changes)
        self.tools, self.resources, self.templates = fresh.tools, fresh.resources, fresh.templates
        self.prompts, self.middleware = fresh.prompts, fresh.middleware
        self.notification_hooks = fresh.notification_hooks
        self._handler = None
        self._uri_namespaces = None
        if self.tool_search is not None:
            self.tool_search.invalidate()

    def set_identity(
        self,
        *,
        name: str | None = None,
        title: str | None = None,
        version: str | None = None,
        instructions: str | None = None,
    ) -> None:
        """Change who the server says it is (its ``serverInfo`` and instructions), before it serves;
        what is None stays as it was."""
        identity = self.identity
        self.identity = attrs.evolve(
            identity,
            name=name or identity.name,
            title=title if title is not None else identity.title,
            version=version or identity.version,
            instructions=instructions if instructions is not None else identity.instructions,
        )
        self.name = name or self.name
        self.title = title if title is not None else self.title
        self.version = version or self.version

    def use_builtin(self, rank: int, middleware: Middleware) -> None:
        """Add a built-in feature's middleware at ``rank`` (the constants above), outside the user's."""
        self._builtin.append((rank, middleware))
        self._handler = None

    # -- composition ----------------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """Run the lifespans of the app and its plugins around the block (``serve_*`` do this
        themselves); inside one, a nested ``running()`` (another ``serve_*``) runs nothing more."""
        if self._lifespan_running:
            yield
            return
        self._lifespan_running = True
        try:
            self.check()
            async with lifespan.run(self, self.lifespans):
                yield
        finally:
            self._lifespan_running = False

    def include(self, plugin: Registry, *, prefix: str | None = None) -> None:
        """Add a plugin's tools, prompts, resources and templates, its middleware, lifespans and
        notification hooks.  ``prefix`` serves its components in that namespace (``namespaces.py``):
        tools and prompts as ``PREFIX_name``, resources and templates as ``PREFIX+scheme:...``.
        A ValueError, and nothing added, when one clashes with a component served already (naming
        both owners), or the prefix cannot serve it (an invalid prefix, a URI without a scheme, a
        tool name too long for the spec's rule)."""
        owner = plugin.name or "plugin"
        staged = composition.claimed(plugin, prefix, owner)
        composition.check_clashes(self, staged, owner, prefix)
        for table, _ in composition.TABLES:
            getattr(self, table).update(staged[table])
        self._uri_namespaces = None
        self.middleware.extend(plugin.middleware)
        self.lifespans.extend(plugin.lifespans)
        self.user_settings.extend(s for s in plugin.user_settings if s not in self.user_settings)
        for method, hooks in plugin.notification_hooks.items():
            self.notification_hooks.setdefault(method, []).extend(hooks)
        self._handler = None
        self.plugins.append(owner)
        if self.tool_search is not None:
            self.tool_search.invalidate()

    def mount(self, other: Registry, *, namespace: str | None = None) -> None:
        """Serve another App's (or a plugin's) components, as they are now, in ``namespace``
        (None or ``""``: in none), with its middleware, lifespans and notification hooks: ``include``
        with a prefix.  The operator settings of this App (auth, visibility, limits) apply to them."""
        self.include(other, prefix=namespace or None)

    def check(self) -> None:
        """What the settings name must exist, and nothing may clash with tool search's two tools:
        else a ValueError naming it (before serving).  Builds the tool search index."""
        self.visibility.check(self)
        if self.tool_search is not None:
            self.tool_search.check(self.tools)
            self.tool_search.index(self.tools)

    # -- what the protocol needs ----------------------------------------------------------

    def capabilities(self, era: str, version: str) -> dict[str, Any]:
        caps: dict[str, Any] = {"logging": {}}
        if self.tools:
            caps["tools"] = {"listChanged": True}
        if self.resources or self.templates:
            caps["resources"] = {"listChanged": True, "subscribe": True}
        if self.prompts:
            caps["prompts"] = {"listChanged": True}
        if (self.prompts or self.templates) and (era == "modern" or at_least(version, "2025-03-26")):
            caps["completions"] = {}
        if any(tool.task != "never" for tool in self.tools.values()):
            if era == "modern":
                caps["extensions"] = {EXTENSION: {}}
            elif at_least(version, "2025-11-25"):
                caps["tasks"] = {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}
        for offered in self.offering:
            for key, value in offered(era, version).items():
                if key == "extensions" and isinstance(value, dict):
                    caps["extensions"] = {**value, **caps.get("extensions", {})}
                else:
                    caps.setdefault(key, value)
        return caps

    @contextlib.contextmanager
    def attach(self, session: SessionCore) -> Iterator[None]:
        self.open_session(session)
        try:
            yield
        finally:
            self.detach(session)

    def open_session(self, session: SessionCore) -> None:
        """The session is live: change notifications go to it from now on."""
        self._telemetry_now()
        self.audience.sessions.add(session)
        for hooks in self.session_hooks:
            hooks.opened(session)

    def detach(self, session: SessionCore) -> None:
        """The session ended: no more notifications to it, nor to its listen streams."""
        if session not in self.audience.sessions:
            return
        self.audience.forget(session)
        if self.tasks.live and session.protocol.legacy_version is not None:
            self.tasks.cancel_owned("\x00" + task_session(session))  # its tasks are out of reach now
        for hooks in self.session_hooks:
            hooks.closed(session)

    def on_client_notification(self, session: SessionCore, method: str, params: dict[str, Any]) -> None:
        """Client notifications other than cancel/initialized go to the hooks registered for them."""
        hooks = self.notification_hooks.get(method)
        if not hooks:
            if method != "notifications/progress":
                log.debug("no hook for client notification %s", method)
            return
        notification = Notification(method, params, session.session_id, session)
        for hook in hooks:
            try:
                hook(notification)
            except Exception:
                log.exception("notification hook %s failed on %s", getattr(hook, "__qualname__", hook), method)

    # -- change notifications -------------------------------------------------------------

    # These never wait on a client (notifications.py).  With shared state they also go to the
    # other processes, which deliver them to their own sessions and listen streams.

    async def notify_tools_changed(self) -> None:
        await self._list_changed("notifications/tools/list_changed", "toolsListChanged")

    async def notify_prompts_changed(self) -> None:
        await self._list_changed("notifications/prompts/list_changed", "promptsListChanged")

    async def notify_resources_changed(self) -> None:
        await self._list_changed("notifications/resources/list_changed", "resourcesListChanged")

    async def _list_changed(self, method: str, filter_key: str) -> None:
        await self._changed_everywhere(
            lambda fanout: fanout.ListChanged(method, filter_key),
            lambda: self.audience.list_changed(method, filter_key),
        )

    # -- who sees what --------------------------------------------------------------------

    def add_visibility_rule(self, rule: Rule) -> Rule:
        """Add a rule ``rule(component, request) -> bool`` (also a decorator): a component it answers
        False for is hidden from that request.  A rule that raises fails the request with an internal
        error; keep it quick, it runs for every component a list shows."""
        return self.visibility.add_rule(rule)

    def reshape_when_served(self, name: str, **changes: Any) -> None:
        """``reshape_tool`` for a tool that is not here yet but will be (a gateway's upstream's):
        applied each time it is served (a mistake is then logged, naming the tool)."""
        self.reshape_waiting.append((name, changes))

    def reshape_tool(self, name: str, **changes: Any) -> None:
        super().reshape_tool(name, **changes)
        self.reshaped.append((name, changes))  # (made again on the fresh handlers of a reload)
        if self.tool_search is not None:
            self.tool_search.invalidate()

    async def disable(self, *names: str, tags: Iterable[str] = ()) -> None:
        """Hide these tools, prompts, resources or templates (by name, URI or URI template, or by
        tag) from every caller, and tell the sessions and listen streams whose lists changed (every
        worker's, with shared state).  A name or tag no component has is a ValueError."""
        await self._switched(False, names, tuple(tags))

    async def enable(self, *names: str, tags: Iterable[str] = ()) -> None:
        """Show again what ``disable`` hid (a name switched beats a tag switched)."""
        await self._switched(True, names, tuple(tags))

    async def _switched(self, on: bool, names: tuple[str, ...], tags: tuple[str, ...]) -> None:
        kinds = self._switch(on, names, tags)
        await self._changed_everywhere(
            lambda fanout: fanout.ComponentsSwitched(on, list(names), list(tags)),
            lambda: self.lists_changed_here(kinds),
        )

    def _switch(self, on: bool, names: Iterable[str], tags: Iterable[str]) -> list[str]:
        kinds = self.visibility.affected(self, names, tags)
        self.visibility.switches.set(on, names, tags, forget=True)
        self.visibility.refresh()
        return kinds

    def switch_session(self, session: SessionCore, on: bool, names: tuple[str, ...], tags: tuple[str, ...]) -> None:
        """``ctx.session.disable(...)``/``enable(...)``: for that legacy session alone, which is told
        its lists changed."""
        if session.protocol.legacy_version is None:
            raise ValueError("only a legacy (initialize) session has components of its own to switch")
        kinds = self.visibility.affected(self, names, tags)
        own: Switches = session.switches if session.switches is not None else Switches()
        own.set(on, names, tags)
        session.switches = own
        self.visibility.session_switched()
        self._tell_session(session, kinds)

    def session_switched_elsewhere(self, session: SessionCore) -> None:
        """Another worker changed the session's own switches (now restored here): tell the session,
        if this worker carries its stream, that the lists its switches name changed."""
        own: Switches | None = session.switches
        if own is not None:
            try:
                kinds = self.visibility.affected(self, own.names, own.tags)
            except ValueError:  # (a name this worker's plugins do not have: every list, to be safe)
                kinds = list(KINDS)
            self._tell_session(session, kinds)

    def _tell_session(self, session: SessionCore, kinds: list[str]) -> None:
        for method, _ in changed_lists(kinds):
            session.post({"jsonrpc": "2.0", "method": method})

    # -- components that come and go (a gateway's upstreams) -------------------------------

    def proxy(self, upstream: Proxied, *, namespace: str | None = None) -> None:
        """Serve an upstream MCP server's tools, resources, templates and prompts beside this app's
        own (``mcptrio.gateway.Upstream``), for as long as the app runs.  ``namespace`` prefixes
        their names (default: the upstream's name; ``""``: none)."""
        upstream.attach(self, namespace)

    def replace_components(self, owner: str, found: dict[str, dict[str, Any]]) -> tuple[list[str], list[str]]:
        """Put ``found`` (entries by registry table: ``"tools"``, ``"resources"``, ``"templates"``,
        ``"prompts"``) in place of what ``owner`` had.  Returns the tables that changed, and what was
        left out because another owner has that name (each described in a few words)."""
        changed: list[str] = []
        refused: list[str] = []
        for kind in KINDS:
            table: dict[str, Any] = getattr(self, kind)
            old = {key: entry for key, entry in table.items() if entry.owner == owner}
            for key in old:
                del table[key]
            new: dict[str, Any] = {}
            for key, entry in found.get(kind, {}).items():
                if key in table:
                    refused.append(f"{kind[:-1]} {key!r} (already served by {table[key].owner or self.name!r})")
                else:
                    new[key] = entry
            table.update(new)
            if [e.definition() for e in old.values()] != [e.definition() for e in new.values()]:
                changed.append(kind)
        if changed and self.tool_search is not None:
            self.tool_search.invalidate()
        return changed, refused

    def lists_changed_here(self, kinds: Iterable[str]) -> None:
        """Tell this process's sessions and listen streams that these tables changed (not the other
        workers, which see the same change of their own)."""
        for method, filter_key in changed_lists(kinds):
            self.audience.list_changed(method, filter_key)

    async def notify_resource_updated(self, uri: str) -> None:
        """``notifications/resources/updated`` to every session and stream subscribed to ``uri``, or to
        the URI it is served as: a plugin served in a namespace names its own URIs (``served_uris``)."""
        served = self.served_uris(uri)

        def here() -> None:
            for each in served:
                self.audience.resource_updated(each)

        await self._changed_everywhere(lambda fanout: fanout.ResourceUpdated(uri), here)

    def served_uris(self, uri: str) -> list[str]:
        """The URIs clients know the resource ``uri`` by: itself and, for each namespace whose plugin
        serves it (a resource of that URI, or a template that matches it), ``NAMESPACE+uri``."""
        found = [uri]
        if self._uri_namespaces is None:
            spaces = {entry.namespace for entry in self.resources.values()}
            spaces.update(template.namespace for template in self.templates.values())
            self._uri_namespaces = tuple(sorted(spaces - {""}))
        for namespace in self._uri_namespaces:
            served = served_uri(self, namespace, uri)
            if served is not None:
                found.append(served)
        return found
