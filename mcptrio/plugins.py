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
from .app.plugin_options import OptionError, PluginOptions

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from importlib.metadata import EntryPoint

    from .app.app import Proxied

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
    return {name: found[0].value for name, found in registrations_on_path().items()}


def registrations_on_path() -> dict[str, list[PluginInfo]]:
    """Every plugin name in the dist-info folders on ``sys.path``, with each distribution that
    registers it, in path order (more than one is a clash ``load`` refuses)."""
    found: dict[str, list[PluginInfo]] = {}
    for dist, version, folder in installed_.distributions():
        try:
            with open(os.path.join(folder, "entry_points.txt"), encoding="utf-8") as f:
                text = f.read()
        except OSError:
            continue
        for name, value in _section(text, GROUP):
            found.setdefault(name, []).append(PluginInfo(name, value, dist, version))
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
    """Every installed plugin, sorted by name; a name two distributions register is there twice."""
    from importlib.metadata import entry_points

    out = []
    for entry in entry_points(group=GROUP):
        dist = entry.dist
        out.append(PluginInfo(entry.name, entry.value, dist.name if dist else "?", dist.version if dist else "?"))
    return sorted(out, key=lambda info: (info.name, info.distribution))


def clash(name: str, found: list[PluginInfo]) -> str:
    """The one line that refuses a plugin name several distributions register."""
    owners = " and ".join(f"{info.distribution} {info.version}".strip() + f" ({info.value})" for info in found)
    return (
        f"failed to load plugin {name!r}: {len(found)} installed distributions register it: {owners}; "
        "uninstall all but one"
    )


def load(name: str, on_path: dict[str, list[PluginInfo]] | None = None) -> Registry:
    """The plugin ``name``: looked for in ``sys.path``'s dist-info folders (``on_path``: read once
    per app), then by ``importlib.metadata`` (zipped eggs, other finders).  Refused when several
    distributions register the name: which one would load is an accident of the path."""
    registered = (on_path if on_path is not None else registrations_on_path()).get(name, [])
    if len({info.distribution for info in registered}) > 1:
        raise PluginError(clash(name, registered))
    entry: Any = _PathEntryPoint(name, registered[0].value) if registered else _entry_points().get(name)
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


def build_app(
    names: list[str],
    *,
    prefixes: dict[str, str] | None = None,
    target: Registry | None = None,
    name: str | None = None,
    title: str | None = None,
    version: str | None = None,
    proxies: Sequence[Proxied] = (),
    options: Mapping[str, PluginOptions] | None = None,
    **app_options: Any,
) -> App:
    """An App composed of ``target`` (a Registry or App from a file or module) and the named
    plugins, in that order.  An App target is served as itself, the plugins included into it.

    Who the server says it is (``name``, ``title``, ``version``, where not given): the one plugin's
    or target's own (a plugin's version: its distribution's), else ``mcptrio`` and its version.
    ``proxies`` (a gateway's upstreams) are served beside them (``App.proxy``).  ``options``: each
    plugin's own settings by name, handed to its ``@plugin.configure`` hook (one a plugin served
    does not name, or one for a plugin without a hook, is refused)."""
    if not names and target is None and not proxies:
        raise PluginError(
            "nothing to serve: name a file or module (mcptrio serve app.py), plugins (--plugins a,b) "
            "or upstream servers (--upstream NAME=COMMAND-OR-URL)"
        )
    prefixes = prefixes or {}
    on_path = registrations_on_path()
    options = options or {}
    stray = sorted(set(options) - set(names))
    if stray:
        raise PluginError(f"[plugins.{stray[0]}]: {stray[0]!r} is not among the plugins served (--plugins)")
    loaded = []
    for plugin_name in names:
        try:
            loaded.append((plugin_name, configured(load(plugin_name, on_path), plugin_name, options.get(plugin_name))))
        except OptionError as exc:
            raise PluginError(str(exc)) from None
    for plugin_name, plugin in loaded:
        if not plugin.name:
            plugin.name = plugin_name
    if isinstance(target, App):
        app = target
        app.set_identity(name=name, title=title, version=version, instructions=app_options.get("instructions"))
    else:
        sources = [*([target] if target is not None else []), *(plugin for _, plugin in loaded)]
        alone = sources[0] if len(sources) == 1 else None
        if alone is not None:
            name = name or alone.name or None
            title = title if title is not None else alone.title
            version = version or alone.version or (_version_of(names[0], on_path) if target is None else None)
        app = App(name=name or "mcptrio", version=version or installed_.own_version(), title=title, **app_options)
        if target is not None:
            _include(app, target, None, target.name or "target")
    for plugin_name, plugin in loaded:
        _include(app, plugin, prefixes.get(plugin_name), plugin_name)
    for upstream in proxies:
        try:
            app.proxy(upstream)
        except ValueError as exc:
            raise PluginError(str(exc)) from None
    try:
        app.check()
    except ValueError as exc:
        raise PluginError(str(exc)) from None
    return app


def configured(plugin: Registry, name: str, options: PluginOptions | None) -> Registry:
    """The registry to serve for ``plugin`` given its options: its ``@plugin.configure`` hook's
    (``OptionError`` when they are wrong, or given to a plugin that takes none)."""
    hook = plugin.configure_hook
    if hook is None:
        if options is not None and options.values:
            raise OptionError(f"[plugins.{name}]: the plugin {name!r} takes no options")
        return plugin
    options = options if options is not None else PluginOptions(name)
    for setting in plugin.user_settings:  # (a setting's variable fills its option when not given otherwise)
        value = os.environ.get(setting.env, "")
        unfilled = value.startswith("${user_config.")  # (a bundle's optional setting the client left as it was)
        if setting.option is not None and value.strip() and not unfilled and not options.given(setting.option):
            options.values[setting.option] = value
    served = hook(options)
    unknown = options.unread()
    if unknown:
        raise OptionError(f"unknown plugin option(s): {', '.join(sorted(unknown))}")
    return plugin if served is None else served


def _include(app: App, plugin: Registry, prefix: str | None, name: str) -> None:
    try:
        app.include(plugin, prefix=prefix)
    except (ValueError, TypeError) as exc:
        raise PluginError(f"failed to load plugin {name!r}: {exc}") from exc


def _version_of(name: str, on_path: dict[str, list[PluginInfo]]) -> str | None:
    """The version of the distribution that registers the plugin ``name``, when it says one."""
    registered = on_path.get(name)
    return registered[0].version or installed_.version(registered[0].distribution) if registered else None
