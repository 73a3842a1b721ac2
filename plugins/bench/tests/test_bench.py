"""The bench plugin's workload, through the public testing client."""

import json

import trio
from mcptrio_bench import plugin, stats

import mcptrio
from mcptrio.testing import open_client


def make_app():
    app = mcptrio.App("bench-test")
    app.include(plugin)
    return app


def text_of(result):
    return result["content"][0]["text"]


async def test_echo_resource_prompt():
    async with open_client(make_app()) as client:
        assert text_of(await client.call_tool("echo", {"text": "x y"})) == "x y"
        info = (await client.request("resources/read", {"uri": "bench://info"}))["contents"][0]
        assert json.loads(info["text"])["server"] == "mcptrio"
        prompt = await client.request("prompts/get", {"name": "greet", "arguments": {"name": "Ada"}})
        assert prompt["messages"][0]["content"]["text"] == "Hello, Ada!"


async def test_sleep_counts_started_completed_cancelled(autojump_clock):
    stats.update(started=0, completed=0, cancelled=0)
    async with open_client(make_app()) as client:
        assert text_of(await client.call_tool("sleep", {"ms": 50})) == "slept 50 ms"
        request_id, _ = await client.start_request("tools/call", {"name": "sleep", "arguments": {"ms": 60000}})
        await trio.sleep(1)
        await client.notify("notifications/cancelled", {"requestId": request_id})
        await trio.sleep(1)
        counters = json.loads(text_of(await client.call_tool("sleep_stats")))
        assert counters == {"started": 2, "completed": 1, "cancelled": 1}
