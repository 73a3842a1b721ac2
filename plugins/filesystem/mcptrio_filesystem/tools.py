"""The filesystem tools.  Each asks for the request's roots, then does its I/O in a worker thread."""

from __future__ import annotations

import base64
import difflib
import functools
import stat
from collections.abc import Callable
from typing import Annotated, Any, Literal, TypeVar

import attrs
import trio

from mcptrio import Context, Param

from . import fsops, reading, search
from .errors import FsError, swapped
from .paths import Sandbox
from .registry import plugin
from .roots import allowed

T = TypeVar("T")

PathArg = Annotated[str, "A path: absolute, relative to the first allowed root, or a file:// URI"]
Lines = Annotated[int | None, Param(schema={"minimum": 1})]

# Truthful hints (all tools act on a closed world: the local files under the roots).
READ_ONLY = {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False}
MAX_LISTED = 2000


def hints(*, destructive: bool, idempotent: bool) -> dict[str, bool]:
    return {"readOnlyHint": False, "destructiveHint": destructive, "idempotentHint": idempotent, "openWorldHint": False}


async def in_thread(fn: Callable[..., T], *args: Any) -> T:
    """Run blocking file work off the event loop; text that is not Unicode becomes a clear error."""
    try:
        return await trio.to_thread.run_sync(functools.partial(fn, *args))
    except UnicodeError:
        raise FsError("a path or the content is not valid Unicode text") from None


@attrs.frozen
class FileInfo:
    """Metadata of a file or directory (times are ISO 8601, UTC)."""

    path: str
    type: Literal["file", "directory", "other"]
    size: int
    modified: str
    accessed: str
    created: str | None
    permissions: str  # octal, e.g. "644"


@plugin.tool(title="List directory", annotations=READ_ONLY)
async def list_directory(ctx: Context, path: PathArg) -> str:
    """List a directory's entries, each marked [DIR], [FILE], [LINK] or [OTHER]."""
    sandbox = await allowed(ctx)

    def work() -> str:
        found = fsops.entries(sandbox.locate(path))
        lines = [f"[{kind}] {name}" for kind, name in found[:MAX_LISTED]]
        if len(found) > MAX_LISTED:
            lines.append(f"... and {len(found) - MAX_LISTED} more entries")
        return "\n".join(lines) or "(empty directory)"

    return await in_thread(work)


@plugin.tool(title="Read text file", annotations=READ_ONLY)
async def read_text_file(
    ctx: Context,
    path: PathArg,
    head: Annotated[Lines, "Only the first N lines"] = None,
    tail: Annotated[Lines, "Only the last N lines"] = None,
) -> str:
    """Read a UTF-8 text file, at most 1 MiB (use head or tail for part of a larger one)."""
    if head is not None and tail is not None:
        raise FsError("give head or tail, not both")
    sandbox = await allowed(ctx)
    return await in_thread(lambda: reading.read_text(sandbox.locate(path), head, tail))


@plugin.tool(title="Read image or audio file", annotations=READ_ONLY)
async def read_media_file(ctx: Context, path: PathArg):  # noqa: ANN201  (content, not structured)
    """Read an image or audio file (at most 2 MiB) as base64 content with its MIME type."""
    sandbox = await allowed(ctx)
    data, mime = await in_thread(lambda: reading.read_media(sandbox.locate(path)))
    kind = "image" if mime.startswith("image/") else "audio"
    return {"type": kind, "data": base64.b64encode(data).decode("ascii"), "mimeType": mime}


@plugin.tool(title="Write file", annotations=hints(destructive=True, idempotent=True))
async def write_file(ctx: Context, path: PathArg, content: str) -> str:
    """Create a file or replace its whole content with UTF-8 text (atomically). The parent must exist."""
    sandbox = await allowed(ctx)

    def work() -> str:
        data = content.encode("utf-8")
        loc = sandbox.locate(path)
        created = fsops.replace(loc, data)
        return f"{'Created' if created else 'Replaced'} {loc.shown} ({fsops.human(len(data))})"

    return await in_thread(work)


@plugin.tool(title="Edit file", annotations=hints(destructive=True, idempotent=False))
async def edit_file(ctx: Context, path: PathArg, old: str, new: str) -> str:
    """Replace the one occurrence of `old` in a text file with `new`; returns a unified diff."""
    if not old:
        raise FsError("'old' must not be empty")
    sandbox = await allowed(ctx)

    def work() -> str:
        loc = sandbox.locate(path)
        text = reading.read_text(loc, None, None)
        count = text.count(old)
        if count != 1:
            hint = "" if count == 0 else "; include more surrounding text so that it matches exactly once"
            raise FsError(f"'old' occurs {count} times in {loc.shown}, not exactly once{hint}")
        updated = text.replace(old, new, 1)
        fsops.replace(loc, updated.encode("utf-8"))
        diff = difflib.unified_diff(
            text.splitlines(keepends=True), updated.splitlines(keepends=True), loc.shown, loc.shown, n=2
        )
        return "".join(line if line.endswith("\n") else line + "\n" for line in diff)

    return await in_thread(work)


@plugin.tool(title="Create directory", annotations=hints(destructive=False, idempotent=True))
async def create_directory(ctx: Context, path: PathArg) -> str:
    """Create a directory and any missing parents; an existing directory is fine."""
    sandbox = await allowed(ctx)

    def work() -> str:
        loc = sandbox.locate(path)
        if fsops.make_dirs(loc):
            return f"Created directory {loc.shown}"
        return f"Directory {loc.shown} already exists"

    return await in_thread(work)


# Not additive (the source name disappears), so destructive, though it never overwrites.
@plugin.tool(title="Move or rename", annotations=hints(destructive=True, idempotent=False))
async def move_file(ctx: Context, source: PathArg, destination: PathArg) -> str:
    """Move or rename a file or directory; the destination must not exist. A link is moved, not followed."""
    sandbox = await allowed(ctx)

    def work() -> str:
        src = sandbox.locate(source, "source", follow=False)
        dst = sandbox.locate(destination, "destination", follow=False)
        fsops.move(src, dst)
        return f"Moved {src.shown} to {dst.shown}"

    return await in_thread(work)


@plugin.tool(title="Search files", annotations=READ_ONLY)
async def search_files(
    ctx: Context,
    path: PathArg,
    pattern: Annotated[
        str, "A glob relative to path: '*.py' matches at any depth, 'src/**/*.py' from path down; ** spans directories"
    ],
    max_results: Annotated[int, Param(schema={"minimum": 1, "maximum": 10000})] = 100,
) -> str:
    """Find files and directories below a directory whose path matches a glob (links are not followed)."""
    sandbox = await allowed(ctx)

    def work() -> str:
        loc = sandbox.locate(path)
        found, stopped = search.search(loc, pattern, max_results)
        lines = [f"{loc.shown.rstrip('/')}/{rel}" for rel in found]
        if stopped:
            lines.append(f"({stopped})")
        return "\n".join(lines) or f"no matches for {pattern!r} below {loc.shown}"

    return await in_thread(work)


@plugin.tool(title="File info", annotations=READ_ONLY)
async def get_file_info(ctx: Context, path: PathArg) -> FileInfo:
    """Size, times, type and permissions of a file or directory."""
    sandbox = await allowed(ctx)
    return await in_thread(_info, sandbox, path)


def _info(sandbox: Sandbox, path: str) -> FileInfo:
    loc = sandbox.locate(path)
    status = fsops.lstat(loc)
    if status is None:
        raise FsError(f"not found: {loc.shown}")
    mode = status.st_mode
    if stat.S_ISLNK(mode):  # the resolved path holds no link unless one was swapped in
        raise swapped(loc.arg)
    kind: Literal["file", "directory", "other"] = (
        "directory" if stat.S_ISDIR(mode) else "file" if stat.S_ISREG(mode) else "other"
    )
    birth = getattr(status, "st_birthtime", None)
    return FileInfo(
        path=loc.shown,
        type=kind,
        size=status.st_size,
        modified=fsops.iso(status.st_mtime),
        accessed=fsops.iso(status.st_atime),
        created=None if birth is None else fsops.iso(birth),
        permissions=format(stat.S_IMODE(mode), "o"),
    )


@plugin.tool(title="List allowed roots", annotations=READ_ONLY)
async def list_allowed_roots(ctx: Context) -> str:
    """The directories this server may use for this client, and where they come from."""
    sandbox = await allowed(ctx)
    lines = [f"Allowed roots (from {sandbox.source}):"]
    for root in sandbox.roots:
        line = f"- {root.path}"
        if root.real != root.path:
            line += f" (resolves to {root.real})"
        if root.name:
            line += f": {root.name}"
        lines.append(line)
    return "\n".join(lines)
