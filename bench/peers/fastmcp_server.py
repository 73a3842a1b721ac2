"""The benchmark workload on FastMCP (PyPI, pinned in constraints.txt): echo(text), sleep(ms) with
started/completed/cancelled counters and sleep_stats(), as plugins/bench and sdk_server.py have them.

Runs in the project's venv (FastMCP is a test dependency), in FastMCP's default configuration:
stateful Streamable HTTP sessions over uvicorn, warnings only, no banner.

    python fastmcp_server.py                     # stdio
    python fastmcp_server.py --port N            # Streamable HTTP on 127.0.0.1:N (path /mcp)
"""

from __future__ import annotations

import argparse
import json

import anyio
from fastmcp import FastMCP


def add_workload(server: FastMCP) -> dict[str, int]:
    """echo, sleep and sleep_stats on ``server`` (tests/peers/fastmcp_server.py adds them too); the counters."""
    stats = {"started": 0, "completed": 0, "cancelled": 0}

    @server.tool
    async def echo(text: str) -> str:
        """Return the text unchanged."""
        return text

    @server.tool
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

    @server.tool
    async def sleep_stats() -> str:
        """The sleep counters as JSON text."""
        return json.dumps(stats)

    return stats


server = FastMCP("bench-fastmcp")
add_workload(server)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int)
    args = parser.parse_args()
    if args.port is None:
        server.run("stdio", show_banner=False, log_level="warning")
    else:
        server.run("http", show_banner=False, host="127.0.0.1", port=args.port, log_level="warning")
