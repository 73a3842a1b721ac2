"""What ``mcptrio bundle`` and ``mcptrio registry-entry`` ship, read from a TARGET: an installed plugin
distribution (or one of its plugins' names), a project folder whose distribution is installed here, or
a served file.  Its name, version, description and author come from the package metadata (a file's
from its App and docstring); its tools, prompts and user settings from the plugins themselves, loaded
as ``serve`` loads them.  Every mistake is a ``UsageError``: one line for the user."""

from __future__ import annotations

import importlib.metadata
import re
import sys
import tomllib
from pathlib import Path

import attrs

from ..app import Registry, UserSetting
from ..app.plugin_options import OptionError
from ..targets import Target, load_target, looks_like_target, parse_target
from .usage import UsageError

GROUP = "mcptrio.plugins"


@attrs.frozen
class Shipped:
    """A server as it is described to the places it is published: who, what, and how it starts."""

    name: str  # the distribution's name, or the file's module name
    version: str
    description: str
    author: str | None
    title: str | None
    distribution: str | None  # the installed distribution shipped; None for a file
    plugins: list[str]  # the plugins `mcptrio serve --plugins` serves; [] for a file
    target: Target | None  # the served file
    settings: list[UserSetting]
    tools: list[tuple[str, str]]  # (name, description)
    prompts: list[tuple[str, str, list[str]]]  # (name, description, argument names)
    generated: bool  # the tools depend on user settings not given here: listed when the server starts
    urls: dict[str, str]  # the metadata's Project-URLs by lowercased label
    license: str | None
    keywords: list[str]
    requires_python: str | None


def shipped(text: str, *, author: str | None = None) -> Shipped:
    """The server ``text`` names (a file, a folder, a distribution or a plugin)."""
    path = Path(text).expanduser()
    if path.is_dir():
        return _distribution(_project_name(path), author)
    if text.endswith(".py") or ".py:" in text or (looks_like_target(text) and ("/" in text or ":" in text)):
        return _file(parse_target(text), author)
    return _distribution(_distribution_named(text), author)


def _project_name(folder: Path) -> str:
    try:
        project = tomllib.loads((folder / "pyproject.toml").read_text(encoding="utf-8")).get("project", {})
    except FileNotFoundError:
        raise UsageError(f"{folder}: no pyproject.toml (a project folder, a distribution or a file.py)") from None
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise UsageError(f"{folder / 'pyproject.toml'}: {exc}") from None
    name = project.get("name")
    if not isinstance(name, str):
        raise UsageError(f"{folder / 'pyproject.toml'}: no [project] name")
    try:
        importlib.metadata.distribution(name)
    except importlib.metadata.PackageNotFoundError:
        raise UsageError(f"{folder}: its project {name!r} is not installed here: pip install -e {folder}") from None
    return name


def _distribution_named(text: str) -> str:
    """An installed distribution's name: ``text`` itself, or the distribution that registers plugin ``text``."""
    try:
        return importlib.metadata.distribution(text).metadata["Name"]
    except importlib.metadata.PackageNotFoundError:
        pass
    for entry in importlib.metadata.entry_points(group=GROUP):
        if entry.name == text and entry.dist is not None:
            return entry.dist.metadata["Name"]
    raise UsageError(f"{text}: not an installed distribution, a plugin (see `mcptrio plugins`), a folder or a file.py")


def _distribution(name: str, author: str | None) -> Shipped:
    from .. import plugins

    dist = importlib.metadata.distribution(name)
    meta = dist.metadata
    names = sorted(entry.name for entry in dist.entry_points if entry.group == GROUP)
    if not names:
        raise UsageError(f"{name}: the distribution registers no mcptrio plugin (entry point group {GROUP!r})")
    if not _field(meta, "Version"):
        raise UsageError(f"{name}: the distribution has no version")
    registries, settings, generated = [], [], False
    for plugin_name in names:
        plugin = plugins.load(plugin_name)  # (a PluginError, one line, when it cannot be imported)
        settings += plugin.user_settings
        try:
            registries.append(plugins.configured(plugin, plugin_name, None))
        except OptionError:  # its tools come from settings the user gives: listed when it starts
            registries.append(Registry(plugin_name))
            generated = True
        settings += registries[-1].user_settings
    return Shipped(
        name=meta["Name"],
        version=meta["Version"],
        description=_field(meta, "Summary") or "",
        author=author or _author(_field(meta, "Author"), _field(meta, "Author-email")),
        title=registries[0].title if len(registries) == 1 else None,
        distribution=meta["Name"],
        plugins=names,
        target=None,
        settings=list(dict.fromkeys(settings)),
        tools=[tool for registry in registries for tool in _tools(registry)],
        prompts=[prompt for registry in registries for prompt in _prompts(registry)],
        generated=generated,
        urls=_urls(meta.get_all("Project-URL") or [], _field(meta, "Home-page")),
        license=_field(meta, "License-Expression") or _field(meta, "License"),
        keywords=[k.strip() for k in (_field(meta, "Keywords") or "").split(",") if k.strip()],
        requires_python=_field(meta, "Requires-Python"),
    )


def _file(target: Target, author: str | None) -> Shipped:
    registry = load_target(target)  # (a TargetError, one line, when it cannot be imported)
    if not registry.version:
        raise UsageError(f"{target.text}: no version: serve an App(version=...) or give the Registry a version")
    doc = (sys.modules[target.module].__doc__ or "").strip()
    return Shipped(
        name=target.module.rsplit(".", 1)[-1],
        version=registry.version,
        description=doc.split("\n\n")[0].replace("\n", " ") or f"{registry.name or target.module}, an MCP server",
        author=author,
        title=registry.title,
        distribution=None,
        plugins=[],
        target=target,
        settings=list(registry.user_settings),
        tools=_tools(registry),
        prompts=_prompts(registry),
        generated=False,
        urls={},
        license=None,
        keywords=[],
        requires_python=None,
    )


def _field(meta: importlib.metadata.PackageMetadata, key: str) -> str | None:
    """One metadata field, None when absent."""
    values = meta.get_all(key)
    return str(values[0]) if values else None


def _tools(registry: Registry) -> list[tuple[str, str]]:
    return [(name, entry.definition().get("description") or "") for name, entry in registry.tools.items()]


def _prompts(registry: Registry) -> list[tuple[str, str, list[str]]]:
    out = []
    for name, entry in registry.prompts.items():
        definition = entry.definition()
        arguments = [argument["name"] for argument in definition.get("arguments", [])]
        out.append((name, definition.get("description") or "", arguments))
    return out


def _author(name: str | None, email: str | None) -> str | None:
    """The author's name: ``Author``, else the name in ``Author-email`` (``Name <mail>``)."""
    if name:
        return name
    if email:
        match = re.match(r'\s*"?([^"<,]+?)"?\s*<', email)
        return match.group(1) if match else email.split(",")[0].strip()
    return None


def _urls(project_urls: list[str], home_page: str | None) -> dict[str, str]:
    urls = {}
    for line in project_urls:
        label, _, url = line.partition(",")
        urls[label.strip().lower()] = url.strip()
    if home_page:
        urls.setdefault("homepage", home_page)
    return urls
