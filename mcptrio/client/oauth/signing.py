"""PyJWT, imported when a signature is needed (``private_key_jwt`` assertions, DPoP proofs), with
a clear message when it is not installed."""

from __future__ import annotations

from typing import Any


def pyjwt() -> Any:
    try:
        import jwt
    except ImportError:
        raise ImportError("signing JWTs (private_key_jwt, DPoP) needs PyJWT: pip install 'mcptrio[auth]'") from None
    return jwt
