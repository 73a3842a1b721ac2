"""``mcptrio serve --workers N``: N server processes on one listening socket, supervised.

hypercorn's own ``-w`` is not enough: its parent cuts streams on SIGTERM, one worker's SIGTERM
stops them all, and the app's drain never runs.  So the parent binds and listens once (``--port 0``
and bind errors are settled before any child starts), then starts N children with exec (no fork),
each a full mcptrio server on the inherited socket (``--listen-fd``) with its own SIGTERM →
drain → exit 0.  A child that dies is logged and started again (with a growing pause if it keeps
dying); SIGTERM or SIGINT to the parent drains every child and exits 0.
"""

from __future__ import annotations

import logging
import os
import secrets
import signal
import socket
import subprocess
import sys

import trio

from ..groups import first
from ..serve import ServeError, wait_for_signals
from ..state import StateUnavailable
from .serve_settings import ServeSettings

log = logging.getLogger("mcptrio.workers")

FIRST_START = 5.0  # a child whose first start fails (status 2) this soon stops the whole server
MAX_PAUSE = 30.0


class WorkerFailed(Exception):
    """A worker could not start: the server stops (its own message is already on stderr)."""


def child_argv(argv: list[str], fd: int) -> list[str]:
    """The parent's ``serve`` command line for one worker: one process, on the inherited socket."""
    out: list[str] = []
    skip = False
    for arg in argv:
        if skip:
            skip = False
            continue
        if arg in ("--workers", "--listen-fd"):  # (--host stays: it names an allowed Host header)
            skip = True
            continue
        if arg.startswith(("--workers=", "--listen-fd=")):
            continue
        out.append(arg)
    return [sys.executable, "-m", "mcptrio", *out, "--workers", "1", "--listen-fd", str(fd)]


def listen(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise ServeError(f"cannot listen on {host}:{port}: {exc.strerror}") from None
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock


def supervise(settings: ServeSettings, argv: list[str]) -> int:
    """Run ``settings.workers`` workers until SIGTERM/SIGINT; 0 after a clean drain."""
    if settings.state is None and not os.environ.get("MCPTRIO_STATE_KEY"):
        # (--stateless-only) Every worker seals requestState with this one key, so a client's
        # multi-round-trip retry may reach any of them; the workers inherit it.
        os.environ["MCPTRIO_STATE_KEY"] = secrets.token_hex(32)
    sock = listen(settings.host, settings.port)
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    url = f"{'http' if settings.certfile is None else 'https'}://{shown}:{port}{settings.path}"
    failure: BaseException | None = None
    try:
        trio.run(_supervise, settings, argv, sock, url)
    except* (StateUnavailable, WorkerFailed) as group:  # (a bare one too)
        failure = first(group)
    finally:
        sock.close()
    if failure is not None:
        raise ServeError(str(failure))
    return 0


async def _supervise(settings: ServeSettings, argv: list[str], sock: socket.socket, url: str) -> None:
    if settings.state is not None:  # unreachable state: one line and exit 2, before any child starts
        from ..state.redis import open_redis_state

        async with open_redis_state(settings.state):
            pass
    stopping = trio.Event()
    children: dict[int, trio.Process] = {}
    grace = settings.limits.shutdown_grace + 10
    async with trio.open_nursery() as nursery:
        for index in range(settings.workers):
            nursery.start_soon(_keep_running, index, child_argv(argv, sock.fileno()), sock.fileno(), children, stopping)
        log.info(
            "serving %s at %s with %d workers%s",
            ", ".join(settings.plugins),
            url,
            settings.workers,
            f" (state shared through {settings.state})" if settings.state is not None else "",
        )
        await wait_for_signals()
        stopping.set()
        log.info("draining %d workers", len(children))
        for process in children.values():
            _signal(process, signal.SIGTERM)
        with trio.move_on_after(grace):
            while children:
                await trio.sleep(0.05)
        for process in children.values():  # past the drain and then some: stop them
            _signal(process, signal.SIGKILL)


async def _keep_running(
    index: int, command: list[str], fd: int, children: dict[int, trio.Process], stopping: trio.Event
) -> None:
    pause = 0.5
    first = True
    while not stopping.is_set():
        started = trio.current_time()
        process = await trio.lowlevel.open_process(command, pass_fds=(fd,), stdin=subprocess.DEVNULL)
        children[index] = process
        try:
            status = await process.wait()
        finally:
            with trio.CancelScope(shield=True):
                if process.returncode is None:  # (the supervisor itself is being cancelled)
                    _signal(process, signal.SIGKILL)
                    await process.wait()
            children.pop(index, None)
        if stopping.is_set():
            if status != 0:
                log.warning("worker %d (pid %d) exited with status %d while draining", index, process.pid, status)
            return
        lived = trio.current_time() - started
        if first and lived < FIRST_START and status == 2:  # its start-up error is on stderr already
            raise WorkerFailed(f"worker {index} could not start (exit status {status})")
        first = False
        log.error("worker %d (pid %d) exited with status %d; starting it again", index, process.pid, status)
        pause = 0.5 if lived > MAX_PAUSE else min(pause * 2, MAX_PAUSE)
        with trio.move_on_after(pause):
            await stopping.wait()


def _signal(process: trio.Process, signum: int) -> None:
    try:
        process.send_signal(signum)
    except ProcessLookupError:
        pass
