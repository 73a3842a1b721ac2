"""Confinement: a client's path becomes a resolved ``Location`` inside an allowed root, or is refused.

A path is accepted only when

1. it holds no NUL byte and no ``..`` component (``a/link/..`` means different things to
   ``normpath`` and to the kernel, so ``..`` is refused rather than interpreted);
2. its absolute, normalised form lies inside a root, as configured or as resolved;
3. after ``os.path.realpath`` has resolved every symbolic link in it, it still lies inside a
   resolved root.  Parts that do not exist yet (a write target) have no links to resolve.

``fsops`` then walks the resolved path down from the root with ``O_NOFOLLOW``, so a symbolic
link swapped in after this check is refused instead of followed.  Denials name the argument,
never a path, so nothing outside the roots leaks into an error text.
"""

from __future__ import annotations

import os
from urllib.parse import unquote, urlsplit

import attrs

from .errors import FsError, denied


def within(path: str, base: str) -> bool:
    """``path`` is ``base`` or below it (both absolute and normalised)."""
    return path == base or path.startswith(base.rstrip("/") + "/")


def file_uri_path(uri: str) -> str:
    """The local path of a ``file://`` URI; ``ValueError`` for any other URI."""
    parts = urlsplit(uri)
    if parts.scheme != "file" or parts.netloc not in ("", "localhost"):
        raise ValueError("not a local file:// URI")
    return unquote(parts.path, errors="strict")


@attrs.frozen
class Root:
    """An allowed directory: as configured (``path``) and with symlinks resolved (``real``)."""

    path: str
    real: str
    name: str | None = None

    @classmethod
    def for_directory(cls, path: str, name: str | None = None) -> Root | None:
        """The root for an existing directory (which may be a symlink to one), else None."""
        if "\0" in path or not os.path.isabs(path):
            return None
        real = os.path.realpath(path)
        if not os.path.isdir(real):
            return None
        return cls(os.path.normpath(path), real, name)


@attrs.frozen
class Location:
    """A checked path: ``real`` is resolved and inside ``root``; ``shown`` is safe to echo."""

    root: Root
    real: str
    shown: str  # the client's path, made absolute and normalised
    arg: str  # the tool argument it came from, for messages

    @property
    def parts(self) -> tuple[str, ...]:
        """The components of ``real`` below the root; empty for the root itself."""
        rel = os.path.relpath(self.real, self.root.real)
        return () if rel == "." else tuple(rel.split("/"))


@attrs.frozen
class Sandbox:
    """The roots one request may use, and where they came from."""

    roots: tuple[Root, ...]
    source: str  # "client roots" or the environment variable's name

    def absolute(self, path: str, arg: str = "path") -> str:
        """``path`` (absolute, relative to the first root, or a file:// URI) made absolute; no I/O."""
        if not path:
            raise FsError(f"{arg!r} is empty")
        if path.startswith("file:"):
            try:
                path = file_uri_path(path)
            except ValueError:
                raise FsError(f"{arg!r} is not a path or a local file:// URI") from None
        if "\0" in path:
            raise FsError(f"{arg!r} contains a NUL byte")
        if ".." in path.split("/"):
            raise FsError(f"{arg!r} contains a '..' component, which is not allowed")
        if not os.path.isabs(path):
            path = os.path.join(self.roots[0].path, path)
        return os.path.normpath(path)

    def locate(self, path: str, arg: str = "path", *, follow: bool = True) -> Location:
        """Check ``path`` and resolve it; ``follow=False`` keeps a final symlink itself (for moves)."""
        shown = self.absolute(path, arg)
        if not any(within(shown, root.path) or within(shown, root.real) for root in self.roots):
            raise denied(arg)
        if follow:
            real = os.path.realpath(shown)
        else:
            if any(shown in (root.path, root.real) for root in self.roots):
                raise FsError(f"{arg!r} is an allowed root itself, which cannot be moved or replaced")
            parent, name = os.path.split(shown)
            real = os.path.join(os.path.realpath(parent), name)
        root = self.root_of(real)
        if root is None:
            raise denied(arg)
        if not follow and os.path.islink(real) and self.root_of(os.path.realpath(real)) is None:
            raise denied(arg)  # a link that points outside may not be moved either
        return Location(root, real, shown, arg)

    def root_of(self, real: str) -> Root | None:
        """The innermost root whose resolved path holds ``real``."""
        holding = [root for root in self.roots if within(real, root.real)]
        return max(holding, key=lambda root: len(root.real), default=None)
