"""Run embedded_server.py as a real subprocess and talk to it over its stdin/stdout."""

from __future__ import annotations

import json
import signal
import sys
from pathlib import Path

import trio

from mcptrio.testing import open_process_client

SERVER = [sys.executable, str(Path(__file__).with_name("embedded_server.py")), "--interval", "0.05"]
URI = "counter://ticks"


def updated(client) -> list[dict]:
    return [n for n in client.notifications if n["method"] == "notifications/resources/updated"]


async def read_ticks(client) -> int:
    contents = (await client.request("resources/read", {"uri": URI}))["contents"]
    assert contents[0]["mimeType"] == "application/json"
    return json.loads(contents[0]["text"])["ticks"]


async def test_the_counter_ticks_and_subscribers_hear_of_it():
    with trio.fail_after(20):
        async with open_process_client(SERVER) as client:
            assert client.initialize_result["serverInfo"]["name"] == "embedded-counter"
            resources = (await client.request("resources/list"))["resources"]
            assert [r["uri"] for r in resources] == [URI]

            await client.request("resources/subscribe", {"uri": URI})
            first = await read_ticks(client)
            heard = len(updated(client))
            await client.wait_for_notification("notifications/resources/updated", count=heard + 3)
            assert all(n["params"] == {"uri": URI} for n in updated(client))
            assert await read_ticks(client) >= first + 3

            while (before := await read_ticks(client)) < 10:
                await client.wait_for_notification("notifications/resources/updated", count=len(updated(client)) + 1)
            reset = await client.call_tool("reset_counter")
            assert reset["content"][0]["text"] == "counter reset"
            assert await read_ticks(client) < before  # back to zero, plus at most a tick or two since
        assert client.end.process.returncode == 0  # closing stdin ended it cleanly


async def test_closing_stdin_exits_zero_even_with_the_ticker_running():
    with trio.fail_after(20):
        async with open_process_client(SERVER) as client:
            await client.request("ping")
            process = client.end.process
            await client.end.close()
            await process.wait()
        assert process.returncode == 0


async def test_sigterm_exits_zero():
    with trio.fail_after(20):
        async with open_process_client(SERVER) as client:
            await client.request("ping")
            client.end.process.send_signal(signal.SIGTERM)
            await client.end.process.wait()
        assert client.end.process.returncode == 0
