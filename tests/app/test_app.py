"""The authoring API end to end: what plugins register is what clients see, in both eras."""

import base64
from collections.abc import Iterator
from typing import Annotated, TypedDict

import attrs
import pytest
import trio

import mcptrio
from mcptrio import App, Context, McpError, Registry
from mcptrio.testing import open_client


@attrs.frozen
class Forecast:
    city: str
    celsius: float


class Totals(TypedDict):
    count: int
    mean: float


def weather_app(**kwargs) -> App:
    app = App("weather", "2.0", **kwargs)

    @app.tool(
        title="Forecast",
        annotations={"readOnlyHint": True},
        icons=[{"src": "https://example.com/sun.png", "mimeType": "image/png"}],
    )
    async def forecast(city: Annotated[str, "the city"], days: int = 1) -> Forecast:
        """Tomorrow's weather."""
        return Forecast(city=city, celsius=21.5 + days)

    @app.tool()
    async def totals(values: list[float]) -> Totals:
        return {"count": len(values), "mean": sum(values) / len(values)}

    @app.tool()
    async def doubled(n: int) -> int:
        return n * 2

    @app.tool()
    async def liar() -> Totals:
        return {"count": "many"}  # type: ignore[typeddict-item]

    @app.tool()
    async def gallery() -> list:
        return [
            mcptrio.content.text("two things"),
            mcptrio.content.image(b"\x89PNG", "image/png"),
            mcptrio.content.audio(b"RIFF", "audio/wav"),
            mcptrio.content.embedded_text("note://1", "hi"),
            mcptrio.content.resource_link("note://2", "second", title="Second"),
        ]

    @app.resource("weather://readme", mime_type="text/plain", title="Read me")
    async def readme() -> str:
        return "read me"

    @app.resource("weather://logo", mime_type="image/png")
    async def logo() -> bytes:
        return b"\x89PNG\r\n"

    async def complete_city(value: str, context: dict) -> list[str]:
        return [c for c in ("Oslo", "Osaka", "Paris") if c.startswith(value)]

    @app.resource("weather://cities/{city}/today", mime_type="application/json", complete={"city": complete_city})
    async def today(city: str) -> str | None:
        return None if city == "Atlantis" else f'{{"city": "{city}"}}'

    @app.prompt(arguments={"city": "where", "style": "how"}, complete={"city": complete_city})
    async def ask(city: str, style: str = "plain") -> list:
        return [
            {"role": "user", "content": {"type": "text", "text": f"Weather in {city}, {style}?"}},
            {"role": "assistant", "content": mcptrio.content.text("Let me check.")},
        ]

    return app


def text_of(result):
    return result["content"][0]["text"]


async def test_tool_definitions_carry_schema_title_annotations_icons():
    async with open_client(weather_app()) as client:
        tools = {t["name"]: t for t in (await client.request("tools/list"))["tools"]}
        forecast = tools["forecast"]
        assert forecast["title"] == "Forecast" and forecast["description"] == "Tomorrow's weather."
        assert forecast["annotations"] == {"readOnlyHint": True}
        assert forecast["icons"] == [{"src": "https://example.com/sun.png", "mimeType": "image/png"}]
        schema = forecast["inputSchema"]
        assert schema["properties"]["city"] == {"type": "string", "description": "the city"}
        assert schema["required"] == ["city"] and schema["properties"]["days"]["default"] == 1
        assert forecast["outputSchema"]["required"] == ["city", "celsius"]
        assert tools["doubled"]["outputSchema"]["properties"]["result"] == {"type": "integer"}


async def test_structured_results_also_come_as_json_text():
    async with open_client(weather_app()) as client:
        result = await client.call_tool("forecast", {"city": "Oslo", "days": 2})
        assert result["structuredContent"] == {"city": "Oslo", "celsius": 23.5}
        assert text_of(result) == '{"city":"Oslo","celsius":23.5}'
        assert (await client.call_tool("totals", {"values": [1, 2]}))["structuredContent"] == {"count": 2, "mean": 1.5}
        assert (await client.call_tool("doubled", {"n": 4}))["structuredContent"] == {"result": 8}


async def test_output_not_matching_its_schema_is_an_error_result():
    async with open_client(weather_app()) as client:
        result = await client.call_tool("liar")
        assert result["isError"] and "does not match its output schema" in text_of(result)


async def test_argument_validation_names_the_field():
    async with open_client(weather_app()) as client:
        result = await client.call_tool("forecast", {"city": "Oslo", "days": "two"})
        assert result["isError"] and "'days'" in text_of(result)
        result = await client.call_tool("totals", {"values": [1, "x"]})
        assert result["isError"] and "values[1]" in text_of(result)


async def test_content_helpers():
    async with open_client(weather_app()) as client:
        content = (await client.call_tool("gallery"))["content"]
        assert [c["type"] for c in content] == ["text", "image", "audio", "resource", "resource_link"]
        assert base64.b64decode(content[1]["data"]) == b"\x89PNG" and content[1]["mimeType"] == "image/png"
        assert content[3]["resource"] == {"uri": "note://1", "text": "hi", "mimeType": "text/plain"}
        assert content[4] == {"type": "resource_link", "uri": "note://2", "name": "second", "title": "Second"}


async def test_resources_text_binary_and_templates():
    async with open_client(weather_app()) as client:
        listed = (await client.request("resources/list"))["resources"]
        assert [r["uri"] for r in listed] == ["weather://readme", "weather://logo"]
        assert listed[0] == {"uri": "weather://readme", "name": "readme", "title": "Read me", "mimeType": "text/plain"}
        blob = (await client.request("resources/read", {"uri": "weather://logo"}))["contents"][0]
        assert base64.b64decode(blob["blob"]) == b"\x89PNG\r\n" and blob["mimeType"] == "image/png"
        templates = (await client.request("resources/templates/list"))["resourceTemplates"]
        assert templates == [
            {"uriTemplate": "weather://cities/{city}/today", "name": "today", "mimeType": "application/json"}
        ]
        read = await client.request("resources/read", {"uri": "weather://cities/Oslo/today"})
        assert read["contents"] == [
            {"uri": "weather://cities/Oslo/today", "text": '{"city": "Oslo"}', "mimeType": "application/json"}
        ]


@pytest.mark.parametrize("era, code", [("legacy", -32002), ("modern", -32602)])
async def test_resource_not_found_per_era(era, code):
    async with open_client(weather_app(), era=era) as client:
        for uri in ("weather://nothing", "weather://cities/Atlantis/today"):
            with pytest.raises(McpError) as info:
                await client.request("resources/read", {"uri": uri})
            assert info.value.code == code and info.value.data == {"uri": uri}


async def test_prompts_with_arguments():
    async with open_client(weather_app()) as client:
        [prompt] = (await client.request("prompts/list"))["prompts"]
        assert prompt["arguments"] == [
            {"name": "city", "description": "where", "required": True},
            {"name": "style", "description": "how", "required": False},
        ]
        got = await client.request("prompts/get", {"name": "ask", "arguments": {"city": "Oslo"}})
        assert got["messages"][0]["content"]["text"] == "Weather in Oslo, plain?"
        assert got["messages"][1] == {"role": "assistant", "content": {"type": "text", "text": "Let me check."}}
        for params, fragment in (
            ({"name": "ask"}, "missing required argument 'city'"),
            ({"name": "nope"}, "unknown prompt"),
            ({"name": "ask", "arguments": {"city": 3}}, "must be a string"),
            ({"name": "ask", "arguments": {"city": "x", "mood": "y"}}, "no argument 'mood'"),
        ):
            with pytest.raises(McpError) as info:
                await client.request("prompts/get", params)
            assert info.value.code == -32602 and fragment in info.value.message


async def test_completion_for_prompt_arguments_and_template_variables():
    async with open_client(weather_app(), era="modern") as client:
        for ref in (
            {"type": "ref/prompt", "name": "ask"},
            {"type": "ref/resource", "uri": "weather://cities/{city}/today"},
        ):
            result = await client.request(
                "completion/complete", {"ref": ref, "argument": {"name": "city", "value": "Os"}}
            )
            assert result["completion"] == {"values": ["Oslo", "Osaka"], "total": 2, "hasMore": False}
        none = await client.request(
            "completion/complete",
            {"ref": {"type": "ref/prompt", "name": "ask"}, "argument": {"name": "style", "value": ""}},
        )
        assert none["completion"]["values"] == []
        with pytest.raises(McpError) as info:
            await client.request(
                "completion/complete",
                {"ref": {"type": "ref/prompt", "name": "nope"}, "argument": {"name": "x", "value": ""}},
            )
        assert info.value.code == -32602


@pytest.mark.parametrize(
    "method, key",
    [
        ("tools/list", "tools"),
        ("resources/list", "resources"),
        ("prompts/list", "prompts"),
        ("resources/templates/list", "resourceTemplates"),
    ],
)
async def test_pagination_with_opaque_cursors(method, key):
    app = App("many", page_size=2)
    for i in range(5):

        async def handler(i: int = i, x: str = "") -> str:
            return str(i)

        app.tool(f"tool{i}")(handler)
        app.resource(f"many://r{i}")(handler)
        app.resource(f"many://t{i}/{{x}}")(handler)
        app.prompt(f"prompt{i}")(handler)
    async with open_client(app) as client:
        seen, cursor, pages = [], None, 0
        while True:
            params = {"cursor": cursor} if cursor else {}
            result = await client.request(method, params)
            seen += [item.get("uri") or item.get("uriTemplate") or item["name"] for item in result[key]]
            pages += 1
            cursor = result.get("nextCursor")
            if cursor is None:
                break
        assert pages == 3 and len(seen) == 5 and len(set(seen)) == 5
        assert seen == sorted(seen)  # registration order, stable across calls
        with pytest.raises(McpError) as info:
            await client.request(method, {"cursor": "not-a-cursor"})
        assert info.value.code == -32602


async def test_legacy_resource_subscription_and_list_changed():
    app = weather_app()
    async with open_client(app) as client, open_client(app) as other:
        await client.request("resources/subscribe", {"uri": "weather://readme"})
        await app.notify_resource_updated("weather://readme")
        await app.notify_resource_updated("weather://logo")
        [updated] = await client.wait_for_notification("notifications/resources/updated")
        assert updated["params"] == {"uri": "weather://readme"}
        await app.notify_tools_changed()
        await client.wait_for_notification("notifications/tools/list_changed")
        await other.wait_for_notification("notifications/tools/list_changed")
        assert not [n for n in other.notifications if n["method"] == "notifications/resources/updated"]
        await client.request("resources/unsubscribe", {"uri": "weather://readme"})
        await app.notify_resource_updated("weather://readme")
        await client.request("ping")
        assert len([n for n in client.notifications if n["method"] == "notifications/resources/updated"]) == 1


async def test_modern_subscriptions_listen_stream():
    app = weather_app()
    async with open_client(app, era="modern") as client:
        listen_id, answer = await client.start_request(
            "subscriptions/listen",
            {"notifications": {"toolsListChanged": True, "resourceSubscriptions": ["weather://readme"], "bogus": True}},
        )
        [ack] = await client.wait_for_notification("notifications/subscriptions/acknowledged")
        assert ack["params"]["_meta"] == {"io.modelcontextprotocol/subscriptionId": listen_id}
        assert ack["params"]["notifications"] == {
            "toolsListChanged": True,
            "resourceSubscriptions": ["weather://readme"],
        }
        await app.notify_prompts_changed()  # not opted in: never sent
        await app.notify_tools_changed()
        await app.notify_resource_updated("weather://logo")  # not subscribed
        await app.notify_resource_updated("weather://readme")
        [changed] = await client.wait_for_notification("notifications/tools/list_changed")
        [updated] = await client.wait_for_notification("notifications/resources/updated")
        assert changed["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"] == listen_id
        assert updated["params"]["uri"] == "weather://readme"
        assert not [n for n in client.notifications if "prompts" in n["method"]]
        await client.notify("notifications/cancelled", {"requestId": listen_id})
        await client.request("tools/list")
        with pytest.raises(trio.WouldBlock):
            answer.receive_nowait()  # cancelled by the client: no response
        assert app.listeners == set()


async def test_listen_stream_closes_gracefully_at_shutdown():
    app = weather_app()
    shutdown = trio.Event()
    async with open_client(app, era="modern", shutdown=shutdown) as client:
        listen_id, answer = await client.start_request(
            "subscriptions/listen", {"notifications": {"toolsListChanged": True}}
        )
        await client.wait_for_notification("notifications/subscriptions/acknowledged")
        shutdown.set()
        with trio.fail_after(5):
            closing = await answer.receive()
        assert closing["result"]["resultType"] == "complete"
        assert closing["result"]["_meta"]["io.modelcontextprotocol/subscriptionId"] == listen_id


def test_plugins_compose_and_clash():
    first, second = Registry("first"), Registry("second")

    @first.tool()
    async def hello() -> str:
        return "1"

    @second.tool()
    async def hello() -> str:  # noqa: F811
        return "2"

    app = App()
    app.include(first)
    with pytest.raises(ValueError, match="'hello' of plugin 'second' clashes with the one of 'first'"):
        app.include(second)
    assert list(app.tools) == ["hello"]  # a failed include adds nothing
    app.include(second, prefix="two")
    assert list(app.tools) == ["hello", "two_hello"]


def test_registration_errors_are_clear():
    app = App()
    with pytest.raises(TypeError, match=r"tool .*\.gen is a generator function: a handler returns its result"):

        @app.tool()
        def gen() -> Iterator[str]:
            yield ""

    @app.tool()
    async def once() -> str:
        return ""

    with pytest.raises(ValueError, match="registered twice"):
        app.tool("once")(once)


async def test_context_is_injected_and_not_in_the_schema():
    app = App()

    @app.tool()
    async def whoami(ctx: Context, shout: bool = False) -> str:
        name = (ctx.client_info or {}).get("name", "?")
        return f"{ctx.era}:{ctx.protocol_version}:{name.upper() if shout else name}"

    async with open_client(app) as client:
        [tool] = (await client.request("tools/list"))["tools"]
        assert list(tool["inputSchema"]["properties"]) == ["shout"]
        assert text_of(await client.call_tool("whoami", {"shout": True})) == "legacy:2025-11-25:MCPTRIO-TESTING"
    async with open_client(app, era="modern") as client:
        assert text_of(await client.call_tool("whoami")) == "modern:2026-07-28:mcptrio-testing"


async def test_tool_and_prompt_decorators_work_without_parentheses():
    plugin = mcptrio.Registry("p")

    @plugin.tool
    async def shout(text: str) -> str:
        return text.upper()

    @plugin.prompt
    def greet(name: str) -> str:
        return f"Hello {name}"

    assert shout.__name__ == "shout" and greet("x") == "Hello x"  # the decorators return the function
    app = App()
    app.include(plugin)
    async with open_client(app) as client:
        assert text_of(await client.call_tool("shout", {"text": "hi"})) == "HI"
        got = await client.request("prompts/get", {"name": "greet", "arguments": {"name": "Ann"}})
        assert got["messages"][0]["content"]["text"] == "Hello Ann"


def test_a_resource_decorator_without_its_uri_says_so():
    plugin = mcptrio.Registry("p")

    async def handler() -> str:
        return ""

    with pytest.raises(TypeError, match=r"write @plugin\.resource\(URI\): a resource needs its URI \(got 'handler'"):
        plugin.resource(handler)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"@tool: the name must be a string, not 3"):
        plugin.tool(3)  # type: ignore[call-overload]
    assert not plugin.tools and not plugin.prompts and not plugin.resources
