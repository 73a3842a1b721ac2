"""``mcptrio registry-entry TARGET``: the ``server.json`` that publishes a server in the MCP Registry.

The entry names the package on PyPI, started over stdio by ``uvx PACKAGE==VERSION serve --plugins
NAMES`` (the package's console script of its own name runs ``mcptrio``), with the plugins' user
settings as its environment variables, and, with ``--url``, the Streamable HTTP endpoint where it is
also served.  The name is the registry's reverse-DNS ``NAMESPACE/NAME``: given with ``--name``, or
made from a GitHub source URL in the metadata (``io.github.OWNER/PACKAGE``).
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import re
from pathlib import Path
from typing import Any

from ..app import UserSetting
from .shipped import Shipped, shipped
from .usage import Parser, UsageError

SCHEMA = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"
# The registry's server name: a reverse-DNS namespace, one '/', the server's name.
NAME = re.compile(r"^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$")
GITHUB = re.compile(r"^https?://github\.com/([A-Za-z0-9-]+)/([A-Za-z0-9._-]+?)(?:\.git)?/?$")
DESCRIPTION_LIMIT = 100  # the schema's maxLength


def add_command(commands: argparse._SubParsersAction[Parser]) -> None:
    entry = commands.add_parser(
        "registry-entry",
        help="write the server.json that publishes a server in the MCP Registry",
        description="Write TARGET's server.json for the MCP Registry: its package on PyPI, started with uvx over "
        "stdio, its user settings as environment variables, and a Streamable HTTP remote with --url.",
    )
    entry.add_argument("target", metavar="TARGET", help="an installed distribution or plugin, or a project folder")
    entry.add_argument("--name", help="the registry name, NAMESPACE/NAME (default: io.github.OWNER/PACKAGE)")
    entry.add_argument("--url", help="an https:// Streamable HTTP endpoint where the server is also served")
    entry.add_argument("--out", type=Path, default=Path("server.json"), help="the file to write (default: %(default)s)")


def run(args: argparse.Namespace) -> int:
    server = shipped(args.target)
    if server.distribution is None:
        raise UsageError(f"{args.target}: a registry entry names a package on PyPI: give a distribution or project")
    name = registry_name(server, args.name)
    _check_script(server.distribution)
    entry = server_json(server, name, url=args.url)
    try:
        args.out.write_text(json.dumps(entry, indent=2) + "\n", encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"--out {args.out}: {exc.strerror or exc}") from None
    print(f"wrote {args.out}: {entry['name']} {entry['version']}")
    return 0


def registry_name(server: Shipped, given: str | None) -> str:
    """``--name``, checked; else ``io.github.OWNER/PACKAGE`` from a GitHub source URL in the metadata."""
    if given is not None:
        if not NAME.match(given) or len(given) > 200:
            raise UsageError(f"--name {given!r}: the registry's form is NAMESPACE/NAME, as io.github.user/weather")
        return given
    for label in ("source", "repository", "homepage"):
        match = GITHUB.match(server.urls.get(label, ""))
        if match:
            return f"io.github.{match.group(1)}/{server.name}"
    raise UsageError(
        f"{server.name}: no GitHub source URL in its metadata to name it io.github.OWNER/{server.name}: give --name"
    )


def _check_script(distribution: str) -> None:
    """uvx runs the package's console script of its own name: refuse an entry that could not start."""
    scripts = importlib.metadata.distribution(distribution).entry_points.select(group="console_scripts")
    if distribution not in scripts.names:
        raise UsageError(
            f"{distribution}: uvx runs its console script {distribution!r}, which it lacks: add "
            f'[project.scripts] {distribution} = "mcptrio.cli:main" to its pyproject.toml'
        )


def server_json(server: Shipped, name: str, *, url: str | None) -> dict[str, Any]:
    """The ``server.json`` of the registry's 2025-12-11 schema."""
    if url is not None and not url.startswith(("https://", "http://")):
        raise UsageError(f"--url {url!r}: the Streamable HTTP endpoint's http(s):// URL")
    description = server.description or server.name
    if len(description) > DESCRIPTION_LIMIT:
        description = description[: DESCRIPTION_LIMIT - 1].rstrip() + "…"
    package: dict[str, Any] = {
        "registryType": "pypi",
        "identifier": server.distribution,
        "version": server.version,
        "runtimeHint": "uvx",
        "transport": {"type": "stdio"},
        "packageArguments": [
            {"type": "positional", "value": value} for value in ("serve", "--plugins", ",".join(server.plugins))
        ],
    }
    if server.requires_python:  # (uvx would otherwise run it on whatever Python it finds first)
        package["runtimeArguments"] = [{"type": "named", "name": "--python", "value": server.requires_python}]
    if server.settings:
        package["environmentVariables"] = [_variable(setting) for setting in server.settings]
    entry: dict[str, Any] = {
        "$schema": SCHEMA,
        "name": name,
        "description": description,
        "version": server.version,
    }
    if server.title:
        entry["title"] = server.title
    source = server.urls.get("source") or server.urls.get("repository")
    if source and GITHUB.match(source):
        entry["repository"] = {"url": source, "source": "github"}
    if "homepage" in server.urls:
        entry["websiteUrl"] = server.urls["homepage"]
    entry["packages"] = [package]
    if url is not None:
        entry["remotes"] = [{"type": "streamable-http", "url": url}]
    return entry


def _variable(setting: UserSetting) -> dict[str, Any]:
    variable: dict[str, Any] = {"name": setting.env, "description": f"{setting.title}: {setting.description}"}
    if setting.required:
        variable["isRequired"] = True
    if setting.sensitive:
        variable["isSecret"] = True
    if setting.kind in ("file", "directory"):
        variable["format"] = "filepath"
    elif setting.kind in ("number", "boolean"):
        variable["format"] = setting.kind
    if setting.default is not None:
        variable["default"] = setting.default
    return variable
