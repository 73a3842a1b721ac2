"""Rate limits per client: a token bucket per principal, else address, else session; on every transport."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
import trio
from trio_websocket import open_websocket_url

import mcptrio
from mcptrio import McpError
from mcptrio.app.admission import RateLimit
from mcptrio.protocol.errors import RATE_LIMITED
from mcptrio.testing import open_client, open_process_client

from ..transports.http.client import (
    CLIENT_INFO,
    LEGACY,
    call_tool,
    final_of,
    http_server,
    initialize,
    legacy_headers,
    modern_tool,
    new_client,
    notification,
    rpc,
    text_of,
    ws_server,
)

MCPTRIO = [sys.executable, "-m", "mcptrio"]


def make_app(**options) -> mcptrio.App:
    app = mcptrio.App("limited", **options)

    @app.tool()
    async def echo(text: str) -> str:
        return text

    return app


def assert_rate_limited(error: dict, retry_after: float) -> None:
    assert error["code"] == RATE_LIMITED, error
    assert "rate limit exceeded" in error["message"]
    assert error["data"]["retryAfter"] == pytest.approx(retry_after, abs=0.01)


@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_a_burst_then_refused_with_the_delay_then_refilled(era, autojump_clock):
    app = make_app(rate_limit=RateLimit(2, burst=3))
    async with open_client(app, era=era) as client:
        for _ in range(3):
            assert (await client.call_tool("echo", {"text": "x"}))["content"][0]["text"] == "x"
        refused = await client.response("tools/call", {"name": "echo", "arguments": {"text": "x"}})
        assert_rate_limited(refused["error"], 0.5)
        await trio.sleep(0.25)
        again = await client.response("tools/list")
        assert_rate_limited(again["error"], 0.25)  # every method counts; the wait shrinks with time
        await trio.sleep(0.25)
        assert "result" in await client.response("tools/list")
        # the protocol's own answers (ping) are not limited
        if era == "legacy":
            assert await client.request("ping") == {}


async def test_each_session_without_an_address_has_its_own_bucket(autojump_clock):
    app = make_app(rate_limit="1/s")
    async with open_client(app) as first, open_client(app) as second:
        assert "result" in await first.response("tools/list")
        assert "error" in await first.response("tools/list")
        assert "result" in await second.response("tools/list")


def test_rate_limits_parse_with_units_and_reject_nonsense():
    assert RateLimit.parse("20/s") == RateLimit(20.0, 20)
    assert RateLimit.parse("600/m", 5).rate == pytest.approx(10.0)
    assert RateLimit.parse("1/h").burst == 1
    for bad in ("0/s", "-1/s", "x", "5/d", "inf"):
        with pytest.raises(ValueError):
            RateLimit.parse(bad)
    with pytest.raises(ValueError):
        RateLimit(5, burst=0)


async def test_over_http_429_with_retry_after_and_a_json_rpc_body_in_both_eras():
    app = make_app(rate_limit=RateLimit(1 / 3600, burst=2))  # one token an hour: no refill in the test
    async with http_server(app) as url, new_client() as http:
        session_id = await initialize(http, url)
        ok = await http.post(url, json=call_tool("echo", {"text": "a"}, 1), headers=legacy_headers(session_id))
        assert text_of(final_of(ok)) == "a"
        body, headers = modern_tool("echo", {"text": "b"}, 2)
        assert text_of(final_of(await http.post(url, json=body, headers=headers))) == "b"
        # the same address is the same client, whichever era or session it uses
        for response in (
            await http.post(url, json=call_tool("echo", {"text": "c"}, 3), headers=legacy_headers(session_id)),
            await http.post(url, json=body, headers=headers),
        ):
            assert response.status_code == 429
            assert int(response.headers["retry-after"]) > 3000
            message = response.json()
            assert message["id"] in (2, 3)
            assert message["error"]["code"] == RATE_LIMITED and message["error"]["data"]["retryAfter"] > 3000


async def test_over_websocket_a_json_rpc_error_with_the_delay():
    app = make_app(rate_limit=RateLimit(1 / 3600, burst=1))
    async with ws_server(app) as url:
        with trio.fail_after(10):
            async with open_websocket_url(url, subprotocols=["mcp"]) as ws:
                params = {"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": CLIENT_INFO}
                await ws.send_message(json.dumps(rpc("initialize", params, 0)))
                await ws.get_message()
                await ws.send_message(json.dumps(notification("notifications/initialized")))
                await ws.send_message(json.dumps(call_tool("echo", {"text": "one"}, 1)))
                assert text_of(json.loads(await ws.get_message())) == "one"
                await ws.send_message(json.dumps(call_tool("echo", {"text": "two"}, 2)))
                refused = json.loads(await ws.get_message())
    assert refused["id"] == 2 and refused["error"]["code"] == RATE_LIMITED
    assert refused["error"]["data"]["retryAfter"] > 3000


async def test_from_the_command_line_and_the_config_file_over_stdio(tmp_path: Path):
    config = tmp_path / "limits.toml"
    config.write_text('[serve]\nplugins = ["bench"]\nrate_limit = "1/h"\nrate_burst = 2\n')
    for command in (
        MCPTRIO + ["serve", "--plugins", "bench", "--rate-limit", "1/h", "--rate-burst", "2"],
        MCPTRIO + ["serve", "--config", str(config)],
    ):
        async with open_process_client(command) as client:
            assert "result" in await client.response("tools/list")
            assert "result" in await client.response("tools/list")
            with pytest.raises(McpError) as refused:
                await client.request("tools/list")
            assert refused.value.code == RATE_LIMITED and refused.value.data["retryAfter"] > 3000
        assert client.end.process.returncode == 0
