"""Tool search in memory (``App(tool_search=True)``): the two tools listed, ranking by words of a
tool's description and argument names, ``call_tool`` answering as a direct call, hidden tools out
of reach, bad input, and a 5,000-tool catalogue."""

from __future__ import annotations

import pytest

from mcptrio import App, McpError, Registry, ToolError
from mcptrio.testing import open_client

ERAS = pytest.mark.parametrize("era", ["legacy", "modern"])


def catalogue(**options) -> App:
    app = App("catalogue", tool_search=True, **options)

    @app.tool(description="Tells the weather forecast for a place")
    async def weather(city: str) -> str:
        return f"sunny in {city}"

    @app.tool(title="Send mail", description="Sends a message to someone")
    async def send_message(recipient: str, subject: str) -> str:
        return f"sent {subject!r} to {recipient}"

    @app.tool(description="Always fails, to show how a failure looks", tags=["admin"])
    async def broken() -> str:
        raise ToolError("the printer is on fire")

    return app


async def found(client, query: str, **more) -> list[str]:
    result = await client.call_tool("search_tools", {"query": query, **more})
    assert not result.get("isError"), result
    assert result["content"][0]["type"] == "text"
    return [tool["name"] for tool in result["structuredContent"]["tools"]]


@ERAS
async def test_the_list_holds_just_the_two_tools_and_direct_calls_still_work(era):
    async with open_client(catalogue(), era=era) as client:
        listed = (await client.request("tools/list"))["tools"]
        assert [tool["name"] for tool in listed] == ["search_tools", "call_tool"]
        assert (await client.call_tool("weather", {"city": "Oslo"}))["content"][0]["text"] == "sunny in Oslo"


@ERAS
async def test_search_finds_by_a_word_of_the_description_and_by_an_argument_name(era):
    async with open_client(catalogue(), era=era) as client:
        assert (await found(client, "forecast"))[0] == "weather"
        assert (await found(client, "recipient"))[0] == "send_message"
        assert (await found(client, "mail"))[0] == "send_message"  # (its title)
        assert await found(client, "zeppelin") == []
        result = await client.call_tool("search_tools", {"query": "weather forecast", "limit": 1})
        (hit,) = result["structuredContent"]["tools"]
        assert hit["name"] == "weather" and hit["inputSchema"]["required"] == ["city"]
        assert hit["description"] == "Tells the weather forecast for a place"


@ERAS
async def test_call_tool_calls_by_name_and_passes_errors_through(era):
    async with open_client(catalogue(), era=era) as client:
        called = await client.call_tool(
            "call_tool", {"name": "send_message", "arguments": {"recipient": "Ada", "subject": "hi"}}
        )
        assert called["content"][0]["text"] == "sent 'hi' to Ada"
        failed = await client.call_tool("call_tool", {"name": "broken", "arguments": {}})
        direct = await client.call_tool("broken")
        assert failed["isError"] and failed["content"] == direct["content"]
        assert failed["content"][0]["text"] == "the printer is on fire"
        bad_arguments = await client.call_tool("call_tool", {"name": "weather", "arguments": {"town": "Oslo"}})
        assert (
            bad_arguments["isError"]
            and bad_arguments["content"] == (await client.call_tool("weather", {"town": "Oslo"}))["content"]
        )
        with pytest.raises(McpError) as through:
            await client.call_tool("call_tool", {"name": "never_was", "arguments": {}})
        with pytest.raises(McpError) as directly:
            await client.call_tool("never_was")
        assert (through.value.code, through.value.message) == (directly.value.code, directly.value.message)
        malformed = await client.call_tool("call_tool", {"name": 7})
        assert malformed["isError"] and "'name'" in malformed["content"][0]["text"]


@ERAS
async def test_a_hidden_tool_is_neither_found_nor_called(era):
    asked = []

    def no_admin(component, request) -> bool:
        asked.append((request.method, request.name))
        return "admin" not in component.tags

    async with open_client(catalogue(visibility="filter", visible=no_admin), era=era) as client:
        assert await found(client, "failure fails") == []
        assert await found(client, "broken") == []
        with pytest.raises(McpError) as hidden:
            await client.call_tool("call_tool", {"name": "broken", "arguments": {}})
        with pytest.raises(McpError) as unknown:
            await client.call_tool("call_tool", {"name": "never_was", "arguments": {}})
        assert hidden.value.code == unknown.value.code and "unknown tool: 'broken'" in hidden.value.message
    assert ("tools/call", "broken") in asked  # (the rule sees the call call_tool names)


async def test_a_disabled_tool_drops_out_of_the_hits_and_comes_back():
    app = catalogue()
    async with open_client(app) as client:
        assert await found(client, "forecast") == ["weather"]
        await app.disable("weather")
        assert await found(client, "forecast") == []
        await app.enable("weather")
        assert await found(client, "forecast") == ["weather"]


async def test_the_index_follows_tools_added_and_plugins_included():
    app = catalogue()
    async with open_client(app) as client:
        assert await found(client, "translate") == []
        plugin = Registry("words")

        @plugin.tool(description="Translate a text")
        async def translate(text: str) -> str:
            return text

        app.include(plugin)
        assert await found(client, "translate") == ["translate"]

        @app.tool(description="Counts the words of a text")
        async def count(text: str) -> int:
            return len(text.split())

        assert set(await found(client, "text")) == {"translate", "count"}


@pytest.mark.parametrize(
    ("arguments", "named"),
    [
        ({"query": ""}, '"query"'),
        ({"query": "  ,. "}, '"query"'),
        ({"query": "weather", "limit": 0}, '"limit"'),
        ({"query": "weather", "limit": 51}, '"limit"'),
    ],
)
async def test_bad_search_input_is_an_error_naming_the_argument(arguments, named):
    async with open_client(catalogue()) as client:
        result = await client.call_tool("search_tools", arguments)
        assert result["isError"] and named in result["content"][0]["text"]


async def test_a_tool_named_as_one_of_the_two_is_refused_at_start():
    app = catalogue()

    @app.tool()
    async def search_tools(query: str) -> str:
        return query

    with pytest.raises(ValueError, match="tool 'search_tools' clashes with tool search's own"):
        async with app.running():
            pass  # pragma: no cover


async def test_a_catalogue_of_5000_tools_is_searched():
    app = App("big", tool_search=True)

    async def constant() -> str:
        return "done"

    for n in range(5000):
        app.tool(f"tool_{n}", description=f"Handles records of kind k{n % 100} in region r{n % 7}")(constant)
    app.tool("rotate_keys", description="Rotates the signing keys of the vault")(constant)
    async with open_client(app, era="modern") as client:
        assert await found(client, "vault signing") == ["rotate_keys"]
        hits = await found(client, "k42 r0", limit=50)
        assert len(hits) == 50 and hits[0] in {f"tool_{n}" for n in range(42, 5000, 100) if n % 7 == 0}
        called = await client.call_tool("call_tool", {"name": "tool_4999", "arguments": {}})
        assert called["content"][0]["text"] == "done"
