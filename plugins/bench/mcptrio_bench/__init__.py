"""The workload every benchmark uses: the same tools here and in the peer servers we compare with."""

from __future__ import annotations

import json
import os

import trio

import mcptrio

plugin = mcptrio.Registry("bench")

# Counters of sleep() calls in this process, for checking that cancelled work really stops.
stats = {"started": 0, "completed": 0, "cancelled": 0}


@plugin.tool(annotations={"readOnlyHint": True})
async def echo(text: str) -> str:
    """Return the text unchanged."""
    return text


@plugin.tool(annotations={"readOnlyHint": True})
def echo_sync(text: str) -> str:
    """Return the text unchanged, from a plain function (run in a worker thread)."""
    return text


@plugin.tool(annotations={"readOnlyHint": True})
async def sleep(ms: int) -> str:
    """Sleep for ms milliseconds, counting calls started, completed and cancelled."""
    stats["started"] += 1
    try:
        await trio.sleep(ms / 1000)
    except trio.Cancelled:
        stats["cancelled"] += 1
        raise
    stats["completed"] += 1
    return f"slept {ms} ms"


@plugin.tool(annotations={"readOnlyHint": True})
async def sleep_stats() -> str:
    """The sleep counters as JSON text."""
    return json.dumps(stats)


@plugin.resource("bench://info", name="info", mime_type="application/json")
async def info() -> str:
    """What this server is."""
    return json.dumps({"server": "mcptrio", "version": mcptrio.__version__})


@plugin.prompt(arguments={"name": "who to greet"})
async def greet(name: str) -> str:
    """A one-line greeting."""
    return f"Hello, {name}!"


# -- several workers (bench/scale_out.py, tests/state) -------------------------------------------

counter = {"value": 0}


@plugin.tool(annotations={"readOnlyHint": True})
async def whoami() -> str:
    """The id of the process that answered (several workers: which one)."""
    return str(os.getpid())


@plugin.tool()
async def touch(ctx: mcptrio.Context) -> str:
    """Change bench://counter and tell its subscribers, on every worker (resources/updated)."""
    counter["value"] += 1
    await ctx.app.notify_resource_updated("bench://counter")
    return str(counter["value"])


@plugin.resource("bench://counter", name="counter", mime_type="text/plain")
async def counter_value() -> str:
    """A number that ``touch`` changes (this process's count)."""
    return str(counter["value"])
