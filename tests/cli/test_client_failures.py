"""The CLI client against servers that fail: a ``--stdio`` command that exits, fails to start,
closes its output or writes something that is not JSON, and a URL that refuses or resets the
connection.  Each ends the command at once with one line (for a process, its exit status and the
last lines of its stderr) and exit status 2: never a hang, never a traceback."""

from __future__ import annotations

import shlex
import socket
import struct
import sys

import pytest
import trio

MCPTRIO = [sys.executable, "-m", "mcptrio"]
PYTHON = shlex.quote(sys.executable)
HANG = 30  # seconds: a command still running by then hangs (each takes about 2 s on a busy machine)


async def failing(*args: str) -> str:
    """Run ``mcptrio args``; assert it ended with status 2 and one line on stderr; return the line."""
    with trio.fail_after(HANG):
        done = await trio.run_process([*MCPTRIO, *args], capture_stdout=True, capture_stderr=True, check=False)
    stderr = done.stderr.decode()
    assert done.returncode == 2, (done.returncode, stderr)
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("mcptrio: error: "), stderr
    assert done.stdout == b""
    return lines[0]


def script(code: str) -> str:
    return f"{PYTHON} -c {shlex.quote(code)}"


@pytest.mark.parametrize(
    "command, said",
    [
        (
            script("import sys; sys.stderr.write('no config\\n'); sys.exit(3)"),
            "exited with status 3; its stderr ended with: no config",
        ),
        ("false", "exited with status 1"),
        ("no-such-command-mcptrio", "No such file or directory"),
        (
            script(
                "import os, sys, time; os.close(1); sys.stderr.write('closing\\n'); sys.stderr.flush(); time.sleep(30)"
            ),
            "the server closed its output; its stderr ended with: closing",
        ),
        (
            script("import time; print('Serving on stdio!', flush=True); time.sleep(30)"),
            "not JSON: 'Serving on stdio!'",
        ),
        (
            f"{PYTHON} -m mcptrio serve --plugins wether",
            "status 2; its stderr ended with: mcptrio: error: failed to load",
        ),
    ],
    ids=["exits", "false", "missing", "closes-stdout", "not-json", "typo"],
)
async def test_a_stdio_server_that_fails_ends_the_command_in_one_line(command, said):
    line = await failing("list", "--stdio", command)
    assert "cannot reach the server" in line and said in line, line


async def test_a_mistyped_plugin_never_hangs_in_ten_runs():
    """The hang was one run in five: ten runs, two at a time, each bounded."""
    lines: list[str] = []

    async def runs() -> None:
        for _ in range(5):
            lines.append(await failing("inspect", "--stdio", f"{PYTHON} -m mcptrio serve --plugins wether"))

    async with trio.open_nursery() as nursery:
        nursery.start_soon(runs)
        nursery.start_soon(runs)
    assert len(lines) == 10
    assert all("no such plugin" in line and "status 2" in line for line in lines)


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def test_a_url_that_refuses_ends_the_command_in_one_line():
    line = await failing("list", f"http://127.0.0.1:{closed_port()}/mcp")
    assert "cannot reach the server" in line and "connect" in line.lower()


async def test_a_url_that_resets_ends_the_command_in_one_line():
    listener = trio.socket.socket()
    await listener.bind(("127.0.0.1", 0))
    listener.listen()
    port = listener.getsockname()[1]

    async def reset_each() -> None:
        while True:
            conn, _ = await listener.accept()
            conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # close → RST
            conn.close()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(reset_each)
        line = await failing("list", f"http://127.0.0.1:{port}/mcp")
        nursery.cancel_scope.cancel()
    listener.close()
    assert "cannot reach the server" in line, line
