"""mcptrio.installed (versions) and mcptrio.plugins (entry points) read dist-info folders as importlib.metadata
finds them, without importing it."""

import importlib.metadata
import sys

from mcptrio import installed, plugins
from mcptrio.plugins import GROUP


def test_it_agrees_with_importlib_metadata_here():
    expected: dict[str, str] = {}
    for entry in importlib.metadata.entry_points(group=GROUP):
        expected.setdefault(entry.name, entry.value)
    assert plugins.entry_points_on_path() == expected
    assert installed.version("mcptrio") == importlib.metadata.version("mcptrio")
    assert installed.version("no-such-distribution") is None


def test_the_first_distribution_of_a_name_on_the_path_counts(tmp_path, monkeypatch):
    for folder, version, value in (("a", "2.0", "new:plugin"), ("b", "1.0", "old:plugin")):
        info = tmp_path / folder / f"Some_Plugin-{version}.dist-info"
        info.mkdir(parents=True)
        (info / "entry_points.txt").write_text(
            f"# a comment\n[console_scripts]\nsome = x:y\n\n[{GROUP}]\nsome = {value}\n; another\n"
            "[other.group]\nsome = z:w\n"
        )
    monkeypatch.setattr(sys, "path", [str(tmp_path / "a"), str(tmp_path / "b"), str(tmp_path / "missing")])
    assert plugins.entry_points_on_path() == {"some": "new:plugin"}  # (not the other group's some = z:w)
    assert plugins.entry_point("some") == "new:plugin"
    assert installed.version("some-plugin") == "2.0"


def test_a_version_not_in_the_folder_name_is_read_from_the_metadata(tmp_path, monkeypatch):
    info = tmp_path / "checkout_thing.egg-info"  # (what building in a checkout leaves there)
    info.mkdir()
    (info / "PKG-INFO").write_text("Metadata-Version: 2.1\nName: checkout-thing\nVersion: 3.4.5\n\nA description.\n")
    monkeypatch.setattr(sys, "path", [str(tmp_path)])
    assert installed.version("checkout_thing") == "3.4.5"
