"""Tools, resources, resource templates and prompts, registered with decorators.

``Registry`` is what a plugin fills in; an ``App`` is a registry that serves, and can
``include`` plugins.  Handlers are async functions, or plain ones that run in a worker thread
(``threads``); a parameter annotated ``Context`` receives the per-request context.
"""

from __future__ import annotations

import inspect
import re
import sys
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar, overload

import attrs

from . import handler_checks, lifespan
from .context import Context
from .lifespan import Lifespan
from .plugin_options import PluginOptions
from .signature import ToolSignature
from .threads import as_async, check_handler
from .user_settings import Kind, UserSetting

if TYPE_CHECKING:
    from .reshape import Reshaping, Source

# What an entry holds: the handler as an async function (a plain one wrapped to run in a thread).
Handler = Callable[..., Awaitable[Any]]
# What the decorators take: ``async def`` or ``def``.
HandlerFunction = Callable[..., Any]
# (request, call_next) -> result; see middleware.py.
Middleware = Callable[[Any, Callable[[Any], Awaitable[dict[str, Any]]]], Awaitable[dict[str, Any]]]
# (notification) -> None; called as the notification arrives, so it must not block.
NotificationHook = Callable[[Any], None]
# The decorators return what they are given: a decorated function keeps its own type.
HandlerT = TypeVar("HandlerT", bound=HandlerFunction)
HookT = TypeVar("HookT", bound=NotificationHook)
LifespanT = TypeVar("LifespanT", bound=Lifespan)
# (options) -> None (configured in place) or the Registry to serve instead: see plugin_options.py.
ConfigureHook = Callable[[PluginOptions], "Registry | None"]
ConfigureT = TypeVar("ConfigureT", bound=ConfigureHook)

# Return types that are content, not structured output: a tool returning ``str`` is a text tool.
TEXT_RESULT_TYPES: tuple[type, ...] = (str,)


def _content_types() -> tuple[type, ...]:
    """``str``, plus the wire content classes once some module has imported them (a return
    annotation can only name them then), so start-up never pays for importing the wire types."""
    wire = sys.modules.get("mcptrio.wire")
    if wire is None:
        return TEXT_RESULT_TYPES
    return TEXT_RESULT_TYPES + (
        wire.TextContent,
        wire.ImageContent,
        wire.AudioContent,
        wire.ResourceLink,
        wire.EmbeddedResource,
        wire.CallToolResult,
    )


_TEMPLATE_VAR = re.compile(r"\{([+#./;?&]?)([A-Za-z0-9_]+)\*?\}")


def _context_parameter(fn: HandlerFunction) -> str | None:
    for name, param in inspect.signature(fn).parameters.items():
        annotation = param.annotation
        if (
            annotation is Context
            or annotation == "Context"
            or (isinstance(annotation, type) and issubclass(annotation, Context))
        ):
            return name
    return None


def _describe(fn: HandlerFunction, description: str | None) -> str | None:
    return description if description is not None else inspect.getdoc(fn)


def _optional(**fields: Any) -> dict[str, Any]:
    return {k: v for k, v in fields.items() if v is not None}


@attrs.frozen
class Completer:
    """``[async] def complete(value, context_arguments[, ctx: Context]) -> list[str]``."""

    fn: Handler
    context_parameter: str | None

    @classmethod
    def of(cls, fn: HandlerFunction, argument: str) -> Completer:
        check_handler(fn, "completer")
        handler_checks.check_completer_returns(fn, argument)
        return cls(*as_async(fn, "completer", _context_parameter(fn)))


def _completers(complete: dict[str, HandlerFunction] | None) -> dict[str, Completer]:
    return {name: Completer.of(fn, name) for name, fn in (complete or {}).items()}


@attrs.frozen
class ToolEntry:
    name: str
    fn: Handler
    signature: ToolSignature
    title: str | None = None
    description: str | None = None
    annotations: dict[str, Any] | None = None
    icons: list[dict[str, Any]] | None = None
    meta: dict[str, Any] | None = None
    owner: str = ""
    namespace: str = ""  # the prefix it is served under, when it is (namespaces.py); its name has it already
    scopes: frozenset[str] = frozenset()  # OAuth scopes a call needs (with authorization on)
    tags: frozenset[str] = frozenset()  # what visibility filters and switches name (visibility.py)
    task: str = "never"  # "optional" | "required": may (must) run as a task (app/tasks)
    task_timeout: float | None = None  # seconds a task of this tool may run (None: until its TTL)
    input_first: bool = False  # runs in the request until ctx.start_task(), gathering input first
    timeout: float | None = None  # seconds a call may run before it is answered as timed out
    reshape: Reshaping | None = None  # what clients see and send instead, when reshaped (reshape.py)

    @property
    def input_schema(self) -> dict[str, Any]:
        """The input schema clients see: the reshaped one, if the tool is reshaped."""
        return self.signature.input_schema if self.reshape is None else self.reshape.input_schema

    def definition(self) -> dict[str, Any]:
        out = _optional(
            title=self.title,
            description=self.description,
            annotations=self.annotations,
            icons=self.icons,
            _meta=self.meta,
        )
        out["name"] = self.name
        out["inputSchema"] = self.input_schema
        if self.signature.output_schema is not None:
            out["outputSchema"] = self.signature.output_schema
        return out


@attrs.frozen
class ResourceEntry:
    uri: str
    name: str
    fn: Handler
    context_parameter: str | None
    title: str | None = None
    description: str | None = None
    mime_type: str | None = None
    size: int | None = None
    annotations: dict[str, Any] | None = None
    icons: list[dict[str, Any]] | None = None
    owner: str = ""
    namespace: str = ""  # the prefix it is served under, when it is (namespaces.py); its name has it already
    scopes: frozenset[str] = frozenset()  # OAuth scopes a read needs (with authorization on)
    tags: frozenset[str] = frozenset()  # what visibility filters and switches name (visibility.py)

    def definition(self) -> dict[str, Any]:
        out = {"uri": self.uri, "name": self.name}
        out.update(
            _optional(
                title=self.title,
                description=self.description,
                mimeType=self.mime_type,
                size=self.size,
                annotations=self.annotations,
                icons=self.icons,
            )
        )
        return out


@attrs.frozen
class TemplateEntry:
    uri_template: str
    name: str
    fn: Handler
    context_parameter: str | None
    pattern: re.Pattern[str]
    variables: tuple[str, ...]
    title: str | None = None
    description: str | None = None
    mime_type: str | None = None
    annotations: dict[str, Any] | None = None
    icons: list[dict[str, Any]] | None = None
    complete: dict[str, Completer] = attrs.field(factory=dict)
    owner: str = ""
    namespace: str = ""  # the prefix it is served under, when it is (namespaces.py); its name has it already
    scopes: frozenset[str] = frozenset()  # OAuth scopes it needs (with authorization on)
    tags: frozenset[str] = frozenset()  # what visibility filters and switches name (visibility.py)

    def match(self, uri: str) -> dict[str, str] | None:
        found = self.pattern.fullmatch(uri)
        return found.groupdict() if found else None

    def definition(self) -> dict[str, Any]:
        out = {"uriTemplate": self.uri_template, "name": self.name}
        out.update(
            _optional(
                title=self.title,
                description=self.description,
                mimeType=self.mime_type,
                annotations=self.annotations,
                icons=self.icons,
            )
        )
        return out


@attrs.frozen
class PromptEntry:
    name: str
    fn: Handler
    context_parameter: str | None
    arguments: tuple[dict[str, Any], ...]
    title: str | None = None
    description: str | None = None
    icons: list[dict[str, Any]] | None = None
    complete: dict[str, Completer] = attrs.field(factory=dict)
    owner: str = ""
    namespace: str = ""  # the prefix it is served under, when it is (namespaces.py); its name has it already
    scopes: frozenset[str] = frozenset()  # OAuth scopes it needs (with authorization on)
    tags: frozenset[str] = frozenset()  # what visibility filters and switches name (visibility.py)

    def definition(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name}
        out.update(_optional(title=self.title, description=self.description, icons=self.icons))
        if self.arguments:
            out["arguments"] = list(self.arguments)
        return out


def compile_template(template: str) -> tuple[re.Pattern[str], tuple[str, ...]]:
    """RFC 6570 level-1 style ``{var}`` (and ``{+var}`` for reserved expansion) to a regex."""
    parts, names, last = [], [], 0
    for found in _TEMPLATE_VAR.finditer(template):
        parts.append(re.escape(template[last : found.start()]))
        operator, name = found.group(1), found.group(2)
        if name in names:
            raise TypeError(f"resource template {template!r}: the variable {{{name}}} appears twice")
        parts.append(f"(?P<{name}>.+)" if operator in ("+", "#") else f"(?P<{name}>[^/?#]+)")
        names.append(name)
        last = found.end()
    parts.append(re.escape(template[last:]))
    return re.compile("".join(parts)), tuple(names)


def _check_braces(uri: str) -> None:
    """A TypeError for a brace that is not part of a ``{variable}`` (an unclosed one, a level-3
    expression such as ``{?a,b}``): such a template would match no URI, and no read would reach it."""
    rest = _TEMPLATE_VAR.sub("", uri)
    if "{" in rest or "}" in rest:
        raise TypeError(
            f"resource {uri!r}: a '{{' or '}}' that is not part of a {{variable}} "
            "(a template's variables are {name}, or {+name} to take '/' too)"
        )


def template_shape(template: str) -> str:
    """The URI template with its variables' names left out: two templates of one shape match the same URIs."""
    return _TEMPLATE_VAR.sub(lambda found: "{" + found.group(1) + "}", template)


def _prompt_arguments(
    fn: HandlerFunction, skip: str | None, descriptions: dict[str, str]
) -> tuple[dict[str, Any], ...]:
    arguments = []
    for name, param in inspect.signature(fn).parameters.items():
        if name == skip:
            continue
        argument: dict[str, Any] = {"name": name}
        if name in descriptions:
            argument["description"] = descriptions[name]
        argument["required"] = param.default is inspect.Parameter.empty
        arguments.append(argument)
    return tuple(arguments)


class Registry:
    """What a plugin registers; the decorators below are the whole authoring API."""

    def __init__(
        self, name: str = "", *, title: str | None = None, version: str | None = None, inline_schemas: bool = True
    ) -> None:
        # Who the plugin is: a server that serves only this plugin gives these as its serverInfo.
        self.name, self.title, self.version = name, title, version
        # Object types in the schemas of the tools registered here: inlined (what clients take
        # best), or False: under $defs, referenced with $ref (recursive types always are).
        self.inline_schemas = inline_schemas
        self.tools: dict[str, ToolEntry] = {}
        self.resources: dict[str, ResourceEntry] = {}
        self.templates: dict[str, TemplateEntry] = {}
        self.prompts: dict[str, PromptEntry] = {}
        self.middleware: list[Middleware] = []
        self.notification_hooks: dict[str, list[NotificationHook]] = {}
        self.lifespans: list[Lifespan] = []
        self.configure_hook: ConfigureHook | None = None
        self.user_settings: list[UserSetting] = []

    def use(self, middleware: Middleware) -> Middleware:
        """Add a middleware ``async def mw(request, call_next)`` around every request (also a
        decorator).  The first added is the outermost; see ``mcptrio.app.middleware``."""
        if not callable(middleware):
            raise TypeError(f"middleware must be an async callable (request, call_next), not {middleware!r}")
        self.middleware.append(middleware)
        return middleware

    def lifespan(self, fn: LifespanT) -> LifespanT:
        """Register ``async def fn(app): ...; yield; ...``: set up before the server serves, taken
        down after it has drained (a decorator; see ``mcptrio.app.lifespan``)."""
        lifespan.check(fn)
        self.lifespans.append(fn)
        return fn

    def configure(self, hook: ConfigureT) -> ConfigureT:
        """Register ``def hook(options: PluginOptions) -> Registry | None``: called before the plugin is
        served with its ``[plugins.NAME]`` table and ``--plugin-option NAME.KEY=VALUE`` flags, read
        through ``options``' typed getters (see ``mcptrio.app.plugin_options``).  It returns None, or
        the Registry to serve in the plugin's place (tools the options describe)."""
        if not callable(hook):
            raise TypeError(f"a configure hook must be a function (options) -> Registry | None, not {hook!r}")
        self.configure_hook = hook
        return hook

    def user_setting(
        self,
        key: str,
        *,
        env: str,
        title: str,
        description: str,
        kind: Kind = "string",
        required: bool = False,
        sensitive: bool = False,
        default: str | None = None,
        option: str | None = None,
    ) -> UserSetting:
        """Declare a value the user gives when installing the server, passed as the environment
        variable ``env`` (see ``mcptrio.app.user_settings``); with ``option``, it fills that plugin
        option when the option is not given otherwise."""
        setting = UserSetting(key, env, title, description, kind, required, sensitive, default, option)
        if any(known.key == key or known.env == env for known in self.user_settings):
            raise ValueError(f"user setting {key!r} ({env}): its key or variable is already declared")
        self.user_settings.append(setting)
        return setting

    def on_notification(self, method: str) -> Callable[[HookT], HookT]:
        """Register ``def hook(notification)`` for a client notification such as
        ``notifications/roots/list_changed``; it runs as the notification arrives, so it must
        not block (start work elsewhere, or just drop a cache)."""

        def register(hook: HookT) -> HookT:
            if inspect.iscoroutinefunction(hook):
                raise TypeError(
                    f"notification hook {hook.__qualname__} must be a plain function (def), "
                    "not async: it runs as the notification arrives"
                )
            self.notification_hooks.setdefault(method, []).append(hook)
            return hook

        return register

    @overload
    def tool(self, name: HandlerT, /) -> HandlerT: ...

    @overload
    def tool(
        self,
        name: str | None = None,
        *,
        title: str | None = None,
        description: str | None = None,
        annotations: dict[str, Any] | None = None,
        icons: list[dict[str, Any]] | None = None,
        input_schema: dict[str, Any] | None = None,
        output_schema: dict[str, Any] | None = None,
        meta: dict[str, Any] | None = None,
        scopes: Iterable[str] = (),
        tags: Iterable[str] = (),
        task: str = "never",
        task_timeout: float | None = None,
        input_first: bool = False,
        timeout: float | None = None,
    ) -> Callable[[HandlerT], HandlerT]: ...

    def tool(
        self,
        name: str | HandlerFunction | None = None,
        *,
        title: str | None = None,
        description: str | None = None,
        annotations: dict[str, Any] | None = None,
        icons: list[dict[str, Any]] | None = None,
        input_schema: dict[str, Any] | None = None,
        output_schema: dict[str, Any] | None = None,
        meta: dict[str, Any] | None = None,
        scopes: Iterable[str] = (),
        tags: Iterable[str] = (),
        task: str = "never",
        task_timeout: float | None = None,
        input_first: bool = False,
        timeout: float | None = None,
    ) -> Any:
        """Register a function as a tool (``@plugin.tool`` or ``@plugin.tool(...)``); its signature
        gives the input schema.  A plain ``def`` runs in a worker thread.  ``scopes``: the OAuth
        scopes a token needs to call it, once the server checks tokens.

        ``task="optional"``: run it as a task (long-running work the client polls for) whenever the
        client supports tasks; ``"required"``: only as a task.  The task starts before the handler
        runs, or, with ``input_first``, when it calls ``await ctx.start_task()`` (input it asked
        for before, by multi round-trip, is gathered in the request; the handler then runs again
        from the top in the task, where those answers are returned as they were).

        ``timeout``: seconds a call may run; then it is cancelled (a plain ``def``'s thread runs on,
        its result dropped) and answered ``isError``, "tool 'x' timed out after 2 s", as at the
        server's request deadline, which still applies when it is the sooner."""
        if callable(name):  # @plugin.tool, without parentheses
            return self.tool()(name)
        _check_called(name, "tool")
        declared = _scopes(scopes)
        labels = tag_set(tags)
        if task not in ("never", "optional", "required"):
            raise ValueError(f'task must be "never", "optional" or "required", not {task!r}')
        if task_timeout is not None and not task_timeout > 0:
            raise ValueError(f"task_timeout must be a positive number of seconds, got {task_timeout!r}")
        if timeout is not None and not timeout > 0:
            raise ValueError(f"timeout must be a positive number of seconds, got {timeout!r}")

        def register(fn: HandlerT) -> HandlerT:
            check_handler(fn, "tool")
            signature = ToolSignature.from_function(
                fn,
                input_schema=input_schema,
                output_schema=output_schema,
                content_types=_content_types(),
                inline=self.inline_schemas,
            )
            handler, signature.context_parameter = as_async(fn, "tool", signature.context_parameter)
            entry = ToolEntry(
                name or fn.__name__,
                handler,
                signature,
                title,
                _describe(fn, description),
                annotations,
                icons,
                meta,
                scopes=declared,
                tags=labels,
                task=task,
                task_timeout=task_timeout,
                input_first=input_first,
                timeout=timeout,
            )
            self._add(self.tools, entry.name, entry, "tool")
            return fn

        return register

    def resource(
        self,
        uri: str,
        *,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        mime_type: str | None = None,
        size: int | None = None,
        annotations: dict[str, Any] | None = None,
        icons: list[dict[str, Any]] | None = None,
        complete: dict[str, HandlerFunction] | None = None,
        scopes: Iterable[str] = (),
        tags: Iterable[str] = (),
    ) -> Callable[[HandlerT], HandlerT]:
        """Register a resource; a URI with ``{variables}`` makes it a resource template, whose
        handler takes each variable as a parameter.  A plain ``def`` runs in a worker thread.
        ``scopes``: the OAuth scopes a token needs to read it."""
        _check_called(uri, "resource", "a URI")
        declared = _scopes(scopes)
        labels = tag_set(tags)

        def register(fn: HandlerT) -> HandlerT:
            check_handler(fn, "resource")
            ctx_param = _context_parameter(fn)
            _check_braces(uri)
            pattern, variables = compile_template(uri) if "{" in uri else (None, ())
            handler_checks.check_variables(fn, uri, variables, ctx_param)
            handler_checks.check_resource_returns(fn, uri)
            handler, ctx_param = as_async(fn, "resource", ctx_param)
            entry: TemplateEntry | ResourceEntry
            if pattern is not None:
                entry = TemplateEntry(
                    uri,
                    name or fn.__name__,
                    handler,
                    ctx_param,
                    pattern,
                    variables,
                    title,
                    _describe(fn, description),
                    mime_type,
                    annotations,
                    icons,
                    _completers(complete),
                    scopes=declared,
                    tags=labels,
                )
                self._add(self.templates, uri, entry, "resource template")
            else:
                entry = ResourceEntry(
                    uri,
                    name or fn.__name__,
                    handler,
                    ctx_param,
                    title,
                    _describe(fn, description),
                    mime_type,
                    size,
                    annotations,
                    icons,
                    scopes=declared,
                    tags=labels,
                )
                self._add(self.resources, uri, entry, "resource")
            return fn

        return register

    @overload
    def prompt(self, name: HandlerT, /) -> HandlerT: ...

    @overload
    def prompt(
        self,
        name: str | None = None,
        *,
        title: str | None = None,
        description: str | None = None,
        arguments: dict[str, str] | None = None,
        icons: list[dict[str, Any]] | None = None,
        complete: dict[str, HandlerFunction] | None = None,
        scopes: Iterable[str] = (),
        tags: Iterable[str] = (),
    ) -> Callable[[HandlerT], HandlerT]: ...

    def prompt(
        self,
        name: str | HandlerFunction | None = None,
        *,
        title: str | None = None,
        description: str | None = None,
        arguments: dict[str, str] | None = None,
        icons: list[dict[str, Any]] | None = None,
        complete: dict[str, HandlerFunction] | None = None,
        scopes: Iterable[str] = (),
        tags: Iterable[str] = (),
    ) -> Any:
        """Register a prompt (``@plugin.prompt`` or ``@plugin.prompt(...)``); its parameters are the
        prompt's arguments (``arguments`` describes them).  A plain ``def`` runs in a worker thread.
        ``scopes``: the OAuth scopes a token needs to get it."""
        if callable(name):  # @plugin.prompt, without parentheses
            return self.prompt()(name)
        _check_called(name, "prompt")
        declared = _scopes(scopes)
        labels = tag_set(tags)

        def register(fn: HandlerT) -> HandlerT:
            check_handler(fn, "prompt")
            prompt_name = name or fn.__name__
            handler_checks.check_prompt_returns(fn, prompt_name)
            handler, ctx_param = as_async(fn, "prompt", _context_parameter(fn))
            entry = PromptEntry(
                prompt_name,
                handler,
                ctx_param,
                _prompt_arguments(fn, ctx_param, arguments or {}),
                title,
                _describe(fn, description),
                icons,
                _completers(complete),
                scopes=declared,
                tags=labels,
            )
            self._add(self.prompts, entry.name, entry, "prompt")
            return fn

        return register

    def reshape_tool(
        self,
        name: str,
        *,
        rename: str | None = None,
        title: str | None = None,
        description: str | None = None,
        hide: Mapping[str, Source] | None = None,
        narrow: Mapping[str, Mapping[str, Any]] | None = None,
    ) -> None:
        """Serve tool ``name`` reshaped (``mcptrio.app.reshape``): under the name ``rename``, with
        another title or description, its arguments in ``hide`` left out of its schema and filled
        with ``Fixed(value)``, ``FromEnv(variable)`` or ``FromPrincipal(claim)``, and those in
        ``narrow`` given tighter schema keywords (``{"units": {"enum": ["c"]}}``).  The handler
        receives its original arguments.  A mistake is a ValueError naming the tool."""
        from .reshape import reshape

        entry = self.tools.get(name)
        if entry is None:
            raise ValueError(f"reshaping tool {name!r}: there is no such tool")
        if entry.reshape is not None:
            raise ValueError(f"reshaping tool {name!r}: it is reshaped already (give every change in one reshape_tool)")
        how = reshape(
            name, entry.signature.input_schema, self.tools.keys() - {name}, rename=rename, hide=hide, narrow=narrow
        )
        new = attrs.evolve(
            entry,
            name=how.tool,
            title=entry.title if title is None else title,
            description=entry.description if description is None else description,
            reshape=how,
        )
        reshaped = {new.name if key == name else key: new if key == name else old for key, old in self.tools.items()}
        self.tools.clear()  # (in place, keeping the order: whatever holds the table sees the change)
        self.tools.update(reshaped)

    def _add(self, table: dict[str, Any], key: str, entry: Any, kind: str) -> None:
        if key in table:
            raise ValueError(f"{kind} {key!r} is registered twice")
        table[key] = entry


def _check_called(first: object, kind: str, what: str = "a name") -> None:
    """Something else than ``what`` where it goes (``@plugin.resource`` without its URI hands it
    the function): say so at once, instead of registering nothing."""
    if first is not None and not isinstance(first, str):
        shown = getattr(first, "__name__", repr(first))
        if kind == "resource":
            raise TypeError(
                f"@resource: write @plugin.resource(URI): a resource needs its URI (got {shown!r} where {what} goes)"
            )
        raise TypeError(f"@{kind}: the name must be a string, not {first!r}")


def tag_set(tags: Iterable[str], what: str = "tags") -> frozenset[str]:
    """``tags`` checked: a list of non-empty strings (``what`` names the setting in an error)."""
    if isinstance(tags, str):
        raise TypeError(f"{what} must be a list of tags, not the string {tags!r}")
    found = frozenset(tags)
    bad = [tag for tag in found if not isinstance(tag, str) or not tag]
    if bad:
        raise ValueError(f"{what}: a tag must be a non-empty string, not {bad[0]!r}")
    return found


def _scopes(scopes: Iterable[str]) -> frozenset[str]:
    if isinstance(scopes, str):
        raise TypeError(f"scopes must be a list of scope names, not the string {scopes!r}")
    found = frozenset(scopes)
    bad = [s for s in found if not isinstance(s, str) or not s or " " in s or '"' in s or "\\" in s]
    if bad:
        raise ValueError(f"invalid OAuth scope name(s): {bad!r}")
    return found
