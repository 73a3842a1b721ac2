"""Tool search over the real HTTP server, a 2025-11-25 session and 2026-07-28 requests: the list of
two tools, a search, and ``call_tool`` answering as the direct call (a hidden tool as an unknown one)."""

from __future__ import annotations

import json

import pytest
import trio

from mcptrio import App

from .client import call_tool, final_of, http_server, initialize, legacy_headers, modern, modern_tool, new_client, rpc


def app() -> App:
    served = App("searchable", tool_search=True, visible=lambda component, request: "secret" not in component.tags)

    @served.tool(description="Converts an amount between currencies")
    async def convert(amount: float, currency: str) -> str:
        return f"{amount:.2f} {currency}"

    @served.tool(description="Converts the launch codes", tags=["secret"])
    async def launch_codes() -> str:
        return "0000"

    return served


class Legacy:
    def __init__(self, client, url, session_id) -> None:
        self.client, self.url, self.session_id = client, url, session_id

    async def ask(self, method, params):
        body = rpc(method, params) if method != "tools/call" else call_tool(params["name"], params["arguments"])
        response = await self.client.post(self.url, json=body, headers=legacy_headers(self.session_id))
        assert response.status_code == 200, response.text
        return final_of(response, 1)


class Modern:
    def __init__(self, client, url) -> None:
        self.client, self.url = client, url

    async def ask(self, method, params):
        body, headers = modern(method, params) if method != "tools/call" else modern_tool(**params)
        response = await self.client.post(self.url, json=body, headers=headers)
        assert response.status_code == 200, response.text
        return final_of(response, 1)


@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_search_and_call_over_http(era):
    async with http_server(app()) as url, new_client() as client:
        with trio.fail_after(20):
            peer = Legacy(client, url, await initialize(client, url)) if era == "legacy" else Modern(client, url)
            listed = await peer.ask("tools/list", {})
            assert [tool["name"] for tool in listed["result"]["tools"]] == ["search_tools", "call_tool"]
            searched = await peer.ask("tools/call", {"name": "search_tools", "arguments": {"query": "converts"}})
            hits = searched["result"]["structuredContent"]["tools"]
            assert [hit["name"] for hit in hits] == ["convert"]  # (launch_codes is hidden from everyone)
            assert json.loads(searched["result"]["content"][0]["text"]) == searched["result"]["structuredContent"]
            by_currency = await peer.ask("tools/call", {"name": "search_tools", "arguments": {"query": "currency"}})
            assert by_currency["result"]["structuredContent"]["tools"][0]["name"] == "convert"
            arguments = {"amount": 3, "currency": "EUR"}
            called = await peer.ask(
                "tools/call", {"name": "call_tool", "arguments": {"name": "convert", "arguments": arguments}}
            )
            assert called["result"]["content"][0]["text"] == "3.00 EUR"
            hidden = await peer.ask("tools/call", {"name": "call_tool", "arguments": {"name": "launch_codes"}})
            unknown = await peer.ask("tools/call", {"name": "call_tool", "arguments": {"name": "no_such_tool"}})
            direct = await peer.ask("tools/call", {"name": "launch_codes", "arguments": {}})
            assert hidden["error"]["code"] == unknown["error"]["code"] == direct["error"]["code"] == -32602
            assert hidden["error"]["message"] == direct["error"]["message"] == "unknown tool: 'launch_codes'"
