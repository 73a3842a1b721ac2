"""Errors a client may see: short, path-safe texts (never a traceback, never a path outside the roots)."""

from __future__ import annotations

import contextlib
import errno
from collections.abc import Iterator

import mcptrio


class FsError(mcptrio.ToolError):
    """A refused or failed operation; the message is safe to show the client."""


class AccessDenied(FsError):
    """The path is, or leads, outside the allowed roots."""


class NotFound(FsError):
    """Nothing is at the (allowed) path."""


def denied(arg: str) -> AccessDenied:
    """A denial that names the argument, not the path, so nothing about the outside leaks."""
    return AccessDenied(f"access denied: {arg!r} is outside the allowed roots (see list_allowed_roots)")


def swapped(arg: str) -> AccessDenied:
    return AccessDenied(f"access denied: {arg!r} leads through a symbolic link that cannot be followed safely")


_TEXTS = {
    errno.EEXIST: "already exists: {shown}",
    errno.EISDIR: "is a directory: {shown}",
    errno.ENOTDIR: "not a directory (or a parent is not): {shown}",
    errno.EACCES: "permission denied: {shown}",
    errno.EPERM: "operation not permitted: {shown}",
    errno.ENOTEMPTY: "directory not empty: {shown}",
    errno.ENAMETOOLONG: "name too long: {shown}",
    errno.ENOSPC: "no space left on the device",
    errno.EROFS: "read-only file system: {shown}",
    errno.EXDEV: "cannot move across file systems: {shown}",
    errno.EINVAL: "invalid operation on {shown} (moving a directory into itself?)",
}


def from_os_error(exc: OSError, shown: str, arg: str) -> FsError:
    """An ``OSError`` as a safe message: the errno's meaning and the path as the client wrote it."""
    if exc.errno == errno.ELOOP:
        return swapped(arg)
    if exc.errno == errno.ENOENT:
        return NotFound(f"not found: {shown}")
    template = _TEXTS.get(exc.errno or 0)
    if template is not None:
        return FsError(template.format(shown=shown))
    reason = exc.strerror or "input/output error"  # strerror never holds a file name
    return FsError(f"{reason}: {shown}")


@contextlib.contextmanager
def translating(shown: str, arg: str = "path") -> Iterator[None]:
    """Turn ``OSError`` raised inside the block into an ``FsError`` about ``shown``."""
    try:
        yield
    except OSError as exc:
        raise from_os_error(exc, shown, arg) from None
