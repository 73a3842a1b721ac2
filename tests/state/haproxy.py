"""A throwaway HAProxy (Debian's package) in front of mcptrio processes: round robin, SSE not
buffered, long timeouts, health checks on /readyz.  The same configuration README shows."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from urllib.parse import urlsplit

import pytest

from .redis_server import free_port

INSTALL = "haproxy not found: install Debian's package (apt-get install haproxy); the test command does this as root"

CONFIG = """\
global
    log stdout format raw local0 info
defaults
    mode http
    log global
    option httplog
    timeout connect 2s
    timeout client  1h
    timeout server  1h
    timeout tunnel  1h
    timeout http-request 10s
    option http-no-delay
frontend mcp
    bind 127.0.0.1:{port}
    default_backend workers
backend workers
    balance roundrobin
    option httpchk GET /readyz
    http-check expect status 200
{servers}
"""


def haproxy_binary() -> str:
    found = shutil.which("haproxy") or ("/usr/sbin/haproxy" if os.path.exists("/usr/sbin/haproxy") else None)
    if found is None:
        pytest.fail(INSTALL, pytrace=False)
    return found


@contextlib.contextmanager
def haproxy(backend_urls: list[str]) -> Iterator[tuple[str, str]]:
    """Yields (the MCP URL through HAProxy, the path of its log)."""
    port = free_port()
    servers = "\n".join(
        f"    server w{n} {urlsplit(url).netloc} check inter 500ms" for n, url in enumerate(backend_urls, 1)
    )
    path = urlsplit(backend_urls[0]).path
    with tempfile.TemporaryDirectory(prefix="mcptrio-haproxy-") as directory:
        config = os.path.join(directory, "haproxy.cfg")
        with open(config, "w") as out:
            out.write(CONFIG.format(port=port, servers=servers))
        log_path = os.path.join(directory, "haproxy.log")
        with open(log_path, "wb") as log:
            process = subprocess.Popen([haproxy_binary(), "-db", "-f", config], stdout=log, stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + 10
            while True:
                with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
                    break
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"haproxy did not start: {open(log_path).read()}")
                time.sleep(0.02)
            yield f"http://127.0.0.1:{port}{path}", log_path
        finally:
            process.terminate()
            try:
                process.wait(5)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
