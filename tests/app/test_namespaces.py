"""A plugin served in a namespace: every kind of component renamed, and every way back to it still working
(reads, subscriptions and their notifications, completion), over real HTTP in both eras."""

from __future__ import annotations

from typing import Any

import pytest
import trio

from mcptrio import App, Context, McpError, Registry, Request
from mcptrio.app.namespaces import check_namespace, own_name, own_uri, prefixed_name, prefixed_uri
from mcptrio.client import connect
from mcptrio.testing import open_client

from ..transports.http.client import http_server
from .files_plugin import files_plugin


def test_the_mapping_round_trips_and_says_what_it_refuses():
    assert prefixed_name("fs", "read") == "fs_read" and own_name("fs", "fs_read") == "read"
    assert own_name("fs", "db_read") is None
    for uri in ("file:///tmp/a.txt", "weather://{city}", "svn+ssh://host/repo", "urn:isbn:0451450523"):
        served = prefixed_uri("fs", uri)
        assert served == "fs+" + uri and own_uri("fs", served) == uri
    assert own_uri("fs", "file:///tmp/a.txt") is None and own_uri("db", "fs+file:///x") is None
    with pytest.raises(ValueError, match="URI 'readme' has no scheme"):
        prefixed_uri("fs", "readme")
    for bad in ("my_fs", "1fs", "f s", "a+b", ""):
        with pytest.raises(ValueError, match="a letter, then letters, digits"):
            check_namespace(bad)
    assert check_namespace("fs.v2-x") == "fs.v2-x"
    assert prefixed_name("", "read") == own_name("", "read") == "read"  # the namespace "" is none
    assert prefixed_uri("", "readme") == own_uri("", "readme") == "readme"


@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_a_mounted_plugins_resources_read_and_complete_under_its_namespace(era):
    app = App("host")
    app.mount(files_plugin(), namespace="fs")
    async with http_server(app) as url, connect(url, era=era) as client:
        assert [r.uri for r in await client.list_resources()] == ["fs+file:///tmp/a.txt"]
        assert [t.uri_template for t in await client.list_resource_templates()] == ["fs+note://{name}"]
        assert [t.name for t in await client.list_tools()] == ["fs_links", "fs_peek", "fs_touch"]
        assert [p.name for p in await client.list_prompts()] == ["fs_ask", "fs_quote"]
        [a_txt] = (await client.read_resource("fs+file:///tmp/a.txt")).contents
        assert (a_txt.uri, a_txt.text) == ("fs+file:///tmp/a.txt", "a")
        [note] = (await client.read_resource("fs+note://beta")).contents
        assert (note.uri, note.text) == ("fs+note://beta", "note beta")
        for own in ("file:///tmp/a.txt", "note://beta"):  # the plugin's own URIs are not served
            with pytest.raises(McpError, match="resource not found"):
                await client.read_resource(own)
        for ref in ({"type": "ref/prompt", "name": "fs_ask"}, {"type": "ref/resource", "uri": "fs+note://{name}"}):
            completed = await client.complete(ref, {"name": "name", "value": "al"})
            assert completed.completion.values == ["alpha", "alps"]
        with pytest.raises(McpError, match="unknown resource template"):
            await client.complete({"type": "ref/resource", "uri": "note://{name}"}, {"name": "name", "value": ""})
        assert (await client.get_prompt("fs_ask", {"name": "x"})).messages[0].content.text == "about x"
        linked = (await client.call_tool("fs_links")).content  # the URIs it names, as they are served
        assert [linked[0].uri, linked[1].uri, linked[2].resource.uri] == [
            "fs+file:///tmp/a.txt",
            "https://example.com/",
            "fs+note://x",
        ]
        assert (await client.call_tool("fs_peek")).content[0].text == "note://beta note beta"
        [message] = (await client.get_prompt("fs_quote")).messages
        assert message.content.resource.uri == "fs+file:///tmp/a.txt"


async def test_a_plugins_own_uri_notifies_the_subscribers_of_its_served_uri_legacy():
    app = App("host")
    app.include(files_plugin(), prefix="fs")
    async with http_server(app) as url, connect(url, era="legacy") as client:
        await client.subscribe("fs+file:///tmp/a.txt")
        await client.subscribe("fs+note://beta")

        async def updated(count: int) -> list[str]:
            with trio.fail_after(5):
                found = await client.raw.wait_for_notification("notifications/resources/updated", count)
            return [n["params"]["uri"] for n in found]

        await client.call_tool("fs_touch", {"uri": "file:///tmp/a.txt"})
        assert await updated(1) == ["fs+file:///tmp/a.txt"]
        await client.call_tool("fs_touch", {"uri": "note://gamma"})  # matches the template, not subscribed
        await client.call_tool("fs_touch", {"uri": "note://beta"})
        assert await updated(2) == ["fs+file:///tmp/a.txt", "fs+note://beta"]
        await client.request("resources/unsubscribe", {"uri": "fs+file:///tmp/a.txt"})
        await client.call_tool("fs_touch", {"uri": "file:///tmp/a.txt"})  # unsubscribed: not told
        await client.call_tool("fs_touch", {"uri": "note://beta"})
        assert await updated(3) == ["fs+file:///tmp/a.txt", "fs+note://beta", "fs+note://beta"]


async def test_a_plugins_own_uri_notifies_a_listen_stream_of_its_served_uri_modern():
    app = App("host")
    app.include(files_plugin(), prefix="fs")
    async with http_server(app) as url, connect(url, era="modern") as client:
        async with client.listen(resourceSubscriptions=["fs+file:///tmp/a.txt"]) as delivered:
            with trio.fail_after(5):
                await client.call_tool("fs_touch", {"uri": "note://beta"})  # not listened to
                await client.call_tool("fs_touch", {"uri": "file:///tmp/a.txt"})
                updated = await anext(delivered)
        assert updated["method"] == "notifications/resources/updated"
        assert updated["params"]["uri"] == "fs+file:///tmp/a.txt"


async def test_the_same_uri_in_two_namespaces_reaches_only_the_plugin_that_serves_it():
    app = App("host")
    app.include(files_plugin(), prefix="fs")
    other = Registry("other")

    @other.resource("file:///etc/b.txt")
    async def b_txt() -> str:
        return "b"

    app.include(other, prefix="db")
    assert app.served_uris("file:///tmp/a.txt") == ["file:///tmp/a.txt", "fs+file:///tmp/a.txt"]
    assert app.served_uris("file:///etc/b.txt") == ["file:///etc/b.txt", "db+file:///etc/b.txt"]
    assert app.served_uris("note://x") == ["note://x", "fs+note://x"]
    assert app.served_uris("nothing") == ["nothing"]
    async with open_client(app) as client:
        await client.request("resources/subscribe", {"uri": "db+file:///tmp/a.txt"})  # names nothing
        await client.request("resources/subscribe", {"uri": "fs+file:///tmp/a.txt"})
        await app.notify_resource_updated("file:///tmp/a.txt")
        [updated] = await client.wait_for_notification("notifications/resources/updated")
        assert updated["params"]["uri"] == "fs+file:///tmp/a.txt"
        await client.request("ping")
        assert len([n for n in client.notifications if n["method"] == "notifications/resources/updated"]) == 1


def plugin_with(kind: str, key: str, name: str = "two") -> Registry:
    """A plugin of one tool, prompt or resource (a template, with ``{variables}``) named ``key``."""
    plugin = Registry(name)
    variables = [part[1:-1] for part in key.split("/") if part.startswith("{")]
    register = {"tool": plugin.tool, "prompt": plugin.prompt, "resource": plugin.resource}[kind]
    register(key)(_taking(variables))
    return plugin


def _taking(variables: list[str]) -> Any:
    """An ``async def`` handler whose parameters are ``variables`` (a template's handler takes each)."""
    namespace: dict[str, Any] = {}
    exec(f"async def handler({', '.join(variables)}) -> str:\n    return ''", namespace)
    return namespace["handler"]


@pytest.mark.parametrize(
    "kind, first, second, shown",
    [
        ("tool", "hello", "hello", "tool 'hello' of plugin 'two' clashes with the one of 'one'"),
        ("prompt", "ask", "ask", "prompt 'ask' of plugin 'two' clashes with the one of 'one'"),
        ("resource", "docs://readme", "docs://readme", "resource 'docs://readme' of plugin 'two' clashes"),
        (
            "resource template",
            "docs://page/{name}",
            "docs://page/{title}",
            "resource template 'docs://page/{title}' of plugin 'two' clashes with 'docs://page/{name}'"
            " (it matches the same URIs) of 'one'",
        ),
    ],
)
def test_two_components_of_one_name_are_refused_naming_both_owners(kind, first, second, shown):
    table_kind = "resource" if kind == "resource template" else kind
    app = App("host")
    app.include(plugin_with(table_kind, first, "one"))
    before = {table: dict(getattr(app, table)) for table in ("tools", "prompts", "resources", "templates")}
    with pytest.raises(ValueError) as refused:
        app.include(plugin_with(table_kind, second))
    assert shown in str(refused.value) and "include one of them with a prefix" in str(refused.value)
    assert {table: dict(getattr(app, table)) for table in before} == before  # nothing of it added
    app.include(plugin_with(table_kind, second), prefix="two")  # a prefix resolves it


def test_a_prefixed_name_can_clash_too_and_is_refused_naming_both():
    app = App("host")

    @app.tool("fs_read")
    async def read() -> str:
        return ""

    with pytest.raises(
        ValueError, match="tool 'fs_read' of plugin 'two' clashes with the one of 'host'; include it with"
    ):
        app.include(plugin_with("tool", "read"), prefix="fs")
    with pytest.raises(ValueError, match="resource 'fs\\+docs://a' of plugin 'two' clashes"):
        app.include(plugin_with("resource", "docs://a", "one"), prefix="fs")
        app.include(plugin_with("resource", "docs://a"), prefix="fs")


def test_a_prefix_that_makes_a_tool_name_too_long_is_refused_naming_tool_prefix_and_rule():
    longest = "t" * 125
    app = App("host")
    app.include(plugin_with("tool", longest), prefix="fs")  # fs_ + 125 = 128: within the rule
    with pytest.raises(ValueError) as refused:
        app.include(plugin_with("tool", longest + "x", "three"), prefix="fs")
    message = str(refused.value)
    assert f"tool '{longest}x' of plugin 'three' with the prefix 'fs'" in message
    assert "(129 characters)" in message and "1 to 128 characters, each a letter, a digit" in message
    assert list(app.tools) == [f"fs_{longest}"]


def test_a_uri_without_a_scheme_cannot_be_prefixed_and_says_which():
    plugin = plugin_with("resource", "readme")
    with pytest.raises(ValueError, match="resource 'readme' of plugin 'two': URI 'readme' has no scheme"):
        App().include(plugin, prefix="fs")
    App().include(plugin)  # (served as it is, without a prefix)
    with pytest.raises(ValueError, match="namespace 'my_fs' is not valid"):
        App().include(plugin_with("tool", "x"), prefix="my_fs")


async def test_mount_brings_lifespans_and_middleware_and_an_empty_namespace_is_none():
    inner = App("inner")
    seen: list[str] = []

    @inner.tool()
    async def hello(ctx: Context) -> str:
        return f"hello {ctx.app.state['greeting']}"

    @inner.lifespan
    async def greeting(app: App) -> Any:
        app.state["greeting"] = "from inner"
        yield

    @inner.use
    async def record(request: Request, call_next: Any) -> dict[str, Any]:
        seen.append(request.method)
        return await call_next(request)

    app = App("outer")
    app.mount(inner, namespace="in")
    bare = App("bare")
    bare.mount(inner, namespace="")
    assert list(bare.tools) == ["hello"]
    async with app.running(), open_client(app) as client:
        result = await client.call_tool("in_hello")
        assert result["content"][0]["text"] == "hello from inner"
    assert "tools/call" in seen
