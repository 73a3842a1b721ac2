"""Who sees what, against a real authorization server (oidc-provider): two tokens with different
scopes see different lists over HTTP (a 2025-11-25 session and 2026-07-28 requests) and WebSocket,
and in filter mode a hidden component is answered byte for byte as one that never existed."""

from __future__ import annotations

import contextlib
import functools
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
import trio
from trio_websocket import open_websocket_url

import mcptrio
from mcptrio.auth import AuthConfig
from mcptrio.transports.websocket import serve_websocket

from ..transports.http.client import CLIENT_INFO, LEGACY, call_tool, final_of, legacy_headers, modern, new_client, rpc
from .test_resource_server import bearer, legacy_session, served

WIDE, NARROW = "mcp:read files:read files:write", "mcp:read"
LISTS = [
    ("tools/list", "tools", "name"),
    ("prompts/list", "prompts", "name"),
    ("resources/list", "resources", "uri"),
    ("resources/templates/list", "resourceTemplates", "uriTemplate"),
]
EVERYTHING = {
    "tools": {"search", "write_file"},
    "prompts": {"summary", "rewrite"},
    "resources": {"docs://readme", "docs://secrets"},
    "resourceTemplates": {"docs://page/{n}", "files://{path}"},
}
PUBLIC = {
    "tools": {"search"},
    "prompts": {"summary"},
    "resources": {"docs://readme"},
    "resourceTemplates": {"docs://page/{n}"},
}


def guarded_app(
    issuer: str, visibility: str = "filter", *, with_write_file: bool = True, tool_search: bool = False, **auth: Any
) -> mcptrio.App:
    config = AuthConfig(issuer=issuer, scopes=["mcp:read"], leeway=0, **auth)
    app = mcptrio.App("guarded", auth=config, visibility=visibility, tool_search=tool_search)

    @app.tool()
    async def search(query: str) -> str:
        return f"found {query}"

    if with_write_file:

        @app.tool(scopes=["files:write"])
        async def write_file(path: str) -> str:
            return f"wrote {path}"

    @app.prompt()
    async def summary() -> str:
        return "summarise"

    @app.prompt(scopes=["files:write"])
    async def rewrite() -> str:
        return "rewrite"

    @app.resource("docs://readme")
    async def readme() -> str:
        return "read me"

    @app.resource("docs://secrets", scopes=["files:read"])
    async def secrets() -> str:
        return "secret"

    @app.resource("docs://page/{n}")
    async def page(n: str) -> str:
        return f"page {n}"

    @app.resource("files://{path}", scopes=["files:write"])
    async def file(path: str) -> str:
        return f"file {path}"

    return app


def seen(results: dict[str, dict[str, Any]]) -> dict[str, set[str]]:
    return {key: {item[field] for item in results[key][key]} for _, key, field in LISTS}


async def legacy_lists(http: Any, url: str, token: str) -> dict[str, dict[str, Any]]:
    session = await legacy_session(http, url, token)
    out = {}
    for n, (method, key, _) in enumerate(LISTS):
        response = await http.post(url, json=rpc(method, {}, n), headers=bearer(token, legacy_headers(session)))
        assert response.status_code == 200, response.text
        out[key] = final_of(response)["result"]
    return out


async def modern_lists(http: Any, url: str, token: str) -> dict[str, dict[str, Any]]:
    out = {}
    for n, (method, key, _) in enumerate(LISTS):
        body, headers = modern(method, {}, n)
        response = await http.post(url, json=body, headers=bearer(token, headers))
        assert response.status_code == 200, response.text
        out[key] = final_of(response)["result"]
    return out


@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_two_tokens_see_different_lists_over_http_in_filter_mode(auth_server, era):
    lists = legacy_lists if era == "legacy" else modern_lists
    async with served(guarded_app(auth_server.issuer)) as url, new_client() as http:
        wide = await lists(http, url, auth_server.token("alpha", url, WIDE))
        narrow = await lists(http, url, auth_server.token("beta", url, NARROW))
    assert seen(wide) == EVERYTHING
    assert seen(narrow) == PUBLIC
    if era == "modern":  # each caller's list is its own: no cache may share it
        assert {result["cacheScope"] for result in [*wide.values(), *narrow.values()]} == {"private"}


async def test_the_operator_s_scopes_and_hierarchy_count_too(auth_server):
    app = guarded_app(
        auth_server.issuer,
        tool_scopes={"search": ["files:read"]},
        implied_scopes={"files:write": ["files:read"]},
    )
    async with served(app) as url, new_client() as http:
        narrow = await modern_lists(http, url, auth_server.token("beta", url, NARROW))
        implied = await modern_lists(http, url, auth_server.token("alpha", url, "mcp:read files:write"))
    assert seen(narrow)["tools"] == set()  # search now needs files:read
    assert seen(implied)["tools"] == {"search", "write_file"}  # files:write implies files:read
    assert seen(implied)["resources"] == {"docs://readme", "docs://secrets"}


@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_in_show_mode_every_token_sees_everything_and_a_call_is_the_step_up(auth_server, era):
    lists = legacy_lists if era == "legacy" else modern_lists
    async with served(guarded_app(auth_server.issuer, "show")) as url, new_client() as http:
        token = auth_server.token("beta", url, NARROW)
        narrow = await lists(http, url, token)
        body, headers = modern("tools/call", {"name": "write_file", "arguments": {"path": "a"}}, 9)
        refused = await http.post(url, json=body, headers=bearer(token, headers))
    assert seen(narrow) == EVERYTHING
    if era == "modern":
        assert {result["cacheScope"] for result in narrow.values()} == {"public"}  # the same for every caller
    assert refused.status_code == 403 and refused.json()["scope"] == "files:write mcp:read"


HIDDEN_CALLS = [
    ("tools/call", {"name": "write_file", "arguments": {"path": "a"}}),
    ("prompts/get", {"name": "rewrite"}),
    ("resources/read", {"uri": "docs://secrets"}),
    ("resources/read", {"uri": "files://etc/passwd"}),
]


def without_hidden(issuer: str) -> mcptrio.App:
    """The same server, where nothing the narrow token can't use ever existed."""
    app = guarded_app(issuer, with_write_file=False)
    del app.prompts["rewrite"], app.resources["docs://secrets"], app.templates["files://{path}"]
    return app


@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_a_hidden_component_is_answered_byte_for_byte_as_one_that_never_existed(auth_server, era):
    answers: list[list[tuple[int, bytes]]] = []
    for app in (guarded_app(auth_server.issuer), without_hidden(auth_server.issuer)):
        async with served(app) as url, new_client() as http:
            token = auth_server.token("beta", url, NARROW)
            session = await legacy_session(http, url, token) if era == "legacy" else None
            got = []
            for method, params in HIDDEN_CALLS:
                if session is not None:
                    body, headers = rpc(method, params, 5), legacy_headers(session)
                else:
                    body, headers = modern(method, params, 5)
                response = await http.post(url, json=body, headers=bearer(token, headers))
                got.append((response.status_code, response.content))
            answers.append(got)
    hidden, never_existed = answers
    assert hidden == never_existed
    assert all(status == 200 and b'"error"' in content for status, content in hidden)


@contextlib.asynccontextmanager
async def websocket(url: str, token: str) -> AsyncIterator[Any]:
    async with open_websocket_url(
        url, subprotocols=["mcp"], extra_headers=[("authorization", f"Bearer {token}")]
    ) as ws:
        params = {"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": CLIENT_INFO}
        await ws.send_message(json.dumps(rpc("initialize", params, 0)))
        await ws.get_message()
        await ws.send_message(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        yield ws


async def ask(ws: Any, message: dict[str, Any]) -> bytes:
    await ws.send_message(json.dumps(message))
    answer = await ws.get_message()
    return answer.encode() if isinstance(answer, str) else answer


async def test_two_tokens_see_different_lists_over_websocket(auth_server):
    stop = trio.Event()
    async with trio.open_nursery() as nursery:
        app = guarded_app(auth_server.issuer)
        url = await nursery.start(functools.partial(serve_websocket, app, port=0, shutdown_trigger=stop.wait))
        resource = "http" + url[len("ws") :]
        with trio.fail_after(20):
            results = {}
            for client, scope in (("alpha", WIDE), ("beta", NARROW)):
                async with websocket(url, auth_server.token(client, resource, scope)) as ws:
                    found = {}
                    for n, (method, key, _) in enumerate(LISTS):
                        found[key] = json.loads(await ask(ws, rpc(method, {}, n)))["result"]
                    hidden = await ask(ws, call_tool("write_file", {"path": "a"}, 7))
                    unknown = await ask(ws, call_tool("never_was", {"path": "a"}, 7))
                    results[client] = (seen(found), hidden, unknown)
        stop.set()
    assert results["alpha"][0] == EVERYTHING and results["beta"][0] == PUBLIC
    assert json.loads(results["alpha"][1])["result"]["content"][0]["text"] == "wrote a"
    hidden_error, unknown_error = json.loads(results["beta"][1]), json.loads(results["beta"][2])
    assert hidden_error["error"]["code"] == unknown_error["error"]["code"] == -32602
    assert hidden_error["error"]["message"] == "unknown tool: 'write_file'"
