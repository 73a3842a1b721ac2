"""``mcptrio install CLIENT TARGET``: the server added to a desktop or editor client's own configuration
file (or, for ``mcp-json``, printed), started by this Python's absolute path so the client, which has
no shell and often no ``PATH``, finds it.  A value given with ``--env`` makes the file private (0600)."""

from __future__ import annotations

import argparse
import json
import re
from typing import Any

from . import install_clients
from .client_config_file import read_config, with_server, write_config
from .serve_argv import add_target_arguments, plugin_names, serve_command
from .usage import Parser, UsageError

ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
SERVER_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")


def add_command(commands: argparse._SubParsersAction[Parser]) -> None:
    install = commands.add_parser(
        "install",
        help="add a server to an MCP client's configuration",
        description="Add `mcptrio serve TARGET --plugins a,b` to CLIENT's configuration file, run by this "
        "Python's absolute path; the file's other servers and settings are kept, the previous file is "
        "kept as FILE.bak. mcp-json prints the entry instead.",
    )
    install.add_argument(
        "client", choices=[*install_clients.CLIENTS, install_clients.PRINTED], help="the client to configure"
    )
    add_target_arguments(install)
    install.add_argument("--name", help="the server's name in the client (default: the target's or plugins' name)")
    install.add_argument(
        "--env",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="an environment variable for the server (repeatable); the file is then made readable by you only",
    )
    install.add_argument("--project", action="store_true", help="write the current folder's file, not the user's")
    install.add_argument("--force", action="store_true", help="replace a server of the same name")
    install.add_argument("--system", choices=install_clients.SYSTEMS, help=argparse.SUPPRESS)


def run(args: argparse.Namespace) -> int:
    plugins = plugin_names(args.plugins)
    _check_plugins(plugins)
    command = serve_command(args.target, plugins, absolute_files=True)
    name = args.name or default_name(args.target, plugins)
    if not SERVER_NAME.match(name):
        raise UsageError(f"--name {name!r}: use letters, digits, '.', '_' and '-' (at most 64)")
    env = parse_env(args.env)
    if args.client == install_clients.PRINTED:
        print(json.dumps({"mcpServers": {name: entry(command, env, typed=False)}}, indent=2))
        return 0
    client = install_clients.CLIENTS[args.client]
    if args.project and client.project is None:
        raise UsageError(f"{client.title} has no project file: drop --project")
    if args.project and env:
        raise UsageError(
            f"{client.project} is meant to be shared (committed with the project): --env values would go "
            "with it; install them in your own file (drop --project)"
        )
    path = install_clients.config_path(
        client, project=args.project, system=args.system or install_clients.this_system()
    )
    config = with_server(
        read_config(path), client.key, name, entry(command, env, typed=client.typed), force=args.force, path=path
    )
    backup = write_config(path, config, private=bool(env))
    kept = f" (the previous file is {backup})" if backup else ""
    print(f"added {name!r} to {path}{kept}: restart {client.title} to use it")
    return 0


def entry(command: list[str], env: dict[str, str], *, typed: bool) -> dict[str, Any]:
    """One server in a client's file: its command and arguments, its environment when given."""
    out: dict[str, Any] = {"type": "stdio"} if typed else {}
    out["command"] = command[0]
    out["args"] = command[1:]
    if env:
        out["env"] = env
    return out


def parse_env(pairs: list[str]) -> dict[str, str]:
    env: dict[str, str] = {}
    for pair in pairs:
        key, equals, value = pair.partition("=")
        if not equals or not ENV_NAME.match(key):
            raise UsageError(f"--env {pair.split('=')[0]!r}: expected KEY=VALUE, KEY letters, digits and _")
        env[key] = value
    return env


def default_name(target: str | None, plugins: list[str]) -> str:
    """The file's stem or the module's last part, else the plugins' names joined by ``-``."""
    if target is None:
        return "-".join(plugins)
    from ..targets import parse_target

    return parse_target(target).module.rsplit(".", 1)[-1]


def _check_plugins(names: list[str]) -> None:
    from .. import plugins

    for name in names:
        if plugins.entry_point(name) is None:
            raise UsageError(f"no such plugin {name!r} (see `mcptrio plugins`)")
