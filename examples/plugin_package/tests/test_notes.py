"""The notes plugin through mcptrio's in-memory test client (pytest-trio: plain ``async def`` tests)."""

from importlib.metadata import entry_points

import pytest
from mcptrio_notes import notebook, plugin

import mcptrio
from mcptrio.testing import open_client


@pytest.fixture(autouse=True)
def empty_notebook():
    notebook.clear()
    yield
    notebook.clear()


def make_app():
    app = mcptrio.App("notes-test")
    app.include(plugin)
    return app


def text_of(result):
    assert not result.get("isError"), result
    return result["content"][0]["text"]


async def add(client, title, text, tags=None):
    result = await client.call_tool("add_note", {"title": title, "text": text, "tags": tags or []})
    return result["structuredContent"]


async def test_add_list_search_delete():
    async with open_client(make_app()) as client:
        milk = await add(client, "Buy milk!", "Oat milk, 2 litres", ["shopping"])
        assert milk["id"] == "buy-milk" and milk["tags"] == ["shopping"]
        assert (await add(client, "Buy milk", "again"))["id"] == "buy-milk-2"  # ids stay unique
        await add(client, "Trio nurseries", "Structured concurrency", ["python", "trio"])

        listing = text_of(await client.call_tool("list_notes"))
        assert listing.splitlines() == [
            "buy-milk: Buy milk! [shopping]",
            "buy-milk-2: Buy milk",
            "trio-nurseries: Trio nurseries [python, trio]",
        ]
        assert (
            text_of(await client.call_tool("list_notes", {"tag": "trio"}))
            == "trio-nurseries: Trio nurseries [python, trio]"
        )

        found = (await client.call_tool("search_notes", {"query": "OAT litres"}))["structuredContent"]
        assert [note["id"] for note in found["result"]] == ["buy-milk"]

        assert text_of(await client.call_tool("delete_note", {"id": "buy-milk-2"})) == "deleted buy-milk-2"
        assert notebook.ids() == ["buy-milk", "trio-nurseries"]


async def test_errors_are_tool_results():
    async with open_client(make_app()) as client:
        empty = await client.call_tool("add_note", {"title": "  ", "text": "x"})
        assert empty["isError"] and empty["content"][0]["text"] == "the title must not be empty"
        missing = await client.call_tool("delete_note", {"id": "nope"})
        assert missing["isError"] and "no note with id 'nope'" in missing["content"][0]["text"]
        bad = await client.call_tool("add_note", {"title": "t"})  # schema check before the handler
        assert bad["isError"] and "text" in bad["content"][0]["text"]


async def test_tool_definitions():
    async with open_client(make_app()) as client:
        tools = {tool["name"]: tool for tool in (await client.request("tools/list"))["tools"]}
    assert tools["add_note"]["inputSchema"]["required"] == ["title", "text"]
    assert "outputSchema" in tools["add_note"] and "outputSchema" not in tools["list_notes"]
    assert tools["delete_note"]["annotations"]["destructiveHint"] is True
    assert tools["search_notes"]["annotations"]["readOnlyHint"] is True


async def test_note_resource_and_id_completion():
    async with open_client(make_app()) as client:
        await add(client, "Groceries", "eggs", ["home"])
        await add(client, "Garden", "water the roses")
        templates = (await client.request("resources/templates/list"))["resourceTemplates"]
        assert templates == [
            {
                "uriTemplate": "notes://{id}",
                "name": "note",
                "description": "One note as Markdown.",
                "mimeType": "text/markdown",
            }
        ]

        contents = (await client.request("resources/read", {"uri": "notes://groceries"}))["contents"]
        assert contents == [
            {"uri": "notes://groceries", "mimeType": "text/markdown", "text": "# Groceries\n\neggs\n\nTags: home\n"}
        ]
        with pytest.raises(mcptrio.McpError) as missing:
            await client.request("resources/read", {"uri": "notes://nothing"})
        assert "resource not found" in missing.value.message

        completion = await client.request(
            "completion/complete",
            {"ref": {"type": "ref/resource", "uri": "notes://{id}"}, "argument": {"name": "id", "value": "g"}},
        )
        assert completion["completion"] == {"values": ["groceries", "garden"], "total": 2, "hasMore": False}


async def test_summarize_prompt():
    async with open_client(make_app()) as client:
        empty = await client.request("prompts/get", {"name": "summarize_notes"})
        assert empty["messages"][0]["content"]["text"] == "There are no notes. Say so in one sentence."

        await add(client, "Standup", "ship the release", ["work"])
        await add(client, "Groceries", "eggs", ["home"])
        prompt = await client.request("prompts/get", {"name": "summarize_notes", "arguments": {"tag": "work"}})
        first, *embedded = prompt["messages"]
        assert first["content"]["text"].startswith("Summarise these 1 notes tagged 'work'")
        assert [m["content"]["resource"]["uri"] for m in embedded] == ["notes://standup"]

        described = (await client.request("prompts/list"))["prompts"][0]
        assert described["arguments"] == [
            {"name": "tag", "description": "only summarise notes with this tag", "required": False}
        ]
        tags = await client.request(
            "completion/complete",
            {"ref": {"type": "ref/prompt", "name": "summarize_notes"}, "argument": {"name": "tag", "value": "h"}},
        )
        assert tags["completion"]["values"] == ["home"]


async def test_modern_era():
    async with open_client(make_app(), era="modern") as client:
        note = (await client.call_tool("add_note", {"title": "Stateless", "text": "2026-07-28"}))["structuredContent"]
        read = await client.request("resources/read", {"uri": f"notes://{note['id']}"})
        assert read["contents"][0]["text"].startswith("# Stateless")


def test_installed_as_a_plugin():
    found = [e for e in entry_points(group="mcptrio.plugins") if e.name == "notes"]
    assert found, "mcptrio-notes is not installed (pip install -e examples/plugin_package)"
    assert found[0].load() is plugin
