"""The ``mcptrio serve`` command line another process runs: what ``dev`` starts and ``install`` writes
into a client's configuration, the interpreter in use named by its absolute path (a client started
from a desktop has no ``PATH`` to find a bare ``mcptrio`` or ``python`` on)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from .usage import UsageError


def plugin_names(text: str | None) -> list[str]:
    return [name.strip() for name in (text or "").split(",") if name.strip()]


def serve_command(targets: list[str], plugins: list[str], *, absolute_files: bool) -> list[str]:
    """``python -m mcptrio serve TARGET... --plugins a,b``; with ``absolute_files``, a target that is a
    file is named by its absolute path (a client starts the server in a folder of its own)."""
    if not targets and not plugins:
        raise UsageError("name what to serve: a TARGET (file.py or pkg.module) or --plugins a,b")
    if absolute_files:
        targets = [absolute_target(target) for target in targets]
    command = [interpreter(), "-m", "mcptrio", "serve", *targets]
    if plugins:
        command += ["--plugins", ",".join(plugins)]
    return command


def interpreter() -> str:
    """This Python's absolute path, symbolic links kept (a virtual environment's python is a link)."""
    return os.path.abspath(sys.executable)


def absolute_target(target: str) -> str:
    """``file.py[:attr]`` with the file's absolute path; a module name as it is."""
    path, colon, attr = target.rpartition(":") if ".py:" in target else (target, "", "")
    if not (path.endswith(".py") or os.sep in path):
        return target
    if not Path(path).is_file():
        raise UsageError(f"{path}: no such file")
    return str(Path(path).resolve()) + colon + attr
