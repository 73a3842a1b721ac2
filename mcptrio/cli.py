"""The ``mcptrio`` command: ``serve`` plugins over a transport, list installed ``plugins``.

Every user error is one line on stderr and exit status 2; a clean shutdown exits 0.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import tomllib
from pathlib import Path
from typing import Any, NoReturn

import attrs
import trio

from . import plugins
from .runtime.limits import SessionLimits
from .serve import serve_stdio, wait_for_signals

TRANSPORTS = ("stdio", "http", "ws")
SERVE_KEYS = {"plugins", "transport", "host", "port", "path", "prefixes", "name", "version", "instructions", "telemetry",
              "limits", "legacy_sse", "allowed_hosts", "allowed_origins", "response_mode"}
RESPONSE_MODES = ("auto", "json", "sse")
LIMIT_KEYS = {field.name for field in attrs.fields(SessionLimits)}


class UsageError(Exception):
    """A mistake on the command line or in the config file."""


def fail(message: str) -> NoReturn:
    print(f"mcptrio: error: {message}", file=sys.stderr)
    raise SystemExit(2)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        fail(message)


def make_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="mcptrio", description="Serve MCP plugins with Trio.")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    serve = commands.add_parser(
        "serve", help="serve plugins over stdio, Streamable HTTP or WebSocket",
        description="Serve the named plugins as one MCP server until stdin closes or SIGTERM/SIGINT.",
    )
    serve.add_argument("--plugins", metavar="A,B", help="comma-separated plugin names, loaded in this order")
    serve.add_argument("--transport", choices=TRANSPORTS, help="stdio (default), http or ws")
    serve.add_argument("--host", help="address to bind for http/ws (default 127.0.0.1)")
    serve.add_argument("--port", type=int, help="port for http/ws (default 8000; 0 picks a free one)")
    serve.add_argument("--path", help="endpoint path for http/ws (default /mcp)")
    serve.add_argument("--legacy-sse", action="store_true", default=None,
                       help="also serve the deprecated 2024-11-05 HTTP+SSE transport at PATH/sse (http only)")
    serve.add_argument("--allowed-host", action="append", default=[], metavar="NAME",
                       help="also accept this Host/Origin name (loopback names always are; repeatable)")
    serve.add_argument("--allowed-origin", action="append", default=[], metavar="ORIGIN",
                       help="also accept this exact Origin, e.g. https://app.example (repeatable)")
    serve.add_argument("--response-mode", choices=RESPONSE_MODES,
                       help="http: answer as JSON when possible (auto, default), always JSON, or always SSE")
    serve.add_argument("--prefix", action="append", default=[], metavar="PLUGIN=PREFIX",
                       help="prefix a plugin's tool and prompt names to resolve a clash (repeatable)")
    serve.add_argument("--no-telemetry", dest="telemetry", action="store_false", default=None,
                       help="no OpenTelemetry spans or metrics even when opentelemetry-api is installed")
    serve.add_argument("--config", type=Path, metavar="FILE", help="TOML file with [serve] settings")
    commands.add_parser("plugins", help="list installed plugins", description="List installed mcptrio plugins.")
    return parser


def read_config(path: Path | None) -> dict[str, Any]:
    if path is None:
        return {}
    try:
        data = tomllib.loads(path.read_text())
    except OSError as exc:
        raise UsageError(f"cannot read config {path}: {exc.strerror}") from None
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"config {path} is not valid TOML: {exc}") from None
    unknown = set(data) - {"serve"}
    serve = data.get("serve", {})
    unknown |= {f"serve.{k}" for k in set(serve) - SERVE_KEYS}
    unknown |= {f"serve.limits.{k}" for k in set(serve.get("limits", {})) - LIMIT_KEYS}
    if unknown:
        raise UsageError(f"config {path}: unknown key(s): {', '.join(sorted(unknown))}")
    return serve


def settings(args: argparse.Namespace) -> dict[str, Any]:
    """Command-line flags over config-file values over defaults."""
    config = read_config(args.config)
    names = args.plugins if args.plugins is not None else config.get("plugins", [])
    if isinstance(names, str):
        names = names.split(",")
    prefixes = dict(config.get("prefixes", {}))
    for item in args.prefix:
        plugin, sep, prefix = item.partition("=")
        if not sep or not plugin or not prefix:
            raise UsageError(f"--prefix wants PLUGIN=PREFIX, got {item!r}")
        prefixes[plugin] = prefix
    try:
        limits = SessionLimits(**config.get("limits", {}))
    except TypeError as exc:
        raise UsageError(f"config limits: {exc}") from None
    return {
        "plugins": [n.strip() for n in names if n.strip()],
        "transport": args.transport or config.get("transport", "stdio"),
        "host": args.host or config.get("host", "127.0.0.1"),
        "port": args.port if args.port is not None else config.get("port", 8000),
        "path": args.path or config.get("path", "/mcp"),
        "prefixes": prefixes,
        "app": {"name": config.get("name", "mcptrio"), "version": config.get("version", _version()),
                "instructions": config.get("instructions"), "limits": limits,
                "telemetry": _flag(args.telemetry, config, "telemetry", None)},
        "legacy_sse": bool(args.legacy_sse if args.legacy_sse is not None else config.get("legacy_sse", False)),
        "allowed_hosts": tuple(config.get("allowed_hosts", [])) + tuple(args.allowed_host),
        "allowed_origins": tuple(config.get("allowed_origins", [])) + tuple(args.allowed_origin),
        "response_mode": args.response_mode or config.get("response_mode", "auto"),
    }


def _flag(given: bool | None, config: dict[str, Any], key: str, default: bool | None) -> bool | None:
    """A yes/no setting: the flag if given, else the config file's (which must be a boolean)."""
    if given is not None:
        return given
    value = config.get(key, default)
    if value is not None and not isinstance(value, bool):
        raise UsageError(f"config {key} must be true or false, got {value!r}")
    return value


def _version() -> str:
    from . import __version__

    return __version__


def serve(args: argparse.Namespace) -> int:
    options = settings(args)
    if options["transport"] not in TRANSPORTS:
        raise UsageError(f"unknown transport {options['transport']!r} (choose from {', '.join(TRANSPORTS)})")
    if options["response_mode"] not in RESPONSE_MODES:
        raise UsageError(f"unknown response_mode {options['response_mode']!r} (choose from {', '.join(RESPONSE_MODES)})")
    app = plugins.build_app(options["plugins"], prefixes=options["prefixes"], **options["app"])
    # Everything loaded so far lives as long as the server: keep the collector from rescanning it.
    gc.collect()
    gc.freeze()
    if options["transport"] == "stdio":
        trio.run(lambda: serve_stdio(app, shutdown_trigger=wait_for_signals))
        # What is written after serving (exit hooks: an OpenTelemetry exporter's last flush, say)
        # must not reach the client as if it were a message: stdout stays on stderr until exit.
        sys.stdout.flush()
        os.dup2(2, 1)
        return 0
    from . import network_cli  # imported only for network transports: keeps stdio start-up fast

    return network_cli.serve(app, options)


def list_plugins() -> int:
    found = plugins.installed()
    if not found:
        print("no mcptrio plugins installed")
        return 0
    width = max(len(p.name) for p in found)
    for info in found:
        print(f"{info.name:<{width}}  {info.distribution} {info.version}  ({info.value})")
    return 0


def main(argv: list[str] | None = None) -> int:
    args = make_parser().parse_args(argv)
    try:
        if args.command == "serve":
            return serve(args)
        if args.command == "plugins":
            return list_plugins()
    except (UsageError, plugins.PluginError, ImportError) as exc:
        fail(str(exc))
    make_parser().print_help(sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
