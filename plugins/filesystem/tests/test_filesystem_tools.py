"""Every tool and the file:// resource template, in the legacy era (roots/list request) and the
2026-07-28 era (roots asked for in an InputRequiredResult, answered on retry)."""

from __future__ import annotations

import base64
import json
import os
import stat
from importlib.metadata import entry_points

import mcptrio_filesystem
import pytest
from filesystem_support import PNG, WAV, fs_client

from mcptrio import McpError
from mcptrio.plugins import build_app


async def test_list_directory(era, workspace):
    async with fs_client(era, workspace) as fs:
        os.symlink(workspace / "sub", workspace / "alias")
        listing = await fs.ok("list_directory", path=str(workspace))
        assert listing.splitlines() == [
            "[LINK] alias",
            "[FILE] data.bin",
            "[FILE] image.png",
            "[FILE] notes.txt",
            "[FILE] sound.wav",
            "[DIR] sub",
        ]
        assert (await fs.ok("list_directory", path="sub/nested")) == "[FILE] deep.txt"
        (workspace / "empty").mkdir()
        assert (await fs.ok("list_directory", path="empty")) == "(empty directory)"
        assert (await fs.refused("list_directory", path="notes.txt")).startswith("not a directory")
        assert (await fs.refused("list_directory", path="missing")) == f"not found: {workspace}/missing"


async def test_read_text_file(era, workspace):
    async with fs_client(era, workspace) as fs:
        assert await fs.ok("read_text_file", path="notes.txt") == "one\ntwo\nthree\nfour\nfive\n"
        assert await fs.ok("read_text_file", path="notes.txt", head=2) == "one\ntwo\n"
        assert await fs.ok("read_text_file", path="notes.txt", tail=2) == "four\nfive\n"
        assert await fs.ok("read_text_file", path="notes.txt", tail=99) == "one\ntwo\nthree\nfour\nfive\n"
        assert "head or tail, not both" in await fs.refused("read_text_file", path="notes.txt", head=1, tail=1)
        assert "'head'" in await fs.refused("read_text_file", path="notes.txt", head=0)
        assert "binary" in await fs.refused("read_text_file", path="data.bin")
        assert "use read_media_file" in await fs.refused("read_text_file", path="image.png")
        assert (await fs.refused("read_text_file", path="sub")).startswith("is a directory")


async def test_read_text_file_size_cap(era, workspace):
    big = workspace / "big.log"
    big.write_text("".join(f"line {i}\n" for i in range(200_000)))  # ~1.3 MiB
    async with fs_client(era, workspace) as fs:
        message = await fs.refused("read_text_file", path="big.log")
        assert "over the 1.0 MiB limit" in message and "head or tail" in message
        assert await fs.ok("read_text_file", path="big.log", head=2) == "line 0\nline 1\n"
        assert await fs.ok("read_text_file", path="big.log", tail=2) == "line 199998\nline 199999\n"
        assert "over the 1.0 MiB limit" in await fs.refused("read_text_file", path="big.log", tail=199_999)


async def test_read_text_file_refuses_a_fifo_without_hanging(era, workspace):
    os.mkfifo(workspace / "pipe")
    async with fs_client(era, workspace) as fs:
        assert (await fs.refused("read_text_file", path="pipe")).startswith("not a regular file")


async def test_read_media_file(era, workspace):
    async with fs_client(era, workspace) as fs:
        image = (await fs.call("read_media_file", path="image.png"))["content"][0]
        assert image["type"] == "image" and image["mimeType"] == "image/png"
        assert base64.b64decode(image["data"]) == PNG
        audio = (await fs.call("read_media_file", path="sound.wav"))["content"][0]
        assert audio["type"] == "audio" and audio["mimeType"] == "audio/wav"
        assert base64.b64decode(audio["data"]) == WAV
        assert "not an image or audio file" in await fs.refused("read_media_file", path="notes.txt")
        (workspace / "huge.png").write_bytes(b"\0" * (2 * 1024 * 1024 + 1))
        assert "over the 2.0 MiB limit" in await fs.refused("read_media_file", path="huge.png")


async def test_write_file(era, workspace):
    async with fs_client(era, workspace) as fs:
        assert (await fs.ok("write_file", path="new.txt", content="héllo\n")).startswith("Created")
        assert (workspace / "new.txt").read_text() == "héllo\n"
        os.chmod(workspace / "notes.txt", 0o600)
        assert (await fs.ok("write_file", path="notes.txt", content="replaced")).startswith("Replaced")
        assert (workspace / "notes.txt").read_text() == "replaced"
        assert stat.S_IMODE((workspace / "notes.txt").stat().st_mode) == 0o600  # mode kept
        assert (await fs.refused("write_file", path="no/such/dir/x.txt", content="x")).startswith("not found")
        assert (await fs.refused("write_file", path="sub", content="x")).startswith("is a directory")
        assert not [p for p in workspace.iterdir() if p.name.startswith(".mcptrio-")]  # no temp left


async def test_write_file_does_not_write_through_a_hard_link(era, workspace, outside):
    os.link(outside / "secret.txt", workspace / "hard.txt")  # tmp_path is one file system: links work
    async with fs_client(era, workspace) as fs:
        await fs.ok("write_file", path="hard.txt", content="new")
    assert (workspace / "hard.txt").read_text() == "new"
    assert (outside / "secret.txt").read_text().startswith("TOP-SECRET")


async def test_edit_file(era, workspace):
    async with fs_client(era, workspace) as fs:
        diff = await fs.ok("edit_file", path="notes.txt", old="three", new="THREE")
        assert "-three\n" in diff and "+THREE\n" in diff
        assert (workspace / "notes.txt").read_text() == "one\ntwo\nTHREE\nfour\nfive\n"
        assert "occurs 0 times" in await fs.refused("edit_file", path="notes.txt", old="three", new="x")
        message = await fs.refused("edit_file", path="notes.txt", old="o", new="0")
        assert "occurs 3 times" in message and "exactly once" in message
        assert "must not be empty" in await fs.refused("edit_file", path="notes.txt", old="", new="x")
        assert "binary" in await fs.refused("edit_file", path="data.bin", old="binary", new="x")
    assert (workspace / "notes.txt").read_text() == "one\ntwo\nTHREE\nfour\nfive\n"


async def test_create_directory(era, workspace):
    async with fs_client(era, workspace) as fs:
        assert (await fs.ok("create_directory", path="a/b/c")).startswith("Created directory")
        assert (workspace / "a" / "b" / "c").is_dir()
        assert (await fs.ok("create_directory", path="a/b/c")).endswith("already exists")
        assert (await fs.refused("create_directory", path="notes.txt/x")).startswith("not a directory")


async def test_move_file(era, workspace):
    async with fs_client(era, workspace) as fs:
        assert await fs.ok("move_file", source="notes.txt", destination="sub/moved.txt") == (
            f"Moved {workspace}/notes.txt to {workspace}/sub/moved.txt"
        )
        assert not (workspace / "notes.txt").exists() and (workspace / "sub" / "moved.txt").is_file()
        await fs.ok("move_file", source="sub/nested", destination="nested2")
        assert (workspace / "nested2" / "deep.txt").is_file()
        message = await fs.refused("move_file", source="image.png", destination="sound.wav")
        assert message == f"destination already exists: {workspace}/sound.wav"
        assert (workspace / "sound.wav").read_bytes() == WAV
        assert (await fs.refused("move_file", source="ghost", destination="x")).startswith("not found")
        assert "into itself" in await fs.refused("move_file", source="sub", destination="sub/inside")
        os.symlink("sub/inner.txt", workspace / "link.txt")  # a link inside is moved as a link
        await fs.ok("move_file", source="link.txt", destination="sub/link.txt")
        assert os.readlink(workspace / "sub" / "link.txt") == "sub/inner.txt"
        assert (workspace / "sub" / "inner.txt").read_text() == "inner\n"


async def test_search_files(era, workspace):
    async with fs_client(era, workspace) as fs:
        found = (await fs.ok("search_files", path=".", pattern="*.txt")).splitlines()
        assert found == [f"{workspace}/{p}" for p in ("notes.txt", "sub/inner.txt", "sub/nested/deep.txt")]
        assert (await fs.ok("search_files", path="sub", pattern="**/deep.*")) == f"{workspace}/sub/nested/deep.txt"
        assert (await fs.ok("search_files", path=".", pattern="sub/*.py")) == f"{workspace}/sub/code.py"
        assert (await fs.ok("search_files", path=".", pattern="s*")).splitlines() == [
            f"{workspace}/sound.wav",
            f"{workspace}/sub",
        ]
        limited = (await fs.ok("search_files", path=".", pattern="*", max_results=2)).splitlines()
        assert len(limited) == 3 and limited[-1] == "(stopped at max_results=2)"
        assert (await fs.ok("search_files", path=".", pattern="*.rs")).startswith("no matches")
        assert "'pattern'" in await fs.refused("search_files", path=".", pattern="/etc/*")
        assert "'max_results'" in await fs.refused("search_files", path=".", pattern="*", max_results=0)


async def test_get_file_info(era, workspace):
    async with fs_client(era, workspace) as fs:
        result = await fs.call("get_file_info", path="notes.txt")
        info = result["structuredContent"]
        assert info["path"] == f"{workspace}/notes.txt" and info["type"] == "file" and info["size"] == 24
        assert info["permissions"] == format(stat.S_IMODE((workspace / "notes.txt").stat().st_mode), "o")
        assert info["modified"].endswith("+00:00") and json.loads(result["content"][0]["text"]) == info
        folder = (await fs.call("get_file_info", path="sub"))["structuredContent"]
        assert folder["type"] == "directory"
        assert (await fs.call("get_file_info", path=str(workspace)))["structuredContent"]["type"] == "directory"
        assert (await fs.refused("get_file_info", path="nope")).startswith("not found")
        tools = {t["name"]: t for t in (await fs.client.request("tools/list"))["tools"]}
        schema = tools["get_file_info"]["outputSchema"]
        assert set(schema["required"]) >= {"path", "type", "size", "modified", "permissions"}


async def test_list_allowed_roots(era, workspace, tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    names = {workspace.as_uri(): "Workspace"}
    async with fs_client(era, workspace, other, "https://example.com/", names=names) as fs:
        text = await fs.ok("list_allowed_roots")
        assert text.splitlines() == ["Allowed roots (from client roots):", f"- {workspace}: Workspace", f"- {other}"]


async def test_relative_paths_and_file_uris(era, workspace, tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    (other / "o.txt").write_text("other root\n")
    async with fs_client(era, workspace, other) as fs:
        assert await fs.ok("read_text_file", path="sub/inner.txt") == "inner\n"  # relative: first root
        assert await fs.ok("read_text_file", path=(workspace / "sub" / "inner.txt").as_uri()) == "inner\n"
        assert await fs.ok("read_text_file", path=str(other / "o.txt")) == "other root\n"
        spaced = workspace / "with space.txt"
        spaced.write_text("spaced\n")
        assert await fs.ok("read_text_file", path=spaced.as_uri()) == "spaced\n"  # percent-decoded


async def test_file_resource_template(era, workspace, outside):
    async with fs_client(era, workspace) as fs:
        templates = await fs.client.request("resources/templates/list")
        assert templates["resourceTemplates"][0]["uriTemplate"] == "file:///{+path}"
        uri = (workspace / "notes.txt").as_uri()
        contents = (await fs.read_resource(uri))["contents"]
        assert contents == [{"uri": uri, "mimeType": "text/plain", "text": "one\ntwo\nthree\nfour\nfive\n"}]
        blob = (await fs.read_resource((workspace / "image.png").as_uri()))["contents"][0]
        assert blob["mimeType"] == "image/png" and base64.b64decode(blob["blob"]) == PNG
        with pytest.raises(McpError) as missing:
            await fs.read_resource((workspace / "missing.txt").as_uri())
        assert "not found" in missing.value.message
        with pytest.raises(McpError) as denied:
            await fs.read_resource((outside / "secret.txt").as_uri())
        assert denied.value.message.startswith("access denied")


async def test_annotations_are_truthful(workspace):
    async with fs_client("legacy", workspace) as fs:
        tools = {t["name"]: t["annotations"] for t in (await fs.client.request("tools/list"))["tools"]}
    read_only = {
        "list_directory",
        "read_text_file",
        "read_media_file",
        "search_files",
        "get_file_info",
        "list_allowed_roots",
    }
    assert {name for name, hints in tools.items() if hints["readOnlyHint"]} == read_only
    assert {name for name, hints in tools.items() if hints["destructiveHint"]} == {
        "write_file",
        "edit_file",
        "move_file",
    }
    assert {name for name, hints in tools.items() if not hints["idempotentHint"]} == {"edit_file", "move_file"}
    assert all(hints["openWorldHint"] is False for hints in tools.values())


def test_entry_point_and_cli_loading():
    [entry] = [e for e in entry_points(group="mcptrio.plugins") if e.name == "filesystem"]
    assert entry.value == "mcptrio_filesystem:plugin" and entry.load() is mcptrio_filesystem.plugin
    app = build_app(["filesystem"])
    assert "read_text_file" in app.tools and "file:///{+path}" in app.templates
