"""Reshaped tools in memory, in both eras: the list shows the reshaped name, text and schema, calls
are checked against it, the handler gets its original arguments with the hidden ones filled in,
the old name is unknown, and every mistake is refused at load in one line naming the tool."""

from __future__ import annotations

from typing import Literal

import pytest

from mcptrio import App, Fixed, FromEnv, FromPrincipal, McpError, Registry
from mcptrio.testing import open_client

ERAS = pytest.mark.parametrize("era", ["legacy", "modern"])


def weather_app() -> App:
    app = App("weather")

    @app.tool(description="The forecast")
    async def forecast(city: str, tenant: str, units: Literal["c", "f", "k"] = "c", limit: int = 5) -> str:
        return f"{tenant}: {city} in {units}, {limit} days"

    @app.tool()
    async def other() -> str:
        return "other"

    return app


def reshaped(app: App) -> App:
    app.reshape_tool(
        "forecast",
        rename="acme_forecast",
        title="ACME forecast",
        description="The forecast, for ACME",
        hide={"tenant": Fixed("acme")},
        narrow={"units": {"enum": ["c", "f"]}, "limit": {"maximum": 10}},
    )
    return app


async def listed(client) -> dict[str, dict]:
    return {tool["name"]: tool for tool in (await client.request("tools/list"))["tools"]}


@ERAS
async def test_the_list_shows_the_reshaped_tool_in_its_place(era):
    async with open_client(reshaped(weather_app()), era=era) as client:
        tools = await listed(client)
        assert list(tools) == ["acme_forecast", "other"]
        tool = tools["acme_forecast"]
        assert tool["title"] == "ACME forecast" and tool["description"] == "The forecast, for ACME"
        schema = tool["inputSchema"]
        assert set(schema["properties"]) == {"city", "units", "limit"}
        assert schema["required"] == ["city"]
        assert schema["properties"]["units"]["enum"] == ["c", "f"]
        assert schema["properties"]["limit"]["maximum"] == 10


@ERAS
async def test_the_handler_gets_its_original_arguments(era):
    async with open_client(reshaped(weather_app()), era=era) as client:
        result = await client.call_tool("acme_forecast", {"city": "Oslo", "units": "f"})
        assert result["content"][0]["text"] == "acme: Oslo in f, 5 days"
        assert (await client.call_tool("acme_forecast", {"city": "Oslo"}))["content"][0]["text"] == (
            "acme: Oslo in c, 5 days"
        )


@ERAS
async def test_calls_are_checked_against_the_reshaped_schema(era):
    async with open_client(reshaped(weather_app()), era=era) as client:
        narrowed = await client.call_tool("acme_forecast", {"city": "Oslo", "units": "k"})
        assert narrowed["isError"] and "'units'" in narrowed["content"][0]["text"]
        too_many = await client.call_tool("acme_forecast", {"city": "Oslo", "limit": 11})
        assert too_many["isError"] and "'limit'" in too_many["content"][0]["text"]
        hidden = await client.call_tool("acme_forecast", {"city": "Oslo", "tenant": "evil"})
        assert hidden["isError"] and hidden["content"][0]["text"] == "invalid arguments: unexpected argument 'tenant'"
        with pytest.raises(McpError) as old_name:
            await client.call_tool("forecast", {"city": "Oslo", "tenant": "acme"})
        assert old_name.value.message == "unknown tool: 'forecast'"


@ERAS
async def test_a_value_from_the_environment_read_at_load(era, monkeypatch):
    monkeypatch.setenv("WEATHER_TENANT", "globex")
    app = weather_app()
    app.reshape_tool("forecast", hide={"tenant": FromEnv("WEATHER_TENANT")})
    monkeypatch.setenv("WEATHER_TENANT", "changed later")
    async with open_client(app, era=era) as client:
        assert (await client.call_tool("forecast", {"city": "Oslo"}))["content"][0]["text"] == (
            "globex: Oslo in c, 5 days"
        )


@ERAS
async def test_a_claim_of_a_caller_without_a_token_is_an_error_naming_it(era):
    app = weather_app()
    app.reshape_tool("forecast", hide={"tenant": FromPrincipal("tenant_id")})
    async with open_client(app, era=era) as client:
        assert "tenant" not in (await listed(client))["forecast"]["inputSchema"]["properties"]
        result = await client.call_tool("forecast", {"city": "Oslo"})
        assert result["isError"]
        assert result["content"][0]["text"] == "tool 'forecast' needs the claim 'tenant_id' of the caller's token"


@ERAS
async def test_a_plugins_tool_reshaped_by_the_app_that_includes_it(era):
    plugin = Registry("units")

    @plugin.tool()
    def convert(value: float, to: Literal["c", "f"]) -> str:
        return f"{value} {to}"

    app = App("host")
    app.include(plugin, prefix="u")
    app.reshape_tool("u_convert", rename="to_fahrenheit", hide={"to": Fixed("f")})
    async with open_client(app, era=era) as client:
        assert list((await listed(client))["to_fahrenheit"]["inputSchema"]["properties"]) == ["value"]
        assert (await client.call_tool("to_fahrenheit", {"value": 3}))["content"][0]["text"] == "3.0 f"


@ERAS
async def test_tool_search_finds_and_calls_the_reshaped_tool(era):
    pytest.importorskip("bm25s")
    app = App("weather", tool_search=True)

    @app.tool(description="The forecast")
    async def forecast(city: str, tenant: str) -> str:
        return f"{tenant}: {city}"

    app.reshape_tool("forecast", rename="acme_forecast", hide={"tenant": Fixed("acme")})
    async with open_client(app, era=era) as client:
        found = await client.call_tool("search_tools", {"query": "forecast"})
        (hit,) = found["structuredContent"]["tools"]
        assert hit["name"] == "acme_forecast" and list(hit["inputSchema"]["properties"]) == ["city"]
        called = await client.call_tool("call_tool", {"name": "acme_forecast", "arguments": {"city": "Oslo"}})
        assert called["content"][0]["text"] == "acme: Oslo"


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"hide": {"country": Fixed("no")}}, "hide: no argument 'country' (it has 'city', 'tenant', 'units', 'limit')"),
        ({"narrow": {"nope": {"maximum": 1}}}, "narrow: no argument 'nope'"),
        ({"hide": {"limit": Fixed("ten")}}, "hide 'limit': the value 'ten' does not fit the argument's schema"),
        ({"hide": {"tenant": FromEnv("MCPTRIO_TEST_UNSET")}}, "the environment variable MCPTRIO_TEST_UNSET is not set"),
        ({"hide": {"tenant": "acme"}}, "give Fixed(value), FromEnv(variable) or FromPrincipal(claim), not 'acme'"),
        ({"narrow": {"units": {"enum": ["c", "r"]}}}, "narrow 'units': 'r' is not one of the values"),
        ({"narrow": {"units": {"title": "Units"}}}, "narrow 'units': 'title' cannot narrow"),
        ({"narrow": {"limit": {"maximum": 3}}}, "narrow 'limit': the argument's default 5 does not fit the narrowing"),
        ({"narrow": {"tenant": {"maxLength": "x"}}}, "narrow 'tenant': maxLength must be a number"),
        ({"rename": "other"}, "rename: a tool 'other' exists already"),
        ({"narrow": {"tenant": {"pattern": 5}}}, "invalid input schema: 5 is not of type 'string'"),
        ({"hide": {"tenant": FromEnv("")}}, "hide 'tenant': the variable must be a non-empty string"),
        (
            {"hide": {"tenant": Fixed("a")}, "narrow": {"tenant": {"maxLength": 3}}},
            "narrow 'tenant': the argument is hidden",
        ),
    ],
)
def test_mistakes_are_refused_in_one_line_naming_the_tool(changes, message, monkeypatch):
    monkeypatch.delenv("MCPTRIO_TEST_UNSET", raising=False)
    with pytest.raises(ValueError) as refused:
        weather_app().reshape_tool("forecast", **changes)
    text = str(refused.value)
    assert text.startswith("reshaping tool 'forecast': ") and message in text and "\n" not in text


def test_an_unknown_tool_and_a_second_reshape_are_refused():
    app = weather_app()
    with pytest.raises(ValueError, match=r"^reshaping tool 'nope': there is no such tool$"):
        app.reshape_tool("nope", title="x")
    app.reshape_tool("forecast", title="once")
    with pytest.raises(ValueError, match="it is reshaped already"):
        app.reshape_tool("forecast", title="twice")


def test_a_narrowing_that_widens_a_bound_is_refused():
    app = App("bounded")
    schema = {"type": "object", "properties": {"size": {"type": "integer", "maximum": 20}}}

    @app.tool(input_schema=schema)
    async def page(size: int = 10) -> str:
        return str(size)

    with pytest.raises(ValueError, match=r"^reshaping tool 'page': narrow 'size': maximum 30 widens the argument's"):
        app.reshape_tool("page", narrow={"size": {"maximum": 30}})
    app.reshape_tool("page", narrow={"size": {"maximum": 15}})
    assert app.tools["page"].definition()["inputSchema"]["properties"]["size"] == {"type": "integer", "maximum": 15}


async def test_a_reload_keeps_the_tool_reshaped_or_refuses_the_new_handlers():
    app = reshaped(weather_app())
    app.take_handlers(weather_app())  # what --reload does with the plugins imported afresh
    async with open_client(app, era="modern") as client:
        assert list(await listed(client)) == ["acme_forecast", "other"]
        text = (await client.call_tool("acme_forecast", {"city": "Oslo"}))["content"][0]["text"]
        assert text == "acme: Oslo in c, 5 days"
    changed = App("weather")

    @changed.tool()
    async def forecast(city: str) -> str:  # (the tenant argument is gone)
        return city

    with pytest.raises(ValueError, match=r"^reshaping tool 'forecast': hide: no argument 'tenant'"):
        app.take_handlers(changed)
    assert list(app.tools) == ["acme_forecast", "other"]  # the previous version keeps serving
