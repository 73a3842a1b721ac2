"""A hidden argument filled from a claim of the caller's token (``FromPrincipal``), against a real
authorization server (oidc-provider) over HTTP: each caller's handler gets its own token's claim,
and a claim the token lacks is an ``isError`` result naming it."""

from __future__ import annotations

import mcptrio
from mcptrio import FromPrincipal
from mcptrio.auth import AuthConfig

from ..transports.http.client import final_of, modern, new_client
from .test_resource_server import bearer, served


def tenant_app(issuer: str) -> mcptrio.App:
    app = mcptrio.App("tenants", auth=AuthConfig(issuer=issuer, scopes=["mcp:read"], leeway=0))

    @app.tool()
    async def whose(tenant: str, what: str) -> str:
        return f"{what} of {tenant}"

    @app.tool()
    async def billing(tenant: str) -> str:
        return f"bill of {tenant}"

    app.reshape_tool("whose", hide={"tenant": FromPrincipal("client_id")})
    app.reshape_tool("billing", hide={"tenant": FromPrincipal("tenant_id")})
    return app


async def test_each_caller_s_claim_fills_the_hidden_argument(auth_server):
    async with served(tenant_app(auth_server.issuer)) as url, new_client() as http:
        answers = {}
        for client in ("alpha", "beta"):
            token = auth_server.token(client, url)
            body, headers = modern("tools/list", {}, 1)
            listed = final_of(await http.post(url, json=body, headers=bearer(token, headers)))["result"]["tools"]
            assert all("tenant" not in tool["inputSchema"]["properties"] for tool in listed)
            body, headers = modern("tools/call", {"name": "whose", "arguments": {"what": "files"}}, 2)
            response = await http.post(url, json=body, headers=bearer(token, headers))
            answers[client] = final_of(response)["result"]["content"][0]["text"]
            body, headers = modern("tools/call", {"name": "billing", "arguments": {}}, 3)
            lacking = final_of(await http.post(url, json=body, headers=bearer(token, headers)))["result"]
            assert lacking["isError"]
            assert lacking["content"][0]["text"] == "tool 'billing' needs the claim 'tenant_id' of the caller's token"
    assert answers == {"alpha": "files of alpha", "beta": "files of beta"}
