"""The server under test: the real ``mcptrio serve --transport http`` in a subprocess, its URL, RSS, stderr and exit."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import trio

ROOT = Path(__file__).resolve().parents[1]


def rss_bytes(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


class Server:
    """``mcptrio serve`` in a subprocess; stderr goes to a log file that is read for the URL."""

    def __init__(self, workdir: Path, max_message_size: int, grace: float) -> None:
        self.workdir = workdir
        self.config = workdir / "soak.toml"
        self.config.write_text(f"[serve.limits]\nmax_message_size = {max_message_size}\nshutdown_grace = {grace}\n")
        self.log_path = workdir / "server-stderr.log"
        self.grace = grace
        self.process: trio.Process | None = None
        self.url = ""
        self.port = 0
        self.exit_status: int | None = None
        self.exit_seconds: float | None = None

    def command(self) -> list[str]:
        script = Path(sys.executable).parent / "mcptrio"
        head = (
            [str(script)]
            if script.exists()
            else [sys.executable, "-c", "import sys; from mcptrio.cli import main; sys.exit(main())"]
        )
        return head + [
            "serve",
            "--plugins",
            "bench",
            "--transport",
            "http",
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            "--config",
            str(self.config),
        ]

    async def start(self) -> None:
        log = open(self.log_path, "wb")
        try:
            self.process = await trio.lowlevel.open_process(
                self.command(), stdin=subprocess.DEVNULL, stdout=log, stderr=log, cwd=str(ROOT)
            )
        finally:
            log.close()
        with trio.move_on_after(30):
            while self.alive():
                found = re.search(r"serving .* at (http://127\.0\.0\.1:(\d+)/\S*)", self.stderr())
                if found:
                    self.url, self.port = found.group(1), int(found.group(2))
                    return
                await trio.sleep(0.05)
        raise RuntimeError(f"server did not start; stderr:\n{self.stderr()[-3000:]}")

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def stderr(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return ""

    def rss(self) -> int | None:
        return rss_bytes(self.process.pid) if self.alive() else None  # type: ignore[union-attr]

    async def stop(self) -> None:
        """SIGTERM; record the exit status and how long it took (killed after grace + 10 s)."""
        process = self.process
        if process is None or process.poll() is not None:
            self.exit_status = process.returncode if process else None
            return
        started = time.monotonic()
        process.send_signal(signal.SIGTERM)
        with trio.move_on_after(self.grace + 10):
            await process.wait()
        if process.poll() is None:
            process.kill()
            await process.wait()
            self.exit_status = None  # did not exit by itself
        else:
            self.exit_status = process.returncode
        self.exit_seconds = time.monotonic() - started

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
