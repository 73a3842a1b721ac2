"""The ``file:///{+path}`` resource template: a file inside the roots, read like ``read_text_file``."""

from __future__ import annotations

import base64
import mimetypes
from typing import Any

from mcptrio import Context, McpError
from mcptrio.protocol.errors import INVALID_PARAMS

from . import fsops, reading
from .errors import FsError, NotFound
from .paths import Sandbox, within
from .registry import plugin
from .roots import allowed
from .tools import in_thread

MAX_COMPLETIONS = 100


async def complete_path(value: str, context_arguments: dict[str, Any], ctx: Context) -> list[str]:
    """Paths inside the client's roots that start with ``value`` (directories end in ``/``).

    In the 2026-07-28 era a completion cannot ask the client for its roots (only tools, prompts
    and resources may answer with an InputRequiredResult), so it offers nothing there unless the
    roots come from the environment.
    """
    if ctx.era != "legacy" and isinstance(ctx.client_capabilities.get("roots"), dict):
        return []
    try:
        sandbox = await allowed(ctx)
        return await in_thread(_path_candidates, sandbox, value)
    except FsError:
        return []  # nothing to offer outside the roots; completion never explains why


def _path_candidates(sandbox: Sandbox, value: str) -> list[str]:
    typed = "/" + value.lstrip("/")
    if not any(within(typed, root.path) and typed != root.path for root in sandbox.roots):
        # at or above a root: offer the roots themselves
        return sorted(root.path.lstrip("/") + "/" for root in sandbox.roots if root.path.startswith(typed))
    folder, _, prefix = typed.rpartition("/")
    try:
        listed = fsops.entries(sandbox.locate(folder or "/", "path"))
    except FsError:
        return []
    found = [
        f"{folder}/{name}".lstrip("/") + ("/" if kind == "DIR" else "")
        for kind, name in listed
        if name.startswith(prefix) and not name.startswith(".")
    ]
    return sorted(found)[:MAX_COMPLETIONS]


@plugin.resource("file:///{+path}", name="file", title="File in an allowed root", complete={"path": complete_path})
async def file_resource(ctx: Context, path: str) -> dict[str, Any]:
    """A file inside the allowed roots (at most 1 MiB): UTF-8 text as text, anything else as a blob."""
    uri = "file:///" + path
    try:
        sandbox = await allowed(ctx)
        return await in_thread(_contents, sandbox, uri)
    except NotFound:
        raise LookupError(uri) from None  # the core answers "resource not found"
    except FsError as exc:
        raise McpError(INVALID_PARAMS, str(exc), {"uri": uri}) from None


def _contents(sandbox: Sandbox, uri: str) -> dict[str, Any]:
    loc = sandbox.locate(uri, "uri")
    with fsops.open_file(loc, fsops.MAX_TEXT_BYTES, "the file resource") as (file, _):
        data = file.read(fsops.MAX_TEXT_BYTES + 1)
    if len(data) > fsops.MAX_TEXT_BYTES:
        raise FsError(f"{loc.shown} is over the {fsops.human(fsops.MAX_TEXT_BYTES)} limit of the file resource")
    guessed = mimetypes.guess_type(loc.real)[0]
    try:
        text = reading.decode(data, loc)
    except FsError:
        mime = reading.MEDIA_TYPES.get(loc.real[loc.real.rfind(".") :].lower(), guessed)
        return {
            "uri": uri,
            "mimeType": mime or "application/octet-stream",
            "blob": base64.b64encode(data).decode("ascii"),
        }
    return {"uri": uri, "mimeType": guessed or "text/plain", "text": text}
