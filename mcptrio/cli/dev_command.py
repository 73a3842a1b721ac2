"""``mcptrio dev TARGET``: the target served over HTTP on a free loopback port with ``--reload``, and the
official MCP Inspector (its npm package, pinned) started beside it, pointed at it; its URL is printed,
and Ctrl-C stops both.  Each runs in a process group of its own, so the terminal's Ctrl-C reaches this
command only, which then stops the Inspector and the server in turn and exits 0 (so does SIGTERM, and
SIGHUP when the terminal closes)."""

from __future__ import annotations

import argparse
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
from collections.abc import Awaitable, Callable

import trio

from .serve_argv import add_target_arguments, plugin_names, serve_command
from .usage import Parser, UsageError

INSPECTOR_PACKAGE = "@modelcontextprotocol/inspector"
INSPECTOR_VERSION = "2.12.0"
INSPECTOR = f"npx -y {INSPECTOR_PACKAGE}@{INSPECTOR_VERSION}"
INSPECTOR_ENV = "MCPTRIO_INSPECTOR"
NODE_NEEDED = (22, 19)
INSTALL_NODE = "install Node.js 22.19 or later (https://nodejs.org/en/download, or your package manager)"
STARTUP = 60.0  # (seconds: npx may download the Inspector first)
STOP = 5.0
URL = re.compile(r"https?://\S+")


def add_command(commands: argparse._SubParsersAction[Parser]) -> None:
    dev = commands.add_parser(
        "dev",
        help="serve with reload, and the MCP Inspector pointed at it",
        description="Serve TARGET (and --plugins) over HTTP on a free loopback port with --reload, start the "
        f"MCP Inspector ({INSPECTOR_PACKAGE} {INSPECTOR_VERSION}, run by npx) connected to it, print its "
        "URL; Ctrl-C stops both. Needs Node.js 22.19 or later.",
    )
    add_target_arguments(dev)
    dev.add_argument("--port", type=int, default=0, help="the server's port (default: a free one)")
    dev.add_argument("--inspector-port", type=int, default=6274, help="the Inspector's web page's port")
    dev.add_argument("--no-browser", action="store_true", help="do not open the Inspector in a browser")
    dev.add_argument(
        "--inspector-command",
        default=os.environ.get(INSPECTOR_ENV, INSPECTOR),
        help=f"the command that starts the Inspector (environment: {INSPECTOR_ENV})",
    )


def run(args: argparse.Namespace) -> int:
    server = serve_command(args.target, plugin_names(args.plugins), absolute_files=False)
    port = args.port or free_port()
    server += ["--transport", "http", "--host", "127.0.0.1", "--port", str(port), "--reload"]
    url = f"http://127.0.0.1:{port}/mcp"
    inspector = shlex.split(args.inspector_command)
    if not inspector:
        raise UsageError("--inspector-command is empty")
    check_node(inspector[0])
    inspector += ["--transport", "http", "--server-url", url]
    env = dict(os.environ, CLIENT_PORT=str(args.inspector_port))
    if args.no_browser:
        env["MCP_AUTO_OPEN_ENABLED"] = "false"
    return trio.run(_dev, server, port, inspector, env)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def check_node(program: str) -> None:
    """The Inspector's runner is on PATH, and the Node on PATH is recent enough."""
    if shutil.which(program) is None:
        raise UsageError(f"{program} was not found: the MCP Inspector runs on Node.js; {INSTALL_NODE}")
    if program not in ("npx", "node"):
        return  # (a command of the user's own: its Node is its business)
    node = shutil.which("node")
    if node is None:
        raise UsageError(f"node was not found: the MCP Inspector runs on Node.js; {INSTALL_NODE}")
    version = subprocess.run([node, "--version"], capture_output=True, text=True).stdout.strip()
    found = tuple(int(part) for part in re.findall(r"\d+", version)[:2])
    if found < NODE_NEEDED:
        raise UsageError(f"the MCP Inspector needs Node.js 22.19 or later, found {version or 'none'}: {INSTALL_NODE}")


async def _dev(server_command: list[str], port: int, inspector_command: list[str], env: dict[str, str]) -> int:
    with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM, signal.SIGHUP) as signals:
        stopped = signals.__anext__
        server = await trio.lowlevel.open_process(server_command, stdin=subprocess.DEVNULL, start_new_session=True)
        inspector: trio.Process | None = None
        try:
            which, _ = await _first(stopped, server.wait, lambda: _listening(port), lambda: trio.sleep(STARTUP))
            if which != 2:
                return 0 if which == 0 else await _failed("the server", server)
            print(f"MCP server: http://127.0.0.1:{port}/mcp (reloaded when its source changes)", flush=True)
            inspector = await trio.lowlevel.open_process(
                inspector_command,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                env=env,
                start_new_session=True,
            )
            assert inspector.stdout is not None
            output = LineReader(inspector.stdout)
            which, url = await _first(stopped, server.wait, output.inspector_url, lambda: trio.sleep(STARTUP))
            if which != 2 or url is None:
                return 0 if which == 0 else await _failed(*_culprit(which, server, inspector))
            print(f"MCP Inspector: {url}", flush=True)
            print("Ctrl-C stops both", file=sys.stderr, flush=True)
            which, _ = await _first(stopped, server.wait, inspector.wait, output.echo)
            return 0 if which == 0 else await _failed(*_culprit(which, server, inspector))
        finally:
            with trio.CancelScope(shield=True):
                for process in (inspector, server):
                    if process is not None:
                        await _stop(process)


def _culprit(which: int, server: trio.Process, inspector: trio.Process) -> tuple[str, trio.Process]:
    return ("the server", server) if which == 1 else ("the Inspector", inspector)


async def _first(*waits: Callable[[], Awaitable[object]]) -> tuple[int, object]:
    """Which of ``waits`` returned first, and what it returned; the others are cancelled."""
    winner: list[tuple[int, object]] = []
    async with trio.open_nursery() as nursery:
        for index, wait in enumerate(waits):

            async def one(index: int = index, wait: Callable[[], Awaitable[object]] = wait) -> None:
                value = await wait()
                if not winner:
                    winner.append((index, value))
                nursery.cancel_scope.cancel()

            nursery.start_soon(one)
    return winner[0]


async def _listening(port: int) -> None:
    while True:
        try:
            stream = await trio.open_tcp_stream("127.0.0.1", port)
        except OSError:
            await trio.sleep(0.05)
            continue
        await stream.aclose()
        return


class LineReader:
    """The Inspector's output, a line at a time, copied to stderr."""

    def __init__(self, stream: trio.abc.ReceiveStream) -> None:
        self.stream = stream
        self.buffer = b""

    async def line(self) -> str | None:
        """The next line, None at the end."""
        while b"\n" not in self.buffer:
            data = await self.stream.receive_some()
            if not data:
                return None
            self.buffer += data
        line, _, self.buffer = self.buffer.partition(b"\n")
        text = line.decode(errors="replace")
        print(text, file=sys.stderr, flush=True)
        return text

    async def inspector_url(self) -> str | None:
        """The URL the Inspector says it is up and running at; None if it ends without saying."""
        running = False
        while (line := await self.line()) is not None:
            running = running or "up and running" in line
            found = URL.search(line) if running else None
            if found:
                return found.group(0)
        return None

    async def echo(self) -> None:
        while await self.line() is not None:
            pass
        await trio.sleep_forever()  # (the Inspector closed its output: its exit is what ends this)


async def _failed(what: str, process: trio.Process) -> int:
    """A process that ended, or was not ready in time, on its own: one line, exit status 2."""
    with trio.move_on_after(1):
        await process.wait()
    status = process.poll()
    state = f"exited with status {status}" if status is not None else f"was not ready within {STARTUP:.0f} s"
    print(f"mcptrio: error: {what} {state} (its messages are above)", file=sys.stderr, flush=True)
    return 2


async def _stop(process: trio.Process) -> None:
    """SIGTERM to the process's group; SIGKILL if it is still there after a few seconds."""
    for signum in (signal.SIGTERM, signal.SIGKILL):
        if process.poll() is not None:
            return
        try:
            os.killpg(process.pid, signum)
        except ProcessLookupError:
            return
        with trio.move_on_after(STOP):
            await process.wait()
