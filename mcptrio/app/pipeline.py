"""The one request handler an App hands the runtime: context, middleware, the boundary where
exceptions become answers, and under it the method handlers (``HANDLERS``), what each MCP method
does with the App: the code between a worker and a plugin's handler.

Innermost, under the method handler, is the boundary (``guarded``), and it is under each
middleware the app and its plugins add too.  With no middleware at all, a request is one call of
the method handler through the boundary.

A 2026-07-28 request may take more than one round trip, and a round begins and ends here.  A
handler that asks the client for input it does not have yet ends the round with an
``InputRequiredResult`` whose ``requestState`` seals the answers gathered so far
(``protocol/request_state.py``: bound to the method, the params, an expiry and the principal).
The client's retry brings that state back with the new answers, unsealed before any middleware
sees it (``gathered``); the handler runs again from the start and finds them all.  The runtime
passes ``requestState`` through untouched.

The boundary is the one place between what handlers raise and what clients get (in the spirit
of Starlette's ``ExceptionMiddleware``): every middleware sees an answer, never a handler's
exception, and what a middleware raises is answered as a handler's failure would be.  The
runtime below maps only what is JSON-RPC's: an ``McpError`` to its error, a cancellation, a
deadline, anything else that reaches it to an internal error.

* ``tools/call``: the tool's failure is its result, with ``isError``: a ``ToolError`` (and
  arguments that don't fit, a client that can't or didn't answer) with its own text, anything
  else with a generic text (the detail goes to the log); so is a deadline (``timed_out``).
* Other methods: a ``ToolError`` is ``-32602`` with its text, asking a client for what it can't
  do ``-32600``, a client's error answer that error (in ``data.clientError``), a client that did
  not answer in time or anything else ``-32603``.
* ``InputRequired`` (2026-07-28): the ``InputRequiredResult`` that ends the round, on the
  methods that may answer one (``protocol/methods.py``).
* ``McpError`` is an answer already, and a cancellation is none: both pass.
"""

from __future__ import annotations

import base64
import functools
import logging
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, cast

import trio

from ..protocol import errors
from ..protocol.errors import McpError
from ..protocol.request_state import seal, unseal
from ..protocol.session import META_SUBSCRIPTION_ID
from ..runtime.client_calls import ClientRequestFailed
from . import results
from .context import NO_ANSWERS, Context
from .errors import ClientCapabilityMissing, InputRequired, StartTask, ToolError
from .middleware import CallNext, Middleware, Request, chain
from .namespaces import served_content
from .notifications import LISTEN_FILTER_KEYS, Audience, Listener
from .pagination import page, page_kept
from .signature import ArgumentError, OutputError
from .tasks import methods as tasks

if TYPE_CHECKING:
    from ..protocol.events import IncomingRequest
    from ..runtime.core import SessionCore
    from ..runtime.host import RequestHandler
    from .registry import PromptEntry, ResourceEntry, TemplateEntry, ToolEntry
    from .signature import ToolSignature
    from .tasks.runner import TaskRunner
    from .tool_search import ToolSearch
    from .visibility import Component, Visibility

log = logging.getLogger("mcptrio.app")

# A method handler (``HANDLERS``): (app, ctx, params) -> its result, awaited through the boundary.
MethodHandler = Callable[["App", Context, dict[str, Any]], Awaitable[dict[str, Any]]]

# Failures a tool reports as an isError result with their own text.
TOOL_FAILURES = (ToolError, ArgumentError, ClientCapabilityMissing, ClientRequestFailed)


async def guarded(ctx: Context, params: dict[str, Any], call: Awaitable[dict[str, Any]]) -> dict[str, Any]:
    """``await call`` (a handler's, or a middleware's with what it wraps), its failure answered."""
    try:
        return await call
    except McpError:
        raise
    except Exception as exc:
        return answer(ctx, params, exc)


def answer(ctx: Context, params: dict[str, Any], exc: Exception) -> dict[str, Any]:
    """The result that answers ``exc``, raised serving ``ctx``'s request with ``params``; or the
    ``McpError`` that does, raised."""
    if isinstance(exc, InputRequired):
        return _input_required(ctx, exc)
    method = ctx.method
    if method == "tools/call":
        return _tool_failure(params.get("name"), exc)
    if isinstance(exc, ToolError):
        raise errors.invalid_params(str(exc)) from None
    if isinstance(exc, ClientCapabilityMissing):
        raise errors.invalid_request(str(exc)) from None
    if isinstance(exc, ClientRequestFailed):
        if exc.code is None:
            raise errors.internal_error(str(exc)) from None
        client_error: dict[str, Any] = {"code": exc.code, "message": exc.message}
        if exc.data is not None:
            client_error["data"] = exc.data
        raise McpError(exc.code, str(exc), {"clientError": client_error}) from None
    log.error("the handler of %s failed", method, exc_info=exc)
    raise errors.internal_error() from None


def timed_out(request: IncomingRequest, timeout: float) -> dict[str, Any] | None:
    """What a request whose ``timeout`` ran out answers: a tool call, an ``isError`` result saying
    so; None for the rest (the runtime's JSON-RPC error)."""
    if request.method == "tools/call":
        return tool_error(f"tool {request.params.get('name')!r} timed out after {timeout:g} s")
    return None


def tool_error(text: str) -> dict[str, Any]:
    return {"content": [results.text_block(text)], "isError": True}


def _tool_failure(name: object, exc: Exception) -> dict[str, Any]:
    if isinstance(exc, TOOL_FAILURES):
        return tool_error(str(exc))
    if isinstance(exc, OutputError):
        log.error("tool %r returned a value that does not match its outputSchema: %s", name, exc)
        return tool_error(f"tool {name!r} returned a result that does not match its output schema")
    log.error("tool %r failed", name, exc_info=exc)
    return tool_error(f"tool {name!r} failed with an internal error ({type(exc).__name__})")


def _input_required(ctx: Context, needed: InputRequired) -> dict[str, Any]:
    request = ctx.incoming
    if not request.spec.input:
        log.error("the handler of %s asked for client input, which that method does not allow", request.method)
        raise errors.internal_error(f"the handler asked for client input, which {request.method} does not allow")
    return input_required(ctx.app.state_key, ctx.session.limits.input_state_ttl, request, ctx.input_responses, needed)


def build(app: App, builtin: list[Middleware], middleware: list[Middleware]) -> RequestHandler:
    """The runtime's ``RequestHandler`` for ``app``: the ``builtin`` features' middleware
    outermost, then the app's and plugins' ``middleware`` (each over a boundary of its own), then
    the method handlers."""
    if not builtin and not middleware:

        def handle(session: SessionCore, request: IncomingRequest, deadline: float) -> Awaitable[dict[str, Any]]:
            # (not a coroutine of its own: the worker awaits the boundary's)
            answers = gathered(app, request) if request.era == "modern" else NO_ANSWERS
            ctx = Context(session, request, deadline, answers, app)
            return guarded(ctx, request.params, HANDLERS[request.method](app, ctx, request.params))

        return handle

    def endpoint(request: Request) -> Awaitable[dict[str, Any]]:
        ctx = request.context
        return guarded(ctx, request.params, HANDLERS[ctx.method](app, ctx, request.params))

    pipeline: CallNext = chain(builtin, chain(middleware, endpoint, guarded))

    async def handle_through_pipeline(
        session: SessionCore, request: IncomingRequest, deadline: float
    ) -> dict[str, Any]:
        answers = gathered(app, request) if request.era == "modern" else NO_ANSWERS
        ctx = Context(session, request, deadline, answers, app)
        return await pipeline(Request(ctx, request.params))

    return handle_through_pipeline


# -- a 2026-07-28 round's answers ---------------------------------------------------------------


def gathered(app: App, request: IncomingRequest) -> Mapping[str, Any]:
    """The answers a 2026-07-28 request carries: unsealed (with ``app``'s keys) from its
    ``requestState``, and its ``inputResponses``; refused (``McpError``) when the state fails
    verification or has lapsed."""
    params = request.params
    fresh = params.get("inputResponses")
    if fresh is None and "requestState" not in params:
        return NO_ANSWERS
    responses: dict[str, Any] = {}
    if "requestState" in params:
        state = params["requestState"]
        responses.update(unseal(app.state_keys, state, request.method, params, time.time(), _owner(request)))
    if fresh is not None:
        if not isinstance(fresh, dict) or not all(isinstance(v, dict) for v in fresh.values()):
            raise errors.invalid_params('"inputResponses" must be an object of result objects')
        responses.update(fresh)
    return responses


def input_required(
    key: bytes, ttl: float, request: IncomingRequest, responses: Mapping[str, Any], needed: InputRequired
) -> dict[str, Any]:
    """The ``InputRequiredResult`` that ends this round: what is asked, and the sealed answers so far
    (valid for ``ttl`` seconds)."""
    state = seal(key, request.method, request.params, dict(responses), time.time() + ttl, _owner(request))
    return {"resultType": "input_required", "inputRequests": needed.requests, "requestState": state}


def _owner(request: IncomingRequest) -> str:
    """What a request's state is bound to: its principal's binding (with authorization), else ""."""
    return getattr(request.principal, "binding", "") if request.principal is not None else ""


# -- the method handlers -----------------------------------------------------------------------


class App(Protocol):
    """What the pipeline needs of the App it serves: the tables the method handlers read, and the
    keys a 2026-07-28 round's state is sealed with."""

    tools: dict[str, ToolEntry]
    resources: dict[str, ResourceEntry]
    templates: dict[str, TemplateEntry]
    prompts: dict[str, PromptEntry]
    page_size: int
    audience: Audience
    tasks: TaskRunner
    visibility: Visibility
    tool_search: ToolSearch | None

    @property
    def state_keys(self) -> Sequence[bytes]:
        """The sealing keys in use, the current one first (``App.state_keys``)."""


def _string_param(params: dict[str, Any], name: str) -> str:
    value = params.get(name)
    if not isinstance(value, str):
        raise errors.invalid_params(f'"{name}" is required and must be a string')
    return value


def _object_param(params: dict[str, Any], name: str) -> dict[str, Any]:
    value = params.get(name)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise errors.invalid_params(f'"{name}" must be an object')
    return value


def _listing(app: App, kind: str, key: str, ctx: Context, params: dict[str, Any]) -> dict[str, Any]:
    """A page of the registry's table ``kind`` as the result's ``key``: what the caller may see."""
    entries: Sequence[Any] = list(getattr(app, kind).values())
    visibility = app.visibility
    chunk: Sequence[Any]
    if visibility.active:
        chunk, cursor = page_kept(entries, params, app.page_size, visibility.judge(kind, ctx))
    else:
        chunk, cursor = page(entries, params, app.page_size)
    result: dict[str, Any] = {key: [entry.definition() for entry in chunk]}
    if cursor is not None:
        result["nextCursor"] = cursor
    if visibility.per_caller and ctx.era == "modern":
        result["cacheScope"] = "private"  # (every page: this list is the caller's own)
    return result


def _shown(app: App, kind: str, entry: Component, ctx: Context) -> bool:
    """Is ``entry`` (of the registry's table ``kind``) there for this caller?  (Hidden: as if unknown.)"""
    return not app.visibility.hides(kind, entry, ctx)


def _with_context(kwargs: dict[str, Any], name: str | None, ctx: Context) -> dict[str, Any]:
    if name is not None:
        kwargs[name] = ctx
    return kwargs


# -- tools -------------------------------------------------------------------------------------


async def tools_list(app: App, ctx: Context, params: dict[str, Any]) -> dict[str, Any]:
    if app.tool_search is not None:  # (the same two tools for every caller)
        return {"tools": [entry.definition() for entry in app.tool_search.front.values()]}
    result = _listing(app, "tools", "tools", ctx, params)
    if tasks.legacy_tasks(ctx):  # 2025-11-25 names each tool's task support (the extension does not)
        for tool in result["tools"]:
            support = app.tools[tool["name"]].task
            if support != "never":
                tool["execution"] = {"taskSupport": support}
    return result


def tools_call(app: App, ctx: Context, params: dict[str, Any]) -> Awaitable[dict[str, Any]]:
    """(Not a coroutine of its own: a call that is no task is the tool's, awaited by the worker.)"""
    name = params.get("name")
    if type(name) is not str:
        name = _string_param(params, "name")
    entry = app.tools.get(name)
    # (``active`` first: a call with nothing configured does not step into visibility.py)
    if entry is None or (app.visibility.active and app.visibility.hides("tools", entry, ctx, params)):
        entry = app.tool_search.front.get(name) if app.tool_search is not None else None
        if entry is None:
            raise errors.invalid_params(f"unknown tool: {name!r}")
    elif app.visibility.active:
        http = ctx.http
        if http is not None and http.param_mismatch is not None:
            raise http.param_mismatch  # (its headers were checked before dispatch; asgi.py)
    if entry.task == "never" and "task" not in params:
        return _run_tool(entry, ctx, params)  # the usual case, first
    return _tools_call_maybe_task(app, ctx, params, entry)


async def _tools_call_maybe_task(app: App, ctx: Context, params: dict[str, Any], entry: ToolEntry) -> dict[str, Any]:
    if not tasks.wants_task(entry, ctx, params):
        return await _run_tool(entry, ctx, params)

    def run(task_ctx: Context) -> Awaitable[dict[str, Any]]:
        return guarded(task_ctx, params, _run_tool(entry, task_ctx, params))

    if entry.input_first and ctx.era == "modern":
        ctx.task_wanted = True  # the handler runs here until it calls ctx.start_task()
        try:
            return await _run_tool(entry, ctx, params)
        except StartTask:
            pass
    return await tasks.start(app.tasks, ctx, entry, params, run)


async def _run_tool(entry: ToolEntry, ctx: Context, params: dict[str, Any]) -> dict[str, Any]:
    """Call the tool; what it (or binding its arguments, or checking its output) raises is the
    boundary's to answer."""
    signature = entry.signature
    arguments = params.get("arguments")
    if type(arguments) is not dict:
        arguments = _object_param(params, "arguments")
    if entry.reshape is not None:  # (checked against the reshaped schema, hidden arguments filled in)
        arguments = entry.reshape.arguments(arguments, ctx)
    if entry.namespace:
        ctx.namespace = entry.namespace
    kwargs = signature.bind(arguments)
    if signature.context_parameter is not None:
        kwargs[signature.context_parameter] = ctx
    if entry.timeout is None:
        value = await entry.fn(**kwargs)
    else:
        ends = trio.current_time() + entry.timeout
        ctx.deadline = min(ctx.deadline, ends)  # (ctx.time_left() counts to the sooner)
        with trio.move_on_at(ends) as scope:
            value = await entry.fn(**kwargs)
        if scope.cancelled_caught:
            return tool_error(f"tool {entry.name!r} timed out after {entry.timeout:g} s")
    result = _tool_result(signature, value)
    if entry.namespace:  # (the resources it links to or embeds, as clients know them)
        result["content"] = served_content(ctx.app, entry.namespace, result["content"])
    if ctx.era == "legacy" and ctx.protocol_version < results.NEWEST_CONTENT_VERSION:
        result["content"] = results.for_version(result["content"], ctx.protocol_version)
    return result


def _tool_result(signature: ToolSignature, value: Any) -> dict[str, Any]:
    if type(value) is str and signature.output_schema is None:
        return {"content": [{"type": "text", "text": value}]}  # the usual case, first
    if results.is_call_tool_result(value):
        return cast("dict[str, Any]", results.to_json(value))
    if isinstance(value, dict) and "content" in value and isinstance(value["content"], list):
        return value  # already a CallToolResult in wire form
    if isinstance(value, dict) and value.get("resultType") == "task":
        return value  # a task another server started, handed on as it is (mcptrio.gateway)
    if results.is_content_value(value):
        return {"content": results.content_list(value)}
    if signature.output_schema is None:
        content = results.content_list(value)
        if content is None:
            content = [results.text_block(results.json_text(results.to_json(value)))]
        return {"content": content}
    structured = signature.structured(value)
    signature.validate_output(structured)  # (an OutputError: the boundary's isError)
    return {"content": [results.text_block(results.json_text(structured))], "structuredContent": structured}


# -- resources ---------------------------------------------------------------------------------


async def resources_list(app: App, ctx: Context, params: dict[str, Any]) -> dict[str, Any]:
    return _listing(app, "resources", "resources", ctx, params)


async def resources_templates_list(app: App, ctx: Context, params: dict[str, Any]) -> dict[str, Any]:
    return _listing(app, "templates", "resourceTemplates", ctx, params)


def _not_found(ctx: Context, uri: str) -> McpError:
    code = errors.INVALID_PARAMS if ctx.era == "modern" else errors.RESOURCE_NOT_FOUND_LEGACY
    return McpError(code, f"resource not found: {uri}", {"uri": uri})


async def resources_read(app: App, ctx: Context, params: dict[str, Any]) -> dict[str, Any]:
    uri = _string_param(params, "uri")
    entry = app.resources.get(uri)
    if entry is not None and _shown(app, "resources", entry, ctx):
        ctx.namespace = entry.namespace
        value = await entry.fn(**_with_context({}, entry.context_parameter, ctx))
        contents = _resource_contents(uri, entry.mime_type, value)
        return {"contents": served_content(app, entry.namespace, contents) if entry.namespace else contents}
    for template in app.templates.values():
        variables = template.match(uri)
        if variables is not None and _shown(app, "templates", template, ctx):
            ctx.namespace = template.namespace
            try:
                value = await template.fn(**_with_context(dict(variables), template.context_parameter, ctx))
            except LookupError:  # (a template's way to say the URI names nothing)
                raise _not_found(ctx, uri) from None
            if value is None:
                raise _not_found(ctx, uri)
            contents = _resource_contents(uri, template.mime_type, value)
            return {"contents": served_content(app, template.namespace, contents) if template.namespace else contents}
    raise _not_found(ctx, uri)


def _resource_contents(uri: str, mime_type: str | None, value: Any) -> list[dict[str, Any]]:
    """A handler's return value as ``contents``: str → text, bytes → blob, or contents objects."""
    if isinstance(value, (list, tuple)):
        return [item for v in value for item in _resource_contents(uri, mime_type, v)]
    if isinstance(value, str):
        item: dict[str, Any] = {"uri": uri, "text": value}
    elif isinstance(value, (bytes, bytearray, memoryview)):
        item = {"uri": uri, "blob": base64.b64encode(bytes(value)).decode("ascii")}
    else:
        item = results.to_json(value)
        if not isinstance(item, dict) or ("text" not in item and "blob" not in item):
            raise TypeError(f"a resource handler returned {type(value).__name__}, not str, bytes or contents")
        return [item]
    if mime_type is not None:
        item["mimeType"] = mime_type
    return [item]


async def resources_subscribe(app: App, ctx: Context, params: dict[str, Any]) -> dict[str, Any]:
    uri = _string_param(params, "uri")
    if not app.visibility.active or not _hidden_uri(app, uri, ctx):
        ctx.session.subscriptions.add(uri)
    return {}  # (hidden: accepted as for a URI that names nothing, and never told of)


def _hidden_uri(app: App, uri: str, ctx: Context) -> bool:
    entry: Component | None = app.resources.get(uri)
    kind = "resources"
    if entry is None:
        entry, kind = next((t for t in app.templates.values() if t.match(uri) is not None), None), "templates"
    return entry is not None and not _shown(app, kind, entry, ctx)


async def resources_unsubscribe(app: App, ctx: Context, params: dict[str, Any]) -> dict[str, Any]:
    ctx.session.subscriptions.discard(_string_param(params, "uri"))
    return {}


# -- prompts -----------------------------------------------------------------------------------


async def prompts_list(app: App, ctx: Context, params: dict[str, Any]) -> dict[str, Any]:
    return _listing(app, "prompts", "prompts", ctx, params)


async def prompts_get(app: App, ctx: Context, params: dict[str, Any]) -> dict[str, Any]:
    name = _string_param(params, "name")
    entry = app.prompts.get(name)
    if entry is None or not _shown(app, "prompts", entry, ctx):
        raise errors.invalid_params(f"unknown prompt: {name!r}")
    arguments = _object_param(params, "arguments")
    known = {argument["name"]: argument for argument in entry.arguments}
    for key, value in arguments.items():
        if key not in known:
            raise errors.invalid_params(f"prompt {name!r} has no argument {key!r}")
        if not isinstance(value, str):
            raise errors.invalid_params(f"prompt argument {key!r} must be a string")
    missing = [a["name"] for a in entry.arguments if a["required"] and a["name"] not in arguments]
    if missing:
        raise errors.invalid_params(f"prompt {name!r} is missing required argument {missing[0]!r}")
    ctx.namespace = entry.namespace
    value = await entry.fn(**_with_context(dict(arguments), entry.context_parameter, ctx))
    result = _prompt_result(value)
    if entry.namespace:
        result["messages"] = [_served_message(app, entry.namespace, message) for message in result["messages"]]
    if entry.description and "description" not in result:
        result["description"] = entry.description
    if ctx.era == "legacy" and ctx.protocol_version < results.NEWEST_CONTENT_VERSION:
        result["messages"] = [_message_for_version(message, ctx.protocol_version) for message in result["messages"]]
    return result


def _served_message(app: App, namespace: str, message: Any) -> Any:
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, dict):
        return message
    return {**message, "content": served_content(app, namespace, [content])[0]}


def _message_for_version(message: Any, version: str) -> Any:
    """A prompt message a client of ``version`` can parse (its content block downgraded)."""
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, dict):
        return message
    return {**message, "content": results.for_version([content], version)[0]}


def _prompt_result(value: Any) -> dict[str, Any]:
    value = results.to_json(value)
    if isinstance(value, dict) and "messages" in value:
        return value
    if isinstance(value, str):
        return {"messages": [{"role": "user", "content": results.text_block(value)}]}
    if isinstance(value, list):
        messages = []
        for item in value:
            if isinstance(item, str):
                messages.append({"role": "user", "content": results.text_block(item)})
            elif isinstance(item, dict) and "role" in item:
                messages.append(item)
            elif results.is_content(item):
                messages.append({"role": "user", "content": results.to_json(item)})
            else:
                raise TypeError(f"a prompt handler returned a {type(item).__name__} message")
        return {"messages": messages}
    raise TypeError(f"a prompt handler returned {type(value).__name__}, not str or messages")


# -- completion --------------------------------------------------------------------------------

MAX_COMPLETIONS = 100


async def completion_complete(app: App, ctx: Context, params: dict[str, Any]) -> dict[str, Any]:
    ref = _object_param(params, "ref")
    argument = _object_param(params, "argument")
    arg_name = _string_param(argument, "name")
    value = argument.get("value", "")
    if not isinstance(value, str):
        raise errors.invalid_params('"argument.value" must be a string')
    context_args = _object_param(_object_param(params, "context"), "arguments")
    if ref.get("type") == "ref/prompt":
        entry: PromptEntry | TemplateEntry | None = app.prompts.get(_string_param(ref, "name"))
        if entry is None or not _shown(app, "prompts", entry, ctx):
            raise errors.invalid_params(f"unknown prompt: {ref['name']!r}")
    elif ref.get("type") == "ref/resource":
        uri = _string_param(ref, "uri")
        entry = app.templates.get(uri)
        if entry is None or not _shown(app, "templates", entry, ctx):
            raise errors.invalid_params(f"unknown resource template: {uri!r}")
    else:
        raise errors.invalid_params('"ref.type" must be "ref/prompt" or "ref/resource"')
    completer = entry.complete.get(arg_name)
    values: list[str] = []
    if completer is not None:
        ctx.namespace = entry.namespace
        values = list(await completer.fn(value, context_args, **_with_context({}, completer.context_parameter, ctx)))
    completion: dict[str, Any] = {
        "values": values[:MAX_COMPLETIONS],
        "total": len(values),
        "hasMore": len(values) > MAX_COMPLETIONS,
    }
    return {"completion": completion}


# -- subscriptions (2026-07-28) ----------------------------------------------------------------


async def subscriptions_listen(app: App, ctx: Context, params: dict[str, Any]) -> dict[str, Any]:
    requested = _object_param(params, "notifications")
    agreed: dict[str, Any] = {key: True for key in LISTEN_FILTER_KEYS[:3] if requested.get(key) is True}
    uris = requested.get("resourceSubscriptions")
    if uris is not None:
        if not (isinstance(uris, list) and all(isinstance(u, str) for u in uris)):
            raise errors.invalid_params('"notifications.resourceSubscriptions" must be a list of URIs')
        if uris:
            agreed["resourceSubscriptions"] = uris
    task_ids = requested.get("taskIds")
    if task_ids is not None:
        if not (isinstance(task_ids, list) and all(isinstance(t, str) for t in task_ids)):
            raise errors.invalid_params('"notifications.taskIds" must be a list of task ids')
        if not tasks.client_declares(ctx):
            raise McpError(
                errors.MISSING_REQUIRED_CLIENT_CAPABILITY,
                f"task notifications need the {tasks.EXTENSION} extension",
                {"requiredCapabilities": {"extensions": {tasks.EXTENSION: {}}}},
            )
        owner = tasks.owner_of(ctx)
        mine = [t for t in task_ids if (record := await app.tasks.store.get(t)) is not None and record.owner == owner]
        if mine:
            agreed["taskIds"] = mine
    session = ctx.session
    listener = Listener(session, ctx.request_id, agreed, ctx.incoming.route)
    app.audience.listen(listener)  # before the acknowledgement: a change right after it is not missed
    parked = None
    try:
        await session.send(
            {
                "jsonrpc": "2.0",
                "method": "notifications/subscriptions/acknowledged",
                "params": {"_meta": {META_SUBSCRIPTION_ID: ctx.request_id}, "notifications": agreed},
            },
            listener.route,
        )
        # Where the transport can keep the stream open by itself (HTTP's built-in server), it
        # does, and this request's task, with everything it holds, ends here unanswered.
        parked = session.park(ctx.incoming, functools.partial(app.audience.unlisten, listener))
        if parked is None:
            await trio.sleep_forever()
    finally:
        if parked is None:
            app.audience.unlisten(listener)
    listener.park(parked)  # (no checkpoint since the park: no change was posted to the old route)
    return {}


# The handler of each method ``protocol/methods.py`` marks as answered by the app.
HANDLERS: dict[str, MethodHandler] = {
    "tools/list": tools_list,
    "tools/call": tools_call,
    "resources/list": resources_list,
    "resources/templates/list": resources_templates_list,
    "resources/read": resources_read,
    "resources/subscribe": resources_subscribe,
    "resources/unsubscribe": resources_unsubscribe,
    "prompts/list": prompts_list,
    "prompts/get": prompts_get,
    "completion/complete": completion_complete,
    "subscriptions/listen": subscriptions_listen,
    **tasks.METHODS,
}
