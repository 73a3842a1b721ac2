"""``mcptrio serve`` in real processes for the scale-out tests: started, found, stopped."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import trio

SERVING = re.compile(r"serving [\w, ]+ at (https?://\S+?/mcp)")


class Server:
    def __init__(self, process: trio.Process, url: str, stderr: Path) -> None:
        self.process = process
        self.url = url
        self.stderr = stderr

    def log(self) -> str:
        return self.stderr.read_text()

    def children(self) -> list[int]:
        """The pids of the worker processes (children of the supervisor)."""
        found = []
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            fields = stat.rsplit(")", 1)[1].split()  # after "(comm)": state, ppid, ...
            if int(fields[1]) == self.process.pid and fields[0] != "Z":
                found.append(int(entry.name))
        return sorted(found)

    def busiest_child(self) -> int:
        """The worker holding the most client connections (established TCP to the server's port)."""
        port = int(self.url.rsplit(":", 1)[1].split("/")[0])
        established = set()
        for table in ("/proc/net/tcp", "/proc/net/tcp6"):
            with contextlib.suppress(OSError), open(table) as rows:
                for row in list(rows)[1:]:
                    fields = row.split()
                    if int(fields[1].rsplit(":", 1)[1], 16) == port and fields[3] == "01":  # 01: ESTABLISHED
                        established.add(fields[9])  # the socket's inode

        def held(pid: int) -> int:
            count = 0
            with contextlib.suppress(OSError):
                for fd in Path(f"/proc/{pid}/fd").iterdir():
                    with contextlib.suppress(OSError):
                        link = os.readlink(fd)
                        count += link.startswith("socket:[") and link[8:-1] in established
            return count

        return max(self.children(), key=held)


@contextlib.asynccontextmanager
async def mcptrio_serve(
    tmp_path: Path, *flags: str, name: str = "server", plugins: str | None = "bench"
) -> AsyncIterator[Server]:
    """``mcptrio serve --plugins bench --transport http --port 0 FLAGS``; yields once it serves.
    On exit: SIGTERM, 20 s to exit, then killed."""
    stderr = tmp_path / f"{name}.stderr"
    command = [
        sys.executable,
        "-m",
        "mcptrio",
        "serve",
        *(["--plugins", plugins] if plugins is not None else []),
        "--transport",
        "http",
        "--port",
        "0",
        "--no-access-log",
        *flags,
    ]
    with open(stderr, "wb") as sink:
        process = await trio.lowlevel.open_process(command, stdin=subprocess.DEVNULL, stderr=sink)
    try:
        with trio.fail_after(30):
            while not (found := SERVING.search(stderr.read_text())):
                if process.poll() is not None:
                    raise AssertionError(f"the server exited with {process.returncode}: {stderr.read_text()}")
                await trio.sleep(0.05)
        server = Server(process, found.group(1), stderr)
        if "--workers" in flags:
            count = int(flags[flags.index("--workers") + 1])
            with trio.fail_after(30):
                while server.log().count("worker serving") < count:
                    await trio.sleep(0.05)
        yield server
    finally:
        if process.returncode is None:
            process.send_signal(signal.SIGTERM)
            with trio.move_on_after(20):
                await process.wait()
        if process.returncode is None:
            process.kill()
            await process.wait()
