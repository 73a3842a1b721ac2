"""The filesystem plugin through mcptrio's pytest plugin: the client's roots (``mcp_callbacks``)
are the sandbox, in both eras, in memory and over HTTP."""

import pytest

pytestmark = [pytest.mark.mcp_plugins("filesystem"), pytest.mark.mcp_transports("memory", "http")]


@pytest.fixture
def workspace(tmp_path):
    root = tmp_path / "workspace"
    root.mkdir()
    (root / "hello.txt").write_text("hi there\n")
    (tmp_path / "outside.txt").write_text("not yours\n")
    return root


@pytest.fixture
def mcp_callbacks(workspace):
    async def roots(params):
        return {"roots": [{"uri": workspace.as_uri(), "name": "workspace"}]}

    return {"roots": roots}


async def test_reads_inside_the_clients_roots_and_nothing_outside(mcp_client, workspace):
    inside = await mcp_client.call_tool("read_text_file", {"path": str(workspace / "hello.txt")})
    assert not inside.is_error and inside.content[0].text.startswith("hi there")
    outside = await mcp_client.call_tool("read_text_file", {"path": str(workspace.parent / "outside.txt")})
    assert outside.is_error and "not yours" not in outside.content[0].text
