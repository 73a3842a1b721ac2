"""``mcptrio inspect|list|call|read|prompt TARGET …``: the client on the command line.

TARGET is a URL (http(s)://, ws(s)://), a Python file or module (``file.py``, ``pkg.module:app``:
served in this process, as ``mcptrio serve`` would), ``--stdio "command args"``, ``--plugins a,b``
(served in this process) or ``--config mcp.json [NAME]``: the servers of an ``mcpServers`` file, all of
them (each row says which) or the one named.  A protected HTTP server gets a login when the
command runs on a terminal (``mcptrio auth login``'s), the stored tokens otherwise.  Human output
by default (rich tables, a progress bar, log lines, an
elicitation asked in the terminal), ``--json`` for scripts.  Exit status: 0 success, 1 the tool
returned ``isError``, 2 a usage or connection error.  Needs the ``cli`` extra (rich): without it,
each command says ``pip install 'mcptrio[cli]'`` and exits 2; ``mcptrio serve`` never imports it.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterable
from typing import Any

import trio

from ..client.urls import is_url, looks_like_url, url_problem
from ..groups import first
from ..protocol.errors import McpError
from ..protocol.session import LOG_LEVELS
from ..targets import load_target, looks_like_target
from .client_output import Output, list_of, listing, typed_value, unstructure
from .logins import login_for
from .usage import Parser, UsageError

LISTS = ("tools", "resources", "templates", "prompts")


USAGE = {
    "inspect": "",
    "list": "[tools|resources|templates|prompts]",
    "call": "TOOL [KEY=VALUE ...]",
    "read": "URI",
    "prompt": "NAME [KEY=VALUE ...]",
}
HELP = {
    "inspect": "what a server is and offers",
    "list": "a server's tools, resources, templates or prompts",
    "call": "call a tool",
    "read": "read a resource",
    "prompt": "get a prompt",
}


def add_commands(commands: argparse._SubParsersAction[Parser], names: Iterable[str] = USAGE) -> None:
    for name in names:
        usage = USAGE[name]
        parser = commands.add_parser(
            name,
            help=HELP[name],
            usage=f"mcptrio {name} (URL | FILE.py | --stdio COMMAND | --plugins A,B | --config FILE [NAME]) "
            f"{usage}".rstrip(),
        )
        parser.add_argument(
            "words",
            nargs="*",
            metavar="ARG",
            help="the server's URL (http(s):// or ws(s)://) or a Python file or module to serve (file.py, "
            "pkg.module:NAME), then " + (usage or "nothing"),
        )
        parser.add_argument("--stdio", metavar="COMMAND", help="run this command and speak MCP over its stdio")
        parser.add_argument("--plugins", metavar="A,B", help="serve these installed plugins in this process")
        parser.add_argument(
            "--config",
            metavar="FILE",
            help="the servers of an mcpServers file (mcp.json): all of them, or the one whose NAME is the first word",
        )
        parser.add_argument("--era", choices=("legacy", "modern"), help="default: ask with server/discover")
        parser.add_argument("--token", help="a bearer token for a protected server")
        parser.add_argument(
            "--cacert",
            metavar="FILE",
            help="trust the CA certificates in FILE for https:// and "
            "wss:// (default: SSL_CERT_FILE / SSL_CERT_DIR if set, else the usual CAs)",
        )
        parser.add_argument(
            "--log-level",
            default="info",
            choices=LOG_LEVELS,
            metavar="LEVEL",
            help="the least severe log message the server "
            "should send: debug, info, notice, warning, error, ... (default: info; none with --json)",
        )
        parser.add_argument("--json", action="store_true", help="machine-readable output")
        if name == "call":
            parser.add_argument("--args", dest="json_args", metavar="JSON", help="all arguments as one JSON object")
            parser.add_argument(
                "--watch",
                action="store_true",
                help="run the tool as a task where it can be one, "
                "and follow it to its end: its status on stderr, its questions asked on the terminal",
            )


def _words(args: argparse.Namespace) -> None:
    """Split the positional words: an optional URL (or file or module to serve) first, then the command's own."""
    words = list(args.words)
    other = args.stdio or args.plugins or args.config  # (then a first word like a URL is a resource's URI)
    if not other and words and looks_like_url(words[0]) and (problem := url_problem(words[0])) is not None:
        raise UsageError(f"the server: {problem}")
    args.target = words.pop(0) if words and is_url(words[0]) else None
    named = args.target or other
    args.source = words.pop(0) if not named and words and looks_like_target(words[0]) else None
    given = [x for x in (args.target, args.source, args.stdio, args.plugins, args.config) if x]
    misplaced = next((word for word in words if is_url(word)), None)
    if not given and misplaced is not None:  # (``mcptrio list tools URL``)
        rest = " ".join(word for word in args.words if word != misplaced)
        raise UsageError(f"name the server first: mcptrio {args.command} {misplaced} {rest}".rstrip())
    if len(given) != 1:
        raise UsageError(
            "name the server once: a URL, a FILE.py or module, --stdio COMMAND, --plugins A,B or --config FILE"
        )
    args.servers = None
    if args.config:
        from ..client import read_servers

        try:
            args.servers = read_servers(args.config)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        args.server = words.pop(0) if words and words[0] in args.servers else None
    needs = {"call": "a tool name", "read": "a resource URI", "prompt": "a prompt name"}.get(args.command)
    if needs is not None and not words:
        raise UsageError(f"mcptrio {args.command} needs {needs}")
    if args.command == "list":
        args.what = words.pop(0) if words else "tools"
        if args.what not in LISTS:
            raise UsageError(f"list what? {args.what!r} (choose from {', '.join(LISTS)})")
    elif args.command == "call":
        args.tool = words.pop(0)
    elif args.command == "read":
        args.uri = words.pop(0)
    elif args.command == "prompt":
        args.name = words.pop(0)
    if words and args.command not in ("call", "prompt"):
        raise UsageError(f"unexpected arguments: {' '.join(words)}")
    args.arguments = words
    args.verify = True
    if args.cacert is not None:
        from ..client.tls import ssl_context

        try:
            args.verify = ssl_context(args.cacert)
        except ValueError as exc:
            raise UsageError(f"--cacert: {exc}") from None


def run(args: argparse.Namespace) -> int:
    try:
        import rich  # noqa: F401 - every command's output needs it: say so now, not after connecting
    except ImportError:
        raise UsageError("the client commands need rich: pip install 'mcptrio[cli]'") from None
    _words(args)
    args.app = None
    if args.plugins or args.source:
        from .. import plugins

        names = [name.strip() for name in (args.plugins or "").split(",") if name.strip()]
        args.app = plugins.build_app(names, target=load_target(args.source) if args.source else None)
    failure: BaseException | None = None
    try:
        return trio.run(_run, args)
    except* UsageError as group:
        failure = first(group)
    except* (OSError, ConnectionError) as group:
        failure = UsageError(f"cannot reach the server: {first(group)}")
    except* McpError as group:  # the server answered a request with an error (or could not be reached)
        error = first(group)
        if isinstance(error.data, dict) and error.data.get("authorization"):
            failure = UsageError(error.message)  # (a login needed, or refused: the message says what to do)
        elif isinstance(error.data, dict) and error.data.get("transport"):
            failure = UsageError(f"cannot reach the server: {error.message}")
        else:
            failure = UsageError(f"the server answered {error.code}: {error.message}")
    assert failure is not None
    raise failure


async def _run(args: argparse.Namespace) -> int:
    from ..client import connect

    target: Any
    out = Output(args.json)
    options: dict[str, Any] = {
        "era": args.era,
        "elicitation": out.elicit,
        "verify": args.verify,
        "keep_stderr": True,
        "log_level": None if args.json else args.log_level,
        "tasks": True if getattr(args, "watch", False) else None,
    }
    if args.servers is not None:
        from .server_groups import run_group

        return await run_group(args, out, options, dict(COMMANDS))
    target = args.app or args.target or args.stdio
    async with connect(target, token=args.token, auth=login_for(target, args.token, args.verify), **options) as client:
        client.raw.on_notification.append(out.notification)
        return await COMMANDS[args.command](client, args, out)


async def _inspect(client: Any, args: argparse.Namespace, out: Output) -> int:
    caps = client.server_capabilities
    counts = {
        "tools": len(await client.list_tools()) if "tools" in caps else 0,
        "resources": len(await client.list_resources()) if "resources" in caps else 0,
        "templates": len(await client.list_resource_templates()) if "resources" in caps else 0,
        "prompts": len(await client.list_prompts()) if "prompts" in caps else 0,
    }
    info = unstructure(client.server_info) if client.server_info is not None else None
    report = {
        "server": info,
        "era": client.era,
        "protocolVersion": client.protocol_version,
        "capabilities": caps,
        "instructions": client.instructions,
        "counts": counts,
    }
    if out.json:
        out.emit(report)
    else:
        name = f"{info.get('name')} {info.get('version', '')}".strip() if info else "(unnamed server)"
        out.console.print(f"[bold]{name}[/] — {client.era} era, protocol {client.protocol_version}")
        out.console.print("capabilities: " + (", ".join(sorted(caps)) or "none"))
        out.console.print(", ".join(f"{n} {what}" for what, n in counts.items()))
        if client.instructions:
            out.console.print(f"instructions: {client.instructions}")
    return 0


async def _list(client: Any, args: argparse.Namespace, out: Output) -> int:
    items = await list_of(client, args.what)
    if out.json:
        out.emit([unstructure(item) for item in items])
        return 0
    columns, rows = listing(args.what, items)
    out.table(f"{len(items)} {args.what}", columns, rows)
    return 0


async def _call(client: Any, args: argparse.Namespace, out: Output) -> int:
    tools = {tool.name: tool for tool in await client.list_tools()}
    tool = tools.get(args.tool)
    if tool is None:
        raise UsageError(f"no tool named {args.tool!r} (mcptrio list shows them)")
    arguments = typed_arguments(args.arguments, args.json_args, tool.input_schema)
    check_arguments(arguments, tool.input_schema)
    watch = getattr(args, "watch", False)
    with out.progress(watch=watch) as progress:
        result = await client.call_tool(
            args.tool, arguments, progress=progress, on_task=out.task_state if watch else None
        )
    if out.json:
        out.emit(unstructure(result))
    else:
        out.content(result.content)
        if result.structured_content is not None and not result.content:
            out.console.print_json(data=result.structured_content)
    return 1 if result.is_error else 0


async def _read(client: Any, args: argparse.Namespace, out: Output) -> int:
    result = await client.read_resource(args.uri)
    if out.json:
        out.emit(unstructure(result))
    else:
        for item in result.contents:
            text = getattr(item, "text", None)
            out.console.print(
                text if text is not None else f"[{item.mime_type or 'binary'}, base64 data]", markup=False
            )
    return 0


async def _prompt(client: Any, args: argparse.Namespace, out: Output) -> int:
    arguments = dict(_pair(item) for item in args.arguments)
    result = await client.get_prompt(args.name, arguments)
    if out.json:
        out.emit(unstructure(result))
    else:
        for message in result.messages:
            out.console.print(f"[bold]{message.role}:[/]")
            out.content([message.content])
    return 0


COMMANDS = {"inspect": _inspect, "list": _list, "call": _call, "read": _read, "prompt": _prompt}


# -- arguments ------------------------------------------------------------------------------------


def _pair(item: str) -> tuple[str, str]:
    key, sep, value = item.partition("=")
    if not sep or not key:
        raise UsageError(f"arguments are KEY=VALUE, got {item!r}")
    return key, value


def typed_arguments(items: list[str], json_args: str | None, schema: dict[str, Any]) -> dict[str, Any]:
    """KEY=VALUE pairs (typed by the schema's property types) over a --args JSON object."""
    arguments: dict[str, Any] = {}
    if json_args is not None:
        try:
            arguments = json.loads(json_args)
        except json.JSONDecodeError as exc:
            raise UsageError(f"--args is not JSON: {exc}") from None
        if not isinstance(arguments, dict):
            raise UsageError("--args must be a JSON object")
    properties = schema.get("properties", {})
    given: set[str] = set()
    for item in items:
        key, value = _pair(item)
        if key in given:
            raise UsageError(f"argument {key!r} is given twice")
        given.add(key)
        kind = properties.get(key, {}).get("type")
        arguments[key] = typed_value(key, value, kind)
    return arguments


def check_arguments(arguments: dict[str, Any], schema: dict[str, Any]) -> None:
    """Check the arguments against the tool's input schema before sending: name the field."""
    import jsonschema

    errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(arguments), key=lambda e: list(e.path))
    if errors:
        error = errors[0]
        where = ".".join(str(p) for p in error.path) or "arguments"
        raise UsageError(f"{where}: {error.message}")
