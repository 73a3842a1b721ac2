"""Plugin discovery and loading: entry points in the group ``mcptrio.plugins``.

A plugin distribution declares ``[project.entry-points."mcptrio.plugins"] name = "module:plugin"``
where ``plugin`` is a ``mcptrio.Registry``.  Plugins load in the order they are named, so
composition is deterministic; any failure is a ``PluginError`` that names the plugin and why.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

import attrs

from . import installed as installed_
from .app import App
from .app import Registry

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


def _entry_points() -> dict[str, EntryPoint]:
    from importlib.metadata import entry_points

    found: dict[str, EntryPoint] = {}
    for entry in sorted(entry_points(group=GROUP), key=lambda e: e.name):
        found.setdefault(entry.name, entry)
    return found


class _PathEntryPoint:
    """A plugin's entry point found by ``installed.entry_points`` (``load`` as EntryPoint's)."""

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


def entry_point(name: str) -> str | None:
    """The plugin ``name``'s ``"module:attribute"``, looked for as ``load`` does; None if none is installed."""
    value = installed_.entry_points(GROUP).get(name)
    if value is None:
        entry = _entry_points().get(name)
        value = entry.value if entry is not None else None
    return value


def load(name: str, on_path: dict[str, str] | None = None) -> Registry:
    """The plugin ``name``: looked for in ``sys.path``'s dist-info folders (``on_path``: read once
    per app), then by ``importlib.metadata`` (zipped eggs, other finders)."""
    value = (on_path if on_path is not None else installed_.entry_points(GROUP)).get(name)
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
    on_path = installed_.entry_points(GROUP)
    for name in names:
        plugin = load(name, on_path)
        if not plugin.name:
            plugin.name = name
        try:
            app.include(plugin, prefix=prefixes.get(name))
        except (ValueError, TypeError) as exc:
            raise PluginError(f"failed to load plugin {name!r}: {exc}") from exc
    return app
