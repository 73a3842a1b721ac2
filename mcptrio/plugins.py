"""Plugin discovery and loading: entry points in the group ``mcptrio.plugins``, found here only.

A plugin distribution declares ``[project.entry-points."mcptrio.plugins"] name = "module:plugin"``
where ``plugin`` is a ``mcptrio.Registry``.  Entry points are read from the dist-info folders on
``sys.path`` (``entry_points_on_path``: quick, without importlib.metadata), and asked of importlib.metadata
when that finds nothing (zipped eggs, other finders).  Plugins load in the order they are named,
so composition is deterministic; any failure is a ``PluginError`` that names the plugin and why.
"""

from __future__ import annotations

import importlib
import os
from typing import TYPE_CHECKING, Any

import attrs

from . import installed as installed_
from .app import App, Registry

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

GROUP = "mcptrio.plugins"


class PluginError(Exception):
    """A plugin could not be found, imported or composed; the message is one line for a user."""


@attrs.frozen
class PluginInfo:
    name: str
    value: str  # "module:attribute"
    distribution: str
    version: str


def entry_points_on_path() -> dict[str, str]:
    """``name: "module:attribute"`` of every plugin in the dist-info folders on ``sys.path``; of
    several with one name, the first (by distribution, in path order, as importlib.metadata finds it)."""
    found: dict[str, str] = {}
    for _, _, folder in installed_.distributions():
        try:
            with open(os.path.join(folder, "entry_points.txt"), encoding="utf-8") as f:
                text = f.read()
        except OSError:
            continue
        for name, value in _section(text, GROUP):
            found.setdefault(name, value)
    return found


def _section(text: str, group: str) -> list[tuple[str, str]]:
    """The ``name = value`` lines of one section of an entry_points.txt."""
    section, out = None, []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1].strip()
        elif section == group and "=" in line:
            name, _, value = line.partition("=")
            out.append((name.strip(), value.strip()))
    return out


def entry_point(name: str) -> str | None:
    """The plugin ``name``'s ``"module:attribute"``, looked for as ``load`` does; None if none is installed."""
    value = entry_points_on_path().get(name)
    if value is None:
        entry = _entry_points().get(name)
        value = entry.value if entry is not None else None
    return value


def _entry_points() -> dict[str, EntryPoint]:
    """Every plugin's entry point as importlib.metadata finds it (slower: the fallback)."""
    from importlib.metadata import entry_points

    found: dict[str, EntryPoint] = {}
    for entry in sorted(entry_points(group=GROUP), key=lambda e: e.name):
        found.setdefault(entry.name, entry)
    return found


class _PathEntryPoint:
    """A plugin's entry point found by ``entry_points_on_path`` (``load`` as EntryPoint's)."""

    def __init__(self, name: str, value: str) -> None:
        self.name, self.value = name, value

    def load(self) -> Any:
        module, _, attribute = self.value.partition(":")
        found: Any = importlib.import_module(module.strip())
        for part in attribute.split("[")[0].strip().split("."):
            if part:
                found = getattr(found, part)
        return found


def installed() -> list[PluginInfo]:
    """Every installed plugin, sorted by name."""
    out = []
    for name, entry in _entry_points().items():
        dist = entry.dist
        out.append(PluginInfo(name, entry.value, dist.name if dist else "?", dist.version if dist else "?"))
    return out


def load(name: str, on_path: dict[str, str] | None = None) -> Registry:
    """The plugin ``name``: looked for in ``sys.path``'s dist-info folders (``on_path``: read once
    per app), then by ``importlib.metadata`` (zipped eggs, other finders)."""
    value = (on_path if on_path is not None else entry_points_on_path()).get(name)
    entry: Any = _PathEntryPoint(name, value) if value is not None else _entry_points().get(name)
    if entry is None:
        known = ", ".join(sorted(_entry_points())) or "none installed"
        raise PluginError(f"failed to load plugin {name!r}: no such plugin (installed: {known})")
    try:
        plugin = entry.load()
    except Exception as exc:  # an import error of any kind is the plugin's, reported in one line
        raise PluginError(f"failed to load plugin {name!r}: {type(exc).__name__}: {exc}") from exc
    if not isinstance(plugin, Registry):
        raise PluginError(
            f"failed to load plugin {name!r}: {entry.value} is a {type(plugin).__name__}, not a mcptrio.Registry"
        )
    return plugin


def build_app(names: list[str], *, prefixes: dict[str, str] | None = None, **app_options: Any) -> App:
    """An App composed of the named plugins, in that order."""
    if not names:
        raise PluginError("no plugins named: pass --plugins a,b (see `mcptrio plugins`)")
    prefixes = prefixes or {}
    app = App(**app_options)
    on_path = entry_points_on_path()
    for name in names:
        plugin = load(name, on_path)
        if not plugin.name:
            plugin.name = name
        try:
            app.include(plugin, prefix=prefixes.get(name))
        except (ValueError, TypeError) as exc:
            raise PluginError(f"failed to load plugin {name!r}: {exc}") from exc
    try:
        app.visibility.check(app)
    except ValueError as exc:
        raise PluginError(str(exc)) from None
    return app
