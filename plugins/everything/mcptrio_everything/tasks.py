"""The fixtures of the conformance suite's ``tasks-*`` scenarios (the tasks extension, SEP-2663).

Each is an ordinary tool declared ``task="optional"`` or ``"required"``: the server runs it as a
task when the client supports tasks (2026-07-28: the extension on the request; 2025-11-25: the
``task`` param), and inside the task ``ctx.elicit`` becomes the task's ``inputRequests``.
"""

from __future__ import annotations

import trio

from mcptrio import Context, McpError, ToolError

from .input_required import ask_form, form
from .registry import plugin


@plugin.tool(title="Greet", description="Greets by name (never a task)")
async def greet(name: str = "World") -> str:
    return f"Hello, {name}!"


@plugin.tool(
    task="optional",
    title="Tasks: slow computation",
    description="Sleeps `seconds` seconds, then answers (a task when the client supports tasks)",
)
async def slow_compute(seconds: float = 1.0) -> str:
    if not 0 <= seconds <= 600:
        raise ToolError("seconds must be between 0 and 600")
    await trio.sleep(seconds)
    return f"Computed after {seconds:g} s"


@plugin.tool(
    task="required",
    title="Tasks: failing job",
    description="Runs only as a task; reports a tool error after about a second",
)
async def failing_job() -> str:
    await trio.sleep(1)
    raise ToolError("the job failed (as it always does)")


@plugin.tool(
    task="optional", title="Tasks: protocol error", description="Fails with a JSON-RPC error, so its task ends failed"
)
async def protocol_error_job() -> str:
    await trio.sleep(0.1)
    # A JSON-RPC error, not a tool result: the task ends "failed".  (Invalid params rather than an
    # internal error: the property tests hold that no valid request is ever answered -32603.)
    raise McpError(-32602, "protocol_error_job always fails with a JSON-RPC error")


@plugin.tool(
    task="optional",
    title="Tasks: confirm a deletion",
    description="Asks the user to confirm (one elicitation), then reports what it did",
)
async def confirm_delete(ctx: Context, filename: str = "example.txt") -> str:
    confirmed = await ask_form(ctx, "confirm", f"Delete {filename}?", "confirm", "boolean")
    return f"Deleted {filename}" if confirmed else f"Kept {filename}"


@plugin.tool(
    task="optional",
    title="Tasks: two questions at once",
    description="Asks two questions at the same time (two pending inputRequests), then answers",
)
async def multi_input(ctx: Context) -> str:
    first, second = form("Your first name?", "first"), form("Your last name?", "last")
    answers = await ctx.ask_many(
        {
            "first_name": {"method": "elicitation/create", "params": first},
            "last_name": {"method": "elicitation/create", "params": second},
        }
    )
    names = [
        (answers[key].get("content") or {}).get(field, "?")
        for key, field in (("first_name", "first"), ("last_name", "last"))
    ]
    return f"Hello, {' '.join(str(n) for n in names)}!"


@plugin.tool(
    task="required",
    input_first=True,
    title="Tasks: input, then a task",
    description="Asks the user's name by multi round-trip, then finishes as a task",
)
async def test_tool_with_task(ctx: Context) -> str:
    name = await ask_form(ctx, "user_name", "What is your name?", "name")
    await ctx.start_task()
    await trio.sleep(0.2)
    return f"Hello, {name}! (from a task)"
