"""``mcptrio serve --config FILE``: the ``[serve]`` table of a TOML file, read and checked.

Every key is known and of the right type before anything starts: a mistake is one line naming
the key and what it must be (the CLI prints it and exits with status 2), never a traceback or a
value quietly taken for something else.  The ``[serve.auth]`` table is checked by
``auth_settings``; values that flags may also give (ports, paths) are checked again with them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import attrs

from ..runtime.limits import SessionLimits


class UsageError(Exception):
    """A mistake on the command line or in the config file."""


def _text(value: Any) -> bool:
    return isinstance(value, str)


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _flag(value: Any) -> bool:
    return isinstance(value, bool)


def _names(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def _names_or_text(value: Any) -> bool:
    return _text(value) or _names(value)


def _text_table(value: Any) -> bool:
    return isinstance(value, dict) and all(isinstance(v, str) for v in value.values())


def _table(value: Any) -> bool:
    return isinstance(value, dict)


Check = tuple[Callable[[Any], bool], str]
TEXT: Check = (_text, "a string")
WHOLE: Check = (_whole, "a whole number")
NUMBER: Check = (_number, "a number")
FLAG: Check = (_flag, "true or false")
NAMES: Check = (_names, "a list of strings")

SERVE_KEYS: dict[str, Check] = {
    "plugins": (_names_or_text, 'a list of plugin names (or one string "a,b")'),
    "transport": TEXT, "host": TEXT, "port": WHOLE, "path": TEXT,
    "prefixes": (_text_table, "a table of plugin = prefix strings"),
    "name": TEXT, "version": TEXT, "instructions": TEXT,
    "telemetry": FLAG, "access_log": FLAG, "legacy_sse": FLAG, "stateless_only": FLAG,
    "rate_limit": TEXT, "rate_burst": WHOLE, "max_tool_calls": WHOLE, "tool_call_wait": NUMBER,
    "log_level": TEXT, "log_format": TEXT, "drain_timeout": NUMBER, "orphan_timeout": NUMBER,
    "state": (_text, "a URL string"), "workers": WHOLE, "max_requests": WHOLE, "response_mode": TEXT,
    "max_streams": WHOLE, "max_streams_per_client": WHOLE,
    "allowed_hosts": NAMES, "allowed_origins": NAMES, "trusted_proxies": NAMES,
    "limits": (_table, "a table ([serve.limits])"), "auth": (_table, "a table ([serve.auth])"),
}
LIMIT_KEYS: dict[str, Check] = {
    field.name: WHOLE if field.type in (int, "int") else NUMBER for field in attrs.fields(SessionLimits)}


def read_config(path: Path | None) -> dict[str, Any]:
    """The ``[serve]`` table of the file (empty without one), every key known and well typed."""
    if path is None:
        return {}
    import tomllib

    try:
        data = tomllib.loads(path.read_text())
    except OSError as exc:
        raise UsageError(f"cannot read config {path}: {exc.strerror}") from None
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"config {path} is not valid TOML: {exc}") from None
    unknown = set(data) - {"serve"}
    serve = data.get("serve", {})
    if not isinstance(serve, dict):
        raise UsageError(f"config {path}: serve must be a table ([serve])")
    unknown |= {f"serve.{k}" for k in set(serve) - set(SERVE_KEYS)}
    limits = serve.get("limits", {})
    if isinstance(limits, dict):
        unknown |= {f"serve.limits.{k}" for k in set(limits) - set(LIMIT_KEYS)}
    if unknown:
        raise UsageError(f"config {path}: unknown key(s): {', '.join(sorted(unknown))}")
    _check(path, "serve", serve, SERVE_KEYS)
    _check(path, "serve.limits", limits, LIMIT_KEYS)
    for key, value in limits.items():
        least = 1 if LIMIT_KEYS[key] is WHOLE else 0
        if not least <= value < float("inf"):
            raise UsageError(f"config {path}: serve.limits.{key} must be at least {least}, got {value!r}")
    return serve


def _check(path: Path, table: str, values: dict[str, Any], checks: dict[str, Check]) -> None:
    for key, value in values.items():
        accepts, what = checks[key]
        if not accepts(value):
            raise UsageError(f"config {path}: {table}.{key} must be {what}, got {value!r}")


def check_port(port: int) -> int:
    if not 0 <= port <= 65535:
        raise UsageError(f"port must be 0 to 65535 (0: any free port), got {port}")
    return port


def check_path(path: str) -> str:
    if not path.startswith("/") or any(c in path for c in "?# "):
        raise UsageError(f"path must start with / and hold no ?, # or space, got {path!r}")
    return path
