"""``mcptrio serve --config FILE``: the ``[serve]`` table of a TOML file, read and checked, and the
``[plugins.NAME]`` tables each plugin checks itself (``mcptrio.PluginOptions``).

Every key is known and of the right type before anything starts: a mistake is one line naming
the key and what it must be (the CLI prints it and exits with status 2), never a traceback or a
value quietly taken for something else.  What each key may hold comes from the settings'
declaration (``serve_settings``); values a flag may also give are checked again with it.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Protocol

from .usage import UsageError


class FileKey(Protocol):
    """What the file check needs of a key's kind."""

    def file_problem(self, where: str, value: object) -> str | None:
        """What is wrong with ``value`` for the key ``where`` (``serve.port``), or None."""

    def unknown_keys(self, where: str, value: object) -> list[str]:
        """The keys of a table ``value`` that do not exist, each as ``where.key``."""


PLUGIN_TABLES = "plugin_options"  # the key the ``[plugins]`` tables are returned under


def read_config(path: Path | None, keys: Mapping[str, FileKey]) -> dict[str, object]:
    """The ``[serve]`` table of the file (empty without one), every key known and well typed, with the
    ``[plugins.NAME]`` tables under ``plugin_options`` (their keys are each plugin's to check)."""
    if path is None:
        return {}
    import tomllib

    try:
        data = tomllib.loads(path.read_text())
    except OSError as exc:
        raise UsageError(f"cannot read config {path}: {exc.strerror}") from None
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"config {path} is not valid TOML: {exc}") from None
    unknown = [key for key in data if key not in ("serve", "plugins")]
    serve = data.get("serve", {})
    if not isinstance(serve, dict):
        raise UsageError(f"config {path}: serve must be a table ([serve])")
    tables = data.get("plugins", {})
    if not isinstance(tables, dict) or not all(isinstance(table, dict) for table in tables.values()):
        raise UsageError(f"config {path}: plugins must hold a table per plugin ([plugins.NAME])")
    for key, value in serve.items():
        unknown += keys[key].unknown_keys(f"serve.{key}", value) if key in keys else [f"serve.{key}"]
    if unknown:
        raise UsageError(f"config {path}: unknown key(s): {', '.join(sorted(unknown))}")
    for key, value in serve.items():
        problem = keys[key].file_problem(f"serve.{key}", value)
        if problem is not None:
            raise UsageError(f"config {path}: {problem}")
    return {**serve, PLUGIN_TABLES: tables} if tables else serve
