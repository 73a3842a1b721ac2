"""The fixtures of the 2026-07-28 ``input-required-result-*`` scenarios (SEP-2322, multi round-trip).

Each asks the client through ``Context`` under the exact ``inputRequests`` key the scenario names.
In 2026-07-28 the first round answers with an ``InputRequiredResult`` and the client's retry
re-runs the handler with the answers; in a legacy session the same code sends real server→client
requests, so these fixtures work (and are tested) in both eras. ``requestState`` sealing,
tamper rejection and ``inputResponses`` validation are the core's, not these handlers'.
"""

from __future__ import annotations

from typing import Any

from mcptrio import Context, ToolError

from ._core import request_params
from .registry import plugin
from .tools import sampled_text


def form(message: str, field: str, kind: str = "string") -> dict[str, Any]:
    """Elicitation params for a one-field form whose field is required."""
    schema = {"type": "object", "properties": {field: {"type": kind}}, "required": [field]}
    return {"message": message, "requestedSchema": schema}


def accepted(answer: dict[str, Any], field: str) -> Any:
    """The value the user gave for ``field``; a declined or cancelled form is a tool error."""
    if answer.get("action") != "accept":
        raise ToolError(f"the user did not provide {field} (action={answer.get('action')})")
    content = answer.get("content")
    if not isinstance(content, dict) or field not in content:
        raise ToolError(f"the accepted form has no {field!r} field")
    return content[field]


async def ask_form(ctx: Context, key: str, message: str, field: str, kind: str = "string") -> Any:
    params = form(message, field, kind)
    return accepted(await ctx.elicit(params["message"], params["requestedSchema"], key=key), field)


@plugin.tool(
    title="MRTR: elicitation", description="MRTR: asks the user's name (inputRequests key user_name), then greets them"
)
async def test_input_required_result_elicitation(ctx: Context) -> str:
    name = await ask_form(ctx, "user_name", "What is your name?", "name")
    return f"Hello, {name}!"


@plugin.tool(
    title="MRTR: sampling", description="MRTR: asks the client's LLM a question (inputRequests key capital_question)"
)
async def test_input_required_result_sampling(ctx: Context) -> str:
    result = await ctx.sample("What is the capital of France?", 100, key="capital_question")
    return f"Sampling result: {sampled_text(result)}"


@plugin.tool(title="MRTR: roots", description="MRTR: asks for the client's roots (inputRequests key client_roots)")
async def test_input_required_result_list_roots(ctx: Context) -> str:
    roots = await ctx.list_roots(key="client_roots")
    uris = ", ".join(str(root.get("uri")) for root in roots)
    return f"Found {len(roots)} root(s): {uris}" if roots else "Found 0 root(s)"


@plugin.tool(
    title="MRTR: request state",
    description="MRTR: asks for confirmation (key confirm); the retry must echo the sealed requestState",
)
async def test_input_required_result_request_state(ctx: Context) -> str:
    ok = await ask_form(ctx, "confirm", "Please confirm", "ok", "boolean")
    if ctx.era == "modern" and "requestState" in request_params(ctx):
        # The core verified the state before this handler ran; a forged one never gets here.
        return f"state-ok: requestState verified (ok={ok})"
    return f"confirmed without a requestState (ok={ok})"


@plugin.tool(
    title="MRTR: multiple inputs",
    description="MRTR: asks for a name, an LLM greeting and the roots at once (keys user_name, greeting, client_roots)",
)
async def test_input_required_result_multiple_inputs(ctx: Context) -> str:
    greeting_prompt = [{"role": "user", "content": {"type": "text", "text": "Generate a greeting"}}]
    answers = await ctx.ask_many(
        {
            "user_name": {"method": "elicitation/create", "params": form("What is your name?", "name")},
            "greeting": {"method": "sampling/createMessage", "params": {"messages": greeting_prompt, "maxTokens": 50}},
            "client_roots": {"method": "roots/list", "params": {}},
        }
    )
    name = accepted(answers["user_name"], "name")
    roots = answers["client_roots"].get("roots")
    count = len(roots) if isinstance(roots, list) else 0
    return f"Name: {name}; Greeting: {sampled_text(answers['greeting'])}; Roots: {count}"


@plugin.tool(
    title="MRTR: multi round",
    description="MRTR: asks in two rounds (key step1, then key step2), each with a new requestState",
)
async def test_input_required_result_multi_round(ctx: Context) -> str:
    name = await ask_form(ctx, "step1", "Step 1: What is your name?", "name")
    color = await ask_form(ctx, "step2", "Step 2: What is your favorite color?", "color")
    return f"Multi-round complete for {name} who likes {color}"


@plugin.tool(
    title="MRTR: tampered state",
    description="MRTR: asks for confirmation (key confirm); a retry with a modified requestState "
    "is rejected with -32602",
)
async def test_input_required_result_tampered_state(ctx: Context) -> str:
    ok = await ask_form(ctx, "confirm", "Please confirm", "ok", "boolean")
    return f"integrity-ok: state verified (ok={ok})"


@plugin.tool(
    title="MRTR: client capabilities",
    description="MRTR: asks only through the capabilities the client declared "
    "(elicitation: key elicit_input; sampling: key sample_input)",
)
async def test_input_required_result_capabilities(ctx: Context) -> str:
    declared = ctx.client_capabilities
    requests: dict[str, dict[str, Any]] = {}
    if "elicitation" in declared:
        requests["elicit_input"] = {"method": "elicitation/create", "params": form("Elicitation input", "value")}
    if "sampling" in declared:
        messages = [{"role": "user", "content": {"type": "text", "text": "Sample request"}}]
        requests["sample_input"] = {
            "method": "sampling/createMessage",
            "params": {"messages": messages, "maxTokens": 50},
        }
    if not requests:
        return "No supported capabilities declared: nothing to ask"
    answers = await ctx.ask_many(requests)
    return f"capabilities-ok: received {','.join(sorted(answers))}"


@plugin.prompt(
    title="MRTR prompt", description="MRTR on prompts/get: asks which context to use (inputRequests key user_context)"
)
async def test_input_required_result_prompt(ctx: Context) -> str:
    params = form("What context should the prompt use?", "context")
    answer = await ctx.elicit(params["message"], params["requestedSchema"], key="user_context")
    content = answer.get("content") if answer.get("action") == "accept" else None
    if not isinstance(content, dict) or "context" not in content:
        return f"Prompt without context (the user answered action={answer.get('action')})"
    return f"Prompt with context: {content['context']}"
