"""Tool search against a real authorization server (oidc-provider): ``search_tools`` ranks only what
the caller's token may use (filter mode), and ``call_tool`` needs the scopes of the tool it calls,
answered as a direct call is (an unknown name in filter mode, the 403 step-up in show mode)."""

from __future__ import annotations

from typing import Any

from ..transports.http.client import final_of, modern, new_client
from .test_resource_server import bearer, served
from .test_visibility import NARROW, WIDE, guarded_app


async def ask(http: Any, url: str, token: str, name: str, arguments: dict[str, Any]) -> Any:
    body, headers = modern("tools/call", {"name": name, "arguments": arguments}, 1)
    return await http.post(url, json=body, headers=bearer(token, headers))


async def hits(http: Any, url: str, token: str, query: str) -> list[str]:
    response = await ask(http, url, token, "search_tools", {"query": query})
    assert response.status_code == 200, response.text
    return [tool["name"] for tool in final_of(response)["result"]["structuredContent"]["tools"]]


async def test_filter_mode_search_and_call_tool_follow_the_token(auth_server):
    async with served(guarded_app(auth_server.issuer, tool_search=True)) as url, new_client() as http:
        wide, narrow = auth_server.token("alpha", url, WIDE), auth_server.token("beta", url, NARROW)
        assert await hits(http, url, wide, "write file path") == ["write_file"]
        assert await hits(http, url, narrow, "write file path") == []
        through = await ask(http, url, narrow, "call_tool", {"name": "write_file", "arguments": {"path": "a"}})
        direct = await ask(http, url, narrow, "write_file", {"path": "a"})
        assert through.status_code == direct.status_code == 200
        assert final_of(through)["error"] == final_of(direct)["error"]
        assert final_of(through)["error"]["message"] == "unknown tool: 'write_file'"
        allowed = await ask(http, url, wide, "call_tool", {"name": "write_file", "arguments": {"path": "a"}})
        assert final_of(allowed)["result"]["content"][0]["text"] == "wrote a"


async def test_show_mode_call_tool_gets_the_step_up_a_direct_call_gets(auth_server):
    async with served(guarded_app(auth_server.issuer, "show", tool_search=True)) as url, new_client() as http:
        narrow = auth_server.token("beta", url, NARROW)
        assert await hits(http, url, narrow, "write file path") == ["write_file"]  # (shown, as in tools/list)
        through = await ask(http, url, narrow, "call_tool", {"name": "write_file", "arguments": {"path": "a"}})
        direct = await ask(http, url, narrow, "write_file", {"path": "a"})
    assert through.status_code == direct.status_code == 403
    assert through.json() == direct.json() and through.json()["scope"] == "files:write mcp:read"
