"""The confinement and glob code on its own, without a client."""

from __future__ import annotations

import os

import pytest
from mcptrio_filesystem import fsops, reading
from mcptrio_filesystem.errors import AccessDenied, FsError
from mcptrio_filesystem.paths import Root, Sandbox, file_uri_path
from mcptrio_filesystem.search import glob_segments, matches


@pytest.mark.parametrize(
    ("pattern", "path", "expected"),
    [
        ("*.txt", "a.txt", True),
        ("*.txt", "x/y/a.txt", True),
        ("*.txt", "a.txt/b", False),
        ("sub/*.py", "sub/a.py", True),
        ("sub/*.py", "sub/x/a.py", False),
        ("sub/*.py", "x/sub/a.py", False),
        ("sub/**/*.py", "sub/a.py", True),
        ("sub/**/*.py", "sub/x/y/a.py", True),
        ("**", "a/b", True),
        ("a/**", "a", True),
        ("a/**", "a/b/c", True),
        ("**/b/**/c", "x/b/y/z/c", True),
        ("**/b/**/c", "x/c", False),
        ("[ab]?.md", "deep/bx.md", True),
        ("[!ab]?.md", "bx.md", False),
        ("*", ".hidden", True),
    ],
)
def test_glob(pattern, path, expected):
    assert matches(tuple(path.split("/")), glob_segments(pattern)) is expected


def sandbox_for(*directories) -> Sandbox:
    return Sandbox(tuple(Root.for_directory(str(d)) for d in directories), "test")


def test_absolute_normalises_and_refuses_without_touching_the_disk(tmp_path):
    box = sandbox_for(tmp_path)
    assert box.absolute("a//b/./c/") == f"{tmp_path}/a/b/c"
    assert box.absolute((tmp_path / "x y").as_uri()) == f"{tmp_path}/x y"
    for bad, reason in [
        ("", "empty"),
        ("a\0b", "NUL"),
        ("a/../b", "'..'"),
        ("..", "'..'"),
        ("file://host/x", "not a path"),
        ("file:///a/%2E%2E/b", "'..'"),
    ]:
        with pytest.raises(FsError, match=reason):
            box.absolute(bad)
    with pytest.raises(AccessDenied):
        box.locate(str(tmp_path.parent / "elsewhere"))
    assert box.absolute("...") == f"{tmp_path}/..."  # a name of three dots is just a name


def test_file_uri_path():
    assert file_uri_path("file:///a/b%20c") == "/a/b c"
    assert file_uri_path("file://localhost/a") == "/a"
    for uri in ("https://x/a", "file://server/share"):
        with pytest.raises(ValueError):
            file_uri_path(uri)


def test_roots_skip_what_is_not_an_existing_directory(tmp_path):
    (tmp_path / "f").write_text("x")
    assert Root.for_directory(str(tmp_path / "f")) is None
    assert Root.for_directory(str(tmp_path / "missing")) is None
    assert Root.for_directory("relative/dir") is None
    assert Root.for_directory(str(tmp_path) + "\0") is None


def test_a_checked_location_is_not_followed_once_its_parent_becomes_a_link(tmp_path):
    """Check-then-use race at the I/O layer: every operation walks with O_NOFOLLOW."""
    root, outside = tmp_path / "root", tmp_path / "outside"
    (root / "d").mkdir(parents=True)
    (root / "d" / "f.txt").write_text("inside\n")
    outside.mkdir()
    (outside / "f.txt").write_text("outside\n")
    box = sandbox_for(root)
    checked = {name: box.locate(f"d/{name}") for name in ("f.txt", "new.txt", "newdir")}
    os.rename(root / "d", root / "d-moved")
    os.symlink(outside, root / "d")
    with pytest.raises(AccessDenied):
        reading.read_text(checked["f.txt"], None, None)
    with pytest.raises(AccessDenied):
        fsops.replace(checked["new.txt"], b"pwned")
    with pytest.raises(AccessDenied):
        fsops.make_dirs(checked["newdir"])
    with pytest.raises(AccessDenied):
        fsops.lstat(checked["f.txt"])
    assert sorted(p.name for p in outside.iterdir()) == ["f.txt"]
    assert (outside / "f.txt").read_text() == "outside\n"


def test_a_target_swapped_for_a_link_is_replaced_not_followed(tmp_path):
    root, outside = tmp_path / "root", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (root / "f.txt").write_text("inside\n")
    (outside / "g.txt").write_text("outside\n")
    checked = sandbox_for(root).locate("f.txt")
    os.remove(root / "f.txt")
    os.symlink(outside / "g.txt", root / "f.txt")
    with pytest.raises(AccessDenied):
        reading.read_text(checked, None, None)  # O_NOFOLLOW on the file itself
    with pytest.raises(AccessDenied):
        fsops.replace(checked, b"pwned")
    assert (outside / "g.txt").read_text() == "outside\n"
