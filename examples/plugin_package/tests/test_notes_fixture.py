"""The same plugin through mcptrio's pytest plugin: ``mcp_client`` is connected to the plugins
named by ``mcp_plugins`` (or pyproject.toml's ``mcptrio_plugins``), once per era, and here also
over every transport."""

import pytest
from mcptrio_notes import notebook

pytestmark = pytest.mark.mcp_plugins("notes")  # (the ini option too, when run from this folder)


@pytest.fixture(autouse=True)
def empty_notebook():
    notebook.clear()
    yield
    notebook.clear()


@pytest.mark.mcp_transports("memory", "stdio", "http")
async def test_add_then_read_back(mcp_client):
    added = await mcp_client.call_tool("add_note", {"title": "Fixture", "text": "served for me"})
    assert not added.is_error and added.structured_content["id"] == "fixture"
    listed = await mcp_client.call_tool("list_notes", {})
    assert "Fixture" in listed.content[0].text


async def test_the_tools_are_listed_in_both_eras(mcp_client):
    assert {tool.name for tool in await mcp_client.list_tools()} >= {"add_note", "list_notes"}
    assert mcp_client.era in ("legacy", "modern")
