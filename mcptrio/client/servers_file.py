"""The ``mcpServers`` file desktop clients use (``mcp.json``, ``claude_desktop_config.json``):
each server by name, a command to run over stdio or a URL, with headers and environment.

    {"mcpServers": {
        "files": {"command": "mcptrio", "args": ["serve", "--plugins", "filesystem"], "env": {"ROOT": "/tmp"}},
        "remote": {"url": "https://mcp.example.com/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}}}}

``${VAR}`` and ``${VAR:-default}`` in a string are this process's environment variables (a name
that is not set and has no default is an error).  A mistake is a ``ValueError`` that names the file,
the server and what is wrong, in a line.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import attrs

from .urls import is_url

_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
TYPES = ("stdio", "http", "streamable-http", "sse", "ws")


@attrs.frozen
class ServerEntry:
    """One server of the file: a ``command`` line (stdio) or a ``url``."""

    name: str
    command: list[str] | None = None
    url: str | None = None
    headers: dict[str, str] = attrs.field(factory=dict)
    env: dict[str, str] = attrs.field(factory=dict)
    cwd: str | None = None

    @property
    def target(self) -> str | list[str]:
        """What ``connect()`` takes: the URL, or the command line."""
        return self.url if self.url is not None else list(self.command or [])


def _expand(value: str, where: str) -> str:
    def variable(found: re.Match[str]) -> str:
        name, default = found.group(1), found.group(2)
        if name in os.environ:
            return os.environ[name]
        if default is not None:
            return default
        raise ValueError(f"{where}: the environment variable {name} is not set")

    return _VARIABLE.sub(variable, value)


def _strings(value: Any, where: str, kind: str) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise ValueError(f"{where}: {kind} must be an object of strings")
    return {str(k): _expand(v, where) for k, v in value.items()}


def server_entry(name: str, spec: Any, where: str) -> ServerEntry:
    """One entry of ``mcpServers``, checked."""
    where = f"{where}: server {name!r}"
    if not isinstance(spec, dict):
        raise ValueError(f"{where} must be an object")
    kind = spec.get("type") or spec.get("transport")
    if kind is not None and kind not in TYPES:
        raise ValueError(f"{where}: unknown type {kind!r} (expected one of {', '.join(TYPES)})")
    command, url = spec.get("command"), spec.get("url")
    if (command is None) == (url is None):
        raise ValueError(f"{where} needs either a command or a url")
    if url is not None:
        if not isinstance(url, str) or not is_url(url):
            raise ValueError(f"{where}: url must be an http(s):// or ws(s):// URL")
        if kind == "sse":
            raise ValueError(
                f"{where}: the 2024-11-05 HTTP+SSE transport is not supported (use its Streamable HTTP URL)"
            )
        return ServerEntry(name, url=_expand(url, where), headers=_strings(spec.get("headers"), where, "headers"))
    args = spec.get("args") or []
    if (
        not isinstance(command, str)
        or not command
        or not isinstance(args, list)
        or not all(isinstance(a, str) for a in args)
    ):
        raise ValueError(f"{where}: command must be a string and args a list of strings")
    cwd = spec.get("cwd")
    if cwd is not None and not isinstance(cwd, str):
        raise ValueError(f"{where}: cwd must be a string")
    return ServerEntry(
        name,
        command=[_expand(part, where) for part in [command, *args]],
        env=_strings(spec.get("env"), where, "env"),
        cwd=_expand(cwd, where) if cwd else None,
    )


def read_servers(path: str | os.PathLike[str]) -> dict[str, ServerEntry]:
    """The servers of an ``mcpServers`` file, by name, in the file's order."""
    where = str(path)
    try:
        document = json.loads(Path(path).read_text())
    except OSError as exc:
        raise ValueError(f"{where}: cannot read it ({exc.strerror or exc})") from None
    except ValueError as exc:
        raise ValueError(f"{where}: not JSON ({exc})") from None
    servers = document.get("mcpServers") if isinstance(document, dict) else None
    if not isinstance(servers, dict):
        raise ValueError(f'{where}: no "mcpServers" object')
    return {str(name): server_entry(str(name), spec, where) for name, spec in servers.items()}
