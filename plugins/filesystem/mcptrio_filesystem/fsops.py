"""Blocking file operations on checked ``Location``s; run them in a worker thread.

Every operation opens the root's resolved directory and walks down to its target one component
at a time with ``O_NOFOLLOW``, acting through directory descriptors (``dir_fd``).  The resolved
path holds no symbolic links, so meeting one means it was swapped in after the check: refused.
"""

from __future__ import annotations

import contextlib
import datetime
import os
import secrets
import stat
from collections.abc import Iterator
from typing import IO

from .errors import FsError, swapped, translating
from .paths import Location

MiB = 1024 * 1024
MAX_TEXT_BYTES = 1 * MiB  # read_text_file, edit_file and the file:// resource
MAX_MEDIA_BYTES = 2 * MiB  # base64 makes it ~2.7 MiB: inside the default 4 MiB message limit
CHUNK = 64 * 1024

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC  # NONBLOCK: a FIFO won't hang us


def human(size: int) -> str:
    return f"{size / MiB:.1f} MiB" if size >= MiB else f"{size} bytes"


def _subdir(fd: int, name: str, loc: Location) -> int:
    """Open the directory ``name`` in ``fd``; a symbolic link there is refused (Linux says ENOTDIR)."""
    try:
        return os.open(name, _DIR_FLAGS, dir_fd=fd)
    except OSError:
        with contextlib.suppress(OSError):
            if stat.S_ISLNK(os.stat(name, dir_fd=fd, follow_symlinks=False).st_mode):
                raise swapped(loc.arg) from None
        raise


def _walk(loc: Location, parts: tuple[str, ...]) -> int:
    """A descriptor of the directory ``root/parts``, reached without following any link."""
    fd = os.open(loc.root.real, _DIR_FLAGS)
    for part in parts:
        try:
            following = _subdir(fd, part, loc)
        finally:
            os.close(fd)
        fd = following
    return fd


@contextlib.contextmanager
def open_dir(loc: Location) -> Iterator[int]:
    """A descriptor of the directory at ``loc``."""
    with translating(loc.shown, loc.arg):
        fd = _walk(loc, loc.parts)
    try:
        yield fd
    finally:
        os.close(fd)


@contextlib.contextmanager
def open_parent(loc: Location) -> Iterator[tuple[int, str]]:
    """A descriptor of the directory holding ``loc``, and ``loc``'s name in it."""
    if not loc.parts:
        raise FsError(f"is a directory (an allowed root): {loc.shown}")
    with translating(loc.shown, loc.arg):
        fd = _walk(loc, loc.parts[:-1])
    try:
        yield fd, loc.parts[-1]
    finally:
        os.close(fd)


def lstat(loc: Location) -> os.stat_result | None:
    """``loc``'s own status (a link is not followed), or None when nothing is there."""
    if not loc.parts:
        with open_dir(loc) as fd:
            return os.stat(fd)
    with open_parent(loc) as (fd, name), translating(loc.shown, loc.arg):
        try:
            return os.stat(name, dir_fd=fd, follow_symlinks=False)
        except FileNotFoundError:
            return None


@contextlib.contextmanager
def open_file(loc: Location, limit: int, what: str) -> Iterator[tuple[IO[bytes], int]]:
    """The regular file at ``loc`` opened for reading, and its size; ``limit`` applies unless 0."""
    with open_parent(loc) as (dir_fd, name), translating(loc.shown, loc.arg):
        fd = os.open(name, _READ_FLAGS, dir_fd=dir_fd)
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise FsError(f"is a directory: {loc.shown}")
        if not stat.S_ISREG(info.st_mode):
            raise FsError(f"not a regular file: {loc.shown}")
        if limit and info.st_size > limit:
            raise FsError(f"{loc.shown} is {human(info.st_size)}, over the {human(limit)} limit of {what}")
        file = open(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
    with file, translating(loc.shown, loc.arg):
        yield file, info.st_size


def replace(loc: Location, data: bytes) -> bool:
    """Write ``data`` to ``loc`` atomically (temporary file, then rename); True if it was created.

    The rename replaces the directory entry, so a hard link elsewhere never sees the write, and a
    symlink swapped in for the target is replaced rather than followed.
    """
    with open_parent(loc) as (dir_fd, name), translating(loc.shown, loc.arg):
        try:
            old = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
        except FileNotFoundError:
            old = None
        if old is not None and stat.S_ISDIR(old.st_mode):
            raise FsError(f"is a directory: {loc.shown}")
        if old is not None and stat.S_ISLNK(old.st_mode):
            raise swapped(loc.arg)
        if old is not None and not stat.S_ISREG(old.st_mode):
            raise FsError(f"not a regular file: {loc.shown}")
        temp = f".mcptrio-{secrets.token_hex(8)}.tmp"
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        fd = os.open(temp, flags, 0o666, dir_fd=dir_fd)
        try:
            with open(fd, "wb") as file:
                file.write(data)
                file.flush()
                if old is not None:
                    os.fchmod(fd, stat.S_IMODE(old.st_mode))
                os.fsync(fd)
            os.replace(temp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temp, dir_fd=dir_fd)
            raise
    return old is None


def make_dirs(loc: Location) -> bool:
    """Create ``loc`` and any missing parents; True if anything was created."""
    created = False
    with translating(loc.shown, loc.arg):
        fd = os.open(loc.root.real, _DIR_FLAGS)
        try:
            for part in loc.parts:
                try:
                    following = _subdir(fd, part, loc)
                except FileNotFoundError:
                    with contextlib.suppress(FileExistsError):  # made meanwhile: open it below
                        os.mkdir(part, 0o777, dir_fd=fd)
                        created = True
                    following = _subdir(fd, part, loc)
                os.close(fd)
                fd = following
        finally:
            os.close(fd)
    return created


def move(source: Location, destination: Location) -> None:
    """Rename ``source`` to ``destination``, which must not exist."""
    with open_parent(source) as (src_fd, src_name), open_parent(destination) as (dst_fd, dst_name):
        with translating(source.shown, source.arg):
            os.stat(src_name, dir_fd=src_fd, follow_symlinks=False)
        with translating(destination.shown, destination.arg):
            try:
                os.stat(dst_name, dir_fd=dst_fd, follow_symlinks=False)
            except FileNotFoundError:
                pass
            else:
                raise FsError(f"destination already exists: {destination.shown}")
        with translating(source.shown, source.arg):
            os.rename(src_name, dst_name, src_dir_fd=src_fd, dst_dir_fd=dst_fd)


def entries(loc: Location) -> list[tuple[str, str]]:
    """``(kind, name)`` for each entry of the directory at ``loc``, sorted by name."""
    out = []
    with open_dir(loc) as fd, translating(loc.shown, loc.arg), os.scandir(fd) as listing:
        for entry in listing:
            if entry.is_symlink():
                kind = "LINK"
            elif entry.is_dir(follow_symlinks=False):
                kind = "DIR"
            elif entry.is_file(follow_symlinks=False):
                kind = "FILE"
            else:
                kind = "OTHER"
            out.append((kind, entry.name))
    return sorted(out, key=lambda item: item[1])


def iso(timestamp: float) -> str:
    return datetime.datetime.fromtimestamp(timestamp, datetime.UTC).isoformat(timespec="seconds")
