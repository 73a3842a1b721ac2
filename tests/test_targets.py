"""``mcptrio.targets``: how a TARGET string names a module, what goes on ``sys.path``, and what
``--reload`` watches (the CLI's behaviour is in tests/cli/test_serve_targets.py)."""

import re
from pathlib import Path

import pytest

from mcptrio.targets import Target, TargetError, parse_target, resolved_against


def test_a_plain_file_is_a_top_level_module_with_its_folder_as_root(tmp_path: Path) -> None:
    (tmp_path / "server.py").write_text("")
    target = parse_target(f"{tmp_path}/server.py:make")
    assert target == Target(f"{tmp_path}/server.py:make", "server", "make", tmp_path / "server.py", tmp_path)
    assert target.folder == tmp_path
    assert target.absolute == f"{tmp_path}/server.py:make"


def test_a_file_in_a_package_is_named_from_the_package_root(tmp_path: Path) -> None:
    package = tmp_path / "shop" / "api"
    package.mkdir(parents=True)
    for folder in (tmp_path / "shop", package):
        (folder / "__init__.py").write_text("")
    (package / "server.py").write_text("")
    target = parse_target(str(package / "server.py"))
    assert (target.module, target.root, target.attribute) == ("shop.api.server", tmp_path, None)
    assert target.folder == tmp_path / "shop"  # (the whole package is watched)


def test_a_module_is_imported_from_the_working_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    target = parse_target("pkg.server:app")
    assert (target.module, target.attribute, target.file, target.root) == ("pkg.server", "app", None, tmp_path)


@pytest.mark.parametrize(
    "text, says",
    [
        ("not a name", "not a Python file (path/to/file.py) or module name (pkg.module)"),
        ("pkg.module:no-such", "'no-such' is not an attribute name"),
        ("missing.py", "no such file"),
    ],
)
def test_what_cannot_be_a_target(text: str, says: str) -> None:
    with pytest.raises(TargetError, match=re.escape(says)):
        parse_target(text)


def test_a_relative_file_is_taken_from_a_folder_and_a_module_is_left_alone(tmp_path: Path) -> None:
    assert resolved_against("app.py:make", tmp_path) == f"{tmp_path}/app.py:make"
    assert resolved_against("/srv/app.py", tmp_path) == "/srv/app.py"
    assert resolved_against("pkg.module:make", tmp_path) == "pkg.module:make"
