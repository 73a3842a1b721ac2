"""Task-capable twins of the bench tools, in a plugin of their own (``bench_tasks``) so the main
workload's tool list stays the one the peer servers have: bench/tasks_load.py measures tasks."""

from __future__ import annotations

import trio

import mcptrio

plugin = mcptrio.Registry("bench_tasks")


@plugin.tool(task="optional")
async def sleep_task(ms: int) -> str:
    """Sleep for ms milliseconds; a task when the client supports tasks."""
    await trio.sleep(ms / 1000)
    return f"slept {ms} ms"


@plugin.tool(task="optional")
async def echo_task(text: str) -> str:
    """Return the text unchanged; a task when the client supports tasks."""
    return text
