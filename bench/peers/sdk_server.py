"""The benchmark workload on the official MCP Python SDK (``mcp==2.3.0``, its ``MCPServer``).

The same tools, resource and prompt as mcptrio's ``bench`` plugin (plugins/bench):
echo(text) (and echo_sync, a plain function), sleep(ms) with started/completed/cancelled counters, sleep_stats(), the
bench://info resource and the greet(name) prompt.  Runs in bench/.venv-sdk, never in the
project's venv.

    python sdk_server.py                                   # stdio
    python sdk_server.py --transport http --port N [--json-response]
"""

from __future__ import annotations

import argparse
import json
from importlib.metadata import version as dist_version

import anyio
from mcp.server import MCPServer
from mcp.types import ToolAnnotations

SDK_VERSION = dist_version("mcp")
# WARNING, not the default INFO: the SDK would otherwise log a line per HTTP session to stderr,
# which mcptrio does not do; the bench compares protocol work, not logging.
server = MCPServer("bench-sdk", version=SDK_VERSION, log_level="WARNING")
READ_ONLY = ToolAnnotations(readOnlyHint=True)

# Counters of sleep() calls in this process, for checking that cancelled work really stops.
stats = {"started": 0, "completed": 0, "cancelled": 0}


@server.tool(annotations=READ_ONLY)
async def echo(text: str) -> str:
    """Return the text unchanged."""
    return text


@server.tool(annotations=READ_ONLY)
def echo_sync(text: str) -> str:
    """Return the text unchanged, from a plain function (the SDK runs it in a worker thread)."""
    return text


@server.tool(annotations=READ_ONLY)
async def sleep(ms: int) -> str:
    """Sleep for ms milliseconds, counting calls started, completed and cancelled."""
    stats["started"] += 1
    try:
        await anyio.sleep(ms / 1000)
    except anyio.get_cancelled_exc_class():
        stats["cancelled"] += 1
        raise
    stats["completed"] += 1
    return f"slept {ms} ms"


@server.tool(annotations=READ_ONLY)
async def sleep_stats() -> str:
    """The sleep counters as JSON text."""
    return json.dumps(stats)


@server.resource("bench://info", name="info", mime_type="application/json")
async def info() -> str:
    """What this server is."""
    return json.dumps({"server": "mcp-python-sdk", "version": SDK_VERSION})


@server.prompt()
async def greet(name: str) -> str:
    """A one-line greeting."""
    return f"Hello, {name}!"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--transport", choices=("stdio", "http"), default="stdio")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument(
        "--json-response", action="store_true", help="legacy sessions answer with a JSON body instead of an SSE stream"
    )
    args = parser.parse_args()
    if args.transport == "stdio":
        server.run("stdio")
        return
    import uvicorn

    app = server.streamable_http_app(json_response=args.json_response, host=args.host)
    # Same logging stance as mcptrio's hypercorn: no access log, warnings only.
    config = uvicorn.Config(app, host=args.host, port=args.port, log_level="warning", access_log=False)
    uvicorn.Server(config).run()


if __name__ == "__main__":
    main()
