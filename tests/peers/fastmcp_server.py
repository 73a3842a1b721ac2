"""A server nobody here wrote: FastMCP (4.2.3, a test dependency) with the features a gateway forwards —
an echo, a tool reporting progress, one asking the client (elicitation), one sampling, a slow one
whose cancellation is counted, a resource and a prompt.

FastMCP asks the client differently in each era: pushed requests (``ctx.elicit``, the session's
``create_message``) in a legacy session, an ``InputRequiredResult`` round trip in 2026-07-28.

    python fastmcp_server.py                # stdio
    python fastmcp_server.py --port N       # Streamable HTTP on 127.0.0.1:N (path /mcp)
"""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from pathlib import Path

import mcp_types
from fastmcp import Context, FastMCP
from pydantic import BaseModel

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench" / "peers"))
from fastmcp_server import add_workload  # noqa: E402  (the bench's server, not this file)

server = FastMCP("fastmcp-under-test")
add_workload(server)  # echo, sleep and sleep_stats, as the bench serves them
MODERN = "2026-07-28"


class Name(BaseModel):
    name: str


def modern(ctx: Context) -> bool:
    request = ctx.request_context
    return request is not None and request.protocol_version >= MODERN


@server.tool
async def steps(count: int, ctx: Context) -> str:
    """Report progress count times, then say how many steps it took."""
    for step in range(1, count + 1):
        await ctx.report_progress(step, count, f"step {step}")
    return f"{count} steps"


@server.tool
async def ask_name(ctx: Context) -> str | mcp_types.InputRequiredResult:
    """Ask the client for a name and greet it."""
    if not modern(ctx):
        answer = await ctx.elicit("Your name?", Name)
        return f"hello {answer.data.name}" if answer.action == "accept" else f"no name ({answer.action})"
    responses = ctx.input_responses
    if not responses:
        form = mcp_types.ElicitRequestFormParams(message="Your name?", requested_schema=Name.model_json_schema())
        return mcp_types.InputRequiredResult(input_requests={"name": mcp_types.ElicitRequest(params=form)})
    answer = mcp_types.ElicitResult.model_validate(responses["name"])
    return f"hello {(answer.content or {})['name']}" if answer.action == "accept" else f"no name ({answer.action})"


@server.tool
async def haiku(topic: str, ctx: Context) -> str | mcp_types.InputRequiredResult:
    """Ask the client's model (sampling) for a haiku about the topic and return its text."""
    message = mcp_types.SamplingMessage(role="user", content=mcp_types.TextContent(type="text", text=topic))
    if not modern(ctx):
        with warnings.catch_warnings():  # (sampling is deprecated in 2026-07-28; this is a legacy session)
            warnings.simplefilter("ignore")
            result = await ctx.session.create_message([message], max_tokens=50, related_request_id=ctx.request_id)
    elif not ctx.input_responses:
        params = mcp_types.CreateMessageRequestParams(messages=[message], max_tokens=50)
        return mcp_types.InputRequiredResult(input_requests={"llm": mcp_types.CreateMessageRequest(params=params)})
    else:
        result = mcp_types.CreateMessageResult.model_validate(ctx.input_responses["llm"])
    content = result.content
    return content.text if isinstance(content, mcp_types.TextContent) else f"({content.type})"


@server.resource("peers://info", mime_type="application/json")
async def info() -> str:
    """What this server is."""
    return json.dumps({"server": "fastmcp"})


@server.prompt
async def greet(name: str) -> str:
    """A one-line greeting."""
    return f"Hello, {name}!"


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int)
    args = parser.parse_args()
    if args.port is None:
        server.run("stdio", show_banner=False)
    else:
        server.run("http", show_banner=False, host="127.0.0.1", port=args.port, log_level="warning")
