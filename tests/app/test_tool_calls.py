"""A server-wide cap on concurrent tool calls, with a bounded wait for a slot."""

from __future__ import annotations

import sys

import pytest
import trio

import mcptrio
from mcptrio.protocol.errors import UNAVAILABLE
from mcptrio.testing import open_client, open_process_client

from ..transports.http.client import final_of, http_server, modern_tool, new_client, text_of

MCPTRIO = [sys.executable, "-m", "mcptrio"]


def make_app(**options) -> mcptrio.App:
    app = mcptrio.App("capped", **options)

    @app.tool()
    async def nap(seconds: float) -> str:
        await trio.sleep(seconds)
        return "rested"

    return app


async def call(client, seconds: float, out: list) -> None:
    out.append(await client.response("tools/call", {"name": "nap", "arguments": {"seconds": seconds}}))


@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_a_call_over_the_cap_waits_for_a_slot_within_the_wait(era, autojump_clock):
    app = make_app(max_tool_calls=2, tool_call_wait=1.0)
    answers: list = []
    async with open_client(app, era=era) as client:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(call, client, 0.5, answers)
            nursery.start_soon(call, client, 5.0, answers)
            await trio.sleep(0.1)
            assert app.tool_calls.running == 2
            started = trio.current_time()
            await call(client, 0.1, answers)  # waits 0.4 s for the first slot, then runs
            assert trio.current_time() - started == pytest.approx(0.5)
            # other methods are not capped
            assert "result" in await client.response("tools/list")
    assert all(a["result"]["content"][0]["text"] == "rested" for a in answers)
    assert app.tool_calls.running == 0


async def test_over_the_cap_past_the_wait_a_clear_retryable_error(autojump_clock):
    app = make_app(max_tool_calls=1, tool_call_wait=0.25)
    answers: list = []
    async with open_client(app) as client:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(call, client, 10.0, answers)
            await trio.sleep(0.1)
            started = trio.current_time()
            refused = await client.response("tools/call", {"name": "nap", "arguments": {"seconds": 0}})
            assert trio.current_time() - started == pytest.approx(0.25)
    error = refused["error"]
    assert error["code"] == UNAVAILABLE and "1 tool calls running" in error["message"]
    assert error["data"] == {"retryAfter": 1}
    assert answers[0]["result"]["content"][0]["text"] == "rested"
    assert app.tool_calls.running == 0


async def test_a_waiting_call_cancelled_by_the_client_takes_no_slot(autojump_clock):
    app = make_app(max_tool_calls=1, tool_call_wait=5.0)
    async with open_client(app) as client:
        async with trio.open_nursery() as nursery:
            answers: list = []
            nursery.start_soon(call, client, 1.0, answers)
            await trio.sleep(0.1)
            waiting, _ = await client.start_request("tools/call", {"name": "nap", "arguments": {"seconds": 0}})
            await trio.sleep(0.1)
            await client.notify("notifications/cancelled", {"requestId": waiting})
            await trio.sleep(0.1)
            assert app.tool_calls.running == 1
        assert app.tool_calls.running == 0
        assert (await client.call_tool("nap", {"seconds": 0}))["content"][0]["text"] == "rested"


async def test_over_http_503_with_retry_after():
    app = make_app(max_tool_calls=1, tool_call_wait=0)
    async with http_server(app) as url, new_client() as http:
        async with trio.open_nursery() as nursery:
            slow: list = []

            async def hold_the_slot() -> None:
                body, headers = modern_tool("nap", {"seconds": 1.0}, 1)
                slow.append(await http.post(url, json=body, headers=headers))

            nursery.start_soon(hold_the_slot)
            with trio.fail_after(5):
                while app.tool_calls.running == 0:
                    await trio.sleep(0.01)
            body, headers = modern_tool("nap", {"seconds": 0}, 2)
            refused = await http.post(url, json=body, headers=headers)
        assert refused.status_code == 503 and refused.headers["retry-after"] == "1"
        assert refused.json()["error"]["code"] == UNAVAILABLE
        assert text_of(final_of(slow[0])) == "rested"


async def test_from_the_command_line_over_stdio():
    command = MCPTRIO + ["serve", "--plugins", "bench", "--max-tool-calls", "1", "--tool-call-wait", "0"]
    async with open_process_client(command) as client:
        _, slow = await client.start_request("tools/call", {"name": "sleep", "arguments": {"ms": 1500}})
        await trio.sleep(0.3)
        refused = await client.response("tools/call", {"name": "sleep", "arguments": {"ms": 0}})
        assert refused["error"]["code"] == UNAVAILABLE
        assert "result" in await slow.receive()
    assert client.end.process.returncode == 0
