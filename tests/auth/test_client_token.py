"""``mcptrio.client.connect`` to a protected server, with a token from the real authorization
server (oidc-provider): a token, a token provider asked before every request, and none."""

import pytest
import trio

import mcptrio.client
from mcptrio.client import McpError

from .test_resource_server import make_app, served


@pytest.mark.parametrize("era", [None, "legacy"])
async def test_a_token_or_a_provider_gets_in_and_no_token_does_not(auth_server, era):
    async with served(make_app(auth_server.issuer)) as url:
        token = await trio.to_thread.run_sync(auth_server.token, "alpha", url, "mcp:read")
        with trio.fail_after(20):
            async with mcptrio.client.connect(url, era=era, token=token) as client:
                assert "alpha" in (await client.call_tool("whoami")).content[0].text
            asked = []

            async def provider():
                asked.append(1)
                return token

            async with mcptrio.client.connect(url, era=era, token=provider) as client:
                assert not (await client.call_tool("whoami")).is_error
            assert len(asked) >= 2, "the provider is asked before every request"
            with pytest.raises(McpError):
                async with mcptrio.client.connect(url, era=era):
                    pass
