"""A client's JSON configuration file changed in place for ``mcptrio install``: read whole (a malformed
file is refused, never rewritten), one server added under its key with every other key left as it
was, the previous file kept as ``FILE.bak``, and the new one swapped in at once (a client reading it
sees the old file or the new, never half of one)."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

from .usage import UsageError

PRIVATE = 0o600


def read_config(path: Path) -> dict[str, Any]:
    """The file's JSON object; an empty one when there is no file yet."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read {path}: {exc}") from None
    if not text.strip():
        return {}
    try:
        config = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(
            f"{path} is not valid JSON ({exc.msg}, line {exc.lineno} column {exc.colno}); "
            "it was left as it is: fix it and run again"
        ) from None
    if not isinstance(config, dict):
        raise UsageError(f"{path} holds a JSON {type(config).__name__}, not an object; it was left as it is")
    return config


def with_server(
    config: dict[str, Any], key: str, name: str, entry: dict[str, Any], *, force: bool, path: Path
) -> dict[str, Any]:
    """``config`` with ``entry`` as server ``name`` under ``key``; a server of that name already there
    is replaced only with ``force``."""
    servers = config.get(key, {})
    if not isinstance(servers, dict):
        raise UsageError(f"{path}: {key!r} is not a JSON object; the file was left as it is")
    if name in servers and not force:
        raise UsageError(f"{path} has a server named {name!r} already: add --force to replace it, or choose --name")
    return {**config, key: {**servers, name: entry}}


def write_config(path: Path, config: dict[str, Any], *, private: bool) -> Path | None:
    """Write ``config`` to ``path`` (a symbolic link's target, if it is one) and return the backup of
    the file it replaces; ``private`` (the file holds secrets) makes it readable by its owner only."""
    path = Path(os.path.realpath(path))
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode: int | None = stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        mode = None
    backup = None
    if mode is not None:
        backup = path.with_name(path.name + ".bak")
        _write(backup, path.read_bytes(), mode)
    if private:
        mode = PRIVATE
    elif mode is None:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        _write(temporary, (json.dumps(config, indent=2, ensure_ascii=False) + "\n").encode(), mode)
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)
    return backup


def _write(path: Path, data: bytes, mode: int) -> None:
    """``data`` in ``path`` with permissions ``mode`` from the first byte (not after)."""
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, PRIVATE)
    with os.fdopen(descriptor, "wb") as file:
        os.fchmod(descriptor, mode)
        file.write(data)
