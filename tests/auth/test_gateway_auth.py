"""The gateway behind a real authorization server (oidc-provider): an upstream's tools are served
only to a caller with a token, its scopes apply to them as to a plugin's (per-tool scopes, filter
mode), and the upstream never sees the caller's token."""

from __future__ import annotations

import pytest
import trio

import mcptrio
from mcptrio.auth import AuthConfig
from mcptrio.gateway import Upstream

from ..gateway.test_gateway import UPSTREAM
from ..transports.http.client import modern, new_client
from .test_resource_server import bearer, served
from .test_visibility import modern_lists

WIDE, NARROW = "mcp:read files:write", "mcp:read"
TRACE = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"


def gateway(issuer: str) -> mcptrio.App:
    config = AuthConfig(issuer=issuer, scopes=["mcp:read"], leeway=0, tool_scopes={"up_echo": ["files:write"]})
    app = mcptrio.App("gateway", auth=config, visibility="filter")
    app.proxy(Upstream("up", command=UPSTREAM))
    return app


async def tools_of(http, url: str, token: str) -> set[str]:
    return {tool["name"] for tool in (await modern_lists(http, url, token))["tools"]["tools"]}


@pytest.mark.parametrize("scopes", [WIDE, NARROW])
async def test_an_upstreams_tools_follow_the_callers_token(auth_server, scopes):
    async with served(gateway(auth_server.issuer)) as url, new_client() as http:
        body, headers = modern("tools/list", {}, 1)
        assert (await http.post(url, json=body, headers=headers)).status_code == 401  # no token
        token = auth_server.token("alpha", url, scopes)
        with trio.fail_after(30):
            while "up_pid" not in await tools_of(http, url, token):  # (the upstream comes up by itself)
                await trio.sleep(0.05)
        shown = await tools_of(http, url, token)
        assert ("up_echo" in shown) == (scopes == WIDE)  # its scope, the operator's tool_scopes
        body, headers = modern("tools/call", {"name": "up_seen", "arguments": {}, "_meta": {"traceparent": TRACE}}, 2)
        answer = await http.post(url, json=body, headers=bearer(token, headers))
        assert answer.status_code == 200
        upstream_saw = answer.json()["result"]["content"][0]["text"]
        assert "meta" in upstream_saw and token not in upstream_saw  # (the spec forbids passing the token on)
