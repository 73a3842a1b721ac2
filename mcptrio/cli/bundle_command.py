"""``mcptrio bundle TARGET``: an MCP Bundle (``.mcpb``), the zip a desktop client installs in one click.

It holds ``manifest.json`` (MCPB manifest 0.3: the package's name, version, description and author,
a ``python`` server started as ``python ${__dirname}/server/main.py``, the tools and prompts the
plugins register, and their user settings as ``user_config`` passed in environment variables),
``server/main.py``, and the packages it needs in ``server/lib`` (this platform and Python, copied from
this environment) or, with ``--platform`` tags, in ``server/lib-<sys.platform>`` each (wheels pip
installs); ``main.py`` puts the one for the platform it runs on first on ``sys.path``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import re
import shutil
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Any

from ..app import UserSetting
from . import vendoring
from .shipped import Shipped, shipped
from .usage import Parser, UsageError

MANIFEST_VERSION = "0.3"
# A manifest's name is machine-readable (clients and APIs use it): a package name's characters.
NAME = re.compile(r"^[a-z0-9](?:[a-z0-9._-]{0,62}[a-z0-9])?$")
PNG = b"\x89PNG\r\n\x1a\n"


def add_command(commands: argparse._SubParsersAction[Parser]) -> None:
    bundle = commands.add_parser(
        "bundle",
        help="write an MCP Bundle (.mcpb) a desktop client installs",
        description="Write TARGET (an installed plugin distribution or plugin name, a project folder whose "
        "distribution is installed here, or a file.py[:attr]) as an MCP Bundle: manifest.json, a start script "
        "and the packages it needs, vendored from this environment (or, with --platform, as wheels for those "
        "platforms).",
    )
    bundle.add_argument("target", metavar="TARGET", help="a distribution or plugin, a project folder, or a file.py")
    bundle.add_argument(
        "--platform",
        action="append",
        default=[],
        metavar="TAG",
        help="vendor wheels for this pip platform tag (repeatable: manylinux2014_x86_64, macosx_11_0_arm64, "
        "win_amd64; default: this machine's packages as installed)",
    )
    bundle.add_argument("--icon", type=Path, help="a PNG file: the bundle's icon")
    bundle.add_argument("--out", type=Path, help="the file to write (default: NAME-VERSION.mcpb here)")
    bundle.add_argument("--name", help="the manifest's name (default: the distribution's or the file's)")
    bundle.add_argument("--author", help="the author's name (default: the package metadata's; a file has none)")


def run(args: argparse.Namespace) -> int:
    icon = _icon(args.icon) if args.icon is not None else None  # (the flags first: loading the plugins takes time)
    systems = {vendoring.system_of(tag): tag for tag in args.platform}
    if len(systems) < len(args.platform):
        raise UsageError("--platform: name one tag per operating system (one lib folder each)")
    if args.name is not None:
        _check_name(args.name)
    if args.out is not None:
        if args.out.is_dir():
            raise UsageError(f"--out {args.out}: is a folder: name the .mcpb file to write")
        try:
            args.out.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UsageError(f"--out {args.out}: {exc.strerror or exc}") from None
    server = shipped(args.target, author=args.author)
    name = _check_name(args.name or server.name)
    if not server.author:
        raise UsageError(f"{args.target}: no author in its metadata: give --author NAME")
    out = args.out or Path(f"{name}-{server.version}.mcpb")
    with tempfile.TemporaryDirectory(prefix="mcptrio-bundle-") as staging:
        root = Path(staging)
        python = _vendor(server, root / "server", systems)
        manifest = build_manifest(server, name, python=python, systems=sorted(systems) or [sys.platform])
        if icon is not None:
            shutil.copy2(icon, root / "icon.png")
            manifest["icon"] = "icon.png"
        (root / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
        (root / "server" / "main.py").write_text(start_script(server), encoding="utf-8")
        _zip(root, out)
    print(f"wrote {out} ({out.stat().st_size // 1024} KiB): {len(server.tools)} tools, {len(server.prompts)} prompts")
    return 0


def _check_name(given: str) -> str:
    name = given.lower()
    if not NAME.match(name):
        raise UsageError(
            f"manifest name {name!r}: use lowercase letters, digits, '.', '_' and '-' (at most 64); give --name"
        )
    return name


def _icon(path: Path) -> Path:
    try:
        with path.open("rb") as f:
            head = f.read(8)
    except OSError as exc:
        raise UsageError(f"--icon {path}: {exc.strerror or exc}") from None
    if head != PNG:
        raise UsageError(f"--icon {path}: not a PNG file (the MCPB manifest's icon is a PNG)")
    return path


def _vendor(server: Shipped, folder: Path, systems: dict[str, str]) -> str:
    """Copy or install the packages into ``folder``; the Python versions they run on (MCPB's runtimes)."""
    root = server.distribution or "mcptrio"
    for system, tag in systems.items():
        vendoring.pip_install(vendoring.closure(root, system), folder / f"lib-{system}", tag)
    if not systems:
        vendoring.copy_installed(vendoring.closure(root).installed, folder / "lib")
    if server.target is not None:
        _copy_target(server, folder / "app")
    this = f"{sys.version_info.major}.{sys.version_info.minor}"
    if vendoring.compiled(folder):  # extension modules: built for this Python version only
        return f">={this},<{sys.version_info.major}.{sys.version_info.minor + 1}"
    return server.requires_python or f">={this}"


def _copy_target(server: Shipped, app: Path) -> None:
    """A served file, or its top-level package when it is inside one, into ``app``."""
    target = server.target
    assert target is not None and target.file is not None and target.root is not None
    app.mkdir(parents=True)
    top = target.module.split(".")[0]
    if top == target.module:
        shutil.copy2(target.file, app / target.file.name)
    else:
        shutil.copytree(target.root / top, app / top, ignore=shutil.ignore_patterns("__pycache__"))


def start_script(server: Shipped) -> str:
    """``server/main.py``: the vendored packages first on ``sys.path``, then ``mcptrio serve``."""
    if server.target is None:
        served = repr(["serve", "--plugins", ",".join(server.plugins)])
    else:
        target = server.target
        assert target.file is not None and target.root is not None
        relative = target.file.relative_to(target.root).as_posix() + (
            f":{target.attribute}" if target.attribute else ""
        )
        served = f'["serve", os.path.join(here, "app", {relative!r})]'
    return f'''"""Start {server.name} {server.version}: the packages vendored beside this file, then mcptrio serve."""

import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
lib = os.path.join(here, "lib-" + sys.platform)
sys.path[0:0] = [lib if os.path.isdir(lib) else os.path.join(here, "lib")]

from mcptrio.cli import main  # noqa: E402

sys.exit(main({served}))
'''


def build_manifest(server: Shipped, name: str, *, python: str, systems: list[str]) -> dict[str, Any]:
    """The bundle's ``manifest.json``."""
    env = {setting.env: f"${{user_config.{setting.key}}}" for setting in server.settings}
    manifest: dict[str, Any] = {
        "manifest_version": MANIFEST_VERSION,
        "name": name,
        "display_name": server.title or server.name,
        "version": server.version,
        "description": server.description,
        "author": {"name": server.author},
        "server": {
            "type": "python",
            "entry_point": "server/main.py",
            "mcp_config": {"command": "python", "args": ["${__dirname}/server/main.py"], "env": env},
        },
        "tools": [{"name": n, "description": d} if d else {"name": n} for n, d in server.tools],
        "prompts": [_prompt(n, d, a) for n, d, a in server.prompts],
        "compatibility": {"platforms": systems, "runtimes": {"python": python}},
    }
    if server.generated:
        manifest["tools_generated"] = True
    for label, key in (("homepage", "homepage"), ("documentation", "documentation"), ("issues", "support")):
        if label in server.urls:
            manifest[key] = server.urls[label]
    source = server.urls.get("source") or server.urls.get("repository")
    if source:
        manifest["repository"] = {"type": "git", "url": source}
    if server.license:
        manifest["license"] = server.license
    if server.keywords:
        manifest["keywords"] = server.keywords
    if server.settings:
        manifest["user_config"] = {setting.key: user_config(setting) for setting in server.settings}
    return manifest


def _prompt(name: str, description: str, arguments: list[str]) -> dict[str, Any]:
    """A prompt as the manifest lists it; its ``text`` is the description (the server renders the prompt)."""
    prompt: dict[str, Any] = {"name": name, "text": description or name}
    if description:
        prompt["description"] = description
    if arguments:
        prompt["arguments"] = arguments
    return prompt


def user_config(setting: UserSetting) -> dict[str, Any]:
    """One ``user_config`` entry of the manifest."""
    entry: dict[str, Any] = {"type": setting.kind, "title": setting.title, "description": setting.description}
    if setting.required:
        entry["required"] = True
    if setting.sensitive:
        entry["sensitive"] = True
    if setting.default is not None:
        entry["default"] = setting.default
    return entry


def _zip(root: Path, out: Path) -> None:
    """The staging folder zipped into ``out``, whole or not at all (written beside it, then renamed)."""
    partial = out.with_name(out.name + ".partial")
    try:
        with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED, compresslevel=6) as archive:
            for path in sorted(root.rglob("*")):
                if path.is_file():
                    archive.write(path, path.relative_to(root).as_posix())
        partial.replace(out)
    except OSError as exc:
        with contextlib.suppress(OSError):
            partial.unlink()
        raise UsageError(f"--out {out}: {exc.strerror or exc}") from None
