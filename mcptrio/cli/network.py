"""``mcptrio serve --transport http|ws``: kept apart so stdio start-up never imports the HTTP server."""

from __future__ import annotations

import errno
import functools
import logging
import os
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

import trio

from ..app import App, LifespanError
from ..groups import first, leaves
from ..plugins import PluginError
from ..serve import ServeError, wait_for_signals
from ..state import StateUnavailable
from ..transports.http import HttpConfig, serve_http
from . import logs
from .serve_settings import ServeSettings

if TYPE_CHECKING:
    from ..transports.http.server.tls import TlsSettings

log = logging.getLogger("mcptrio")


def serve(app: App, settings: ServeSettings, argv: list[str]) -> int:
    host, port = settings.host, settings.port
    tls = tls_settings(settings)
    if settings.workers > 1:
        from . import worker_processes

        return worker_processes.supervise(settings, argv)
    config = http_config(settings)
    # a descriptor per connection: as many as the limits let in (the HTTP servers refuse more)
    wanted_files = max(config.max_streams + config.max_requests, config.max_connections) + SPARE_FILES
    open_files = raise_open_files(wanted_files)
    server: Callable[..., Awaitable[None]] = functools.partial(
        serve_http, fd=settings.listen_fd, http_server=settings.http_server, tls=tls
    )
    if settings.transport == "ws":
        from ..transports.websocket import serve_websocket

        server = serve_websocket
    trigger = wait_for_signals if settings.listen_fd is None else signals_or_orphaned
    where = f" (state shared through {settings.state})" if settings.state is not None else ""
    served = ", ".join(app.plugins) or app.identity.name  # (an App target may include no plugin)

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            if settings.reload:
                from . import reload

                await nursery.start(reload.watch_served, app, settings)
            async with trio.open_nursery() as serving:
                url = await serving.start(
                    lambda task_status: server(
                        app,
                        host=host,
                        port=port,
                        config=config,
                        shutdown_trigger=trigger,
                        state=settings.state,
                        task_status=task_status,
                    )
                )
                if settings.listen_fd is None:
                    logs.ready(f"{served} at {url}{where}", settings.quiet)
                else:
                    log.info("worker serving %s%s", served, where)
                if open_files < wanted_files:
                    log.info(
                        "open files are limited to %d: fewer connections than the connection, stream and "
                        "request limits allow (raise the hard limit: ulimit -Hn)",
                        open_files,
                    )
            nursery.cancel_scope.cancel()  # served and drained: stop watching for changes too

    failure: BaseException | None = None
    try:
        trio.run(main)
    except* (StateUnavailable, PluginError, LifespanError) as group:  # (a bare one too)
        failure = first(group)
    except* OSError as group:
        refused = [exc for exc in leaves(group) if isinstance(exc, OSError) and exc.errno in CANNOT_LISTEN]
        if not refused:
            raise
        failure = ServeError(f"cannot listen on {host}:{port}: {refused[0].strerror}")
    if failure is not None:
        raise ServeError(str(failure))
    return 0


SPARE_FILES = 256  # descriptors besides connections: listeners, Redis, logs, plugins' own files


def tls_settings(settings: ServeSettings) -> TlsSettings | None:
    """The certificate files, checked by loading them: one that can't be used is one line, before any
    worker starts (ServeError)."""
    if settings.certfile is None or settings.keyfile is None:
        return None
    from ..transports.http.server.tls import TlsError, TlsSettings

    tls = TlsSettings(
        certfile=str(settings.certfile),
        keyfile=str(settings.keyfile),
        ca_certs=None if settings.ca_certs is None else str(settings.ca_certs),
    )
    try:
        tls.context(("http/1.1",))
    except TlsError as exc:
        raise ServeError(str(exc)) from None
    return tls


def raise_open_files(wanted: int) -> int | float:
    """Lift the soft limit on open files towards ``wanted`` (each connection is one), as far as the
    hard limit allows: a default of 1024 would refuse connections long before the stream limit.
    Returns the limit now in force."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return float("inf")
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        soft = target
    return soft


# What binding the address can fail with: the port taken, a privileged one, an address not this host's.
CANNOT_LISTEN = (errno.EADDRINUSE, errno.EACCES, errno.EADDRNOTAVAIL)


async def signals_or_orphaned() -> None:
    """A worker's shutdown trigger: SIGTERM/SIGINT, or its supervisor gone (killed outright)."""
    parent = os.getppid()
    async with trio.open_nursery() as nursery:

        async def orphaned() -> None:
            while os.getppid() == parent:
                await trio.sleep(1)
            log.warning("the supervisor is gone: this worker drains and exits")
            nursery.cancel_scope.cancel()

        nursery.start_soon(orphaned)
        await wait_for_signals()
        nursery.cancel_scope.cancel()


def http_config(settings: ServeSettings) -> HttpConfig:
    """The HTTP (and WebSocket) server's configuration the settings give."""
    return HttpConfig(
        path=settings.path,
        legacy_sse=settings.legacy_sse,
        response_mode=settings.response_mode,
        allowed_hosts=allowed_hosts(settings.host, settings.allowed_hosts),
        allowed_origins=settings.allowed_origins,
        orphan_timeout=settings.orphan_timeout,
        trusted_proxies=settings.trusted_proxies,
        legacy_sessions=not settings.stateless_only,
        max_requests=settings.max_requests,
        max_streams=settings.max_streams,
        max_streams_per_client=settings.max_streams_per_client,
        max_connections=settings.max_connections,
        keep_alive_timeout=settings.keep_alive_timeout,
    )


def allowed_hosts(host: str, extra: tuple[str, ...]) -> tuple[str, ...]:
    """Loopback names, the names given, and a specific bound address itself."""
    names = HttpConfig().allowed_hosts + tuple(name.lower() for name in extra)
    if host not in names and host not in ("0.0.0.0", "::"):
        names += (host,)
    return names
