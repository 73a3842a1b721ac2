"""The everything plugin through mcptrio's pytest plugin: an elicitation answered by a callback,
pushed in a legacy session and through input round trips in the 2026-07-28 era."""

import pytest

pytestmark = [pytest.mark.mcp_plugins("everything"), pytest.mark.mcp_transports("memory", "http")]


@pytest.fixture
def mcp_callbacks():
    async def elicitation(params):
        return {"action": "accept", "content": {"username": "alice", "email": "alice@example.org"}}

    return {"elicitation": elicitation}


async def test_elicitation_in_both_eras(mcp_client):
    result = await mcp_client.call_tool("test_elicitation", {"message": "Who are you?"})
    assert result.content[0].text == (
        'User response: action=accept, content={"email":"alice@example.org","username":"alice"}'
    )
