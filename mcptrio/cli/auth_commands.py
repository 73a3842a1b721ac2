"""``mcptrio auth login URL | logout URL | status``: the client's logins to protected servers, kept in
the user's token store (``mcptrio.client.oauth.FileTokenStore``: files 0600 under
``~/.config/mcptrio/oauth``).  ``status`` shows what is kept — never a token itself."""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

import trio

from ..client.urls import is_url
from ..groups import first
from ..protocol.errors import McpError
from .usage import Parser, UsageError


def add_command(commands: argparse._SubParsersAction[Parser]) -> None:
    parser = commands.add_parser(
        "auth",
        help="log in to protected servers, log out, see the logins kept",
        usage="mcptrio auth (login URL | logout URL | status)",
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION", parser_class=Parser)
    login = actions.add_parser("login", help="log in to a server now (a browser opens, or its address is printed)")
    login.add_argument("url", metavar="URL")
    login.add_argument("--client-id", help="a client id registered with the server's authorization server")
    login.add_argument("--client-secret", help="its secret, if it has one")
    login.add_argument("--scope", help="scopes to ask for besides those the server needs (space-separated)")
    login.add_argument("--cacert", metavar="FILE", help="trust the CA certificates in FILE for https://")
    logout = actions.add_parser("logout", help="forget the tokens kept for a server")
    logout.add_argument("url", metavar="URL")
    status = actions.add_parser("status", help="the logins kept: server, authorization server, scopes, expiry")
    status.add_argument("--json", action="store_true", help="machine-readable output")


def run(args: argparse.Namespace) -> int:
    if args.action is None:
        raise UsageError("mcptrio auth needs an action: login URL, logout URL or status")
    if args.action in ("login", "logout") and not is_url(args.url):
        raise UsageError(f"mcptrio auth {args.action} needs the server's http(s):// or ws(s):// URL, got {args.url!r}")
    try:
        return trio.run(ACTIONS[args.action], args)
    except* McpError as group:
        error = first(group)
        if isinstance(error.data, dict) and error.data.get("transport"):
            raise UsageError(f"cannot reach the server: {error.message}") from None
        raise UsageError(error.message) from None
    except* OSError as group:
        raise UsageError(f"cannot reach the server: {first(group)}") from None


async def _login(args: argparse.Namespace) -> int:
    from ..client import connect
    from ..client.oauth import OAuth
    from ..client.tls import ssl_context

    verify: Any = True
    if args.cacert is not None:
        try:
            verify = ssl_context(args.cacert)
        except ValueError as exc:
            raise UsageError(f"--cacert: {exc}") from None
    auth = OAuth(client_id=args.client_id, client_secret=args.client_secret, scope=args.scope, verify=verify)
    await auth.logout(args.url)  # (a login now is a new one)
    async with connect(args.url, auth=auth, verify=verify) as client:
        await client.ping()
    if auth.session is None:
        print(f"{args.url} did not ask for a login: nothing kept")
        return 0
    scopes = " ".join(auth.session.scopes) or "(none asked)"
    print(f"logged in to {args.url} at {auth.session.issuer} (scopes: {scopes})")
    return 0


async def _logout(args: argparse.Namespace) -> int:
    from ..client.oauth import OAuth

    if await OAuth().logout(args.url):
        print(f"logged out of {args.url}: its tokens are forgotten")
    else:
        print(f"no login kept for {args.url}")
    return 0


async def _status(args: argparse.Namespace) -> int:
    from ..client.oauth import FileTokenStore
    from ..client.oauth.flow import indexed, kept_session

    store = FileTokenStore()
    rows: list[dict[str, Any]] = []
    for key in await store.entries():
        server = key.removeprefix("server ")
        where = await indexed(store, server) if key.startswith("server ") else None
        session = await kept_session(store, *where) if where is not None else None
        if session is None:
            continue
        expires = session.tokens.expires_at
        rows.append(
            {
                "server": server,
                "issuer": session.issuer,
                "resource": session.resource,
                "scopes": session.scopes,
                "expiresIn": None if expires is None else round(expires - time.time()),
                "refreshable": session.tokens.refresh_token is not None,
            }
        )
    if args.json:
        print(json.dumps(rows))
        return 0
    if not rows:
        print(f"no logins kept (in {store.folder})")
        return 0
    for row in rows:
        left = row["expiresIn"]
        when = "no expiry" if left is None else (f"expires in {left} s" if left > 0 else f"expired {-left} s ago")
        print(
            f"{row['server']}  at {row['issuer']}  scopes: {' '.join(row['scopes']) or '-'}  {when}"
            f"{', refreshable' if row['refreshable'] else ''}"
        )
    return 0


ACTIONS = {"login": _login, "logout": _logout, "status": _status}
