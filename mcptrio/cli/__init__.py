"""The ``mcptrio`` command: ``serve`` plugins over a transport, list installed ``plugins``.

Every user error is one line on stderr and exit status 2; a clean shutdown exits 0.
"""

from __future__ import annotations

import argparse
import gc
import logging
import os
import sys
from pathlib import Path
from typing import Any, NoReturn

import trio

from .. import plugins
from . import auth_settings, logs
from .config_file import UsageError, check_path, check_port, read_config
from ..groups import first
from ..app.admission import RateLimit
from ..app.lifespan import LifespanError
from ..runtime.limits import SessionLimits
from ..serve import ServeError, serve_stdio, wait_for_signals

log = logging.getLogger("mcptrio")

TRANSPORTS = ("stdio", "http", "ws")
RESPONSE_MODES = ("auto", "json", "sse")


def fail(message: str) -> NoReturn:
    print(f"mcptrio: error: {message}", file=sys.stderr)
    raise SystemExit(2)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        fail(message)


CLIENT_COMMANDS = ("inspect", "list", "call", "read", "prompt")
COMMANDS = ("serve", "plugins", *CLIENT_COMMANDS, "new", "rotate-key")


def make_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The command line; with ``command`` (argv's first word), only that command is defined: parsing
    it needs no other, and defining every option of every command is 4 ms of a server's start-up."""
    parser = _Parser(prog="mcptrio", description="Serve MCP plugins with Trio, and use MCP servers from the shell.")
    parser.add_argument("--version", action="version", version=f"mcptrio {_version()}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    if command in (None, "serve"):
        _serve_command(commands)
    if command in (None, "plugins"):
        commands.add_parser("plugins", help="list installed plugins", description="List installed mcptrio plugins.")
    if command is None or command in CLIENT_COMMANDS:
        from . import client_commands

        client_commands.add_commands(commands, [command] if command else CLIENT_COMMANDS)
    if command in (None, "new"):
        new = commands.add_parser("new", help="write a new plugin package",
                                  description="Write a plugin package NAME/ (pyproject with the entry point, a "
                                              "module with a tool, a resource and a prompt, its tests, a README).")
        new.add_argument("name", help="the plugin's name: lower-case letters, digits and _")
        new.add_argument("--dir", type=Path, default=Path("."), help="where to write it (default: here)")
    if command in (None, "rotate-key"):
        rotate = commands.add_parser(
            "rotate-key", help="rotate the requestState sealing key of servers sharing state",
            description="Make a new current requestState sealing key in the shared state; every server using it "
                        "switches at once, and state sealed with the previous key still opens until the next "
                        "rotation.")
        rotate.add_argument("--state", required=True, metavar="URL", help="the servers' --state URL")
    return parser


def _serve_command(commands: Any) -> None:
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
    serve.add_argument("--trusted-proxy", action="append", default=[], metavar="ADDRESS",
                       help="a reverse proxy (address or network, e.g. 10.0.0.0/8) whose X-Forwarded-For names "
                            "the client, for logs and rate limits (repeatable)")
    serve.add_argument("--response-mode", choices=RESPONSE_MODES,
                       help="http: answer as JSON when possible (auto, default), always JSON, or always SSE")
    serve.add_argument("--prefix", action="append", default=[], metavar="PLUGIN=PREFIX",
                       help="prefix a plugin's tool and prompt names to resolve a clash (repeatable)")
    serve.add_argument("--rate-limit", metavar="RATE",
                       help="requests per client (principal, else address) e.g. 20/s, 600/m; over it: HTTP 429")
    serve.add_argument("--rate-burst", type=int, metavar="N", help="requests a client may send at once (default: 1 s worth)")
    serve.add_argument("--max-tool-calls", type=int, metavar="N", help="tool calls running at once, server-wide")
    serve.add_argument("--tool-call-wait", type=float, metavar="SECONDS",
                       help="how long a tool call over --max-tool-calls waits for a slot before refused (default 5)")
    serve.add_argument("--no-telemetry", dest="telemetry", action="store_false", default=None,
                       help="no OpenTelemetry spans or metrics even when opentelemetry-api is installed")
    serve.add_argument("--log-level", choices=logs.LEVELS, help="log messages at this level and above (default info)")
    serve.add_argument("--log-format", choices=logs.FORMATS,
                       help="text lines (default) or json: one JSON object per line, on stderr")
    serve.add_argument("--access-log", action=argparse.BooleanOptionalAction, default=None,
                       help="a line per MCP request on the mcptrio.access logger (default: on for http and "
                            "ws, off for stdio, where it would halve the throughput of a local client)")
    serve.add_argument("--drain-timeout", type=float, metavar="SECONDS",
                       help="on SIGTERM, how long requests in flight may finish before they are cancelled (default 5)")
    serve.add_argument("--state", metavar="URL",
                       help="share sessions, event logs, keys and changes with other processes through Redis: "
                            "redis://[:password@]host:port/db, rediss:// for TLS (http/ws; default: in memory)")
    serve.add_argument("--workers", type=int, metavar="N",
                       help="http: N processes sharing the listening socket, supervised (needs --state, "
                            "unless --stateless-only)")
    serve.add_argument("--stateless-only", action="store_true", default=None,
                       help="http: serve only the stateless 2026-07-28 protocol (initialize is refused with 400)")
    serve.add_argument("--orphan-timeout", type=float, metavar="SECONDS",
                       help="http: how long a legacy request whose client went away (and may resume) runs on "
                            "before it is cancelled (default 120)")
    serve.add_argument("--max-requests", type=int, metavar="N",
                       help="http/ws: requests whose handlers run at once per process (tool calls streaming "
                            "progress included); beyond, 503 (default 2000)")
    serve.add_argument("--max-streams", type=int, metavar="N",
                       help="http/ws: streams that wait for notifications (listen, GET, SSE) and WebSocket "
                            "connections open at once per process; beyond, 503 (default 20000)")
    serve.add_argument("--max-streams-per-client", type=int, metavar="N",
                       help="http/ws: of those, per principal (with authorization) or client address "
                            "(default 2000)")
    serve.add_argument("--reload", action="store_true",
                       help="development: load a plugin again when its source changes (needs watchfiles)")
    serve.add_argument("--listen-fd", type=int, help=argparse.SUPPRESS)  # a worker's inherited socket
    auth_settings.add_flags(serve)
    serve.add_argument("--config", type=Path, metavar="FILE", help="TOML file with [serve] settings")


def rotate_key(url: str) -> int:
    from ..state import StateUnavailable, parse_state_url
    from ..state.redis import open_redis_state

    try:
        state = parse_state_url(url)
    except ValueError as exc:
        raise UsageError(str(exc)) from None

    async def rotate() -> int:
        async with open_redis_state(state) as shared:
            await shared.rotate_keys()
            return len(shared.sealing_keys)

    try:
        trio.run(rotate)
    except* StateUnavailable as group:
        raise ServeError(str(first(group))) from None
    print(f"rotated the requestState sealing key at {state}")
    return 0


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
    limit_values = dict(config.get("limits", {}))
    drain = args.drain_timeout if args.drain_timeout is not None else config.get("drain_timeout")
    if drain is not None:
        if isinstance(drain, bool) or not isinstance(drain, (int, float)) or not 0 <= drain < float("inf"):
            raise UsageError(f"drain timeout must be 0 or more seconds, got {drain!r}")
        limit_values["shutdown_grace"] = float(drain)  # the drain is the shutdown's grace period
    try:
        limits = SessionLimits(**limit_values)
    except TypeError as exc:
        raise UsageError(f"config limits: {exc}") from None
    return {
        "plugins": [n.strip() for n in names if n.strip()],
        "transport": _choice("transport", args.transport or config.get("transport", "stdio"), TRANSPORTS),
        "host": args.host or config.get("host", "127.0.0.1"),
        "port": check_port(args.port if args.port is not None else config.get("port", 8000)),
        "path": check_path(args.path or config.get("path", "/mcp")),
        "prefixes": prefixes,
        "app": {"name": config.get("name", "mcptrio"), "version": config.get("version", _version()),
                "instructions": config.get("instructions"), "limits": limits,
                "telemetry": _flag(args.telemetry, config, "telemetry", None), **admission(args, config),
                "access_log": _flag(args.access_log, config, "access_log", None),
                "auth": auth_settings.auth_config(args, config.get("auth", {}))},
        "legacy_sse": bool(args.legacy_sse if args.legacy_sse is not None else config.get("legacy_sse", False)),
        "allowed_hosts": tuple(config.get("allowed_hosts", [])) + tuple(args.allowed_host),
        "allowed_origins": tuple(config.get("allowed_origins", [])) + tuple(args.allowed_origin),
        "trusted_proxies": _networks(tuple(config.get("trusted_proxies", [])) + tuple(args.trusted_proxy)),
        "response_mode": _choice("response_mode", args.response_mode or config.get("response_mode", "auto"),
                                 RESPONSE_MODES),
        "log_level": args.log_level or config.get("log_level", "info"),
        "log_format": args.log_format or config.get("log_format", "text"),
        **scale_out(args, config),
    }


def _choice(key: str, value: str, choices: tuple[str, ...]) -> str:
    if value not in choices:
        raise UsageError(f"{key} must be one of {', '.join(choices)}, got {value!r}")
    return value


def _networks(specs: tuple[str, ...]) -> tuple[str, ...]:
    if specs:  # (http/ws only: stdio start-up imports nothing of HTTP)
        from ..transports.net.forwarded import parse_networks

        try:
            parse_networks(specs)
        except ValueError as exc:
            raise UsageError(f"--trusted-proxy: {exc}") from None
    return specs


def scale_out(args: argparse.Namespace, config: dict[str, Any]) -> dict[str, Any]:
    """--state, --workers, --stateless-only and --orphan-timeout, checked."""
    state = args.state if args.state is not None else config.get("state")
    if state is not None:  # (a string: config_file checked the file's, argparse gives the flag's)
        from ..state import parse_state_url

        try:
            state = parse_state_url(state)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
    workers = args.workers if args.workers is not None else config.get("workers", 1)
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise UsageError(f"workers must be a whole number of at least 1, got {workers!r}")
    orphan = args.orphan_timeout if args.orphan_timeout is not None else config.get("orphan_timeout", 120.0)
    if isinstance(orphan, bool) or not isinstance(orphan, (int, float)) or not 0 <= orphan < float("inf"):
        raise UsageError(f"orphan timeout must be 0 or more seconds, got {orphan!r}")
    capacity = {key: _at_least_one(key, getattr(args, key), config.get(key, default))
                for key, default in (("max_requests", 2000), ("max_streams", 20_000),
                                     ("max_streams_per_client", 2000))}
    return {"state": state, "workers": workers, "orphan_timeout": float(orphan), "listen_fd": args.listen_fd,
            **capacity,
            "stateless_only": _flag(args.stateless_only, config, "stateless_only", False)}


def _at_least_one(key: str, flag: int | None, value: Any) -> int:
    """A flag over the config file's value: a whole number of at least 1."""
    value = flag if flag is not None else value
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise UsageError(f"{key} must be a whole number of at least 1, got {value!r}")
    return value


def admission(args: argparse.Namespace, config: dict[str, Any]) -> dict[str, Any]:
    """The rate limit and the tool-call cap, from flags over the config file, checked."""
    rate = args.rate_limit if args.rate_limit is not None else config.get("rate_limit")
    burst = args.rate_burst if args.rate_burst is not None else config.get("rate_burst")
    max_calls = args.max_tool_calls if args.max_tool_calls is not None else config.get("max_tool_calls")
    wait = args.tool_call_wait if args.tool_call_wait is not None else config.get("tool_call_wait", 5.0)
    options: dict[str, Any] = {"rate_limit": None, "max_tool_calls": None, "tool_call_wait": 5.0}
    if burst is not None and rate is None:
        raise UsageError("rate_burst needs a rate limit (--rate-limit 20/s)")
    if rate is not None:
        try:
            options["rate_limit"] = RateLimit.parse(str(rate), burst)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
    if max_calls is not None:
        if isinstance(max_calls, bool) or not isinstance(max_calls, int) or max_calls < 1:
            raise UsageError(f"max_tool_calls must be a whole number of at least 1, got {max_calls!r}")
        options["max_tool_calls"] = max_calls
    if isinstance(wait, bool) or not isinstance(wait, (int, float)) or not 0 <= wait < float("inf"):
        raise UsageError(f"tool_call_wait must be 0 or more seconds, got {wait!r}")
    options["tool_call_wait"] = float(wait)
    return options


def _flag(given: bool | None, config: dict[str, Any], key: str, default: bool | None) -> bool | None:
    """A yes/no setting: the flag if given, else the config file's (config_file checked it is a boolean)."""
    if given is not None:
        return given
    value: bool | None = config.get(key, default)
    return value


def _version() -> str:
    from .. import __version__

    return __version__


def serve(args: argparse.Namespace) -> int:
    options = settings(args)
    try:
        logs.configure(options["log_level"], options["log_format"])
    except ValueError as exc:
        raise UsageError(f"config {exc}") from None
    if options["transport"] not in TRANSPORTS:
        raise UsageError(f"unknown transport {options['transport']!r} (choose from {', '.join(TRANSPORTS)})")
    if options["response_mode"] not in RESPONSE_MODES:
        raise UsageError(f"unknown response_mode {options['response_mode']!r} (choose from {', '.join(RESPONSE_MODES)})")
    if args.reload and options["workers"] > 1:
        raise UsageError("--reload is for one process: drop --workers")
    options["reload"] = args.reload
    if options["transport"] != "http" and (options["workers"] > 1 or options["stateless_only"]):
        raise UsageError("--workers and --stateless-only are for --transport http")
    if options["transport"] == "stdio" and options["state"] is not None:
        raise UsageError("--state is for http and ws: a stdio server has one client and nothing to share")
    if options["workers"] > 1 and options["state"] is None and not options["stateless_only"]:
        raise UsageError(f"{options['workers']} workers without --state would not share legacy sessions: "
                         "add --state redis://HOST:PORT/DB, or serve only the stateless 2026-07-28 era "
                         "with --stateless-only")
    if options["app"]["access_log"] is None:
        options["app"]["access_log"] = options["transport"] != "stdio"
    auth = options["app"]["auth"]
    if auth is not None and options["transport"] == "stdio":
        log.warning("authorization is for http and ws; stdio is not authenticated (the spec says stdio "
                    "should not use OAuth): the auth settings are ignored")
        options["app"]["auth"] = None
    elif auth is not None and auth.public_url is None and options["host"] in ("0.0.0.0", "::", ""):
        raise UsageError(f"authorization on a server bound to {options['host']} needs --public-url "
                         "(the URL clients use, which tokens must name)")
    app = plugins.build_app(options["plugins"], prefixes=options["prefixes"], **options["app"])
    # Everything loaded so far lives as long as the server: keep the collector from rescanning it.
    # Only the young generations are collected first (a full collection found nothing to free
    # after loading the plugins, and took 6 ms of a 140 ms start-up).
    gc.collect(1)
    gc.freeze()
    if options["transport"] == "stdio":
        failure: BaseException | None = None
        try:
            trio.run(_stdio, app, options)
        except* (plugins.PluginError, LifespanError) as group:  # (--reload without watchfiles, say)
            failure = first(group)
        if failure is not None:
            raise ServeError(str(failure)) if isinstance(failure, LifespanError) else failure
        # What is written after serving (exit hooks: an OpenTelemetry exporter's last flush, say)
        # must not reach the client as if it were a message: stdout stays on stderr until exit.
        sys.stdout.flush()
        os.dup2(2, 1)
        return 0
    from . import network  # imported only for network transports: keeps stdio start-up fast

    return network.serve(app, options, args.argv)


async def _stdio(app: Any, options: dict[str, Any]) -> None:
    async with trio.open_nursery() as nursery:
        if options["reload"]:
            from . import reload

            await nursery.start(reload.watch, app, options["plugins"], options["prefixes"])
        await serve_stdio(app, shutdown_trigger=wait_for_signals)
        nursery.cancel_scope.cancel()


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
    words = list(argv if argv is not None else sys.argv[1:])
    parser = make_parser(words[0] if words and words[0] in COMMANDS else None)
    args, extra = parser.parse_known_args(argv)
    if extra and getattr(args, "words", None) is not None:
        args.words += extra  # (a client command's KEY=VALUE pairs may come after its options)
    elif extra:
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    args.argv = list(argv if argv is not None else sys.argv[1:])  # (a worker's command line is made from it)
    try:
        if args.command == "serve":
            return serve(args)
        if args.command == "plugins":
            return list_plugins()
        if args.command == "new":
            from .scaffold import ScaffoldError, new_plugin

            try:
                folder = new_plugin(args.name, args.dir)
            except ScaffoldError as exc:
                fail(str(exc))
            print(f"wrote {folder}/: cd {folder} && pip install -e '.[test]' && pytest")
            return 0
        if args.command == "rotate-key":
            return rotate_key(args.state)
        if args.command in CLIENT_COMMANDS:
            from . import client_commands

            try:
                return client_commands.run(args)
            except client_commands.ClientUsageError as exc:
                fail(str(exc))
    except (UsageError, plugins.PluginError, ImportError, auth_settings.AuthSettingsError, ServeError) as exc:
        fail(str(exc))
    make_parser().print_help(sys.stderr)
    return 2

