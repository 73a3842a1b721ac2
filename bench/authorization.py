"""The authorization rows: a real authorization server (the tests' oidc-provider) for the run.

``issuer()`` starts it on first use (stopped when the run ends); ``bearer(port)`` is the
Authorization header of a token for ``http://127.0.0.1:{port}/mcp`` (scope mcp:read);
``verification_cost()`` times mcptrio's JWT verifier on such a token, its keys cached.
"""

from __future__ import annotations

import atexit
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "auth"))

from authserver import AuthServer  # noqa: E402 - the tests' harness for the real server

_server: AuthServer | None = None


def server() -> AuthServer:
    global _server
    if _server is None:
        _server = AuthServer()
        atexit.register(_server.stop)
    return _server


def issuer() -> str:
    return server().issuer


def resource(port: int) -> str:
    return f"http://127.0.0.1:{port}/mcp"


def bearer(port: int) -> tuple[tuple[str, str], ...]:
    return (("Authorization", f"Bearer {server().token('alpha', resource(port), 'mcp:read')}"),)


def verification_cost(calls: int = 3000) -> float:
    """Microseconds to check one RS256 token's signature and claims, keys cached: what a token the
    server has not seen costs (one it has seen is a dict lookup until it expires, at most a minute)."""
    import trio

    from mcptrio.auth.jwt_verifier import JwtVerifier

    url = resource(1)
    token = server().token("alpha", url, "mcp:read")

    async def measure() -> float:
        verifier = JwtVerifier(issuer(), url)
        await verifier.verify(token)  # fetches the keys once
        started = time.perf_counter()
        for _ in range(calls):
            await verifier._verify(token)  # (past the cache of verified tokens)
        elapsed = time.perf_counter() - started
        await verifier.aclose()
        return elapsed / calls * 1e6

    return trio.run(measure)
