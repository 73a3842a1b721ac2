"""What a handler reaches through its Context beyond its own request: this server's resources
(``ctx.read_resource``, through the pipeline) and the HTTP request it came in (``ctx.http``)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mcptrio import App, Context, McpError, Request
from mcptrio.client import connect
from mcptrio.testing import open_client

from ..transports.http.client import http_server
from .stdio_script import served_script


def reading_app(seen: list[str]) -> App:
    app = App("reach")

    @app.use
    async def record(request: Request, call_next: Any) -> dict[str, Any]:
        seen.append(request.method + (f" {request.params['uri']}" if "uri" in request.params else ""))
        return await call_next(request)

    @app.resource("reach://motd", mime_type="text/plain")
    async def motd() -> str:
        return "hello"

    @app.resource("reach://city/{name}")
    def city(name: str) -> str:
        return f"city {name}"

    @app.tool()
    async def read(uri: str, ctx: Context) -> str:
        try:
            contents = await ctx.read_resource(uri)
        except McpError as error:
            return f"error {error.code}: {error.message}"
        return json.dumps(contents)

    @app.tool()
    def read_in_thread(uri: str, ctx: Context) -> str:
        return json.dumps(ctx.sync.read_resource(uri))

    @app.tool()
    async def where(ctx: Context) -> str:
        http = ctx.http
        if http is None:
            return "no http"
        return json.dumps(
            {"team": http.headers.get("x-team"), "client": http.client_address, "principal": http.principal}
        )

    return app


@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_a_handler_reads_this_servers_resources_through_the_middleware(era):
    seen: list[str] = []
    async with open_client(reading_app(seen), era=era) as client:
        result = await client.call_tool("read", {"uri": "reach://motd"})
        assert json.loads(result["content"][0]["text"]) == [
            {"uri": "reach://motd", "text": "hello", "mimeType": "text/plain"}
        ]
        assert seen[-2:] == ["tools/call", "resources/read reach://motd"]
        result = await client.call_tool("read_in_thread", {"uri": "reach://city/Oslo"})
        assert json.loads(result["content"][0]["text"]) == [{"uri": "reach://city/Oslo", "text": "city Oslo"}]
        result = await client.call_tool("read", {"uri": "reach://nowhere"})
        with pytest.raises(McpError) as direct:  # the error a client reading it gets (-32002; -32602 in 2026)
            await client.request("resources/read", {"uri": "reach://nowhere"})
        assert direct.value.code in (-32002, -32602)
        assert result["content"][0]["text"] == f"error {direct.value.code}: resource not found: reach://nowhere"


async def test_ctx_http_is_none_in_memory():
    async with open_client(reading_app([])) as client:
        assert (await client.call_tool("where"))["content"][0]["text"] == "no http"


@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_ctx_http_has_the_requests_headers_and_client_address_over_http(era):
    async with http_server(reading_app([])) as url:
        async with connect(url, era=era, headers={"X-Team": "blue"}) as client:
            result = await client.call_tool("where")
            assert json.loads(result.content[0].text) == {"team": "blue", "client": "127.0.0.1", "principal": None}
            read = await client.call_tool("read", {"uri": "reach://motd"})  # also over HTTP
            assert json.loads(read.content[0].text)[0]["text"] == "hello"


SERVED = """
import json
from mcptrio import App, Context, serve_stdio
import trio

app = App("reach")

@app.tool()
async def where(ctx: Context) -> str:
    return repr(ctx.http)

trio.run(serve_stdio, app)
"""


async def test_ctx_http_is_none_over_stdio(tmp_path):
    async with served_script(tmp_path, SERVED) as client:
        assert (await client.call_tool("where")).content[0].text == "None"
