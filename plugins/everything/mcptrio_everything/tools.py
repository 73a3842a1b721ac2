"""The tools of the conformance scenarios ``tools-*``, ``elicitation-*``, ``json-schema-2020-12`` and
``server-sse-polling``: names, arguments and payloads exactly as the suite's scenarios assert them.

The first tool registered is the first one ``tools/list`` returns; the header-validation scenario
calls ``tools[0]`` with empty arguments, so it must be a tool that needs none (``test_simple_text``).
"""

from __future__ import annotations

import json
from typing import Annotated, Any

import trio

from mcptrio import Context, ToolError

from .media import WAV_BASE64, image_block
from .registry import plugin

STEP_DELAY = 0.05  # the suite asks for ~50 ms between log/progress steps


def sampled_text(result: dict[str, Any]) -> str:
    """The text of a CreateMessageResult (its content is one block, or a list of blocks since 2025-11-25)."""
    content = result.get("content")
    blocks = content if isinstance(content, list) else [content]
    texts = [b.get("text") for b in blocks if isinstance(b, dict) and b.get("type") == "text"]
    return " ".join(t for t in texts if isinstance(t, str)) or "(no text in the response)"


def elicited(result: dict[str, Any]) -> str:
    """An ElicitResult as the one-line summary the elicitation tools return."""
    content = json.dumps(result.get("content") or {}, separators=(",", ":"), sort_keys=True)
    return f"action={result.get('action')}, content={content}"


# -- content ---------------------------------------------------------------------------------


@plugin.tool(title="Simple text", description="Tests simple text content response", annotations={"readOnlyHint": True})
async def test_simple_text() -> str:
    return "This is a simple text response for testing."


@plugin.tool(
    title="Image content",
    description="Tests image content response (a 1x1 red PNG)",
    annotations={"readOnlyHint": True},
)
async def test_image_content() -> Any:  # content, not structured output
    return image_block()


@plugin.tool(
    title="Audio content",
    description="Tests audio content response (a short silent WAV)",
    annotations={"readOnlyHint": True},
)
async def test_audio_content() -> Any:  # content, not structured output
    return {"type": "audio", "data": WAV_BASE64, "mimeType": "audio/wav"}


@plugin.tool(
    title="Embedded resource",
    description="Tests embedded resource content response",
    annotations={"readOnlyHint": True},
)
async def test_embedded_resource() -> Any:  # content, not structured output
    return {
        "type": "resource",
        "resource": {
            "uri": "test://embedded-resource",
            "mimeType": "text/plain",
            "text": "This is an embedded resource content.",
        },
    }


@plugin.tool(
    title="Mixed content",
    description="Tests response with multiple content types (text, image, resource)",
    annotations={"readOnlyHint": True},
)
async def test_multiple_content_types() -> Any:  # content blocks, not structured output
    resource = {
        "uri": "test://mixed-content-resource",
        "mimeType": "application/json",
        "text": json.dumps({"test": "data", "value": 123}, separators=(",", ":")),
    }
    return [
        {"type": "text", "text": "Multiple content types test:"},
        image_block(),
        {"type": "resource", "resource": resource},
    ]


@plugin.tool(title="Error", description="Tests error response handling: always returns an isError result")
async def test_error_handling() -> str:
    raise ToolError("This tool intentionally returns an error for testing")


# -- notifications during a call ---------------------------------------------------------------


@plugin.tool(title="Logging", description="Tests tool that emits three info log messages during execution")
async def test_tool_with_logging(ctx: Context) -> str:
    await ctx.log("info", "Tool execution started")
    await trio.sleep(STEP_DELAY)
    await ctx.log("info", "Tool processing data")
    await trio.sleep(STEP_DELAY)
    await ctx.log("info", "Tool execution completed")
    return "Tool with logging executed successfully"


@plugin.tool(
    title="Progress", description="Tests tool that reports progress 0/100, 50/100, 100/100 when given a progressToken"
)
async def test_tool_with_progress(ctx: Context) -> str:
    for step, progress in enumerate((0, 50, 100)):
        if step:
            await trio.sleep(STEP_DELAY)
        await ctx.progress(progress, total=100, message=f"Completed step {progress} of 100")
    return "Progress test completed: 0, 50 and 100 of 100 reported"


@plugin.tool(
    title="Reconnection",
    description="Tests SSE stream disconnection and client reconnection (SEP-1699): the result "
    "arrives after a short pause, so a transport that closes the stream mid-call "
    "delivers it on the client's reconnection",
)
async def test_reconnection(ctx: Context) -> str:
    # SEP-1699: end the POST's SSE stream mid-call; the client resumes with Last-Event-ID.
    await ctx.close_sse_stream()
    await trio.sleep(0.1)
    return (
        "Reconnection test completed successfully. If you received this, the client properly "
        "reconnected after stream closure."
    )


# -- asking the client (legacy: server→client requests; 2026-07-28: InputRequiredResult) -------


@plugin.tool(title="Sampling", description="Tests server-initiated sampling (LLM completion request)")
async def test_sampling(prompt: Annotated[str, "The prompt to send to the LLM"], ctx: Context) -> str:
    result = await ctx.sample(prompt, 100)
    return f"LLM response: {sampled_text(result)}"


ELICITATION_SCHEMA = {
    "type": "object",
    "properties": {
        "username": {"type": "string", "description": "User's response"},
        "email": {"type": "string", "description": "User's email address"},
    },
    "required": ["username", "email"],
}


@plugin.tool(title="Elicitation", description="Tests server-initiated elicitation (user input request)")
async def test_elicitation(message: Annotated[str, "The message to show the user"], ctx: Context) -> str:
    result = await ctx.elicit(message, ELICITATION_SCHEMA)
    return f"User response: {elicited(result)}"


SEP1034_SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "description": "User name", "default": "John Doe"},
        "age": {"type": "integer", "description": "User age", "default": 30},
        "score": {"type": "number", "description": "User score", "default": 95.5},
        "status": {
            "type": "string",
            "description": "User status",
            "enum": ["active", "inactive", "pending"],
            "default": "active",
        },
        "verified": {"type": "boolean", "description": "Verification status", "default": True},
    },
    "required": [],
}


@plugin.tool(
    title="Elicitation defaults",
    description="Tests elicitation with default values for every primitive type (SEP-1034)",
)
async def test_elicitation_sep1034_defaults(ctx: Context) -> str:
    result = await ctx.elicit("Please review and update the form fields with defaults", SEP1034_SCHEMA)
    return f"Elicitation completed: {elicited(result)}"


def _titled(prefix: str, *titles: str) -> list[dict[str, str]]:
    return [{"const": f"value{i}", "title": f"{title} {prefix}"} for i, title in enumerate(titles, 1)]


SEP1330_SCHEMA = {
    "type": "object",
    "properties": {
        "untitledSingle": {
            "type": "string",
            "description": "Select one option",
            "enum": ["option1", "option2", "option3"],
        },
        "titledSingle": {
            "type": "string",
            "description": "Select one option with titles",
            "oneOf": _titled("Option", "First", "Second", "Third"),
        },
        "legacyEnum": {
            "type": "string",
            "description": "Select one option (legacy)",
            "enum": ["opt1", "opt2", "opt3"],
            "enumNames": ["Option One", "Option Two", "Option Three"],
        },
        "untitledMulti": {
            "type": "array",
            "description": "Select multiple options",
            "minItems": 1,
            "maxItems": 3,
            "items": {"type": "string", "enum": ["option1", "option2", "option3"]},
        },
        "titledMulti": {
            "type": "array",
            "description": "Select multiple options with titles",
            "minItems": 1,
            "maxItems": 3,
            "items": {"anyOf": _titled("Choice", "First", "Second", "Third")},
        },
    },
    "required": [],
}


@plugin.tool(title="Elicitation enums", description="Tests elicitation with the five enum schema variants (SEP-1330)")
async def test_elicitation_sep1330_enums(ctx: Context) -> str:
    if ctx.era == "legacy" and ctx.protocol_version < "2025-11-25":
        # Titled and multi-select enum schemas (SEP-1330) are not in earlier revisions' schema.
        raise ToolError(f"SEP-1330 enum schemas need protocol 2025-11-25 or later, not {ctx.protocol_version}")
    result = await ctx.elicit("Please select options from the enum fields", SEP1330_SCHEMA)
    return f"Elicitation completed: {elicited(result)}"


# -- schemas -----------------------------------------------------------------------------------

JSON_SCHEMA_2020_12 = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "$defs": {
        "address": {
            "$anchor": "addressDef",
            "type": "object",
            "properties": {"street": {"type": "string"}, "city": {"type": "string"}},
        },
    },
    "properties": {
        "name": {"type": "string"},
        "address": {"$ref": "#/$defs/address"},
        "contactMethod": {"type": "string", "enum": ["phone", "email"]},
        "phone": {"type": "string"},
        "email": {"type": "string"},
    },
    "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
    "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
    "then": {"required": ["phone"]},
    "else": {"required": ["email"]},
    "additionalProperties": False,
}


@plugin.tool(
    title="JSON Schema 2020-12",
    description="Tool with JSON Schema 2020-12 features ($schema, $defs, $anchor, allOf/anyOf, "
    "if/then/else, additionalProperties) for conformance testing (SEP-1613, SEP-2106)",
    input_schema=JSON_SCHEMA_2020_12,
)
async def json_schema_2020_12_tool(**arguments: Any) -> str:
    return f"JSON Schema 2020-12 tool called with: {json.dumps(arguments, sort_keys=True)}"


HEADER_SCHEMA = {
    "type": "object",
    "properties": {
        "region": {
            "type": "string",
            "description": "Mirrored into the Mcp-Param-Region header",
            "x-mcp-header": "Region",
        },
    },
    "required": ["region"],
}


@plugin.tool(
    title="Custom header",
    description="Echoes a region; its argument is mirrored into the Mcp-Param-Region HTTP header "
    "(x-mcp-header, SEP-2243)",
    input_schema=HEADER_SCHEMA,
    annotations={"readOnlyHint": True},
)
async def test_custom_header(region: str) -> str:
    return f"Region: {region}"
