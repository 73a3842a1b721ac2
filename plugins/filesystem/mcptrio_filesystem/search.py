"""``search_files``: a glob over a directory tree that never follows a symbolic link."""

from __future__ import annotations

import os
from fnmatch import fnmatchcase

from .errors import FsError, translating
from .fsops import open_dir
from .paths import Location

MAX_VISITED = 100_000  # entries looked at before a search gives up


def glob_segments(pattern: str) -> tuple[str, ...]:
    """A pattern as path segments; one without ``/`` matches a name at any depth (``**/pattern``)."""
    if not pattern or "\0" in pattern:
        raise FsError("'pattern' must be a non-empty glob without NUL bytes")
    if pattern.startswith("/"):
        raise FsError("'pattern' is relative to 'path' and may not start with '/'")
    segments = tuple(s for s in pattern.split("/") if s not in ("", "."))
    if ".." in segments:
        raise FsError("'pattern' may not contain a '..' component")
    return segments if "/" in pattern else ("**", *segments)


def matches(parts: tuple[str, ...], segments: tuple[str, ...]) -> bool:
    """Whether a relative path's ``parts`` match glob ``segments`` (``**`` = any number of directories)."""
    reach = [True] + [False] * len(parts)  # reach[j]: the segments so far match parts[:j]
    for segment in segments:
        if segment == "**":
            for j in range(1, len(reach)):
                reach[j] = reach[j] or reach[j - 1]
        else:
            reach = [False] + [reach[j] and fnmatchcase(parts[j], segment) for j in range(len(parts))]
    return reach[-1]


def search(loc: Location, pattern: str, max_results: int) -> tuple[list[str], str | None]:
    """Paths below ``loc`` matching ``pattern`` (relative, ``/``-separated, sorted) and why it stopped early."""
    found: list[str] = []
    stopped = _collect(loc, glob_segments(pattern), max_results, found)
    return sorted(found), stopped


def _collect(loc: Location, segments: tuple[str, ...], max_results: int, found: list[str]) -> str | None:
    visited = 0
    with open_dir(loc) as top, translating(loc.shown, loc.arg):
        stack = [(os.dup(top), ())]
        try:
            while stack:
                fd, prefix = stack.pop()
                try:
                    try:
                        with os.scandir(fd) as listing:
                            names = sorted((e.name, e.is_dir(follow_symlinks=False)) for e in listing)
                    except OSError:
                        if not prefix:
                            raise
                        continue  # an unreadable subdirectory is skipped
                    for name, is_dir in names:
                        visited += 1
                        parts = (*prefix, name)
                        if matches(parts, segments):
                            found.append("/".join(parts))
                            if len(found) >= max_results:
                                return f"stopped at max_results={max_results}"
                        if visited >= MAX_VISITED:
                            return f"stopped after looking at {MAX_VISITED} entries"
                        if is_dir:
                            child = _open_subdir(fd, name)
                            if child is not None:
                                stack.append((child, parts))
                finally:
                    os.close(fd)
        finally:
            for fd, _ in stack:
                os.close(fd)
    return None


def _open_subdir(fd: int, name: str) -> int | None:
    """The subdirectory ``name`` of ``fd``; None if unreadable or no longer a directory (a link, say)."""
    try:
        return os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=fd)
    except OSError:
        return None
