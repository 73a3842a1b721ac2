"""An app with task tools whose handlers record what happened to them, for the tasks tests."""

from __future__ import annotations

from typing import Any

import trio

import mcptrio
from mcptrio import Context, McpError, ToolError
from mcptrio.app.tasks.runner import TaskRunner

EXT = "io.modelcontextprotocol/tasks"
MODERN_CAPS = {"extensions": {EXT: {}}, "elicitation": {}}
EPOCH = 1_790_000_000.0  # a fixed wall-clock origin for tests on Trio's MockClock


def mock_wall_clock() -> float:
    """Seconds since the epoch that advance with the Trio clock (MockClock in tests)."""
    return EPOCH + trio.current_time()


class Trail:
    """What the handlers saw: started, cancelled, finished, by tool."""

    def __init__(self) -> None:
        self.events: list[tuple[str, str]] = []

    def add(self, tool: str, what: str) -> None:
        self.events.append((tool, what))


def make_app(trail: Trail | None = None, **runner: Any) -> mcptrio.App:
    trail = trail or Trail()
    app = mcptrio.App("tasks-test", tasks=TaskRunner(**{"clock": mock_wall_clock, **runner}))

    @app.tool()
    async def quick(text: str) -> str:
        return text

    @app.tool(task="optional")
    async def work(seconds: float, ctx: Context) -> str:
        trail.add("work", "started")
        try:
            await trio.sleep(seconds)
        except trio.Cancelled:
            trail.add("work", "cancelled")
            raise
        trail.add("work", "finished")
        return f"worked {seconds:g} s"

    @app.tool(task="required")
    async def must_be_task() -> str:
        return "ran as a task"

    @app.tool(task="optional")
    async def refuse() -> str:
        raise ToolError("the work was refused")

    @app.tool(task="optional")
    async def crash() -> str:
        raise McpError(-32603, "the work crashed")

    @app.tool(task="optional")
    async def ask(ctx: Context) -> str:
        answer = await ctx.elicit(
            "Proceed?", {"type": "object", "properties": {"ok": {"type": "boolean"}}}, key="proceed"
        )
        return f"answer: {answer.get('action')} {answer.get('content')}"

    @app.tool(task="optional")
    async def ask_two(ctx: Context) -> str:
        schema = {"type": "object", "properties": {"v": {"type": "string"}}}
        answers = await ctx.ask_many(
            {
                "a": {
                    "method": "elicitation/create",
                    "params": {"mode": "form", "message": "A?", "requestedSchema": schema},
                },
                "b": {
                    "method": "elicitation/create",
                    "params": {"mode": "form", "message": "B?", "requestedSchema": schema},
                },
            }
        )
        return f"{answers['a']['content']['v']}+{answers['b']['content']['v']}"

    @app.tool(task="required", input_first=True)
    async def gather_then_task(ctx: Context) -> str:
        answer = await ctx.elicit("Name?", {"type": "object", "properties": {"name": {"type": "string"}}}, key="name")
        trail.add("gather_then_task", "before start_task")
        await ctx.start_task()
        trail.add("gather_then_task", "in the task")
        return f"hello {answer['content']['name']}"

    return app
