"""Apps the runtime tests serve, in memory and in a real subprocess."""

import trio

import mcptrio
from mcptrio import App, Context


def build_app(**kwargs) -> App:
    """A small app exercising every runtime behaviour."""
    app = App("test-server", "9.9.9", **kwargs)
    stats = {"started": 0, "finished": 0, "cancelled": 0}
    app.stats = stats

    @app.tool()
    async def echo(text: str) -> str:
        return text

    @app.tool()
    async def sleep(ctx: Context, seconds: float) -> str:
        stats["started"] += 1
        try:
            await trio.sleep(seconds)
        except trio.Cancelled:
            stats["cancelled"] += 1
            raise
        stats["finished"] += 1
        return f"slept {seconds:g}"

    @app.tool()
    async def count(ctx: Context, steps: int) -> str:
        for step in range(1, steps + 1):
            await ctx.progress(step, total=steps, message=f"step {step}")
        return "counted"

    @app.tool()
    async def backwards(ctx: Context) -> str:
        await ctx.progress(5)
        try:
            await ctx.progress(3)
        except ValueError as exc:
            return f"refused: {exc}"
        return "accepted"

    @app.tool()
    async def chatty(ctx: Context) -> str:
        for level in ("debug", "info", "warning", "error"):
            await ctx.log(level, {"level": level}, logger="chatty")
        return "logged"

    @app.tool()
    async def ask_name(ctx: Context) -> str:
        answer = await ctx.elicit("Your name?", {"type": "object", "properties": {"name": {"type": "string"}}})
        if answer["action"] != "accept":
            return f"declined ({answer['action']})"
        return f"hello {answer['content']['name']}"

    @app.tool()
    async def ask_twice(ctx: Context) -> str:
        first = await ctx.elicit("Your name?", {"type": "object", "properties": {"name": {"type": "string"}}})
        second = await ctx.sample("Say something", max_tokens=10)
        roots = await ctx.list_roots()
        return f"{first['content']['name']}|{second['content']['text']}|{len(roots)}"

    @app.tool()
    async def explode() -> str:
        raise RuntimeError("secret internal detail /etc/passwd")

    @app.tool()
    async def refuse() -> str:
        raise mcptrio.ToolError("this tool refuses politely")

    @app.tool()
    async def rpc_error() -> str:
        raise mcptrio.McpError(-32602, "bad thing", {"field": "x"})

    @app.tool()
    async def print_noise() -> str:
        print("this must not reach stdout")
        return "printed"

    @app.resource("test://hello", mime_type="text/plain")
    async def hello() -> str:
        return "hello world"

    @app.prompt()
    async def greet(name: str) -> str:
        return f"Hello, {name}!"

    return app


def add_slow_steps(app: App) -> App:
    """A tool ``slow_steps(seconds)``: progress 1, sleep, progress 2, counted in ``app.stats``."""

    @app.tool()
    async def slow_steps(ctx: Context, seconds: float) -> str:
        app.stats["started"] += 1
        try:
            await ctx.progress(1, message="started")
            await trio.sleep(seconds)
            await ctx.progress(2, message="slept")
        except trio.Cancelled:
            app.stats["cancelled"] += 1
            raise
        app.stats["finished"] += 1
        return f"done after {seconds:g}"

    return app
