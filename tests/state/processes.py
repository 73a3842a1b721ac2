"""``mcptrio serve`` in real processes for the scale-out tests: started, found, stopped."""

from __future__ import annotations

import contextlib
import re
import signal
import subprocess
import sys
from pathlib import Path
from typing import AsyncIterator

import trio

SERVING = re.compile(r"serving [\w, ]+ at (http://\S+?/mcp)")


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


@contextlib.asynccontextmanager
async def mcptrio_serve(tmp_path: Path, *flags: str, name: str = "server",
                        plugins: str = "bench") -> AsyncIterator[Server]:
    """``mcptrio serve --plugins bench --transport http --port 0 FLAGS``; yields once it serves.
    On exit: SIGTERM, 20 s to exit, then killed."""
    stderr = tmp_path / f"{name}.stderr"
    command = [sys.executable, "-m", "mcptrio", "serve", "--plugins", plugins, "--transport", "http", "--port", "0",
               "--no-access-log", *flags]
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
