"""The bench plugin through mcptrio's pytest plugin, in both eras and over every transport."""

import pytest

pytestmark = [pytest.mark.mcp_plugins("bench"), pytest.mark.mcp_transports("memory", "stdio", "http")]


async def test_echo_and_the_info_resource(mcp_client):
    assert (await mcp_client.call_tool("echo", {"text": "hi"})).content[0].text == "hi"
    info = await mcp_client.read_resource("bench://info")
    assert '"server": "mcptrio"' in info.contents[0].text
