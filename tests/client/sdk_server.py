"""A server nobody here wrote: the official SDK's ``MCPServer`` (mcp 2.3.0, a test dependency),
with a tool that reports progress, one that asks the client (elicitation), one that sleeps and a resource.

    python sdk_server.py                    # stdio
    python sdk_server.py --port N           # Streamable HTTP on 127.0.0.1:N
"""

import argparse
import json

import anyio
from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from pydantic import BaseModel

server = MCPServer("sdk-under-test", log_level="WARNING")
stats = {"started": 0, "completed": 0, "cancelled": 0}


class Name(BaseModel):
    name: str


@server.tool()
async def echo(text: str) -> str:
    return text


@server.tool()
async def steps(ctx: Context, count: int) -> str:
    for step in range(1, count + 1):
        await ctx.report_progress(step, count, f"step {step}")
    return f"{count} steps"


@server.tool()
async def ask_name(ctx: Context) -> str:
    answer = await ctx.elicit("Your name?", Name)
    return f"hello {answer.data.name}" if answer.action == "accept" else f"no name ({answer.action})"


@server.tool()
async def sleep(ms: int) -> str:
    stats["started"] += 1
    try:
        await anyio.sleep(ms / 1000)
    except anyio.get_cancelled_exc_class():
        stats["cancelled"] += 1
        raise
    stats["completed"] += 1
    return f"slept {ms} ms"


@server.tool()
async def sleep_stats() -> str:
    return json.dumps(stats)


@server.resource("sdk://info", mime_type="application/json")
async def info() -> str:
    return json.dumps({"server": "mcp-python-sdk"})


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int)
    args = parser.parse_args()
    if args.port is None:
        server.run("stdio")
    else:
        import uvicorn

        uvicorn.run(
            server.streamable_http_app(host="127.0.0.1"),
            host="127.0.0.1",
            port=args.port,
            log_level="warning",
            access_log=False,
        )
