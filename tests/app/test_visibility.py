"""Who sees what, in memory: tags, rules, components switched at run time, and their bad input."""

from __future__ import annotations

import pytest
import trio

from mcptrio import App, Context, McpError
from mcptrio.testing import open_client


def catalogue(**options) -> App:
    app = App("catalogue", **options)

    @app.tool(tags=["public"])
    async def echo(text: str) -> str:
        return text

    @app.tool(tags=["beta"])
    async def experiment() -> str:
        return "new"

    @app.tool(tags=["admin", "beta"])
    async def purge() -> str:
        return "purged"

    @app.tool()
    async def hide_for_me(ctx: Context, name: str) -> str:
        ctx.session.disable(name)
        return "hidden"

    @app.tool()
    async def show_for_me(ctx: Context, name: str) -> str:
        ctx.session.enable(name)
        return "shown"

    @app.prompt(tags=["beta"])
    async def draft() -> str:
        return "a draft"

    @app.resource("beta://note", tags=["beta"])
    async def beta_note() -> str:
        return "beta"

    @app.resource("note://{id}", tags=["public"])
    async def note(id: str) -> str:
        return f"note {id}"

    return app


async def names(client, method: str = "tools/list", key: str = "tools") -> set[str]:
    return {item.get("name") for item in (await client.request(method))[key]}


@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_tags_include_and_exclude(era):
    async with open_client(catalogue(exclude_tags=["beta"]), era=era) as client:
        assert await names(client) == {"echo", "hide_for_me", "show_for_me"}
        assert await names(client, "prompts/list", "prompts") == set()
        assert await names(client, "resources/list", "resources") == set()
        with pytest.raises(McpError) as hidden:
            await client.call_tool("purge")
        with pytest.raises(McpError) as unknown:
            await client.call_tool("never_was")
        assert hidden.value.code == unknown.value.code and "unknown tool" in hidden.value.message
        with pytest.raises(McpError):
            await client.request("prompts/get", {"name": "draft"})
        with pytest.raises(McpError):
            await client.request("resources/read", {"uri": "beta://note"})
        read = await client.request("resources/read", {"uri": "note://7"})  # the template still serves it
        assert read["contents"][0]["text"] == "note 7"
    async with open_client(catalogue(include_tags=["public"]), era=era) as client:
        assert await names(client) == {"echo"}
        assert await names(client, "resources/templates/list", "resourceTemplates") == {"note"}


async def test_a_tag_no_component_has_is_refused_at_start_naming_it():
    with pytest.raises(ValueError, match="include_tags: no tool, prompt or resource has the tag 'nope'"):
        async with catalogue(include_tags=["public", "nope"]).running():
            pass  # pragma: no cover


async def test_a_rule_sees_the_request_and_hides_per_caller():
    seen = []

    def rule(component, request) -> bool:
        seen.append((request.era, request.method, request.name))
        return "admin" not in component.tags

    async with open_client(catalogue(visible=rule)) as client:
        assert "purge" not in await names(client)
        with pytest.raises(McpError, match="unknown tool"):
            await client.call_tool("purge")
        assert (await client.call_tool("experiment"))["content"][0]["text"] == "new"
    assert ("legacy", "tools/list", None) in seen and ("legacy", "tools/call", "purge") in seen


@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_a_rule_that_raises_fails_that_request_only(era):
    app = catalogue()
    calls = 0

    @app.add_visibility_rule
    def flaky(component, request) -> bool:
        nonlocal calls
        calls += 1
        if calls == 1:
            raise RuntimeError("the directory is down")
        return True

    async with open_client(app, era=era) as client:
        with pytest.raises(McpError) as failed:
            await client.request("tools/list")
        assert failed.value.code == -32603 and failed.value.message == "a visibility rule failed"
        assert "echo" in await names(client)  # the server keeps serving
        assert (await client.call_tool("echo", {"text": "still here"}))["content"][0]["text"] == "still here"


async def test_modern_lists_filtered_per_caller_are_private_to_caches():
    async with open_client(catalogue(visible=lambda component, request: True), era="modern") as client:
        assert (await client.request("tools/list"))["cacheScope"] == "private"
    async with open_client(catalogue(exclude_tags=["admin"]), era="modern") as client:
        assert (await client.request("tools/list"))["cacheScope"] == "public"  # the same for every caller


async def test_pages_of_a_filtered_list_hold_only_what_the_caller_sees():
    app = App("many", page_size=3, exclude_tags=["odd"])
    for n in range(10):
        app.tool(f"t{n}", tags=["even" if n % 2 == 0 else "odd"])(_constant)
    async with open_client(app, era="modern") as client:
        seen, cursor = [], None
        while True:
            page = await client.request("tools/list", {"cursor": cursor} if cursor else {})
            seen += [tool["name"] for tool in page["tools"]]
            cursor = page.get("nextCursor")
            if cursor is None:
                break
        assert seen == ["t0", "t2", "t4", "t6", "t8"]


async def _constant() -> str:
    return "ok"


async def test_app_disable_and_enable_by_name_and_tag_tell_legacy_sessions():
    app = catalogue()
    async with open_client(app) as client:
        await app.disable("echo")
        await client.wait_for_notification("notifications/tools/list_changed")
        assert "echo" not in await names(client)
        await app.disable(tags=["beta"])
        await client.wait_for_notification("notifications/prompts/list_changed")
        await client.wait_for_notification("notifications/resources/list_changed")
        assert await names(client) == {"hide_for_me", "show_for_me"}
        assert await names(client, "prompts/list", "prompts") == set()
        await app.enable("echo", "experiment")
        assert await names(client) == {"echo", "experiment", "hide_for_me", "show_for_me"}  # a name beats a tag
        await app.enable(tags=["beta"])
        assert "purge" in await names(client)
        with pytest.raises(ValueError, match="no tool, prompt or resource has the name 'nope'"):
            await app.disable("nope")


async def test_a_session_switches_components_for_itself_alone():
    app = catalogue()
    async with open_client(app) as mine, open_client(app) as other:
        await mine.call_tool("hide_for_me", {"name": "echo"})
        await mine.wait_for_notification("notifications/tools/list_changed")
        assert "echo" not in await names(mine)
        assert "echo" in await names(other)
        with pytest.raises(McpError, match="unknown tool"):
            await mine.call_tool("echo", {"text": "x"})
        await mine.call_tool("show_for_me", {"name": "echo"})
        assert "echo" in await names(mine)
        with trio.move_on_after(0.05):
            await other.wait_for_notification("notifications/tools/list_changed")
            raise AssertionError("the other session was told of a change that is not its own")


async def test_completion_of_a_hidden_prompt_is_as_for_an_unknown_one():
    app = catalogue(exclude_tags=["beta"])
    ref = {"ref": {"type": "ref/prompt", "name": "draft"}, "argument": {"name": "x", "value": ""}}
    async with open_client(app) as client:
        with pytest.raises(McpError, match="unknown prompt: 'draft'"):
            await client.request("completion/complete", ref)


def test_bad_settings_are_refused_in_one_line():
    with pytest.raises(ValueError, match='visibility must be "filter" or "show"'):
        App(visibility="hide")
    with pytest.raises(TypeError, match="include_tags must be a list of tags"):
        App(include_tags="beta")
    with pytest.raises(TypeError, match="a visibility rule must be a callable"):
        App().add_visibility_rule("yes")  # type: ignore[arg-type]
