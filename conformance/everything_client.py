"""mcptrio's everything-client for the official conformance suite's client mode.

    python conformance/everything_client.py URL

``conformance client --command "python conformance/everything_client.py"`` runs it once per
scenario with the scenario server's URL, and sets ``MCP_CONFORMANCE_SCENARIO`` (which scenario),
``MCP_CONFORMANCE_PROTOCOL_VERSION`` (which revision: 2026-07-28 is the modern era, the rest the
initialize handshake) and, for some, ``MCP_CONFORMANCE_CONTEXT`` (JSON: credentials the scenario
hands over).  Every scenario goes through the public API of ``mcptrio.client`` and
``mcptrio.client.oauth``; what is particular to a scenario (which tool to call, which
credentials) is the table at the bottom.  ``conformance/run_client.py`` runs the suite with it.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
import trio

from mcptrio.client import Client, McpError, connect
from mcptrio.client.oauth import ClientCredentials, EnterpriseLogin, MemoryTokenStore, OAuth

# The Client ID Metadata Document URL the suite's authorization servers expect (auth/basic-cimd).
CIMD_URL = "https://conformance-test.local/client-metadata.json"
VERSION = os.environ.get("MCP_CONFORMANCE_PROTOCOL_VERSION", "")
# (revisions through 2025-11-25 have the initialize handshake; 2026-07-28 is stateless; none: ask the server)
ERA = None if not VERSION else "legacy" if VERSION <= "2025-11-25" else "modern"
DEADLINE = 100  # seconds: a scenario's client ends by then, whatever happens (run_client.py waits 120)
log = logging.getLogger("everything-client")

Scenario = Callable[[str], Awaitable[None]]


def context() -> dict[str, Any]:
    found = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    return found if isinstance(found, dict) else {}


async def browse(url: str) -> None:
    """The user's browser, for a test authorization server that approves at once: follow its
    redirects, the last of which reaches the client's loopback listener."""
    async with httpx.AsyncClient(follow_redirects=True, trust_env=False, timeout=10) as browser:
        await browser.get(url)


def example_arguments(schema: Any) -> dict[str, Any]:
    """Arguments a tool's input schema requires, each a plain value of its type."""
    samples = {"string": "x", "integer": 1, "number": 1, "boolean": True, "array": [], "object": {}}
    properties = schema.get("properties") or {} if isinstance(schema, dict) else {}
    return {
        name: samples.get((properties.get(name) or {}).get("type"), "x")
        for name in (schema.get("required") or [] if isinstance(schema, dict) else [])
    }


async def accept_with_defaults(params: dict[str, Any]) -> dict[str, Any]:
    """An elicitation answered "accept" with each field's default (SEP-1034), ``confirmed`` else."""
    schema = params.get("requestedSchema") or {}
    content = {
        name: prop["default"]
        for name, prop in (schema.get("properties") or {}).items()
        if isinstance(prop, dict) and "default" in prop
    }
    return {"action": "accept", "content": content or {"confirmed": True}}


# -- scenarios -------------------------------------------------------------------------------------


async def list_tools(url: str) -> None:
    async with connect(url, era=ERA) as client:
        await client.list_tools()


async def call_first_tool(client: Client, preferred: str, arguments: dict[str, Any]) -> None:
    tools = await client.list_tools()
    names = [tool.name for tool in tools]
    name = preferred if preferred in names else (names[0] if names else None)
    if name is not None:
        await client.call_tool(name, arguments)


async def tools_call(url: str) -> None:
    async with connect(url, era=ERA) as client:
        await call_first_tool(client, "add_numbers", {"a": 5, "b": 3})


async def elicitation_defaults(url: str) -> None:
    async with connect(url, era=ERA, elicitation=accept_with_defaults) as client:
        await call_first_tool(client, "test_client_elicitation_defaults", {})


async def sse_retry(url: str) -> None:
    async with connect(url, era=ERA) as client:
        await call_first_tool(client, "test_reconnection", {})


async def every_method(url: str) -> None:
    """Each tool called, each resource read, each prompt got (the request header scenarios)."""
    async with connect(url, era=ERA) as client:
        for tool in await client.list_tools():
            await client.call_tool(tool.name, example_arguments(tool.input_schema))
        for resource in await client.list_resources():
            await client.read_resource(resource.uri)
        for prompt in await client.list_prompts():
            await client.get_prompt(prompt.name, {})


async def custom_headers(url: str) -> None:
    async with connect(url, era=ERA) as client:
        await client.list_tools()  # (the x-mcp-header annotations, for the Mcp-Param-* headers)
        for call in context().get("toolCalls") or []:
            await client.call_tool(call["name"], call.get("arguments") or {})


async def schema_preservation(url: str) -> None:
    async with connect(url, era=ERA) as client:
        tools = {tool.name: tool for tool in await client.list_tools()}
        await client.call_tool("json_schema_echo", {"schema": tools["json_schema_2020_12_tool"].input_schema})


async def request_state(url: str) -> None:
    async with connect(url, era=ERA, elicitation=accept_with_defaults) as client:
        names = [tool.name for tool in await client.list_tools()]
        for name in ("test_mrtr_echo_state", "test_mrtr_unrelated", "test_mrtr_no_state", "test_mrtr_no_result_type"):
            if name in names:
                await client.call_tool(name, {})


async def authorized(url: str, auth: httpx.Auth) -> None:
    async with connect(url, era=ERA, auth=auth) as client:
        await call_first_tool(client, "test-tool", {})


async def login(url: str) -> None:
    given = context()
    await authorized(
        url,
        OAuth(
            store=MemoryTokenStore(),
            client_id=given.get("client_id"),
            client_secret=given.get("client_secret"),
            client_issuer=given.get("issuer"),
            client_metadata_url=CIMD_URL,
            user_agent=browse,
            timeout=10,
            dpop=False,
        ),
    )


async def login_dpop(url: str) -> None:
    await authorized(
        url, OAuth(store=MemoryTokenStore(), client_metadata_url=CIMD_URL, user_agent=browse, timeout=10, dpop=True)
    )


async def client_credentials(url: str) -> None:
    given = context()
    await authorized(
        url,
        ClientCredentials(
            given["client_id"],
            client_secret=given.get("client_secret"),
            private_key=given.get("private_key_pem"),
            algorithm=given.get("signing_algorithm") or "ES256",
        ),
    )


async def workload_identity(url: str) -> None:
    given = context()
    async with connect(
        url, era=ERA, auth=ClientCredentials(given["client_id"], assertion=given["valid_jwt"])
    ) as client:
        await client.list_tools()


async def enterprise(url: str) -> None:
    given = context()
    await authorized(
        url,
        EnterpriseLogin(
            given["client_id"],
            client_secret=given.get("client_secret"),
            id_token=given["idp_id_token"],
            idp_token_endpoint=given["idp_token_endpoint"],
            idp_client_id=given["idp_client_id"],
        ),
    )


SCENARIOS: dict[str, Scenario] = {
    "initialize": list_tools,
    "tools_call": tools_call,
    "elicitation-sep1034-client-defaults": elicitation_defaults,
    "sse-retry": sse_retry,
    "request-metadata": list_tools,
    "http-standard-headers": every_method,
    "http-custom-headers": custom_headers,
    "http-invalid-tool-headers": every_method,
    "json-schema-ref-no-deref": list_tools,
    "json-schema-2020-12-preservation": schema_preservation,
    "sep-2322-client-request-state": request_state,
    "auth/client-credentials-basic": client_credentials,
    "auth/client-credentials-jwt": client_credentials,
    "auth/wif-jwt-bearer": workload_identity,
    "auth/enterprise-managed-authorization": enterprise,
    "auth/dpop": login_dpop,
    "auth/dpop-nonce": login_dpop,
}


def main() -> int:
    logging.basicConfig(
        level=logging.DEBUG if os.environ.get("MCP_CONFORMANCE_DEBUG") else logging.INFO,
        stream=sys.stderr,
        format="%(asctime)s %(name)s %(levelname)s %(message)s",
    )
    if len(sys.argv) != 2 or "MCP_CONFORMANCE_SCENARIO" not in os.environ:
        print("usage: MCP_CONFORMANCE_SCENARIO=NAME python conformance/everything_client.py URL", file=sys.stderr)
        return 2
    scenario = os.environ["MCP_CONFORMANCE_SCENARIO"]
    handler = SCENARIOS.get(scenario) or (login if scenario.startswith("auth/") else list_tools)

    async def bounded(url: str) -> None:
        with trio.fail_after(DEADLINE):
            await handler(url)

    try:
        trio.run(bounded, sys.argv[1])
    except (McpError, OSError, ValueError, httpx.HTTPError, trio.TooSlowError) as exc:
        print(f"{scenario}: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
