"""The ``mcptrio serve`` command line another process runs: what ``dev`` starts and ``install`` writes
into a client's configuration, the interpreter in use named by its absolute path (a client started
from a desktop has no ``PATH`` to find a bare ``mcptrio`` or ``python`` on)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from .usage import UsageError


def add_target_arguments(parser: argparse.ArgumentParser) -> None:
    """What to serve, as ``mcptrio serve`` takes it: a TARGET and ``--plugins``."""
    parser.add_argument("target", nargs="?", metavar="TARGET", help="a file.py[:attr] or pkg.module to serve")
    parser.add_argument("--plugins", help="comma-separated installed plugin names to serve")


def plugin_names(text: str | None) -> list[str]:
    return [name.strip() for name in (text or "").split(",") if name.strip()]


def serve_command(target: str | None, plugins: list[str], *, absolute_files: bool) -> list[str]:
    """``python -m mcptrio serve TARGET --plugins a,b``; with ``absolute_files``, a target that is a
    file is named by its absolute path (a client starts the server in a folder of its own)."""
    if target is None and not plugins:
        raise UsageError("name what to serve: a TARGET (file.py or pkg.module) or --plugins a,b")
    if target is not None and absolute_files:
        target = absolute_target(target)
    command = [interpreter(), "-m", "mcptrio", "serve", *([target] if target is not None else [])]
    if plugins:
        command += ["--plugins", ",".join(plugins)]
    return command


def interpreter() -> str:
    """This Python's absolute path, symbolic links kept (a virtual environment's python is a link)."""
    return os.path.abspath(sys.executable)


def split_attribute(target: str) -> tuple[str, str]:
    """``file.py:attr`` or ``pkg.module:attr`` as the file or module, and ``:attr`` (or "")."""
    head, colon, attr = target.rpartition(":")
    named = colon and all(part.isidentifier() for part in attr.split("."))
    return (head, colon + attr) if named else (target, "")


def is_file_target(target: str) -> bool:
    path, _ = split_attribute(target)
    return path.endswith(".py") or os.sep in path


def absolute_target(target: str) -> str:
    """``file.py[:attr]`` with the file's absolute path; a module name as it is."""
    if not is_file_target(target):
        return target
    path, attr = split_attribute(target)
    if not Path(path).is_file():
        raise UsageError(f"{path}: no such file")
    return str(Path(path).resolve()) + attr
