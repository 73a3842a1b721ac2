"""The diagnostic tools the 2026-07-28 ``server-stateless`` scenario calls (SEP-2575).

``test_missing_capability`` needs sampling, so a request that did not declare it is refused with
-32021; ``test_streaming_elicitation`` and ``test_logging_tool`` probe what a response stream may
carry; the two triggers announce list changes to open ``subscriptions/listen`` streams.
"""

from __future__ import annotations

from mcptrio import Context

from ._core import app_of
from .registry import plugin
from .tools import sampled_text


@plugin.tool(
    title="Needs sampling",
    description="Test tool requiring sampling: a client that did not declare the sampling capability "
    "gets MissingRequiredClientCapabilityError (-32021) in 2026-07-28",
)
async def test_missing_capability(ctx: Context) -> str:
    result = await ctx.sample("Reply with one word.", 10, key="sampling")
    return f"Success: {sampled_text(result)}"


@plugin.tool(
    title="Streaming elicitation",
    description="Diagnostic tool validating response streams: it needs user input, which 2026-07-28 "
    "asks for in an InputRequiredResult, never in a request on the stream",
)
async def test_streaming_elicitation(ctx: Context) -> str:
    await ctx.progress(50, total=100, message="asking the user")
    schema = {"type": "object", "properties": {"confirmed": {"type": "boolean"}}, "required": ["confirmed"]}
    answer = await ctx.elicit("Continue streaming?", schema, key="confirmation")
    return f"Streaming complete (action={answer.get('action')})"


@plugin.tool(
    title="Logging diagnostics",
    description="Diagnostic logging validator tool: logs at every level, which a 2026-07-28 request "
    "without _meta io.modelcontextprotocol/logLevel must never see",
)
async def test_logging_tool(ctx: Context) -> str:
    for level in ("debug", "info", "warning", "error"):
        await ctx.log(level, f"Diagnostic trace at {level}", logger="everything")
    return "Logging evaluated"


@plugin.tool(
    title="Announce tool-list change",
    description="Diagnostic hook: announces a tool-list change (notifications/tools/list_changed) "
    "to every open subscription that asked for it; the list itself is unchanged",
)
async def test_trigger_tool_change(ctx: Context) -> str:
    await app_of(ctx).notify_tools_changed()
    return "Mutation triggered: tools list changed"


@plugin.tool(
    title="Announce prompt-list change",
    description="Diagnostic hook: announces a prompt-list change (notifications/prompts/list_changed) "
    "to every open subscription that asked for it; the list itself is unchanged",
)
async def test_trigger_prompt_change(ctx: Context) -> str:
    await app_of(ctx).notify_prompts_changed()
    return "Mutation triggered: prompts list changed"
