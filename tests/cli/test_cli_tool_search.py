"""``mcptrio serve --tool-search`` (and TOML ``tool_search``) as a user runs it: the two tools served
over stdio, and a one-line error when the search extra is not installed."""

import pytest

from mcptrio.testing import open_process_client

from .test_cli import MCPTRIO, one_line_error, run

TARGET = """
import mcptrio

plugin = mcptrio.Registry("notes")

@plugin.tool(description="Files a note under a heading")
async def file_note(heading: str, text: str) -> str:
    return f"filed under {heading}"

@plugin.tool(description="Reads the weather")
async def weather() -> str:
    return "rain"
"""


@pytest.mark.parametrize("where", ["flag", "file"])
async def test_tool_search_from_the_flag_or_the_file(tmp_path, where):
    target = tmp_path / "notes.py"
    target.write_text(TARGET)
    if where == "flag":
        args = ["serve", str(target), "--tool-search"]
    else:
        config = tmp_path / "serve.toml"
        config.write_text(f'[serve]\ntarget = "{target}"\ntool_search = true\n')
        args = ["serve", "--config", str(config)]
    async with open_process_client(MCPTRIO + args) as client:
        names = [tool["name"] for tool in (await client.request("tools/list"))["tools"]]
        assert names == ["search_tools", "call_tool"]
        found = await client.call_tool("search_tools", {"query": "heading"})
        assert [tool["name"] for tool in found["structuredContent"]["tools"]] == ["file_note"]
        called = await client.call_tool("call_tool", {"name": "file_note", "arguments": {"heading": "a", "text": "b"}})
        assert called["content"][0]["text"] == "filed under a"
    assert client.end.process.returncode == 0


def test_tool_search_without_the_search_extra_is_a_one_line_error(tmp_path):
    (tmp_path / "bm25s.py").write_text("raise ImportError('not installed')\n")  # (shadows the installed one)
    target = tmp_path / "notes.py"
    target.write_text(TARGET)
    line = one_line_error(run(["serve", str(target), "--tool-search"], tmp_path))
    assert line.endswith("--tool-search: tool search needs bm25s: pip install 'mcptrio[search]'")
