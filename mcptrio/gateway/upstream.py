"""``Upstream``: an MCP server mcptrio serves in front of, as the gateway's configuration names it.

Three ways to name one, all giving the same ``Upstream``:

- in a ``[serve.upstreams.NAME]`` table of the configuration file (``from_table``): the keys of an
  ``mcpServers`` entry (``command``/``args``/``env``/``cwd`` for a stdio server, ``url`` and
  ``headers`` for Streamable HTTP or WebSocket) and the gateway's own: ``namespace``, ``token_env``,
  ``ca_file``, ``era``, ``timeout``, ``start_timeout`` and ``required``;
- on the command line, ``--upstream NAME=COMMAND-OR-URL`` (``from_flag``);
- from a desktop client's ``mcp.json`` (``--upstreams FILE``, ``from_servers_file``).
"""

from __future__ import annotations

import os
import shlex
from typing import TYPE_CHECKING, Any

import attrs

from ..app.namespaces import check_namespace
from ..client.servers_file import ServerEntry, read_servers, server_entry
from ..client.urls import is_url, looks_like_url, url_problem

if TYPE_CHECKING:
    from ..app import App

ERAS = ("legacy", "modern")
OWN_KEYS = (
    "namespace",
    "token_env",
    "ca_file",
    "era",
    "timeout",
    "start_timeout",
    "ping_interval",
    "required",
    "sessions",
)
SESSIONS = ("shared", "per-caller")
SERVER_KEYS = ("command", "args", "env", "cwd", "url", "headers", "type", "transport")


@attrs.frozen
class Upstream:
    """One upstream server: a ``command`` line (stdio) or a ``url`` (``http(s)://``, ``ws(s)://``).

    ``namespace``: what its tools and prompts are prefixed with (``NAMESPACE_tool``) and its
    resource URIs (``NAMESPACE+scheme://…``); None means its ``name``, ``""`` no prefix.
    ``token_env``: an environment variable holding a bearer token for it (read when it connects).
    ``ca_file``: the CA bundle its ``https://``/``wss://`` certificate is checked against.
    ``era``: ``"legacy"`` or ``"modern"`` to pin the protocol spoken to it; None asks it.
    ``timeout``: seconds a request to it may take before the caller gets an error naming it.
    ``start_timeout``: seconds it has to start and answer the handshake.
    ``ping_interval``: seconds between pings while it is up; one unanswered for ``timeout`` seconds
    ends its session (it is started again).
    ``required``: whether ``/readyz`` says the gateway is not ready while it is down.
    ``sessions``: ``"shared"`` (one session for every caller) or ``"per-caller"`` (a legacy caller's
    session gets an upstream session of its own, for an upstream that asks its callers questions
    while several calls are in flight; 2026-07-28 callers, which have no session, share).
    """

    name: str
    command: tuple[str, ...] | None = None
    url: str | None = None
    env: dict[str, str] = attrs.field(factory=dict)
    cwd: str | None = None
    headers: dict[str, str] = attrs.field(factory=dict)
    namespace: str | None = None
    token_env: str | None = None
    ca_file: str | None = None
    era: str | None = None
    timeout: float = 60.0
    start_timeout: float = 30.0
    ping_interval: float = 15.0
    required: bool = False
    sessions: str = "shared"

    def __attrs_post_init__(self) -> None:
        if (self.command is None) == (self.url is None):
            raise ValueError(f"upstream {self.name!r} needs either a command or a url")
        if self.command is not None and not self.command:
            raise ValueError(f"upstream {self.name!r}: an empty command line")
        if self.url is not None and (problem := url_problem(self.url)) is not None:
            raise ValueError(f"upstream {self.name!r}: {problem}")
        if self.prefix:
            try:
                check_namespace(self.prefix)
            except ValueError as exc:
                hint = "" if self.namespace is not None else " (the namespace is its name: give it a namespace)"
                raise ValueError(f"upstream {self.name!r}: {exc}{hint}") from None
        if self.sessions not in SESSIONS:
            raise ValueError(
                f"upstream {self.name!r}: sessions must be one of {', '.join(SESSIONS)}, got {self.sessions!r}"
            )
        if self.era not in (None, *ERAS):
            raise ValueError(f"upstream {self.name!r}: era must be one of {', '.join(ERAS)}, got {self.era!r}")
        for key in ("timeout", "start_timeout", "ping_interval"):
            value = getattr(self, key)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
                raise ValueError(f"upstream {self.name!r}: {key} must be a number of seconds above 0, got {value!r}")

    @property
    def prefix(self) -> str:
        """What its names are prefixed with ("": nothing)."""
        return self.name if self.namespace is None else self.namespace

    @property
    def target(self) -> str | list[str]:
        """What ``mcptrio.client.connect`` takes."""
        return self.url if self.url is not None else list(self.command or ())

    @property
    def describe(self) -> str:
        """Where it is, for a log line: its URL, or its command's first word."""
        return self.url if self.url is not None else os.path.basename((self.command or ("?",))[0])

    def bearer(self) -> str | None:
        """Its bearer token from ``token_env``: a ValueError naming the variable when it is not set."""
        if self.token_env is None:
            return None
        token = os.environ.get(self.token_env)
        if not token:
            raise ValueError(f"upstream {self.name!r}: the environment variable {self.token_env} is not set")
        return token

    def attach(self, app: App, namespace: str | None) -> None:
        """``app.proxy(upstream)``: served by ``app`` for as long as it runs (see ``link.py``)."""
        from .link import attach

        attach(app, self if namespace is None else attrs.evolve(self, namespace=namespace))

    # -- where they come from -------------------------------------------------------------------

    @classmethod
    def from_table(cls, name: str, table: Any, where: str = "[serve.upstreams]") -> Upstream:
        """A ``[serve.upstreams.NAME]`` table; a mistake is a ValueError naming the key, in one line."""
        at = f"{where}.{name}"
        if not isinstance(table, dict):
            raise ValueError(f"{at} must be a table")
        unknown = [key for key in table if key not in OWN_KEYS and key not in SERVER_KEYS]
        if unknown:
            raise ValueError(f"{at}: unknown key {unknown[0]!r} (known: {', '.join(SERVER_KEYS + OWN_KEYS)})")
        entry = server_entry(name, {key: table[key] for key in SERVER_KEYS if key in table}, where)
        own = {key: table[key] for key in OWN_KEYS if key in table}
        for key in ("namespace", "token_env", "ca_file", "era", "sessions"):
            if key in own and not isinstance(own[key], str):
                raise ValueError(f"{at}.{key} must be a string, got {own[key]!r}")
        if "required" in own and not isinstance(own["required"], bool):
            raise ValueError(f"{at}.required must be true or false, got {own['required']!r}")
        try:
            return cls.of_entry(entry, **own)
        except ValueError as exc:
            raise ValueError(f"{where}: {exc}") from None

    @classmethod
    def from_flag(cls, text: str) -> Upstream:
        """``NAME=COMMAND-OR-URL``: a URL, or a command line split as a shell would."""
        name, sep, rest = text.partition("=")
        if not sep or not name.strip() or not rest.strip():
            raise ValueError(f"--upstream wants NAME=COMMAND-OR-URL, got {text!r}")
        rest = rest.strip()
        if is_url(rest):
            return cls(name.strip(), url=rest)
        if looks_like_url(rest):
            raise ValueError(
                f"--upstream {name.strip()}: {rest!r} is a URL the gateway does not speak: "
                "it takes http(s):// or ws(s)://, or a command line"
            )
        try:
            command = shlex.split(rest)
        except ValueError as exc:
            raise ValueError(f"--upstream {name}: cannot split the command line: {exc}") from None
        return cls(name.strip(), command=tuple(command))

    @classmethod
    def from_servers_file(cls, path: str | os.PathLike[str]) -> list[Upstream]:
        """Every server of an ``mcpServers`` file (``mcp.json``), named as the file names it."""
        return [cls.of_entry(entry) for entry in read_servers(path).values()]

    @classmethod
    def of_entry(cls, entry: ServerEntry, **own: Any) -> Upstream:
        """An ``mcpServers`` entry as an upstream, with the gateway's own settings ``own``."""
        command = tuple(entry.command) if entry.command is not None else None
        return cls(
            entry.name, command=command, url=entry.url, env=entry.env, cwd=entry.cwd, headers=entry.headers, **own
        )
