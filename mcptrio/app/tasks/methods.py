"""Tasks on the wire: when ``tools/call`` makes one, and the ``tasks/*`` methods of both eras.

2026-07-28 (the extension ``io.modelcontextprotocol/tasks``): a tool declared ``task="optional"``
or ``"required"`` runs as a task whenever the client declared the extension on that request
(the server decides; the ``task`` param is ignored); ``required`` without it is ``-32021``.
``tasks/get`` / ``tasks/update`` / ``tasks/cancel``; ``tasks/result`` and ``tasks/list`` do not
exist in this era.

2025-11-25 (experimental tasks in legacy sessions): the client asks with the ``task`` param; a
tool that does not support tasks, or requires one and was called without, is ``-32601``.
``tasks/get`` / ``tasks/result`` (blocks until the end) / ``tasks/list`` / ``tasks/cancel``.

Every task belongs to who created it (``owner_of``); anyone else asking gets the answer an
unknown id gets.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol

import trio

from ...protocol import errors
from ...protocol.errors import McpError
from .context import TaskContext
from .records import RELATED_TASK
from .runner import LiveTask, TaskRunner

if TYPE_CHECKING:
    from ..context import Context
    from ..registry import ToolEntry

EXTENSION = "io.modelcontextprotocol/tasks"
LEGACY_TASKS_SINCE = "2025-11-25"
TASK_MODES = ("never", "optional", "required")


class App(Protocol):
    """What the tasks methods need of the App that serves them."""

    tasks: TaskRunner
    page_size: int


def client_declares(ctx: Context) -> bool:
    """Did the client declare the extension on this (2026-07-28) request?"""
    extensions = ctx.client_capabilities.get("extensions")
    return isinstance(extensions, dict) and EXTENSION in extensions


def legacy_tasks(ctx: Context) -> bool:
    return ctx.era == "legacy" and ctx.protocol_version >= LEGACY_TASKS_SINCE


def wants_task(entry: ToolEntry, ctx: Context, params: dict[str, Any]) -> bool:
    """Whether this call runs as a task; raises the era's error when it must and cannot."""
    if ctx.era == "modern":
        if entry.task == "never":
            return False
        if client_declares(ctx):
            return True
        if entry.task == "required":
            raise McpError(
                errors.MISSING_REQUIRED_CLIENT_CAPABILITY,
                f"tool {entry.name!r} runs only as a task: declare the {EXTENSION} extension",
                {"requiredCapabilities": {"extensions": {EXTENSION: {}}}},
            )
        return False
    asked = legacy_tasks(ctx) and isinstance(params.get("task"), dict)
    if asked and entry.task == "never":
        raise McpError(errors.METHOD_NOT_FOUND, f"tool {entry.name!r} does not run as a task")
    if not asked and entry.task == "required" and legacy_tasks(ctx):
        raise McpError(errors.METHOD_NOT_FOUND, f"tool {entry.name!r} runs only as a task: send the task param")
    return asked


def owner_of(ctx: Context) -> str:
    """Who a task belongs to: the principal with authorization on, and in 2025-11-25 also the
    session (a modern client has no session: its task id, unguessable, is its handle)."""
    principal = ctx.auth
    owner = getattr(principal, "binding", "") if principal is not None else ""
    if ctx.era == "legacy":
        owner += f"\x00session:{ctx.session_id or id(ctx.session_key)}"  # (= notifications.task_session)
    return owner


async def start(
    runner: TaskRunner,
    ctx: Context,
    entry: ToolEntry,
    params: dict[str, Any],
    run: Callable[[Context], Awaitable[dict[str, Any]]],
) -> dict[str, Any]:
    """Create the task (durably), start ``run`` in it, and answer with ``CreateTaskResult``."""
    requested = params.get("task")
    ttl = requested.get("ttl") if ctx.era == "legacy" and isinstance(requested, dict) else None
    if ttl is not None and (not isinstance(ttl, int) or isinstance(ttl, bool) or ttl < 0):
        raise errors.invalid_params('"task.ttl" must be a whole number of milliseconds')

    async def work(live: LiveTask) -> dict[str, Any]:
        deadline = trio.current_time() + entry.task_timeout if entry.task_timeout else float("inf")
        return await run(TaskContext(ctx, live, runner, deadline))

    record = await runner.create(
        owner=owner_of(ctx),
        era=ctx.era,
        method="tools/call",
        name=entry.name,
        work=work,
        ttl_ms=ttl,
        timeout=entry.task_timeout,
    )
    if ctx.era == "modern":
        return {"resultType": "task", **record.modern(detailed=False)}
    return {"task": record.legacy()}


# -- the methods ------------------------------------------------------------------------------------


def _missing_extension() -> McpError:
    return McpError(
        errors.MISSING_REQUIRED_CLIENT_CAPABILITY,
        f"the tasks methods need the {EXTENSION} extension",
        {"requiredCapabilities": {"extensions": {EXTENSION: {}}}},
    )


def _runner(app: App, ctx: Context) -> TaskRunner:
    if ctx.era == "modern" and not client_declares(ctx):
        raise _missing_extension()
    return app.tasks


async def tasks_get(app: App, ctx: Context, params: dict[str, Any]) -> dict[str, Any]:
    record = await _runner(app, ctx).find(params.get("taskId"), owner_of(ctx))
    return record.modern() if ctx.era == "modern" else record.legacy()


async def tasks_update(app: App, ctx: Context, params: dict[str, Any]) -> dict[str, Any]:
    runner = _runner(app, ctx)
    record = await runner.find(params.get("taskId"), owner_of(ctx))
    await runner.update(record, params.get("inputResponses", {}))
    return {}


async def tasks_cancel(app: App, ctx: Context, params: dict[str, Any]) -> dict[str, Any]:
    runner = _runner(app, ctx)
    record = await runner.find(params.get("taskId"), owner_of(ctx))
    if ctx.era == "modern":
        await runner.cancel(record)  # cooperative: acknowledged now, settled when the handler stops
        return {}
    if record.terminal:
        raise errors.invalid_params(f"task is already {record.status}; it cannot be cancelled")
    await runner.cancel(record, settle=True)  # 2025-11-25: cancelled before the answer
    return record.legacy()


async def tasks_result(app: App, ctx: Context, params: dict[str, Any]) -> dict[str, Any]:
    """2025-11-25: what the tool call would have answered, once the task has ended (blocks)."""
    runner = _runner(app, ctx)
    record = await runner.wait_done(await runner.find(params.get("taskId"), owner_of(ctx)))
    meta = {RELATED_TASK: {"taskId": record.task_id}}
    if record.error is not None and record.status == "failed":
        raise McpError.from_dict(record.error, "the task failed")
    if record.status == "cancelled":
        raise errors.invalid_params("the task was cancelled; it has no result")
    result = dict(record.result or {})
    result["_meta"] = {**result.get("_meta", {}), **meta}
    return result


async def tasks_list(app: App, ctx: Context, params: dict[str, Any]) -> dict[str, Any]:
    """2025-11-25: the caller's own tasks (this session's, this principal's), oldest first."""
    from ..pagination import page

    records = await _runner(app, ctx).store.owned_by(owner_of(ctx))
    chunk, cursor = page(records, params, app.page_size)
    result: dict[str, Any] = {"tasks": [r.legacy() for r in chunk]}
    if cursor is not None:
        result["nextCursor"] = cursor
    return result


METHODS = {
    "tasks/get": tasks_get,
    "tasks/update": tasks_update,
    "tasks/cancel": tasks_cancel,
    "tasks/result": tasks_result,
    "tasks/list": tasks_list,
}
