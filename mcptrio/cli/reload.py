"""``mcptrio serve --reload``: when the source of a loaded plugin or of the target (a file or
module: its folder is watched) changes, load it again in the running process and swap the app's
handlers at once.  Sessions and calls in flight carry on;
clients hear ``list_changed``.  A plugin that fails to import or register is reported in one
line, and the last good version keeps serving."""

from __future__ import annotations

import importlib.util
import logging
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import trio

from ..app import App, PluginOptions
from ..plugins import PluginError, build_app, entry_point
from ..targets import load_target, parse_target

if TYPE_CHECKING:
    from .serve_settings import ServeSettings

log = logging.getLogger("mcptrio.reload")


def _package_of(name: str) -> str:
    value = entry_point(name)
    if value is None:
        raise PluginError(f"failed to load plugin {name!r}: no such plugin")
    return value.split(":")[0].split(".")[0]


def source_folders(names: list[str]) -> dict[str, Path]:
    """The top-level package (or module) of each plugin, and the folder its source is in."""
    out: dict[str, Path] = {}
    for name in names:
        package = _package_of(name)
        spec = importlib.util.find_spec(package)
        if spec is None or spec.origin is None:
            raise PluginError(f"cannot --reload plugin {name!r}: its source ({package}) is not a file")
        locations = list(spec.submodule_search_locations or [])
        out[package] = Path(locations[0]) if locations else Path(spec.origin).parent
    return out


def reload_plugins(
    app: App,
    names: list[str],
    prefixes: dict[str, str],
    packages: list[str],
    target: str | None = None,
    options: Mapping[str, PluginOptions] | None = None,
) -> None:
    """Import the plugins (and target) afresh and hand their handlers to ``app``; PluginError
    leaves it as it was.  The target's folder's modules import afresh too (``import helpers``)."""
    found = parse_target(target) if target is not None else None
    if found is not None:
        packages = [*packages, found.module.split(".")[0]]
    folders = [found.folder] if found is not None and found.file is not None else []
    saved = _forget_modules(packages, folders)
    try:
        fresh = build_app(
            names, prefixes=prefixes, options=options, target=load_target(target) if target is not None else None
        )
    except BaseException:
        _forget_modules(packages, folders)  # (what the failed import left half-made)
        sys.modules.update(saved)  # the modules the running handlers came from
        raise
    try:
        app.take_handlers(fresh)
    except ValueError as exc:  # (a reshaped tool that changed beyond it)
        raise PluginError(str(exc)) from None


def _forget_modules(packages: list[str], folders: list[Path]) -> dict[str, Any]:
    """Take the packages' modules, and those whose source is in the folders, out of ``sys.modules``
    (so they import afresh); what was there."""

    def inside(module: Any) -> bool:  # (and not installed: a project's .venv may be in its folder)
        source = getattr(module, "__file__", None)
        if source is None or Path(source).is_relative_to(sys.prefix) or "site-packages" in Path(source).parts:
            return False
        return any(Path(source).is_relative_to(folder) for folder in folders)

    gone = {
        key: module
        for key, module in sys.modules.items()
        if any(key == p or key.startswith(p + ".") for p in packages)
        or (folders and inside(module) and key.partition(".")[0] != "mcptrio")
    }
    for key in gone:
        del sys.modules[key]
    return gone


async def watch_served(
    app: App, settings: ServeSettings, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
) -> None:
    """``watch`` the plugins and target ``mcptrio serve`` was told to serve, with their options."""
    await watch(
        app,
        list(settings.plugins),
        settings.prefixes,
        settings.target,
        options=settings.plugin_options,
        task_status=task_status,
    )


async def watch(
    app: App,
    names: list[str],
    prefixes: dict[str, str],
    target: str | None = None,
    *,
    options: Mapping[str, PluginOptions] | None = None,
    task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Reload on every change of a plugin's or the target's Python source, until cancelled."""
    try:
        from watchfiles import awatch
    except ImportError:
        raise PluginError("--reload needs watchfiles: pip install 'mcptrio[dev]'") from None
    folders = source_folders(names)
    watched = [*folders.values(), *([parse_target(target).folder] if target is not None else [])]
    log.info("watching %s for changes", ", ".join(str(folder) for folder in watched))
    ready = False
    async for changes in awatch(*watched, debounce=100, step=20, yield_on_timeout=True, rust_timeout=200):
        if not ready:
            ready = True
            task_status.started()
        if not any(path.endswith(".py") for _, path in changes):
            continue  # (nothing, or not Python source)
        try:
            reload_plugins(app, names, prefixes, list(folders), target, options)
        except PluginError as exc:
            log.error("reload failed, the previous version keeps serving: %s", exc)
            continue
        log.info("reloaded %s", ", ".join([*([target] if target else []), *names]))
        await app.notify_tools_changed()
        await app.notify_prompts_changed()
        await app.notify_resources_changed()
