"""``mcptrio serve``: the settings resolved and checked together, the named plugins composed into one
app, served over stdio here or, by ``network`` (imported only then), over HTTP or WebSocket."""

from __future__ import annotations

import argparse
import functools
import gc
import logging
import os
import sys
from collections.abc import Callable

import trio

from .. import plugins
from ..app import App, Registry, tool_search
from ..app.lifespan import LifespanError
from ..groups import first
from ..serve import ServeError, serve_stdio, wait_for_signals
from ..targets import TargetError, load_target
from . import logs
from .serve_settings import ServeSettings, add_flags, given, misplaced, resolve
from .usage import Parser, UsageError

log = logging.getLogger("mcptrio")

WILDCARDS = ("0.0.0.0", "::", "")
# The settings that configure the App itself, which an App target brings configured.
APP_SETTINGS = (
    "limits",
    "drain_timeout",
    "telemetry",
    "rate_limit",
    "rate_burst",
    "max_tool_calls",
    "tool_call_wait",
    "access_log",
    "auth",
    "thread_limit",
    "visibility",
    "include_tags",
    "exclude_tags",
    "tool_search",
    "reshape",
)


def add_command(commands: argparse._SubParsersAction[Parser]) -> None:
    serve_parser = commands.add_parser(
        "serve",
        help="serve a Python file, a module or plugins over stdio, Streamable HTTP or WebSocket",
        usage="mcptrio serve [TARGET] [--plugins A,B] [--transport {stdio,http,ws}] [options]",
        description="Serve a Python file or module (TARGET) and the named plugins as one MCP server until "
        "stdin closes or SIGTERM/SIGINT.",
    )
    add_flags(serve_parser)


def run(args: argparse.Namespace) -> int:
    settings = checked(resolve(args))
    app = build(settings, given(args))
    # Everything loaded so far lives as long as the server: keep the collector from rescanning it.
    # Only the young generations are collected first (a full collection found nothing to free
    # after loading the plugins, and took 6 ms of a 140 ms start-up).
    gc.collect(1)
    gc.freeze()
    if settings.transport != "stdio":
        from . import network  # (only here: stdio start-up imports nothing of the network transports)

        return network.serve(app, settings, args.argv)
    failure: BaseException | None = None
    try:
        trio.run(_stdio, app, settings)
    except* (plugins.PluginError, LifespanError) as group:  # (--reload without watchfiles, say)
        failure = first(group)
    if failure is not None:
        raise ServeError(str(failure)) if isinstance(failure, LifespanError) else failure
    # What is written after serving (exit hooks: an OpenTelemetry exporter's last flush, say)
    # must not reach the client as if it were a message: stdout stays on stderr until exit.
    sys.stdout.flush()
    os.dup2(2, 1)
    return 0


def build(settings: ServeSettings, given: Callable[[str], bool] = lambda key: False) -> App:
    """The app the settings describe: the target (when there is one) and the plugins, composed.
    An App target carries its own configuration: a setting that would configure it (``given``
    says which were set) is refused, in one line, rather than quietly not applied."""
    target = load(settings.target) if settings.target is not None else None
    if isinstance(target, App):
        told = [key for key in APP_SETTINGS if given(key)]
        if told:
            raise UsageError(
                f"{settings.target} is an App, configured in its code: set {', '.join(told)} there "
                "(or serve a Registry, which these settings configure)"
            )
    both = sorted(set(settings.upstreams_file) & set(settings.upstreams))
    if both:
        raise UsageError(
            f"upstream {both[0]!r} is named twice: by the mcpServers file (--upstreams) and by "
            f"[serve.upstreams.{both[0]}] or --upstream (give one of them another name)"
        )
    app = plugins.build_app(
        list(settings.plugins),
        prefixes=settings.prefixes,
        options=settings.plugin_options,
        target=target,
        name=settings.name,
        title=settings.title,
        version=settings.version,
        instructions=settings.instructions,
        limits=settings.limits,
        telemetry=settings.telemetry,
        rate_limit=settings.rate_limit,
        max_tool_calls=settings.max_tool_calls,
        tool_call_wait=settings.tool_call_wait,
        access_log=settings.access_log,
        auth=settings.auth,
        thread_limit=settings.thread_limit,
        visibility=settings.visibility,
        include_tags=settings.include_tags,
        exclude_tags=settings.exclude_tags,
        tool_search=settings.tool_search,
        proxies=[*settings.upstreams_file.values(), *settings.upstreams.values()],
    )
    for tool, changes in settings.reshape.items():
        try:
            app.reshape_tool(tool, **changes)
        except ValueError as exc:
            if tool in app.tools or not (settings.upstreams or settings.upstreams_file):
                raise UsageError(str(exc)) from None
            app.reshape_when_served(tool, **changes)  # (an upstream's, once it is up)
    return app


def load(text: str) -> Registry:
    """The target's Registry or App; a plugin's name given as a target gets a hint."""
    try:
        return load_target(text)
    except TargetError as exc:
        if text in plugins.entry_points_on_path():
            raise TargetError(f"{exc} (to serve the plugin {text}: --plugins {text})") from None
        raise


def checked(settings: ServeSettings) -> ServeSettings:
    """The settings checked together (the logs configured first, for the warning): authorization is
    dropped on stdio, with a warning."""
    logs.configure(settings.log_level, settings.log_format)
    if settings.workers > 1 and sys.platform == "win32":
        raise UsageError("--workers is not supported on Windows (the workers share a listening socket by exec)")
    if settings.reload and settings.workers > 1:
        raise UsageError("--reload is for one process: drop --workers")
    refusal = misplaced(settings)
    if refusal is not None:
        raise UsageError(refusal)
    if settings.tool_search and not tool_search.available():
        raise UsageError(f"--tool-search: {tool_search.INSTALL_HINT}")
    if (settings.certfile is None) != (settings.keyfile is None):
        raise UsageError("TLS needs both --certfile and --keyfile")
    if settings.ca_certs is not None and settings.certfile is None:
        raise UsageError("--ca-certs (client certificates) needs TLS: add --certfile and --keyfile")
    if settings.workers > 1 and settings.state is None and not settings.stateless_only:
        raise UsageError(
            f"{settings.workers} workers without --state would not share legacy sessions: "
            "add --state redis://HOST:PORT/DB, or serve only the stateless 2026-07-28 era "
            "with --stateless-only"
        )
    if settings.auth is not None and settings.transport == "stdio":
        log.warning(
            "authorization is for http and ws; stdio is not authenticated (the spec says stdio "
            "should not use OAuth): the auth settings are ignored"
        )
        return settings.replace(auth=None)
    if settings.auth is not None and settings.auth.public_url is None and settings.host in WILDCARDS:
        raise UsageError(
            f"authorization on a server bound to {settings.host} needs --public-url "
            "(the URL clients use, which tokens must name)"
        )
    return settings


async def _stdio(app: App, settings: ServeSettings) -> None:
    async with trio.open_nursery() as nursery:
        if settings.reload:
            from . import reload

            await nursery.start(reload.watch_served, app, settings)
        async with trio.open_nursery() as serving:
            await serving.start(functools.partial(serve_stdio, app, shutdown_trigger=wait_for_signals))
            logs.ready(
                f"{', '.join(app.plugins) or app.identity.name} over stdio: waiting for a client on stdin",
                settings.quiet,
            )
        nursery.cancel_scope.cancel()
