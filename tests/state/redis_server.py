"""A throwaway redis-server (Debian's package) on 127.0.0.1 and a free port, persistence off."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from typing import Iterator

import pytest

INSTALL = "redis-server not found: install Debian's package (apt-get install redis-server); the test command does this as root"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class RedisServer:
    def __init__(self, port: int, directory: str, *, durable: bool = False) -> None:
        self.port = port
        self.directory = directory
        self.durable = durable  # an append-only file synced on every write: survives restart()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            pytest.fail(INSTALL, pytrace=False)
        log = open(os.path.join(self.directory, "redis.log"), "ab")
        self.process = subprocess.Popen(
            [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "yes" if self.durable else "no", "--appendfsync", "always",
             "--daemonize", "no", "--dir", self.directory, "--loglevel", "warning"],
            stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port), 0.2) as conn:
                conn.sendall(b"PING\r\n")
                if conn.recv(16).startswith(b"+PONG"):
                    return
            if self.process.poll() is not None:
                break
            time.sleep(0.02)
        raise RuntimeError(f"redis-server did not start on port {self.port}: see {self.directory}/redis.log")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None


@contextlib.contextmanager
def redis_server(*, durable: bool = False) -> Iterator[RedisServer]:
    with tempfile.TemporaryDirectory(prefix="mcptrio-redis-") as directory:
        server = RedisServer(free_port(), directory, durable=durable)
        server.start()
        try:
            yield server
        finally:
            server.stop()
