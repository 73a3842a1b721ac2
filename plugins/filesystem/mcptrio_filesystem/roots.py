"""Where the allowed roots come from: the client's ``roots/list``, else ``MCPTRIO_FS_ROOTS``."""

from __future__ import annotations

import os
from typing import Any

import trio

from mcptrio import Context

from .errors import FsError
from .paths import Root, Sandbox, file_uri_path

ENV = "MCPTRIO_FS_ROOTS"


def client_roots(listed: list[dict[str, Any]]) -> tuple[Root, ...]:
    """The client's roots that are existing local directories (``file://`` URIs); others are skipped."""
    found: dict[str, Root] = {}
    for item in listed:
        uri = item.get("uri") if isinstance(item, dict) else None
        if not isinstance(uri, str):
            continue
        try:
            path = file_uri_path(uri)
        except ValueError:
            continue
        name = item.get("name")
        root = Root.for_directory(path, name if isinstance(name, str) else None)
        if root is not None:
            found.setdefault(root.path, root)
    return tuple(found.values())


def env_roots(value: str) -> tuple[Root, ...]:
    """Directories named in ``value``, separated by ``os.pathsep``; missing ones are skipped."""
    found: dict[str, Root] = {}
    for entry in value.split(os.pathsep):
        if entry.strip():
            root = Root.for_directory(os.path.abspath(os.path.expanduser(entry.strip())))
            if root is not None:
                found.setdefault(root.path, root)
    return tuple(found.values())


def _declares_roots(ctx: Context) -> bool:
    return isinstance(ctx.client_capabilities.get("roots"), dict)


async def allowed(ctx: Context) -> Sandbox:
    """This request's sandbox.  A client that declares ``roots`` decides; otherwise the environment."""
    if _declares_roots(ctx):
        listed = await ctx.list_roots()
        roots = await trio.to_thread.run_sync(client_roots, listed)
        if not roots:
            raise FsError("access denied: none of the client's roots is an existing local directory "
                          "(file:// URI)")
        return Sandbox(roots, "client roots")
    configured = os.environ.get(ENV, "")
    if configured.strip():
        roots = await trio.to_thread.run_sync(env_roots, configured)
        if not roots:
            raise FsError(f"access denied: {ENV} names no existing directory")
        return Sandbox(roots, ENV)
    raise FsError(f"access denied: no allowed roots. The client did not declare the roots capability "
                  f"and {ENV} is not set, so this server may not touch any file.")
