"""An upstream server for the gateway's tests, served with ``mcptrio serve tests/gateway/upstream_app.py``:
its pid (to kill it), a slow tool, progress, a question for the caller and a log line."""

from __future__ import annotations

import json
import os

import trio

import mcptrio

upstream = mcptrio.Registry("upstream")


@upstream.tool()
async def echo(text: str) -> str:
    return f"echo: {text}"


@upstream.tool()
async def pid() -> str:
    return str(os.getpid())


@upstream.tool()
async def slow(seconds: float, ctx: mcptrio.Context) -> str:
    await ctx.progress(1, 2, "started")
    await trio.sleep(seconds)
    return "slept"


@upstream.tool()
async def ask_name(ctx: mcptrio.Context) -> str:
    await ctx.info("asking for a name")
    answer = await ctx.elicit("Your name?", {"type": "object", "properties": {"name": {"type": "string"}}})
    return f"hello {answer.get('content', {}).get('name')}"


@upstream.resource("note://{key}")
async def note(key: str) -> str:
    return f"note {key}"


@upstream.tool()
async def traceparent(ctx: mcptrio.Context) -> str:
    """The trace context the gateway sent with this call."""
    return str(ctx.meta.get("traceparent"))


@upstream.tool()
async def touch(key: str, ctx: mcptrio.Context) -> str:
    """Tell the subscribers of note://KEY that it changed."""
    await ctx.app.notify_resource_updated(f"note://{key}")
    return "touched"


@upstream.tool()
async def seen(ctx: mcptrio.Context) -> str:
    """What the gateway sent with this call besides its arguments: its _meta, and (over HTTP) its headers."""
    http = ctx.http
    headers = dict(http.headers) if http is not None else {}
    return json.dumps({"meta": ctx.meta, "headers": headers}, default=str)
