"""Variants: a server configuration measured against the plain one in the same run (new rows go in VARIANTS).

A variant is one more mcptrio server, started differently (other options, plugins, environment or
launcher), that gets the same echo load as a plain figure of the same repetition, so the two can
be compared with the machine's drift cancelled out.  To add a row, append to ``VARIANTS``::

    VARIANTS = [
        # the plain 2026-07-28 server with three plugins more, each adding a no-op middleware
        mcptrio_variant("noop_middleware_3", "3 no-op middleware", "modern", plugins="bench,noop1,noop2,noop3"),
        # the plain legacy JSON server with options and environment of its own
        mcptrio_variant("otel", "OpenTelemetry on", "legacy_json", "--config", "otel.toml",
                        env={"OTEL_TRACES_EXPORTER": "none"}),
    ]

Each is run right after mcptrio's plain HTTP suite in every repetition, stored as the figure
``variant.<slug>.c<clients>.rps`` (in the JSON, with every sample) and shown in the table
"Variants, each against the plain mcptrio server of the same run".  The same apps on stock
hypercorn, and ``mcptrio serve`` on each of its HTTP servers with TLS off and on, are built from
the same ``Variant`` type, each with a table of its own.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field

import authorization
import tls_rows
from figures import Figure, clients
from http_load import http_load, record_load
from launch import Impl, Logs, serving
from results import Results
from settings import BENCH, HOST, MODE_NAMES, Settings

# The server's --response-mode and the requests' era for each baseline mode of the HTTP suite.
SERVER_MODE = {"modern": ("auto", "modern"), "legacy_json": ("json", "legacy"), "legacy_sse": ("sse", "legacy")}


@dataclass
class Variant:
    """One server configuration, measured with ``clients`` echo clients against ``{baseline}.c{clients}.rps``."""

    key: str  # figure key prefix: the figure is f"{key}.c{clients}.rps"
    name: str  # the row's name in a table
    label: str  # the figure's label (the JSON's "label"), without the client count
    baseline: str  # the plain figure's key prefix in the same run: "http.modern", "http.legacy_json", "bare"
    argv: Callable[[Impl, int], list[str]]  # (mcptrio's Impl, port) -> the server's command line
    era: str = "modern"  # the requests: "modern" (2026-07-28), "legacy" (one session a client), "bare"
    clients: int = 10
    env: dict[str, str] = field(default_factory=dict)  # added to the plain server's environment
    headers: Callable[[int], tuple[tuple[str, str], ...]] | None = None  # (port) -> sent with every request
    tls: bool = False  # served with a certificate of a throwaway CA (tls_rows.py), the load in TLS

    @property
    def load_key(self) -> str:
        return f"{self.key}.c{self.clients}"

    @property
    def rps_key(self) -> str:
        return f"{self.load_key}.rps"

    @property
    def baseline_key(self) -> str:
        return f"{self.baseline}.c{self.clients}.rps"

    def figure(self) -> Figure:
        return Figure(self.rps_key, f"{self.label}, {clients(self.clients)}", "calls/s", "higher")


def mcptrio_variant(
    slug: str,
    name: str,
    mode: str = "modern",
    *extra_args: str,
    plugins: str | None = None,
    env: dict[str, str] | None = None,
    clients: int = 10,
    against: str | None = None,
) -> Variant:
    """The plain mcptrio HTTP server of baseline ``mode`` ("modern", "legacy_json", "legacy_sse") with
    ``extra_args`` appended to its command line, ``plugins`` instead of ``bench`` (keep ``bench`` among
    them: its tools are the workload) and ``env`` added to its environment.  ``against`` names an
    earlier variant's slug to compare with instead of the plain server."""
    server_mode, era = SERVER_MODE[mode]

    def argv(impl: Impl, port: int) -> list[str]:
        line = impl.http_argv(port, server_mode) + list(extra_args)
        if plugins is not None:
            line[line.index("--plugins") + 1] = plugins
        return line

    baseline = f"variant.{against}" if against else f"http.{mode}"
    return Variant(
        f"variant.{slug}",
        name,
        f"mcptrio {MODE_NAMES[mode]} with {name}",
        baseline,
        argv,
        era,
        clients,
        dict(env or {}),
    )


# The rows to add: each measured against the plain mcptrio server of the same repetition.
VARIANTS: list[Variant] = [
    # issue 7: the cost of a middleware pipeline (target: ≥ 95% of the plain server's calls/s)
    mcptrio_variant(
        "noop_middleware_3", "3 no-op middleware", "modern", plugins="bench,bench_noop1,bench_noop2,bench_noop3"
    ),
    # issue 7: the cost of OpenTelemetry.  The plain server has it on (opentelemetry-api is installed,
    # no SDK configured: every call a no-op); these three compare it with it off (--no-telemetry).
    mcptrio_variant("otel_off", "OpenTelemetry off (--no-telemetry)", "modern", "--no-telemetry"),
    mcptrio_variant("otel_api", "OpenTelemetry, API only (the default)", "modern", against="otel_off"),
    mcptrio_variant(
        "otel_sdk", "OpenTelemetry, SDK + batch exporters", "modern", plugins="bench,bench_otel_sdk", against="otel_off"
    ),
    # the access log: on by default over HTTP, off in the plain runs (as in the SDK peer's uvicorn)
    mcptrio_variant("access_log", "the access log on (the CLI's default over HTTP)", "modern", "--access-log"),
    # issue 8: JWT authorization (a real oidc-provider; the server's keys cached after the first call)
    Variant(
        "variant.auth_jwt",
        "JWT auth on",
        "mcptrio 2026-07-28 with JWT auth on",
        "http.modern",
        lambda impl, port: (
            impl.http_argv(port, "auto") + ["--auth-issuer", authorization.issuer(), "--auth-scopes", "mcp:read"]
        ),
        headers=authorization.bearer,
    ),
]


def _on_hypercorn(what: str) -> Callable[[Impl, int], list[str]]:
    def argv(impl: Impl, port: int) -> list[str]:
        line = [impl.python, str(BENCH / "servers" / "on_hypercorn.py")]
        if what == "bare":
            return line + ["bare", "--host", HOST, "--port", str(port)]
        return line + [
            "mcptrio",
            "--host",
            HOST,
            "--port",
            str(port),
            "--response-mode",
            "json" if what == "legacy_json" else "auto",
        ]

    return argv


# The same apps on stock hypercorn (servers/on_hypercorn.py), at 10 clients, beside the figures of
# mcptrio's own HTTP server in the same run: what that server gives.
ON_HYPERCORN = [
    Variant("hypercorn.bare", "bare ASGI", "bare ASGI on hypercorn", "bare", _on_hypercorn("bare"), "bare"),
    Variant(
        "hypercorn.legacy_json",
        "legacy JSON",
        "mcptrio legacy JSON on hypercorn",
        "http.legacy_json",
        _on_hypercorn("legacy_json"),
        "legacy",
    ),
    Variant(
        "hypercorn.modern",
        "2026-07-28",
        "mcptrio 2026-07-28 on hypercorn",
        "http.modern",
        _on_hypercorn("modern"),
        "modern",
    ),
]


def _serve_on(http_server: str) -> Callable[[Impl, int], list[str]]:
    return lambda impl, port: impl.http_argv(port, "auto") + ["--http-server", http_server]


# `mcptrio serve` on each of its HTTP servers, TLS off and on (2026-07-28, 10 clients): the built-in
# server with TLS off is the plain figure of the HTTP suite.
SERVER_ROWS = [
    Variant(
        "server.builtin_tls",
        "built-in, TLS on",
        "mcptrio 2026-07-28 on the built-in server, TLS",
        "http.modern",
        _serve_on("builtin"),
        tls=True,
    ),
    Variant(
        "server.hypercorn",
        "hypercorn, TLS off",
        "mcptrio 2026-07-28 on hypercorn (--http-server hypercorn)",
        "http.modern",
        _serve_on("hypercorn"),
    ),
    Variant(
        "server.hypercorn_tls",
        "hypercorn, TLS on",
        "mcptrio 2026-07-28 on hypercorn, TLS",
        "server.hypercorn",
        _serve_on("hypercorn"),
        tls=True,
    ),
]


JWT_VERIFY = Figure(
    "variant.auth_jwt.verify_us", "JWT check of a token not seen before (RS256, keys cached)", "µs", "lower"
)


def variant_figures() -> list[Figure]:
    """The figures of every variant, for the JSON (after the baselines)."""
    return [v.figure() for v in ON_HYPERCORN + VARIANTS + SERVER_ROWS] + [JWT_VERIFY]


async def variant_suite(
    impl: Impl, variants: list[Variant], settings: Settings, results: Results, logs: Logs, rep: int
) -> None:
    """Each variant in a server of its own, under the same load as its baseline."""
    for variant in variants:
        bare = variant.era == "bare"
        log_name = f"{variant.key.replace('.', '-')}-{rep}"
        argv = functools.partial(_argv, variant, impl)
        tls = tls_rows.client_context() if variant.tls else None
        async with serving(impl, argv, logs, log_name, {**impl.env, **variant.env}, tls) as server:
            headers = variant.headers(server.port) if variant.headers is not None else ()
            load = await http_load(
                server.port,
                server.pid,
                "modern" if bare else variant.era,
                variant.clients,
                settings.seconds,
                settings.max_calls,
                bare=bare,
                warmup=settings.warmup,
                extra_headers=headers,
                tls=tls,
            )
            record_load(results, variant.load_key, impl.name, rep, load)
    if any(v.headers is authorization.bearer for v in variants):
        results.add(JWT_VERIFY.key, impl.name, authorization.verification_cost())


def _argv(variant: Variant, impl: Impl, port: int) -> list[str]:
    return variant.argv(impl, port) + (tls_rows.server_flags() if variant.tls else [])


def _text(value: float | None, digits: str = "{:.0f}") -> str:
    return "—" if value is None else digits.format(value)


def _ratio(a: float | None, b: float | None) -> str:
    return "—" if a is None or not b else f"{a / b:.2f}×"


def hypercorn_table(results: Results) -> list[str]:
    """The same apps on hypercorn beside mcptrio's own server, same run (10 clients)."""
    if results.median("hypercorn.bare.c10.rps", "mcptrio") is None:
        return []
    lines = [
        "",
        "### mcptrio's HTTP server against hypercorn, the same apps (bench/servers/on_hypercorn.py), 10 clients",
        "",
        "| calls/s | mcptrio's server | hypercorn | mcptrio's server / hypercorn | median of per-repetition "
        "ratios | SDK (uvicorn) | mcptrio/SDK | on hypercorn: mcptrio/SDK |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for variant in ON_HYPERCORN:
        own = results.median(variant.baseline_key, "mcptrio")
        hyper = results.median(variant.rps_key, "mcptrio")
        sdk = results.median(variant.baseline_key, "sdk")
        paired = results.paired_ratio(variant.baseline_key, "mcptrio", variant.rps_key, "mcptrio")
        lines.append(
            f"| {variant.name} | {_text(own)} | {_text(hyper)} | {_ratio(own, hyper)} | "
            f"{'—' if paired is None else f'{paired:.2f}×'} | {_text(sdk)} | {_ratio(own, sdk)} | "
            f"{_ratio(hyper, sdk)} |"
        )
    return lines


def servers_table(results: Results) -> list[str]:
    """`mcptrio serve` on each HTTP server, TLS off and on, same run (nothing if those rows did not run)."""
    if results.median("server.hypercorn.c10.rps", "mcptrio") is None:
        return []
    lines = [
        "",
        "### `mcptrio serve` on each HTTP server, TLS off and on (2026-07-28 echo, 10 clients)",
        "",
        "| server | TLS off, calls/s | TLS on, calls/s | on/off | median of per-repetition on/off | "
        "TLS off, against the built-in server |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    builtin = results.median("http.modern.c10.rps", "mcptrio")
    for name, off_key, on_key in (
        ("built-in (the default)", "http.modern.c10.rps", "server.builtin_tls.c10.rps"),
        ("hypercorn", "server.hypercorn.c10.rps", "server.hypercorn_tls.c10.rps"),
    ):
        off, on = results.median(off_key, "mcptrio"), results.median(on_key, "mcptrio")
        paired = results.paired_ratio(on_key, "mcptrio", off_key, "mcptrio")
        lines.append(
            f"| {name} | {_text(off)} | {_text(on)} | {_ratio(on, off)} | {_text(paired, '{:.2f}×')} | "
            f"{_ratio(off, builtin)} |"
        )
    return lines


def variants_table(results: Results) -> list[str]:
    """Each of VARIANTS beside its plain figure of the same run (nothing when there are none, or none ran)."""
    if not any(variant.rps_key in results.samples or variant.rps_key in results.na for variant in VARIANTS):
        return []
    lines = [
        "",
        "### Variants, each against the plain mcptrio server of the same run",
        "",
        "| variant | against | plain calls/s | variant calls/s | variant/plain | median of per-repetition ratios |",
        "| --- | --- | ---: | ---: | ---: | ---: |",
    ]
    for variant in VARIANTS:
        plain = results.median(variant.baseline_key, "mcptrio")
        mine = results.median(variant.rps_key, "mcptrio")
        paired = results.paired_ratio(variant.rps_key, "mcptrio", variant.baseline_key, "mcptrio")
        why = results.na.get(variant.rps_key, {}).get("mcptrio")
        shown = f"n/a ({why})" if mine is None and why else _text(mine)
        lines.append(
            f"| {variant.name}, {clients(variant.clients)} | {variant.baseline_key} | {_text(plain)} | "
            f"{shown} | {_ratio(mine, plain)} | {_text(paired, '{:.2f}×')} |"
        )
    verify = results.median(JWT_VERIFY.key, "mcptrio")
    if verify is not None:
        lines += [
            "",
            f"{JWT_VERIFY.label}: {verify:.0f} µs (mcptrio's JwtVerifier, PyJWT + cryptography); "
            "a token seen before is a dict lookup until it expires (at most 60 s).",
        ]
    return lines
