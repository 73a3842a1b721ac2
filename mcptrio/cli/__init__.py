"""The ``mcptrio`` command: ``serve`` plugins, list the installed ``plugins``, use a server from the
shell (``inspect``, ``list``, ``call``, ``read``, ``prompt``; ``auth`` logs in to protected ones),
write a ``new`` plugin, ``rotate-key``; ``dev`` serves with the MCP Inspector beside it, ``install`` adds a
server to a client's configuration, ``bundle`` writes an MCP Bundle and ``registry-entry`` an MCP Registry
``server.json``.

Each command's module is imported only when that command runs (a stdio server's start-up time
matters).  Every user error is one line on stderr and exit status 2; a clean shutdown exits 0.
"""

from __future__ import annotations

import argparse
import sys

from .usage import Parser, UsageError, fail

CLIENT_COMMANDS = ("inspect", "list", "call", "read", "prompt")
COMMANDS = (
    "serve",
    "dev",
    "install",
    "bundle",
    "registry-entry",
    "plugins",
    *CLIENT_COMMANDS,
    "auth",
    "new",
    "rotate-key",
)


def make_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The command line; with ``command`` (argv's first word), only that command is defined: parsing
    it needs no other, and defining every option of every command is 4 ms of a server's start-up."""
    parser = Parser(prog="mcptrio", description="Serve MCP plugins with Trio, and use MCP servers from the shell.")
    parser.add_argument("--version", action="version", version=f"mcptrio {_version()}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    if command in (None, "serve"):
        from . import serve_command

        serve_command.add_command(commands)
    if command in (None, "dev"):
        from . import dev_command

        dev_command.add_command(commands)
    if command in (None, "install"):
        from . import install_command

        install_command.add_command(commands)
    if command in (None, "bundle"):
        from . import bundle_command

        bundle_command.add_command(commands)
    if command in (None, "registry-entry"):
        from . import registry_entry_command

        registry_entry_command.add_command(commands)
    if command in (None, "plugins"):
        commands.add_parser("plugins", help="list installed plugins", description="List installed mcptrio plugins.")
    if command is None or command in CLIENT_COMMANDS:
        from . import client_commands

        client_commands.add_commands(commands, [command] if command else CLIENT_COMMANDS)
    if command in (None, "auth"):
        from . import auth_commands

        auth_commands.add_command(commands)
    if command in (None, "new"):
        from . import scaffold

        scaffold.add_command(commands)
    if command in (None, "rotate-key"):
        from . import rotate_key

        rotate_key.add_command(commands)
    return parser


def _version() -> str:
    from .. import __version__

    return __version__


def list_plugins() -> int:
    from .. import plugins

    found = plugins.installed()
    if not found:
        print("no mcptrio plugins installed")
        return 0
    width = max(len(p.name) for p in found)
    for info in found:
        owners = sum(other.name == info.name for other in found)
        clash = f"  CLASH: {owners} distributions register {info.name!r}, serve refuses it" if owners > 1 else ""
        print(f"{info.name:<{width}}  {info.distribution} {info.version}  ({info.value}){clash}")
    return 0


def run(args: argparse.Namespace) -> int | None:
    """Run the command ``args`` name; None when they name none."""
    if args.command == "serve":
        from . import serve_command

        return serve_command.run(args)
    if args.command == "dev":
        from . import dev_command

        return dev_command.run(args)
    if args.command == "install":
        from . import install_command

        return install_command.run(args)
    if args.command == "bundle":
        from . import bundle_command

        return bundle_command.run(args)
    if args.command == "registry-entry":
        from . import registry_entry_command

        return registry_entry_command.run(args)
    if args.command == "plugins":
        return list_plugins()
    if args.command == "new":
        from . import scaffold

        return scaffold.run(args)
    if args.command == "rotate-key":
        from . import rotate_key

        return rotate_key.run(args)
    if args.command in CLIENT_COMMANDS:
        from . import client_commands

        return client_commands.run(args)
    if args.command == "auth":
        from . import auth_commands

        return auth_commands.run(args)
    return None


def main(argv: list[str] | None = None) -> int:
    words = list(argv if argv is not None else sys.argv[1:])
    parser = make_parser(words[0] if words and words[0] in COMMANDS else None)
    args, extra = parser.parse_known_args(argv)
    if extra and getattr(args, "words", None) is not None:
        args.words += extra  # (a client command's KEY=VALUE pairs may come after its options)
    elif extra:
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    args.argv = words  # (a worker's command line is made from it)
    from ..plugins import PluginError
    from ..serve import ServeError

    try:
        status = run(args)
    except (UsageError, PluginError, ImportError, ServeError) as exc:
        fail(str(exc))
    if status is None:
        make_parser().print_help(sys.stderr)
        return 2
    return status
