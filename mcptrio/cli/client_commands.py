"""``mcptrio inspect|list|call|read|prompt TARGET …``: the client on the command line.

TARGET is a URL (http(s)://, ws(s)://), ``--stdio "command args"`` or ``--plugins a,b`` (served
in this process).  Human output by default (rich tables, a progress bar, log lines, an
elicitation asked in the terminal), ``--json`` for scripts.  Exit status: 0 success, 1 the tool
returned ``isError``, 2 a usage or connection error.  Needs the ``cli`` extra (rich): without it,
each command says ``pip install 'mcptrio[cli]'`` and exits 2; ``mcptrio serve`` never imports it.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, Iterable, cast

import trio

from ..groups import first
from ..protocol.errors import McpError
from ..protocol.session import LOG_LEVELS
from .usage import Parser, UsageError

LISTS = ("tools", "resources", "templates", "prompts")
URL_SCHEMES = ("http://", "https://", "ws://", "wss://")


USAGE = {"inspect": "", "list": "[tools|resources|templates|prompts]", "call": "TOOL [KEY=VALUE ...]",
         "read": "URI", "prompt": "NAME [KEY=VALUE ...]"}
HELP = {"inspect": "what a server is and offers", "list": "a server's tools, resources, templates or prompts",
        "call": "call a tool", "read": "read a resource", "prompt": "get a prompt"}


def add_commands(commands: argparse._SubParsersAction[Parser], names: Iterable[str] = USAGE) -> None:
    for name in names:
        usage = USAGE[name]
        parser = commands.add_parser(name, help=HELP[name],
                                     usage=f"mcptrio {name} (URL | --stdio COMMAND | --plugins A,B) {usage}".rstrip())
        parser.add_argument("words", nargs="*", metavar="ARG", help="the server's URL (http(s):// or ws(s)://), "
                            "then " + (usage or "nothing"))
        parser.add_argument("--stdio", metavar="COMMAND", help="run this command and speak MCP over its stdio")
        parser.add_argument("--plugins", metavar="A,B", help="serve these installed plugins in this process")
        parser.add_argument("--era", choices=("legacy", "modern"), help="default: ask with server/discover")
        parser.add_argument("--token", help="a bearer token for a protected server")
        parser.add_argument("--cacert", metavar="FILE", help="trust the CA certificates in FILE for https:// and "
                            "wss:// (default: SSL_CERT_FILE / SSL_CERT_DIR if set, else the usual CAs)")
        parser.add_argument("--log-level", default="info", choices=LOG_LEVELS, metavar="LEVEL", help="the least severe log message the server "
                            "should send: debug, info, notice, warning, error, ... (default: info; none with --json)")
        parser.add_argument("--json", action="store_true", help="machine-readable output")
        if name == "call":
            parser.add_argument("--args", dest="json_args", metavar="JSON", help="all arguments as one JSON object")


def _words(args: argparse.Namespace) -> None:
    """Split the positional words: an optional URL first, then the command's own."""
    words = list(args.words)
    args.target = words.pop(0) if words and words[0].startswith(URL_SCHEMES) else None
    given = [x for x in (args.target, args.stdio, args.plugins) if x]
    if len(given) != 1:
        raise UsageError("name the server once: a URL, --stdio COMMAND or --plugins A,B")
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
    failure: BaseException | None = None
    try:
        return trio.run(_run, args)
    except* UsageError as group:
        failure = first(group)
    except* (OSError, ConnectionError) as group:
        failure = UsageError(f"cannot reach the server: {first(group)}")
    except* McpError as group:  # the server answered a request with an error (or could not be reached)
        error = first(group)
        if isinstance(error.data, dict) and error.data.get("transport"):
            failure = UsageError(f"cannot reach the server: {error.message}")
        else:
            failure = UsageError(f"the server answered {error.code}: {error.message}")
    assert failure is not None
    raise failure



async def _run(args: argparse.Namespace) -> int:
    from ..client import connect

    target: Any
    if args.plugins:
        from .. import plugins

        target = plugins.build_app([name.strip() for name in args.plugins.split(",") if name.strip()])
    else:
        target = args.target or args.stdio
    out = Output(args.json)
    async with connect(target, era=args.era, token=args.token, elicitation=out.elicit, verify=args.verify,
                       log_level=None if args.json else args.log_level, keep_stderr=True) as client:
        client.raw.on_notification.append(out.notification)
        return await COMMANDS[args.command](client, args, out)


# -- the commands ---------------------------------------------------------------------------------

async def _inspect(client: Any, args: argparse.Namespace, out: Output) -> int:
    caps = client.server_capabilities
    counts = {"tools": len(await client.list_tools()) if "tools" in caps else 0,
              "resources": len(await client.list_resources()) if "resources" in caps else 0,
              "templates": len(await client.list_resource_templates()) if "resources" in caps else 0,
              "prompts": len(await client.list_prompts()) if "prompts" in caps else 0}
    info = _unstructure(client.server_info) if client.server_info is not None else None
    report = {"server": info, "era": client.era, "protocolVersion": client.protocol_version,
              "capabilities": caps, "instructions": client.instructions, "counts": counts}
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
    fetch = {"tools": client.list_tools, "resources": client.list_resources,
             "templates": client.list_resource_templates, "prompts": client.list_prompts}[args.what]
    items = await fetch()
    if out.json:
        out.emit([_unstructure(item) for item in items])
        return 0
    from rich.table import Table

    table = Table(title=f"{len(items)} {args.what}")
    if args.what == "tools":
        table.add_column("name")
        table.add_column("arguments")
        table.add_column("description")
        for tool in items:
            props = tool.input_schema.get("properties", {})
            required = set(tool.input_schema.get("required", []))
            table.add_row(tool.name, ", ".join(f"{k}{'' if k in required else '?'}: {v.get('type', 'any')}"
                                               for k, v in props.items()), tool.description or "")
    elif args.what == "prompts":
        table.add_column("name")
        table.add_column("arguments")
        table.add_column("description")
        for prompt in items:
            table.add_row(prompt.name, ", ".join(a.name for a in prompt.arguments or []), prompt.description or "")
    else:
        table.add_column("uri" if args.what == "resources" else "uri template")
        table.add_column("name")
        table.add_column("mime type")
        for item in items:
            table.add_row(getattr(item, "uri", None) or item.uri_template, item.name, item.mime_type or "")
    out.console.print(table)
    return 0


async def _call(client: Any, args: argparse.Namespace, out: Output) -> int:
    tools = {tool.name: tool for tool in await client.list_tools()}
    tool = tools.get(args.tool)
    if tool is None:
        raise UsageError(f"no tool named {args.tool!r} (mcptrio list shows them)")
    arguments = typed_arguments(args.arguments, args.json_args, tool.input_schema)
    check_arguments(arguments, tool.input_schema)
    with out.progress() as progress:
        result = await client.call_tool(args.tool, arguments, progress=progress)
    if out.json:
        out.emit(_unstructure(result))
    else:
        out.content(result.content)
        if result.structured_content is not None and not result.content:
            out.console.print_json(data=result.structured_content)
    return 1 if result.is_error else 0


async def _read(client: Any, args: argparse.Namespace, out: Output) -> int:
    result = await client.read_resource(args.uri)
    if out.json:
        out.emit(_unstructure(result))
    else:
        for item in result.contents:
            text = getattr(item, "text", None)
            out.console.print(text if text is not None else f"[{item.mime_type or 'binary'}, base64 data]", markup=False)
    return 0


async def _prompt(client: Any, args: argparse.Namespace, out: Output) -> int:
    arguments = dict(_pair(item) for item in args.arguments)
    result = await client.get_prompt(args.name, arguments)
    if out.json:
        out.emit(_unstructure(result))
    else:
        for message in result.messages:
            out.console.print(f"[bold]{message.role}:[/]")
            out.content([message.content])
    return 0


def _unstructure(value: Any) -> Any:
    from .. import wire  # (not on `mcptrio serve`'s way: the wire types are a fifth of its start-up)

    return wire.unstructure(value)


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
    for item in items:
        key, value = _pair(item)
        kind = properties.get(key, {}).get("type")
        arguments[key] = _typed(key, value, kind)
    return arguments


def _typed(key: str, value: str, kind: Any) -> Any:
    try:
        if kind == "integer":
            return int(value)
        if kind == "number":
            return float(value)
        if kind == "boolean":
            if value.lower() not in ("true", "false"):
                raise ValueError
            return value.lower() == "true"
        if kind in ("array", "object", "null"):
            return json.loads(value)
    except (ValueError, json.JSONDecodeError):
        raise UsageError(f"argument {key!r} must be {kind}, got {value!r}") from None
    return value


def check_arguments(arguments: dict[str, Any], schema: dict[str, Any]) -> None:
    """Check the arguments against the tool's input schema before sending: name the field."""
    import jsonschema

    errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(arguments), key=lambda e: list(e.path))
    if errors:
        error = errors[0]
        where = ".".join(str(p) for p in error.path) or "arguments"
        raise UsageError(f"{where}: {error.message}")


# -- output ---------------------------------------------------------------------------------------

class Output:
    def __init__(self, as_json: bool) -> None:
        from rich.console import Console

        self.json = as_json
        self.console = Console()
        self.errors = Console(stderr=True)

    def emit(self, value: Any) -> None:
        sys.stdout.write(json.dumps(value, ensure_ascii=False) + "\n")

    def content(self, blocks: list[Any]) -> None:
        for block in blocks:
            text = getattr(block, "text", None)
            if text is not None:
                self.console.print(text, markup=False, highlight=False)
            else:
                kind = getattr(block, "type", "content")
                mime = getattr(block, "mime_type", None)
                self.console.print(f"[{kind}{', ' + mime if mime else ''}]", markup=False)

    def notification(self, message: dict[str, Any]) -> None:
        if message.get("method") == "notifications/message" and not self.json:
            params = message.get("params") or {}
            data = params.get("data")
            text = data if isinstance(data, str) else json.dumps(data)
            self.errors.print(f"[dim]{params.get('level', 'info')}[/] {text}", highlight=False)

    def progress(self) -> Any:
        import contextlib

        if self.json or not self.errors.is_terminal:
            return contextlib.nullcontext(None)
        return _ProgressBar(self.errors)

    async def elicit(self, params: dict[str, Any]) -> dict[str, Any]:
        """A form in the terminal from the requested schema; declined when stdin is not a terminal."""
        if self.json or not sys.stdin.isatty():
            return {"action": "decline"}
        from rich.prompt import Confirm, Prompt

        self.errors.print(f"[bold]{params.get('message', 'The server asks:')}[/]")
        schema = params.get("requestedSchema") or {}
        content: dict[str, Any] = {}
        for name, spec in (schema.get("properties") or {}).items():
            label = spec.get("title") or name
            kind = spec.get("type")
            answer = await trio.to_thread.run_sync(
                lambda: Confirm.ask(label, console=self.errors) if kind == "boolean"
                else Prompt.ask(label, console=self.errors, choices=spec.get("enum")))
            content[name] = answer if kind in ("boolean", "string", None) else _typed(name, cast(str, answer), kind)
        return {"action": "accept", "content": content}


class _ProgressBar:
    """A rich progress bar fed by the call's progress notifications (on stderr, on a terminal)."""

    def __init__(self, console: Any) -> None:
        from rich.progress import Progress

        self.bar = Progress(console=console, transient=True)
        self.task = self.bar.add_task("working", total=None)

    def __enter__(self) -> Any:
        self.bar.start()
        return self.update

    def __exit__(self, *exc: Any) -> None:
        self.bar.stop()

    def update(self, progress: float, total: float | None, message: str | None) -> None:
        self.bar.update(self.task, completed=progress, total=total, description=message or "working")
