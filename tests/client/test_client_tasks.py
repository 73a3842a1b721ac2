"""Tasks through ``mcptrio.client.connect``: a task tool's call is followed to its result in both
eras (the 2026-07-28 extension, 2025-11-25's experimental tasks), in this process on Trio's
MockClock, and over Streamable HTTP, WebSocket and stdio; and ``mcptrio call`` runs a tool that
only runs as a task."""

from __future__ import annotations

import subprocess
import sys

import pytest
import trio

import mcptrio
import mcptrio.client
from mcptrio import Context, McpError, ToolError
from mcptrio.app.tasks.runner import TaskRunner

from ..app.tasks.apps import mock_wall_clock
from ..transports.http.client import http_server, ws_server

ERAS = ["modern", "legacy"]
EVERYTHING = [sys.executable, "-m", "mcptrio", "serve", "--plugins", "everything"]


class Seen:
    """What the server did: the methods it was asked (by middleware), and what its handlers saw."""

    def __init__(self) -> None:
        self.methods: list[str] = []
        self.events: list[str] = []

    def count(self, method: str) -> int:
        return self.methods.count(method)


def task_app(seen: Seen, *, poll_interval_ms: int = 500, clock: object = mock_wall_clock) -> mcptrio.App:
    app = mcptrio.App("tasks-client", tasks=TaskRunner(clock=clock, poll_interval_ms=poll_interval_ms))

    @app.use
    async def record(request, call_next):
        seen.methods.append(request.method)
        return await call_next(request)

    @app.tool(task="optional")
    async def compile(ctx: Context, seconds: float = 3) -> str:
        """Three steps, reported as progress."""
        for step in (1, 2, 3):
            await ctx.progress(step, total=3, message=f"step {step}")
            await trio.sleep(seconds / 3)
        return f"compiled in {seconds:g} s"

    @app.tool(task="required")
    async def deploy(ctx: Context, target: str) -> str:
        """Only ever a task; asks first."""
        answer = await ctx.elicit(
            f"Deploy {target}?", {"type": "object", "properties": {"ok": {"type": "boolean"}}}, key="confirm"
        )
        await trio.sleep(1)
        return f"deployed {target}" if answer.get("content", {}).get("ok") else "not deployed"

    @app.tool(task="required")
    async def broken() -> str:
        await trio.sleep(1)
        raise McpError(-32602, "broken on purpose")

    @app.tool(task="optional")
    async def refused() -> str:
        await trio.sleep(1)
        raise ToolError("refused on purpose")

    @app.tool(task="optional")
    async def forever() -> str:
        try:
            await trio.sleep_forever()
        finally:
            seen.events.append("forever cancelled")

    return app


async def yes(params):
    return {"action": "accept", "content": {"ok": True}}


def text(result):
    return result.content[0].text


@pytest.mark.parametrize("era", ERAS)
async def test_tasks_true_follows_a_task_at_the_servers_interval(era, autojump_clock):
    seen = Seen()
    async with mcptrio.client.connect(task_app(seen), era=era, tasks=True) as client:
        assert text(await client.call_tool("compile", {"seconds": 3})) == "compiled in 3 s"
    # the work took 3 s and the server asked for a poll every 0.5 s: about six polls, no more
    assert 5 <= seen.count("tasks/get") <= 7, seen.methods
    assert seen.count("tools/call") == 1
    if era == "legacy":  # 2025-11-25: the result is fetched with tasks/result once the task has ended
        assert seen.methods[-1] == "tasks/result"


@pytest.mark.parametrize("era", ERAS)
async def test_progress_of_a_task(era, autojump_clock):
    reported = []
    async with mcptrio.client.connect(task_app(Seen()), era=era, tasks=True) as client:
        await client.call_tool("compile", {"seconds": 3}, progress=lambda *p: reported.append(p))
    if era == "legacy":  # 2025-11-25: the task's progress notifications, to the call's token
        assert reported == [(1, 3, "step 1"), (2, 3, "step 2"), (3, 3, "step 3")]
    else:  # 2026-07-28 tasks send no progress: their status messages stand in for it
        assert reported and all(p[:2] == (0, None) and p[2] in ("step 1", "step 2", "step 3") for p in reported)


@pytest.mark.parametrize("era", ERAS)
async def test_by_default_only_a_tool_that_must_run_as_a_task_does(era, autojump_clock):
    seen = Seen()
    async with mcptrio.client.connect(task_app(seen), era=era, elicitation=yes) as client:
        assert text(await client.call_tool("compile", {"seconds": 1})) == "compiled in 1 s"
        assert seen.count("tasks/get") == 0  # "optional": an ordinary call
        assert text(await client.call_tool("deploy", {"target": "prod"})) == "deployed prod"
        assert seen.count("tasks/get") >= 1
        # 2026-07-28: refused with -32021 asking for the extension, then asked again declaring it
        # (and not refused again); 2025-11-25: refused with -32601, then listed, and asked with the task param
        calls = seen.count("tools/call")
        assert text(await client.call_tool("deploy", {"target": "test"})) == "deployed test"
        assert seen.count("tools/call") == calls + 1


@pytest.mark.parametrize("era", ERAS)
async def test_tasks_false_runs_no_task(era, autojump_clock):
    async with mcptrio.client.connect(task_app(Seen()), era=era, tasks=False) as client:
        with pytest.raises(McpError) as refused:
            await client.call_tool("deploy", {"target": "prod"})
    assert refused.value.code == (-32021 if era == "modern" else -32601)


@pytest.mark.parametrize("era", ERAS)
async def test_a_failed_task_raises_and_a_tool_error_is_a_result(era, autojump_clock):
    async with mcptrio.client.connect(task_app(Seen()), era=era, tasks=True) as client:
        with pytest.raises(McpError) as failed:
            await client.call_tool("broken")
        result = await client.call_tool("refused")
    assert (failed.value.code, failed.value.message) == (-32602, "broken on purpose")
    assert result.is_error and text(result) == "refused on purpose"


@pytest.mark.parametrize("era", ERAS)
async def test_the_tasks_questions_are_answered_by_the_callbacks(era, autojump_clock):
    asked = []

    async def no(params):
        asked.append(params["message"])
        return {"action": "accept", "content": {"ok": False}}

    async with mcptrio.client.connect(task_app(Seen()), era=era, elicitation=no) as client:
        assert text(await client.call_tool("deploy", {"target": "prod"})) == "not deployed"
    assert asked == ["Deploy prod?"]  # once, however many polls saw the question


@pytest.mark.parametrize("era", ERAS)
async def test_cancelling_the_caller_cancels_the_task(era, autojump_clock):
    seen = Seen()
    async with mcptrio.client.connect(task_app(seen), era=era, tasks=True) as client:
        with trio.move_on_after(5):
            await client.call_tool("forever")
        assert seen.count("tasks/cancel") == 1
        await trio.sleep(1)
    assert seen.events == ["forever cancelled"]


@pytest.mark.parametrize("transport", ["http", "websocket"])
@pytest.mark.parametrize("era", ERAS)
async def test_over_the_network(transport, era):
    """Over HTTP every tasks/* request carries the task id in Mcp-Name (else -32020), and a
    legacy session's task asks its question on the session's GET stream."""
    seen = Seen()
    app = task_app(seen, poll_interval_ms=20, clock=trio.current_time)
    serve = http_server if transport == "http" else ws_server
    async with serve(app) as url, mcptrio.client.connect(url, era=era, elicitation=yes, tasks=True) as client:
        with trio.fail_after(20):
            assert text(await client.call_tool("deploy", {"target": "prod"})) == "deployed prod"
            assert text(await client.call_tool("compile", {"seconds": 0.1})) == "compiled in 0.1 s"
            with trio.move_on_after(0.5):
                await client.call_tool("forever")
            while "forever cancelled" not in seen.events:
                await trio.sleep(0.01)
    assert seen.count("tasks/cancel") == 1


@pytest.mark.parametrize("era", ERAS)
async def test_over_stdio_the_everything_plugins_task_tools(era):
    async def name(params):
        return {"action": "accept", "content": {"name": "Ada"}}

    with trio.fail_after(30):
        async with mcptrio.client.connect(EVERYTHING, era=era, elicitation=name) as client:
            failed = await client.call_tool("failing_job")  # only ever a task: a tool error
            assert failed.is_error and text(failed) == "the job failed (as it always does)"
            greeted = await client.call_tool("test_tool_with_task")  # a question first, then a task
            assert text(greeted) == "Hello, Ada! (from a task)"


def test_mcptrio_call_runs_a_tool_that_only_runs_as_a_task():
    for era in ERAS:
        done = subprocess.run(
            [sys.executable, "-m", "mcptrio", "call", "--plugins", "everything", "failing_job", "--era", era],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 1, done.stderr  # the task ran, and the tool reported its error
        assert done.stdout.strip() == "the job failed (as it always does)"
