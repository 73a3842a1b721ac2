"""The client commands over the servers of an ``mcpServers`` file (``--config FILE [NAME]``):
``list`` and ``inspect`` go to each server and say in every row which; ``call``, ``read`` and
``prompt`` go to the server named, or (``call``) to the one server that has the tool.  A server
that cannot be reached is a line on stderr, the others answer, and the exit status is 2."""

from __future__ import annotations

import argparse
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from .client_output import Output, list_of, listing, unstructure
from .logins import login_for
from .usage import UsageError

Command = Callable[[Any, argparse.Namespace, Output], Awaitable[int]]
Commands = Mapping[str, Command]


async def run_group(args: argparse.Namespace, out: Output, options: dict[str, Any], commands: Commands) -> int:
    from ..client import connect_all

    names = [args.server] if args.server else None
    headers_say_who = {
        entry.name for entry in args.servers.values() if any(key.lower() == "authorization" for key in entry.headers)
    }

    def auth(entry: Any) -> Any:
        return None if entry.name in headers_say_who else login_for(entry.url, None, args.verify)

    async with connect_all(args.servers, names=names, auth=auth, **options) as group:
        for name, why in group.failures.items():
            out.errors.print(f"{name}: cannot reach the server: {why}", markup=False, highlight=False)
        status = 2 if group.failures else 0
        for client in group.clients.values():
            client.raw.on_notification.append(out.notification)
        if args.command == "list":
            return max(status, await _list_all(group, args, out))
        if args.command == "inspect":
            for name, client in group.clients.items():
                if not out.json:
                    out.console.print(f"[bold underline]{name}[/]")
                status = max(status, await commands["inspect"](client, args, out))
            return status
        name = args.server or await _server_for(group, args)
        if name in group.failures:
            return 2
        if not out.json:
            out.errors.print(f"server: {name}", markup=False, highlight=False)
        return max(status, await commands[args.command](group[name], args, out))


async def _list_all(group: Any, args: argparse.Namespace, out: Output) -> int:
    found = await group.each(lambda client: list_of(client, args.what))
    status = 0
    rows: list[list[str]] = []
    records: list[dict[str, Any]] = []
    columns: list[str] = []
    for name, items in found.items():
        if isinstance(items, Exception):
            out.errors.print(f"{name}: {items}", markup=False, highlight=False)
            status = 2
            continue
        columns, server_rows = listing(args.what, items)
        rows += [[name, *row] for row in server_rows]
        records += [{"server": name, **unstructure(item)} for item in items]
    if out.json:
        out.emit(records)
    else:
        out.table(f"{len(rows)} {args.what} on {len(found)} servers", ["server", *(columns or ["name"])], rows)
    return status


async def _server_for(group: Any, args: argparse.Namespace) -> str:
    """The server a command goes to when none is named: the one that has the tool (``call``), or
    the only one."""
    if args.command == "call":
        having = [name for name, tool in await group.list_tools() if tool.name == args.tool]
        if len(having) == 1:
            return str(having[0])
        if having:
            raise UsageError(
                f"tool {args.tool!r} is on servers {', '.join(having)}: name one "
                f"(mcptrio call --config FILE NAME {args.tool})"
            )
        raise UsageError(f"no server has a tool named {args.tool!r} (mcptrio list --config FILE shows them)")
    if len(group.clients) == 1:
        return str(next(iter(group.clients)))
    raise UsageError(
        f"name the server: mcptrio {args.command} --config FILE NAME … (one of {', '.join(group.clients)})"
    )
