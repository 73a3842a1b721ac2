"""Plain ``def`` handlers: each kind runs in a worker thread, in both eras; the Context works from
the thread through ``ctx.sync``; the App's thread limit holds; a cancelled or timed-out call is
answered (or dropped) at once while its thread runs on, and the thread's result goes nowhere."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time

import pytest
import trio

from mcptrio import App, Context, McpError, SessionLimits
from mcptrio.testing import open_client
from tests.cli.test_cli import fake_distribution

MAIN = threading.get_ident()


def text_of(result: dict) -> str:
    return result["content"][0]["text"]


def every_kind_app() -> App:
    app = App("sync")

    def cities(partial: str, given: dict) -> list[str]:
        assert threading.get_ident() != MAIN
        return [c for c in ("Oslo", "Osaka", "Paris") if c.startswith(partial)]

    @app.tool
    def shout(text: str) -> str:
        """Upper-case a text, in a thread."""
        assert threading.get_ident() != MAIN
        return text.upper()

    @app.resource("sync://readme")
    def readme() -> str:
        assert threading.get_ident() != MAIN
        return "read in a thread"

    @app.resource("sync://city/{name}", complete={"name": cities})
    def city(name: str, ctx: Context) -> str:
        assert threading.get_ident() != MAIN and isinstance(ctx, Context)
        return f"{name} ({ctx.era})"

    @app.prompt
    def visit(city: str) -> str:
        assert threading.get_ident() != MAIN
        return f"Plan a day in {city}."

    return app


@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_every_kind_of_handler_may_be_a_plain_function(era):
    async with open_client(every_kind_app(), era=era) as client:
        [tool] = (await client.request("tools/list"))["tools"]
        assert tool["description"] == "Upper-case a text, in a thread."
        assert list(tool["inputSchema"]["properties"]) == ["text"]  # no trace of the Context keyword
        assert text_of(await client.call_tool("shout", {"text": "hi"})) == "HI"
        read = await client.request("resources/read", {"uri": "sync://readme"})
        assert read["contents"][0]["text"] == "read in a thread"
        read = await client.request("resources/read", {"uri": "sync://city/Oslo"})
        assert read["contents"][0]["text"] == f"Oslo ({era})"
        prompt = await client.request("prompts/get", {"name": "visit", "arguments": {"city": "Oslo"}})
        assert prompt["messages"][0]["content"]["text"] == "Plan a day in Oslo."
        done = await client.request(
            "completion/complete",
            {"ref": {"type": "ref/resource", "uri": "sync://city/{name}"}, "argument": {"name": "name", "value": "Os"}},
        )
        assert done["completion"]["values"] == ["Oslo", "Osaka"]


async def test_progress_and_logs_from_the_thread_reach_the_client():
    app = App("sync")

    @app.tool()
    def count(steps: int, ctx: Context) -> str:
        for step in range(1, steps + 1):
            ctx.sync.progress(step, steps, f"step {step}")
        ctx.sync.info({"counted": steps})
        assert 0 < ctx.sync.time_left() <= 300
        return "counted"

    async with open_client(app) as client:
        await client.request("logging/setLevel", {"level": "info"})
        result = await client.request(
            "tools/call", {"name": "count", "arguments": {"steps": 3}}, meta={"progressToken": "p"}
        )
        assert text_of(result) == "counted"
        progress = [n["params"] for n in client.notifications if n["method"] == "notifications/progress"]
        assert progress == [
            {"progressToken": "p", "progress": s, "total": 3, "message": f"step {s}"} for s in (1, 2, 3)
        ]
        [log] = [n["params"] for n in client.notifications if n["method"] == "notifications/message"]
        assert log == {"level": "info", "data": {"counted": 3}}


@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_elicitation_from_the_thread_in_both_eras(era):
    app = App("sync")
    runs = []

    @app.tool()
    def confirm(ctx: Context) -> str:
        runs.append(threading.get_ident())
        answer = ctx.sync.elicit("Sure?", {"type": "object", "properties": {"ok": {"type": "boolean"}}})
        return "yes" if answer["content"]["ok"] else "no"

    async def accept(params: dict) -> dict:
        return {"action": "accept", "content": {"ok": True}}

    async with open_client(
        app, era=era, capabilities={"elicitation": {}}, handlers={"elicitation/create": accept}
    ) as client:
        result = await client.call_tool("confirm", resolve_input=True)
        assert text_of(result) == "yes"
    assert len(runs) == (2 if era == "modern" else 1)  # modern: the retry runs the handler again
    assert MAIN not in runs


async def test_the_thread_limit_holds():
    app = App("sync", thread_limit=2)
    lock = threading.Lock()
    running, most = 0, 0
    release = threading.Event()

    @app.tool()
    def work() -> str:
        nonlocal running, most
        with lock:
            running += 1
            most = max(most, running)
        release.wait(10)
        with lock:
            running -= 1
        return "done"

    async with open_client(app) as client:
        async with trio.open_nursery() as nursery:
            for _ in range(5):
                nursery.start_soon(client.call_tool, "work")
            with trio.fail_after(5):
                while app.thread_limiter.borrowed_tokens < 2:
                    await trio.sleep(0.01)
            await trio.sleep(0.05)
            assert (running, app.thread_limiter.statistics().tasks_waiting) == (2, 3)
            release.set()
    assert most == 2 and running == 0


def test_the_thread_limit_is_checked():
    with pytest.raises(ValueError, match="thread_limit must be a whole number of threads, at least 1, not 0"):
        App(thread_limit=0)


async def test_a_cancelled_call_ends_at_once_and_its_result_is_dropped():
    app = App("sync")
    entered, release, finished = threading.Event(), threading.Event(), threading.Event()
    told: list[str] = []

    @app.tool()
    def stuck(ctx: Context) -> str:
        entered.set()
        release.wait(10)
        try:
            ctx.sync.progress(1)
        except trio.Cancelled:
            told.append("cancelled")
            raise
        finally:
            finished.set()
        return "too late"

    async with open_client(app) as client:
        request_id, answer = await client.start_request("tools/call", {"name": "stuck", "arguments": {}})
        await trio.to_thread.run_sync(entered.wait, 10)
        await client.notify("notifications/cancelled", {"requestId": request_id})
        with trio.fail_after(2):  # the session answers while the thread is still blocked
            assert await client.request("ping") == {}
        assert app.thread_limiter.borrowed_tokens == 1  # the thread runs on, holding its slot
        release.set()
        await trio.to_thread.run_sync(finished.wait, 10)
        assert told == ["cancelled"]  # its next ctx.sync call said so
        with trio.fail_after(5):
            while app.thread_limiter.borrowed_tokens:
                await trio.sleep(0.01)
        await trio.sleep(0.05)
        with pytest.raises(trio.WouldBlock):
            answer.receive_nowait()  # never answered
        assert client.unmatched == []


async def test_a_deadline_answers_at_once_while_the_thread_runs_on():
    app = App("sync", limits=SessionLimits(request_timeout=0.2))
    release = threading.Event()

    @app.tool()
    def slow() -> str:
        release.wait(10)
        return "late"

    async with open_client(app) as client:
        started = trio.current_time()
        result = await client.call_tool("slow")
        waited = trio.current_time() - started
        assert result["isError"] is True and "timed out after 0.2 s" in text_of(result)
        assert waited < 2 and not release.is_set()
        release.set()


async def test_a_failing_plain_function_is_an_error_result():
    app = App("sync")

    @app.tool()
    def broken() -> str:
        raise RuntimeError("secret detail")

    @app.resource("sync://gone/{key}")
    def gone(key: str) -> str:
        raise LookupError(key)

    async with open_client(app) as client:
        result = await client.call_tool("broken")
        assert result["isError"] is True
        assert text_of(result) == "tool 'broken' failed with an internal error (RuntimeError)"
        with pytest.raises(McpError, match="resource not found: sync://gone/x"):
            await client.request("resources/read", {"uri": "sync://gone/x"})


async def test_a_plain_function_runs_as_a_task_too():
    app = App("sync")

    @app.tool(task="required")
    def report(pages: int, ctx: Context) -> str:
        assert threading.get_ident() != MAIN
        ctx.sync.progress(pages, pages, "written")  # (a 2026-07-28 task: its status message)
        return f"{pages} pages"

    capabilities = {"extensions": {"io.modelcontextprotocol/tasks": {}}}
    async with open_client(app, era="modern", capabilities=capabilities) as client:
        created = await client.call_tool("report", {"pages": 3}, follow_task=False)
        assert created["resultType"] == "task"
        result = await client.call_tool("report", {"pages": 4})  # followed to its end
        assert text_of(result) == "4 pages"


def test_a_stdio_server_exits_at_end_of_input_though_a_thread_never_returns(tmp_path):
    fake_distribution(
        tmp_path,
        "stuck_plugin",
        {"stuck": "stuck:plugin"},
        {
            "stuck": """
        import threading
        import mcptrio

        plugin = mcptrio.Registry("stuck")

        @plugin.tool
        def forever() -> str:
            threading.Event().wait()  # never set
            return "never"
    """
        },
    )
    messages = [
        {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "forever", "arguments": {}}},
    ]
    env = {**os.environ, "PYTHONPATH": f"{tmp_path}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "mcptrio.cli", "serve", "--plugins", "stuck"],
        env=env,
        timeout=60,
        input="".join(json.dumps(m) + "\n" for m in messages).encode(),
        capture_output=True,
    )
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    assert time.monotonic() - started < 5 + 10  # the shutdown grace (5 s), then the thread is left behind
    assert json.loads(done.stdout.splitlines()[0])["id"] == 0
