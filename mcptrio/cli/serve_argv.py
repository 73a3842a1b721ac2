"""The ``mcptrio serve`` command line another process runs: what ``dev`` starts and ``install`` writes
into a client's configuration, the interpreter in use named by its absolute path (a client started
from a desktop has no ``PATH`` to find a bare ``mcptrio`` or ``python`` on)."""

from __future__ import annotations

import argparse
import os
import sys

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
        from ..targets import parse_target

        target = parse_target(target).absolute
    command = [interpreter(), "-m", "mcptrio", "serve", *([target] if target is not None else [])]
    if plugins:
        command += ["--plugins", ",".join(plugins)]
    return command


def interpreter() -> str:
    """This Python's absolute path, symbolic links kept (a virtual environment's python is a link)."""
    return os.path.abspath(sys.executable)
