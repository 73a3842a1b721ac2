"""One test per attack on the confinement, each in both eras.  A refusal is an ``isError`` result
whose text reveals no outside path, no outside content and no traceback, and nothing outside the
roots is read, created or changed."""

from __future__ import annotations

import os

import pytest
from filesystem_support import SECRET, assert_safe, fs_client
from mcptrio_filesystem import paths

from mcptrio import McpError


def untouched(outside):
    """The outside directory holds exactly what the fixture put there."""
    found = sorted(str(p.relative_to(outside)) for p in outside.rglob("*"))
    assert found == ["secret.txt", "sub", "sub/deep.txt"]
    assert (outside / "secret.txt").read_text() == SECRET + "\n"


async def refused_everywhere(fs, outside, path):
    """Every tool that takes a path refuses ``path``."""
    calls = [
        ("list_directory", {"path": path}),
        ("read_text_file", {"path": path}),
        ("read_text_file", {"path": path, "tail": 1}),
        ("read_media_file", {"path": path}),
        ("get_file_info", {"path": path}),
        ("search_files", {"path": path, "pattern": "*"}),
        ("write_file", {"path": path, "content": "pwned"}),
        ("edit_file", {"path": path, "old": "T", "new": "x"}),
        ("create_directory", {"path": path}),
        ("move_file", {"source": path, "destination": "stolen"}),
        ("move_file", {"source": "notes.txt", "destination": path}),
    ]
    for name, arguments in calls:
        text = await fs.refused(name, **arguments)
        assert text.startswith("access denied") or "'..'" in text, (name, text)
        assert_safe(text, outside)
    untouched(outside)


async def test_dotdot_traversal_refused(era, workspace, outside):
    async with fs_client(era, workspace) as fs:
        for path in (
            "../outside/secret.txt",
            "sub/../../outside/secret.txt",
            f"{workspace}/../outside",
            "sub/..",
            (workspace / "x").as_uri() + "/%2e%2e/%2e%2e/outside",
        ):
            await refused_everywhere(fs, outside, path)
            assert "'..' component" in await fs.refused("read_text_file", path=path)
        assert "'..'" in await fs.refused("search_files", path=".", pattern="../outside/*")


async def test_absolute_path_outside_refused(era, workspace, outside):
    async with fs_client(era, workspace) as fs:
        for path in (
            str(outside / "secret.txt"),
            str(outside),
            "/etc/passwd",
            "/",
            (outside / "secret.txt").as_uri(),
            f"{workspace}-sibling/x",
            "/" + str(workspace / "notes.txt"),
        ):
            await refused_everywhere(fs, outside, path)
        assert not os.path.exists(f"{workspace}-sibling")


async def test_symlink_file_escape_refused(era, workspace, outside):
    os.symlink(outside / "secret.txt", workspace / "link.txt")
    os.symlink("../outside/secret.txt", workspace / "relative-link.txt")
    os.symlink(outside / "new.txt", workspace / "dangling.txt")  # target does not exist yet
    async with fs_client(era, workspace) as fs:
        for path in ("link.txt", "relative-link.txt", "dangling.txt"):
            await refused_everywhere(fs, outside, path)
        with pytest.raises(McpError) as denied:
            await fs.read_resource((workspace / "link.txt").as_uri())
        assert denied.value.message.startswith("access denied") and SECRET not in denied.value.message
        listing = await fs.ok("list_directory", path=".")
        assert "[LINK] link.txt" in listing and str(outside) not in listing  # listed, target not shown
    untouched(outside)


async def test_symlink_dir_escape_refused(era, workspace, outside):
    os.symlink(outside, workspace / "out")
    async with fs_client(era, workspace) as fs:
        for path in ("out", "out/secret.txt", "out/new.txt", "out/newdir/deeper"):
            await refused_everywhere(fs, outside, path)
        # a search from the root sees the link's name but never descends into it
        assert await fs.ok(
            "search_files", path=".", pattern="**/secret*"
        ) == "no matches for '**/secret*' below " + str(workspace)
        assert str(outside) not in await fs.ok("search_files", path=".", pattern="*")


async def test_symlink_in_the_middle_of_the_path_refused(era, workspace, outside):
    os.symlink(outside, workspace / "sub" / "mid")
    os.symlink(workspace / "sub", workspace / "alias")  # a link that stays inside is fine
    async with fs_client(era, workspace) as fs:
        for path in ("sub/mid/sub/deep.txt", "alias/mid/secret.txt", "alias/mid/sub", "sub/mid/sub/new.txt"):
            await refused_everywhere(fs, outside, path)
        assert await fs.ok("read_text_file", path="alias/nested/deep.txt") == "deep\n"
        await fs.ok("write_file", path="alias/written.txt", content="ok")
    assert (workspace / "sub" / "written.txt").read_text() == "ok"


async def test_write_through_symlinked_parent_refused(era, workspace, outside):
    os.symlink(outside, workspace / "outdir")
    os.symlink(outside / "sub", workspace / "sub" / "linked")
    async with fs_client(era, workspace) as fs:
        for path in ("outdir/new.txt", "sub/linked/new.txt", "outdir/secret.txt", "sub/linked/deep.txt"):
            assert_safe(await fs.refused("write_file", path=path, content="pwned"), outside)
            assert_safe(await fs.refused("edit_file", path=path, old="TOP", new="x"), outside)
            assert_safe(await fs.refused("create_directory", path=path + ".d/x"), outside)
            assert_safe(await fs.refused("move_file", source="notes.txt", destination=path), outside)
    untouched(outside)


async def test_symlink_swapped_in_for_the_parent_after_the_check_refused(era, workspace, outside, monkeypatch):
    """A race: the write target's parent becomes a symlink to outside between the check and the I/O."""
    original = paths.Sandbox.locate

    def locate_then_swap(self, path, arg="path", *, follow=True):
        location = original(self, path, arg, follow=follow)
        if (workspace / "sub").is_dir() and not (workspace / "sub").is_symlink():
            os.rename(workspace / "sub", workspace / "sub-moved")
            os.symlink(outside, workspace / "sub")
        return location

    monkeypatch.setattr(paths.Sandbox, "locate", locate_then_swap)
    async with fs_client(era, workspace) as fs:
        text = await fs.refused("write_file", path="sub/new.txt", content="pwned")
        assert text == "access denied: 'path' leads through a symbolic link that cannot be followed safely"
        for name, arguments in [
            ("write_file", {"path": "sub/secret.txt", "content": "pwned"}),
            ("create_directory", {"path": "sub/made"}),
            ("read_text_file", {"path": "sub/secret.txt"}),
            ("list_directory", {"path": "sub"}),
            ("get_file_info", {"path": "sub/secret.txt"}),
            ("move_file", {"source": "notes.txt", "destination": "sub/notes.txt"}),
        ]:
            assert (await fs.refused(name, **arguments)).startswith("access denied"), name
    untouched(outside)


async def test_move_into_and_out_of_the_roots_refused(era, workspace, outside):
    os.symlink(outside / "secret.txt", workspace / "link.txt")
    os.symlink(outside, workspace / "out")
    async with fs_client(era, workspace) as fs:
        out_of = [
            ("notes.txt", str(outside / "notes.txt")),
            ("sub", str(outside / "sub2")),
            ("notes.txt", "out/notes.txt"),
            ("notes.txt", "../outside/notes.txt"),
        ]
        into = [
            (str(outside / "secret.txt"), "stolen.txt"),
            ("out/secret.txt", "stolen.txt"),
            ("link.txt", "moved-link.txt"),
            (str(outside / "sub"), "stolen-dir"),
        ]
        for source, destination in out_of + into:
            assert_safe(await fs.refused("move_file", source=source, destination=destination), outside)
        assert "allowed root itself" in await fs.refused("move_file", source=str(workspace), destination="x")
    assert (workspace / "notes.txt").is_file() and (workspace / "sub").is_dir()
    assert not (workspace / "stolen.txt").exists() and not (workspace / "stolen-dir").exists()
    untouched(outside)


async def test_nul_byte_refused(era, workspace, outside):
    async with fs_client(era, workspace) as fs:
        for path in ("notes.txt\x00.png", "sub\x00/../../outside", (workspace / "notes.txt").as_uri() + "%00.png"):
            for name, arguments in [
                ("read_text_file", {"path": path}),
                ("write_file", {"path": path, "content": "x"}),
                ("create_directory", {"path": path}),
                ("get_file_info", {"path": path}),
            ]:
                assert "NUL byte" in await fs.refused(name, **arguments)
        assert "NUL" in await fs.refused("search_files", path=".", pattern="*\x00")
        with pytest.raises(McpError) as bad:
            await fs.read_resource((workspace / "notes.txt").as_uri() + "%00")
        assert "NUL byte" in bad.value.message
    assert sorted(p.name for p in workspace.iterdir()) == ["data.bin", "image.png", "notes.txt", "sound.wav", "sub"]
    untouched(outside)


async def test_root_that_is_a_symlink_is_resolved_and_allowed(era, workspace, outside, tmp_path):
    link_root = tmp_path / "root-link"
    os.symlink(workspace, link_root)
    os.symlink(outside, workspace / "out")
    async with fs_client(era, link_root) as fs:
        assert await fs.ok("read_text_file", path=str(link_root / "sub" / "inner.txt")) == "inner\n"
        assert await fs.ok("read_text_file", path=str(workspace / "sub" / "inner.txt")) == "inner\n"
        assert await fs.ok("read_text_file", path="notes.txt", head=1) == "one\n"
        await fs.ok("write_file", path=str(link_root / "made.txt"), content="made")
        assert (workspace / "made.txt").read_text() == "made"
        roots = await fs.ok("list_allowed_roots")
        assert f"- {link_root} (resolves to {workspace})" in roots
        for path in ("out/secret.txt", str(link_root / "out"), f"{link_root}/../outside/secret.txt"):
            await refused_everywhere(fs, outside, path)


async def test_env_var_fallback_when_the_client_has_no_roots(era, workspace, outside, tmp_path, monkeypatch):
    second = tmp_path / "second"
    second.mkdir()
    (second / "s.txt").write_text("second root\n")
    monkeypatch.setenv("MCPTRIO_FS_ROOTS", os.pathsep.join([str(workspace), str(tmp_path / "missing"), str(second)]))
    async with fs_client(era, declare_roots=False) as fs:
        assert await fs.ok("read_text_file", path="notes.txt", head=1) == "one\n"
        assert await fs.ok("read_text_file", path=str(second / "s.txt")) == "second root\n"
        assert (await fs.ok("list_allowed_roots")).splitlines() == [
            "Allowed roots (from MCPTRIO_FS_ROOTS):",
            f"- {workspace}",
            f"- {second}",
        ]
        await refused_everywhere(fs, outside, str(outside / "secret.txt"))
        contents = (await fs.read_resource((workspace / "notes.txt").as_uri()))["contents"]
        assert contents[0]["text"].startswith("one\n")


async def test_client_roots_win_over_the_env_var(era, workspace, outside, monkeypatch):
    monkeypatch.setenv("MCPTRIO_FS_ROOTS", str(outside))
    async with fs_client(era, workspace) as fs:
        await refused_everywhere(fs, outside, str(outside / "secret.txt"))


async def test_no_roots_at_all_refused(era, workspace, outside):
    async with fs_client(era, declare_roots=False) as fs:
        for name, arguments in [
            ("list_allowed_roots", {}),
            ("read_text_file", {"path": str(workspace / "notes.txt")}),
            ("write_file", {"path": str(workspace / "x.txt"), "content": "x"}),
            ("list_directory", {"path": "/"}),
        ]:
            text = await fs.refused(name, **arguments)
            assert text.startswith("access denied: no allowed roots") and "MCPTRIO_FS_ROOTS" in text
        with pytest.raises(McpError) as refused:
            await fs.read_resource((workspace / "notes.txt").as_uri())
        assert "no allowed roots" in refused.value.message
    assert not (workspace / "x.txt").exists()


async def test_client_roots_that_are_not_local_directories_refused(era, workspace, outside):
    async with fs_client(
        era,
        "https://example.com/repo",
        "file://otherhost/srv",
        (workspace / "notes.txt").as_uri(),
        (workspace / "missing").as_uri(),
    ) as fs:
        text = await fs.refused("read_text_file", path=str(workspace / "notes.txt"))
        assert text.startswith("access denied: none of the client's roots")
