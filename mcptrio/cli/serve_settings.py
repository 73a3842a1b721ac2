"""Every setting of ``mcptrio serve``, declared once: ``ServeSettings``, one class attribute each.

Each names its kind (``setting_kinds``, ``serve_kinds``), flags, default, help, the transports it
is for and its section; from these come the command's flags, the checks of the ``--config`` file's
``[serve]`` table, the defaults, and the reference page
(``python -m mcptrio.cli.serve_settings > docs/reference/serve-settings.md``).  ``resolve`` gives
the flags over the file over the defaults, each checked, as a ``ServeSettings``.

A new setting is one declaration here, and the code that reads it.
"""

from __future__ import annotations

import argparse
import functools
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, ParamSpec

from . import auth_settings, logs
from .config_file import read_config
from .serve_kinds import (
    Auth,
    Limits,
    PluginNames,
    PluginTables,
    Prefixes,
    Rate,
    RedisUrl,
    Reshapes,
    ServersFile,
    Tags,
    TargetName,
    Upstreams,
)
from .setting_kinds import (
    MISSING,
    TRANSPORTS,
    Choice,
    Computed,
    FilePath,
    Names,
    Seconds,
    Setting,
    Text,
    Whole,
    YesNo,
)
from .usage import UsageError

if TYPE_CHECKING:
    from ..app.admission import RateLimit
    from ..app.plugin_options import PluginOptions
    from ..auth.config import AuthConfig
    from ..runtime.limits import SessionLimits
    from ..state import StateUrl

WHERE = "What to serve, and where"
HTTP = "HTTP"
PROCESSES = "Several processes"
OPERATING = "Operating"
AUTHORIZATION = "Authorization"
VISIBILITY = "Who sees what"
GATEWAY = "Gateway"
COMMAND_LINE = "Command line only"
SECTIONS = {  # each section's introduction on the reference page
    WHERE: "",
    HTTP: "How the HTTP server answers (and the WebSocket server, where a setting says `ws`). Work and "
    "waiting are bounded apart: see [Work and waiting](../guides/configuration.md#work-and-waiting-two-limits).",
    PROCESSES: "See [Scaling out with Redis](../guides/scaling.md).",
    OPERATING: "See [Observability](../guides/observability.md). The keys of `[serve.limits]` are listed in "
    "[the configuration guide](../guides/configuration.md#servelimits).",
    AUTHORIZATION: "See [Protecting a server with OAuth](../guides/oauth.md); the keys of `[serve.auth]` are "
    "listed in [the configuration guide](../guides/configuration.md#serveauth).",
    VISIBILITY: "See [Who sees what](../guides/who-sees-what.md).",
    GATEWAY: "Other MCP servers served beside the plugins: see [Gateway](../guides/gateway.md).",
    COMMAND_LINE: "Flags with no key in the file.",
}
RESPONSE_MODES = ("auto", "json", "sse")
HTTP_SERVERS = ("builtin", "hypercorn")  # (mcptrio.transports.http.HTTP_SERVERS, which stdio does not import)
NETWORK = ("http", "ws")
ONLY_HTTP = "--workers and --stateless-only are for --transport http"
ONLY_HTTP_SERVER = "--http-server and TLS (--certfile, --keyfile, --ca-certs) are for --transport http"


P = ParamSpec("P")


def _declaring(make: Callable[P, Setting]) -> Callable[P, Any]:
    """``Setting``, typed for a declaration: in ``port: int = setting(...)``, an instance's ``port`` is an int."""
    return make


setting = _declaring(Setting)


def check_path(path: str) -> str:
    if not path.startswith("/") or any(c in path for c in "?# "):
        raise UsageError(f"path must start with / and hold no ?, # or space, got {path!r}")
    return path


def check_proxies(specs: tuple[str, ...]) -> None:
    from ..transports.net.front_door import parse_networks  # (only when set: stdio imports nothing of HTTP)

    try:
        parse_networks(specs)
    except ValueError as exc:
        raise UsageError(f"--trusted-proxy: {exc}") from None


class ServeSettings:
    """What ``mcptrio serve`` was told: its flags over the config file over the defaults, each checked.

    Each class attribute declares a setting (a ``Setting``); an instance holds their values, and is
    read-only (``replace`` makes a changed copy).  A plain class, not an attrs class: making an attrs
    class of this many fields would cost every stdio server several milliseconds of its start-up.
    """

    # -- what to serve, and where
    target: str | None = setting(
        TargetName(),
        "a Python file or module to serve: path/to/file.py or pkg.module, with an optional :NAME "
        "(a Registry, an App, or a function returning one)",
        WHERE,
        flags=("TARGET",),
        doc="A Python file or module to serve without packaging it: `path/to/file.py` or `pkg.module`, with an "
        "optional `:NAME` (a Registry, an App, or a function returning one); without it, the one Registry or "
        "App the module defines. In the file, a relative path is from the file's folder. See "
        "[Serving a file](../guides/serving-a-file.md).",
    )
    plugins: tuple[str, ...] = setting(
        PluginNames(),
        "comma-separated plugin names, loaded in this order",
        WHERE,
        flags=("--plugins",),
        default=(),
        doc="The installed plugins to serve, loaded in this order, after the target if there is one. "
        "See `mcptrio plugins`.",
    )
    plugin_options: dict[str, PluginOptions] = setting(
        PluginTables(),
        "a plugin's own setting, as its [plugins.NAME] table in the file would give it",
        WHERE,
        flags=("--plugin-option",),
        default={},
        default_doc="none",
        in_file=False,
        doc="A plugin's own settings: in the file, its `[plugins.NAME]` table (beside `[serve]`, not in it); "
        "`--plugin-option NAME.KEY=VALUE` sets one key, over the file's. The plugin checks them as it loads: "
        "see [Plugin options](../guides/configuration.md#plugin-options).",
    )
    prefixes: dict[str, str] = setting(
        Prefixes(),
        "serve a plugin in a namespace: tools and prompts as PREFIX_name, resources as PREFIX+scheme:...",
        WHERE,
        flags=("--prefix",),
        default={},
        doc="Serve a plugin in a namespace, to resolve a clash between plugins: its tools and prompts as "
        "`PREFIX_name`, its resources and templates as `PREFIX+scheme:...` (`fs+file:///a.txt`). "
        "`PREFIX` is a letter, then letters, digits, `-` or `.`. See [Namespaces](../guides/namespaces.md).",
    )
    transport: str = setting(
        Choice(TRANSPORTS), "standard I/O, Streamable HTTP or WebSocket", WHERE, flags=("--transport",), default="stdio"
    )
    host: str = setting(
        Text(),
        "the address to bind",
        WHERE,
        flags=("--host",),
        default="127.0.0.1",
        transports=NETWORK,
        doc='The address to bind. `"0.0.0.0"` or `"::"` for every address.',
    )
    port: int = setting(
        Whole(0, 65535, out_of_range="{name} must be 0 to 65535 (0: any free port), got {value!r}"),
        "the port to bind; 0 picks a free one",
        WHERE,
        flags=("--port",),
        default=8000,
        transports=NETWORK,
        metavar="PORT",
    )
    path: str = setting(
        Text(check_path),
        "the endpoint's path",
        WHERE,
        flags=("--path",),
        default="/mcp",
        transports=NETWORK,
        doc="The endpoint's path. Must start with `/`.",
    )
    name: str | None = setting(
        Text(),
        "the server's name, in serverInfo",
        WHERE,
        flags=("--name",),
        default_doc='the name of the one plugin or target served, else `"mcptrio"`',
        doc="The server's name, in `serverInfo`.",
    )
    title: str | None = setting(
        Text(),
        "the server's human-readable title, in serverInfo",
        WHERE,
        flags=("--title",),
        default_doc="the title of the one plugin or target served, else none",
        doc="The server's title for people to read, in `serverInfo`.",
    )
    version: str | None = setting(
        Text(),
        "The server's version, in `serverInfo`.",
        WHERE,
        default_doc="the version of the one plugin (its distribution's) or target served, else mcptrio's",
    )
    instructions: str | None = setting(
        Text(), "Instructions for the client and its model, in the `initialize` and `server/discover` results.", WHERE
    )

    # -- HTTP
    response_mode: str = setting(
        Choice(RESPONSE_MODES),
        "answer as JSON when possible, always JSON, or always SSE",
        HTTP,
        flags=("--response-mode",),
        default="auto",
        transports=("http",),
        doc="Answer a POST as JSON when possible (`auto`: a request that needs a stream, or runs longer than "
        "0.25 s, becomes SSE), always as one JSON body, or always as an event stream.",
    )
    allowed_hosts: tuple[str, ...] = setting(
        Names(),
        "also accept this Host/Origin name (loopback names always are)",
        HTTP,
        flags=("--allowed-host",),
        default=(),
        metavar="NAME",
        transports=NETWORK,
        doc="`Host` and `Origin` names accepted besides the loopback names (`localhost`, `127.0.0.1`, `::1`) "
        "and a specific bound address. The defence against DNS rebinding.",
    )
    allowed_origins: tuple[str, ...] = setting(
        Names(),
        "also accept this exact Origin, e.g. https://app.example",
        HTTP,
        flags=("--allowed-origin",),
        default=(),
        metavar="ORIGIN",
        transports=NETWORK,
        doc='Exact origins accepted besides those whose host is allowed, e.g. `"https://app.example.com"`.',
    )
    trusted_proxies: tuple[str, ...] = setting(
        Names(check_proxies),
        "a reverse proxy (address or network, e.g. 10.0.0.0/8) whose X-Forwarded-For "
        "names the client, for logs and rate limits",
        HTTP,
        flags=("--trusted-proxy",),
        default=(),
        metavar="ADDRESS",
        transports=NETWORK,
        doc='Reverse proxies (addresses or networks such as `"10.0.0.0/8"`) whose `X-Forwarded-For` names the '
        "client: the access log's `client`, `ctx.client_address` and the rate limit's key. See "
        "[Behind a reverse proxy](../guides/reverse-proxy.md).",
    )
    legacy_sse: bool = setting(
        YesNo(),
        "also serve the deprecated 2024-11-05 HTTP+SSE transport at PATH/sse",
        HTTP,
        flags=("--legacy-sse",),
        default=False,
        transports=("http",),
    )
    max_requests: int = setting(
        Whole(1),
        "requests whose handlers run at once per process (tool calls streaming progress included); beyond, 503",
        HTTP,
        flags=("--max-requests",),
        default=2000,
        transports=NETWORK,
        doc="Requests whose handlers run at once in one process. Beyond it: `503` with `Retry-After: 1` and "
        '`data.limit = "max_requests"`.',
    )
    max_streams: int = setting(
        Whole(1),
        "streams that wait for notifications (listen, GET, SSE) and WebSocket connections open at once "
        "per process; beyond, 503",
        HTTP,
        flags=("--max-streams",),
        default=20_000,
        transports=NETWORK,
        doc="Streams that only wait for notifications, open at once in one process: `subscriptions/listen` "
        "streams, legacy GET streams, 2024-11-05 SSE streams and WebSocket connections. Beyond it: `503` "
        'with `Retry-After: 5` and `data.limit = "max_streams"`.',
    )
    max_streams_per_client: int = setting(
        Whole(1),
        "of those, per principal (with authorization) or client address",
        HTTP,
        flags=("--max-streams-per-client",),
        default=2000,
        transports=NETWORK,
        doc="Of those, how many one client may hold: one principal with authorization on, else one client "
        "address (behind a reverse proxy, set `trusted_proxies`). Beyond it: "
        '`data.limit = "max_streams_per_client"`.',
    )
    orphan_timeout: float = setting(
        Seconds(),
        "how long a legacy request whose client went away (and may resume) runs on before it is cancelled",
        HTTP,
        flags=("--orphan-timeout",),
        default=120.0,
        transports=("http",),
        label="orphan timeout",
        doc="How long a legacy request whose client went away (and may resume with `Last-Event-ID`) runs on "
        "before it is cancelled.",
    )
    stateless_only: bool = setting(
        YesNo(),
        "serve only the stateless 2026-07-28 protocol (initialize is refused with 400)",
        HTTP,
        flags=("--stateless-only",),
        default=False,
        transports=("http",),
        refused_elsewhere=ONLY_HTTP,
    )
    http_server: Literal["builtin", "hypercorn"] = setting(
        Choice(HTTP_SERVERS),
        "builtin: mcptrio's HTTP/1.1 server; hypercorn: HTTP/1.1, and HTTP/2 over TLS",
        HTTP,
        flags=("--http-server",),
        default="builtin",
        transports=("http",),
        refused_elsewhere=ONLY_HTTP_SERVER,
        doc="The HTTP server: mcptrio's own (HTTP/1.1), or hypercorn (HTTP/1.1, and HTTP/2 over TLS). Both serve "
        "the same endpoint, with the same limits and drain.",
    )
    certfile: Path | None = setting(
        FilePath(),
        "serve https:// with this certificate chain (PEM; with --keyfile)",
        HTTP,
        flags=("--certfile",),
        transports=("http",),
        refused_elsewhere=ONLY_HTTP_SERVER,
        doc="Serve `https://` with this certificate chain (PEM), without a proxy; with `keyfile`. A file that "
        "can't be used is a one-line error.",
    )
    keyfile: Path | None = setting(
        FilePath(),
        "the certificate's private key (PEM)",
        HTTP,
        flags=("--keyfile",),
        transports=("http",),
        refused_elsewhere=ONLY_HTTP_SERVER,
    )
    ca_certs: Path | None = setting(
        FilePath(),
        "require a client certificate signed by one of these CAs (PEM; with --certfile)",
        HTTP,
        flags=("--ca-certs",),
        transports=("http",),
        refused_elsewhere=ONLY_HTTP_SERVER,
    )
    max_connections: int = setting(
        Whole(1),
        "connections open at once per process; beyond, a new one gets 503",
        HTTP,
        flags=("--max-connections",),
        default=25_000,
        transports=("http",),
        doc="Connections one process holds open at once (room for every stream and request, and idle ones). "
        "Beyond it a new connection gets `503` with a reason and `Connection: close`.",
    )
    keep_alive_timeout: float = setting(
        Seconds(),
        "how long an idle connection is kept open for its next request",
        HTTP,
        flags=("--keep-alive-timeout",),
        default=30.0,
        transports=("http",),
        label="keep-alive timeout",
        doc="How long a connection with no request under way is kept open for its next one. Once a request's "
        "first byte arrives its head must be complete within 30 seconds, whatever this is. On hypercorn, which "
        "keeps one clock for both, it also bounds the wait for a new connection's first request.",
    )

    # -- several processes
    workers: int = setting(
        Whole(1),
        "processes sharing the listening socket, supervised (needs --state, unless --stateless-only)",
        PROCESSES,
        flags=("--workers",),
        default=1,
        transports=("http",),
        refused_elsewhere=ONLY_HTTP,
    )
    state: StateUrl | None = setting(
        RedisUrl(),
        "share sessions, event logs, keys and changes with other processes through Redis: "
        "redis://[:password@]host:port/db, rediss:// for TLS",
        PROCESSES,
        flags=("--state",),
        default_doc="in memory",
        transports=NETWORK,
        refused_elsewhere="--state is for http and ws: a stdio server has one client and nothing to share",
        doc="Share sessions, event logs, sealing keys, changes and tasks through Redis: "
        "`redis://[:password@]host:port/db`, `rediss://…` for TLS, `unix:///path/redis.sock`.",
    )

    # -- operating
    log_level: str = setting(
        Choice(logs.LEVELS, any_case=True),
        "log messages at this level and above",
        OPERATING,
        flags=("--log-level",),
        default="info",
        label="log level",
        doc="Log messages at this level and above, on stderr.",
    )
    log_format: str = setting(
        Choice(logs.FORMATS),
        "text lines, or json: one JSON object per line, on stderr",
        OPERATING,
        flags=("--log-format",),
        default="text",
        label="log format",
    )
    quiet: bool = setting(
        YesNo(),
        "no start-up line on stderr (version, plugins, transport, where it waits for clients)",
        OPERATING,
        flags=("--quiet",),
        default=False,
        doc="Leave out the one line `serve` writes on stderr once it serves (mcptrio's version, the "
        "plugins, the transport, and where it waits for a client), which is there at every log level.",
    )
    access_log: bool = setting(
        YesNo("both"),
        "a line per MCP request on the mcptrio.access logger (on stdio it would halve the "
        "throughput of a local client)",
        OPERATING,
        flags=("--access-log",),
        default=Computed(lambda settled: settled["transport"] != "stdio", "on for http and ws, off for stdio"),
        doc="One line per MCP request on the `mcptrio.access` logger.",
    )
    telemetry: bool | None = setting(
        YesNo("off"),
        "no OpenTelemetry spans or metrics even when opentelemetry-api is installed",
        OPERATING,
        flags=("--no-telemetry",),
        default_doc="on when `opentelemetry-api` is installed",
        doc="OpenTelemetry spans and metrics. `false` turns them off; `true` requires `opentelemetry-api`.",
    )
    drain_timeout: float | None = setting(
        Seconds(),
        "on SIGTERM, how long requests in flight may finish before they are cancelled",
        OPERATING,
        flags=("--drain-timeout",),
        default_doc="`[serve.limits]` `shutdown_grace`, itself `5`",
        label="drain timeout",
        doc="On SIGTERM or SIGINT, how long requests in flight may finish before they are cancelled. Sets, and "
        "wins over, `[serve.limits]` `shutdown_grace`.",
    )
    rate_limit: RateLimit | None = setting(
        Rate("rate_burst"),
        "requests per client (principal, else address) e.g. 20/s, 600/m; over it: HTTP 429",
        OPERATING,
        flags=("--rate-limit",),
        doc="Requests per client (its principal, else its address, else its session). Over it: `-31429`, HTTP `429`.",
    )
    rate_burst: int | None = setting(
        Whole(),
        "requests a client may send at once",
        OPERATING,
        flags=("--rate-burst",),
        default_doc="one second's worth, at least 1",
        doc="Requests a client may send at once. Needs `rate_limit`.",
    )
    max_tool_calls: int | None = setting(
        Whole(1),
        "tool calls running at once, server-wide",
        OPERATING,
        flags=("--max-tool-calls",),
        default_doc="no cap",
        doc="Tool calls running at once in the process.",
    )
    tool_call_wait: float = setting(
        Seconds(),
        "how long a tool call over --max-tool-calls waits for a slot before it is refused",
        OPERATING,
        flags=("--tool-call-wait",),
        default=5.0,
        doc="How long a call over `max_tool_calls` waits for a slot before it gets `-31503`.",
    )
    thread_limit: int = setting(
        Whole(1),
        "plain def handlers running at once, each in a worker thread",
        OPERATING,
        flags=("--thread-limit",),
        default=40,
        doc="How many plain `def` handlers run at once, each in a worker thread; more wait for a thread.",
    )
    limits: SessionLimits = setting(
        Limits("drain_timeout"),
        "The limits and timeouts of every session (`mcptrio.SessionLimits`): the `[serve.limits]` table.",
        OPERATING,
        default_doc="each key's own",
    )

    # -- authorization
    auth: AuthConfig | None = setting(
        Auth(),
        "Authorization for `http` and `ws` (an OAuth 2.1 resource server): the `[serve.auth]` table. "
        "`issuer` turns it on; on `stdio` it is ignored, with a warning.",
        AUTHORIZATION,
        flags=tuple(auth_settings.FLAGS.values()),
        default_doc="off",
        transports=NETWORK,
    )

    # -- who sees what
    visibility: str = setting(
        Choice(("filter", "show")),
        "show: list every tool and answer a call without its scopes with the 403 step-up; "
        "filter: hide what the caller's token lacks the scopes for, as if it did not exist",
        VISIBILITY,
        flags=("--visibility",),
        default="show",
        doc="`show`: every component the tags and rules let through is listed, and a call without the "
        "scopes it needs gets the `403` `insufficient_scope` step-up. `filter`: what the caller's token lacks "
        "the scopes for is left out of the lists too, and a call to it is answered as one to an unknown name.",
    )
    include_tags: tuple[str, ...] = setting(
        Tags(),
        "serve only the tools, prompts and resources with one of these tags (comma-separated)",
        VISIBILITY,
        flags=("--include-tags",),
        default=(),
        doc="Serve only the tools, prompts, resources and templates with at least one of these tags. A tag "
        "no component has is refused at start.",
    )
    exclude_tags: tuple[str, ...] = setting(
        Tags(),
        "serve none of the tools, prompts and resources with one of these tags (comma-separated)",
        VISIBILITY,
        flags=("--exclude-tags",),
        default=(),
        doc="Serve none of the tools, prompts, resources and templates with any of these tags (wins over "
        "`include_tags`). A tag no component has is refused at start.",
    )
    tool_search: bool = setting(
        YesNo(),
        "for catalogues too big to list: tools/list shows only search_tools and call_tool (needs mcptrio[search])",
        VISIBILITY,
        flags=("--tool-search",),
        default=False,
        doc="`tools/list` shows two tools instead of the catalogue: `search_tools(query, limit)`, which ranks "
        "the tools the caller may see (BM25 over names, titles, descriptions and argument names), and "
        "`call_tool(name, arguments)`. Direct calls by name keep working. Needs `pip install 'mcptrio[search]'`.",
    )

    reshape: dict[str, dict[str, Any]] = setting(
        Reshapes(),
        "Tools served reshaped: the `[serve.reshape.TOOL]` tables, each with `rename`, `title`, `description`, "
        '`hide` (an argument left out of the schema, filled with `{value = ...}`, `{env = "VAR"}` read at start '
        'or `{claim = "name"}` of the caller\'s token) and `narrow` (schema keywords that narrow an argument: '
        "`{enum = [...]}`, `{maximum = 10}`). A mistake is refused at start, naming the tool.",
        VISIBILITY,
        default={},
        default_doc="none",
    )

    # -- the gateway
    upstreams: dict[str, Any] = setting(
        Upstreams(),
        "serve another MCP server's tools, resources and prompts as NAME_tool: a command line (stdio) or a URL",
        GATEWAY,
        flags=("--upstream",),
        default={},
        default_doc="none",
        doc="Other MCP servers served beside the plugins, one `[serve.upstreams.NAME]` table each: `command`, "
        "`args`, `env`, `cwd` (stdio) or `url` and `headers` (Streamable HTTP, WebSocket), and `namespace` "
        '(default: NAME; `""`: none), `token_env` (a bearer token from the environment), `ca_file`, `era` '
        '(`"legacy"` or `"modern"` to pin it), `timeout` (seconds per request, 60), `start_timeout` (30), '
        '`ping_interval` (15), `sessions` (`"shared"` or `"per-caller"`) and `required` (whether `/readyz` '
        "is 503 while it is down, false). "
        "`--upstream NAME=COMMAND-OR-URL` adds one.",
    )
    upstreams_file: dict[str, Any] = setting(
        ServersFile(),
        "serve every server of an mcpServers file (mcp.json, as desktop clients write it) as an upstream",
        GATEWAY,
        flags=("--upstreams",),
        default={},
        default_doc="none",
        doc="Every server of an `mcpServers` file (`mcp.json`: `command`, `args`, `env`, `cwd` or `url`, "
        "`headers`) served as an upstream named as the file names it. In the file, a relative path is from "
        "the config file's folder.",
    )

    # -- the command line only
    reload: bool = setting(
        YesNo(),
        "development: load a plugin again when its source changes (needs watchfiles; one process only)",
        COMMAND_LINE,
        flags=("--reload",),
        default=False,
        in_file=False,
    )
    config: Path | None = setting(
        FilePath(), "a TOML file with [serve] settings", COMMAND_LINE, flags=("--config",), in_file=False
    )
    listen_fd: int | None = setting(  # a worker's inherited listening socket
        Whole(0), "", COMMAND_LINE, flags=("--listen-fd",), in_file=False, hidden=True
    )

    def __init__(self, **values: object) -> None:
        keys = {each.key for each in declared()}
        if values.keys() != keys:
            raise TypeError(f"ServeSettings takes every setting and no other, not {sorted(values.keys() ^ keys)}")
        self.__dict__.update(values)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"ServeSettings are read-only: use replace({name}=...)")

    def replace(self, **changes: object) -> ServeSettings:
        return ServeSettings(**{**vars(self), **changes})

    def __repr__(self) -> str:
        return f"ServeSettings({', '.join(f'{key}={value!r}' for key, value in vars(self).items())})"


@functools.cache
def declared() -> tuple[Setting, ...]:
    """The settings, in the order ``ServeSettings`` declares them."""
    return tuple(value for value in vars(ServeSettings).values() if isinstance(value, Setting))


def add_flags(parser: argparse.ArgumentParser) -> None:
    """The settings' flags, in a group per section."""
    groups: dict[str, argparse._ArgumentGroup] = {}
    for each in declared():
        if each.flags:
            if each.section not in groups:
                groups[each.section] = parser.add_argument_group(each.section)
            each.kind.add_flag(groups[each.section], each)


def resolve(args: argparse.Namespace) -> ServeSettings:
    """The flags over the ``--config`` file over the defaults, each checked (UsageError if not)."""
    settings = {each.key: each for each in declared()}
    file = read_config(args.config, {key: each.kind for key, each in settings.items() if each.in_file})
    resolved = _Resolved(settings, args, file)
    values: dict[str, Any] = {key: resolved[key] for key in settings}  # (each of its kind: checked as resolved)
    return ServeSettings(**values)


def given(args: argparse.Namespace) -> Callable[[str], bool]:
    """Whether a setting was given, by its flag or in the ``--config`` file, rather than left to its
    default (the file is read again when first asked)."""
    settings = {each.key: each for each in declared()}

    @functools.cache
    def in_file() -> Mapping[str, object]:
        return read_config(args.config, {key: each.kind for key, each in settings.items() if each.in_file})

    def was_given(key: str) -> bool:
        flag = settings[key].kind.given(args, settings[key])
        if isinstance(flag, dict):
            flag = any(value is not None for value in flag.values()) or None
        return flag is not None or key in in_file()

    return was_given


class _Resolved:
    """Each setting's value, worked out when it is first asked for (a default or check may ask for another's)."""

    def __init__(self, settings: Mapping[str, Setting], args: argparse.Namespace, file: Mapping[str, object]) -> None:
        self.settings, self.args, self.file = settings, args, file
        self.values: dict[str, object] = {}

    def __getitem__(self, key: str) -> object:
        if key not in self.values:
            each = self.settings[key]
            flag = each.kind.given(self.args, each)
            self.values[key] = each.kind.resolve(each, flag, self.file.get(key, MISSING), self)
        return self.values[key]


def misplaced(settings: ServeSettings) -> str | None:
    """Why a setting given is refused on this transport, if one is."""
    for each in declared():
        if each.refused_elsewhere and settings.transport not in each.transports:
            if getattr(settings, each.key) != each.default:
                return each.refused_elsewhere
    return None


if __name__ == "__main__":
    from .settings_page import reference_page

    print(reference_page(declared(), SECTIONS), end="")
