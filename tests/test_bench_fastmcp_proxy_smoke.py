"""bench/peers/fastmcp_proxy.py, the peer of the gateway bench: FastMCP's proxy forwards an echo call to
``mcptrio serve --plugins bench`` over stdio and over HTTP, in both eras, and refuses a missing upstream."""

import subprocess
import sys

import pytest
import trio

import mcptrio.client

from .peers import servers

TIMEOUT = 40


@pytest.mark.parametrize("era", ["modern", "legacy"])
async def test_it_proxies_a_stdio_upstream_over_stdio(era):
    proxy = servers.fastmcp_proxy(servers.mcptrio("bench").stdio)
    with trio.fail_after(TIMEOUT):
        async with mcptrio.client.connect(proxy.stdio, era=era, env=proxy.env, keep_stderr=True) as client:
            assert client.era == era and client.server_info.name == "fastmcp-proxy"
            assert {"echo", "sleep"} <= {tool.name for tool in await client.list_tools()}
            answer = await client.call_tool("echo", {"text": "through FastMCP"})
            assert answer.content[0].text == "through FastMCP"


@pytest.mark.parametrize("era", ["modern", "legacy"])
async def test_it_proxies_an_http_upstream_over_http(era):
    with trio.fail_after(TIMEOUT):
        async with (
            servers.serve_http(servers.mcptrio("bench")) as upstream,
            servers.serve_http(servers.fastmcp_proxy(upstream)) as url,
            mcptrio.client.connect(url, era=era) as client,
        ):
            assert client.era == era
            answer = await client.call_tool("echo", {"text": "through FastMCP"})
            assert answer.content[0].text == "through FastMCP"


def test_a_missing_upstream_is_a_one_line_error():
    script = servers.REPO / "bench" / "peers" / "fastmcp_proxy.py"
    done = subprocess.run(
        [sys.executable, str(script), "--transport", "http"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2 and "the upstream is missing" in done.stderr.splitlines()[-1]
