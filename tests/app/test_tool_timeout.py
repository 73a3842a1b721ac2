"""A tool's own ``timeout=``: the call is cancelled when it runs out and answered ``isError``
naming the timeout, for async and plain ``def`` handlers, in both eras and over stdio."""

from __future__ import annotations

import threading

import pytest
import trio
import trio.testing

from mcptrio import App, Context, SessionLimits
from mcptrio.testing import open_client

from .stdio_script import served_script


def text_of(result: dict) -> str:
    return result["content"][0]["text"]


def timed_app(release: threading.Event) -> App:
    app = App("timed", limits=SessionLimits(request_timeout=60))

    @app.tool(timeout=2)
    async def nap(seconds: float, ctx: Context) -> str:
        assert ctx.time_left() == pytest.approx(2)
        await trio.sleep(seconds)
        return "rested"

    @app.tool(timeout=0.5)
    def block() -> str:
        release.wait(10)
        return "late"

    return app


@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_an_async_tool_is_answered_as_timed_out_at_its_timeout(era):
    clock = trio.testing.MockClock(autojump_threshold=0)
    seen: dict[str, object] = {}

    async def main() -> None:
        async with open_client(timed_app(threading.Event()), era=era) as client:
            assert text_of(await client.call_tool("nap", {"seconds": 1.5})) == "rested"
            started = trio.current_time()
            seen["late"] = await client.call_tool("nap", {"seconds": 5})
            seen["waited"] = trio.current_time() - started

    trio.run(main, clock=clock)
    late = seen["late"]
    assert isinstance(late, dict) and late["isError"] is True
    assert text_of(late) == "tool 'nap' timed out after 2 s"
    assert seen["waited"] == pytest.approx(2)


async def test_a_plain_function_is_answered_at_its_timeout_while_its_thread_runs_on():
    release = threading.Event()
    async with open_client(timed_app(release)) as client:
        started = trio.current_time()
        result = await client.call_tool("block")
        waited = trio.current_time() - started
        assert result["isError"] is True and text_of(result) == "tool 'block' timed out after 0.5 s"
        assert 0.5 <= waited < 3 and not release.is_set()
        assert await client.request("ping") == {}  # the session goes on
        release.set()


def test_the_server_deadline_still_applies_when_it_is_the_sooner():
    clock = trio.testing.MockClock(autojump_threshold=0)
    app = App("timed", limits=SessionLimits(request_timeout=1))
    seen: dict[str, object] = {}

    @app.tool(timeout=30)
    async def nap() -> str:
        await trio.sleep(10)
        return "rested"

    async def main() -> None:
        async with open_client(app) as client:
            seen["result"] = await client.call_tool("nap")

    trio.run(main, clock=clock)
    result = seen["result"]
    assert isinstance(result, dict) and text_of(result) == "tool 'nap' timed out after 1 s"


@pytest.mark.parametrize("bad", [0, -1, float("nan")])
def test_a_timeout_must_be_a_positive_number(bad):
    app = App("timed")
    with pytest.raises(ValueError, match="timeout must be a positive number of seconds"):

        @app.tool(timeout=bad)
        async def nap() -> str:
            return ""


SERVED = """
import threading, trio
from mcptrio import App
from mcptrio import serve_stdio

app = App("timed")
never = threading.Event()

@app.tool(timeout=0.3)
async def slow() -> str:
    await trio.sleep(30)
    return "late"

@app.tool(timeout=0.3)
def blocking() -> str:
    never.wait(30)
    return "late"

trio.run(serve_stdio, app)
"""


async def test_over_stdio_both_kinds_time_out_at_their_timeout(tmp_path):
    async with served_script(tmp_path, SERVED) as client:
        for name in ("slow", "blocking"):
            started = trio.current_time()
            result = await client.call_tool(name)
            assert result.is_error is True
            assert result.content[0].text == f"tool {name!r} timed out after 0.3 s"
            assert trio.current_time() - started < 5
