"""Two mcptrio processes sharing one Redis behind HAProxy in round robin (no affinity): the
official SDK client's legacy session spreads over both and works as with one server."""

import re

import trio
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from ..interop._support import Answers, text_of
from .haproxy import haproxy
from .processes import mcptrio_serve

PLUGINS = "everything,bench"


async def test_the_official_sdk_client_through_haproxy_over_two_workers(redis, tmp_path):
    flags = ("--state", redis.url, "--log-level", "debug")
    async with (
        mcptrio_serve(tmp_path, *flags, name="w1", plugins=PLUGINS) as w1,
        mcptrio_serve(tmp_path, *flags, name="w2", plugins=PLUGINS) as w2,
    ):
        with haproxy([w1.url, w2.url]) as (url, haproxy_log):
            answers = Answers()
            with trio.fail_after(60):
                async with Client(
                    streamable_http_client(url), mode="legacy", read_timeout_seconds=20, **answers.callbacks()
                ) as client:
                    pids = {text_of(await client.call_tool("whoami", {})) for _ in range(30)}
                    for n in range(8):
                        elicited = await client.call_tool("test_elicitation", {"message": f"Who are you ({n})?"})
                        assert text_of(elicited).startswith("User response: action=accept"), text_of(elicited)
                    for _ in range(4):
                        resumed = await client.call_tool("test_reconnection", {})
                        assert text_of(resumed).startswith("Reconnection test completed successfully")
            served_by = set(re.findall(r"workers/(w\d) ", open(haproxy_log).read()))
    assert pids == {str(w1.process.pid), str(w2.process.pid)}, "both processes served the one session"
    assert served_by == {"w1", "w2"}
    assert len(answers.of("elicitation")) == 8
    logs = w1.log() + w2.log()
    assert "relayed a reply of session" in logs, "no elicitation answer landed on the other worker"
    assert "resuming a stream of session" in logs, "no reconnection landed on the other worker"
    print(
        "relayed answers:",
        logs.count("relayed a reply"),
        "streams resumed on the other worker:",
        logs.count("resuming a stream of session"),
    )
