"""Where the allowed roots come from: the client's ``roots/list``, else ``MCPTRIO_FS_ROOTS``.

A legacy session whose client declares ``roots.listChanged`` is asked once; its answer is kept
until the client sends ``notifications/roots/list_changed``.
"""

from __future__ import annotations

import os
import weakref
from typing import Any

import trio

from mcptrio import Context, Notification

from .errors import FsError
from .paths import Root, Sandbox, file_uri_path
from .registry import ALLOWED_FOLDERS, plugin

ENV = ALLOWED_FOLDERS.env

# Per legacy session (its opaque session key): the client's roots, until it says they changed.
_known_roots: weakref.WeakKeyDictionary[Any, tuple[Root, ...]] = weakref.WeakKeyDictionary()


@plugin.on_notification("notifications/roots/list_changed")
def forget_roots(notification: Notification) -> None:
    """The client's roots changed: ask again on the next request."""
    _known_roots.pop(notification.session_key, None)


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


def _notifies_changes(ctx: Context) -> bool:
    """A legacy session whose client promises ``notifications/roots/list_changed``."""
    roots = ctx.client_capabilities.get("roots")
    return ctx.era == "legacy" and isinstance(roots, dict) and roots.get("listChanged") is True


async def _client_roots(ctx: Context) -> tuple[Root, ...]:
    cacheable = _notifies_changes(ctx)
    if cacheable and ctx.session_key in _known_roots:
        return _known_roots[ctx.session_key]
    roots = await trio.to_thread.run_sync(client_roots, await ctx.list_roots())
    if cacheable:
        _known_roots[ctx.session_key] = roots
    return roots


async def allowed(ctx: Context) -> Sandbox:
    """This request's sandbox.  A client that declares ``roots`` decides; otherwise the environment."""
    if _declares_roots(ctx):
        roots = await _client_roots(ctx)
        if not roots:
            raise FsError("access denied: none of the client's roots is an existing local directory (file:// URI)")
        return Sandbox(roots, "client roots")
    configured = os.environ.get(ENV, "")
    if configured.strip():
        roots = await trio.to_thread.run_sync(env_roots, configured)
        if not roots:
            raise FsError(f"access denied: {ENV} names no existing directory")
        return Sandbox(roots, ENV)
    raise FsError(
        f"access denied: no allowed roots. The client did not declare the roots capability "
        f"and {ENV} is not set, so this server may not touch any file."
    )
