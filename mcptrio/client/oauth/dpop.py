"""DPoP proofs (RFC 9449): a key of the client's own, and a signed proof for each HTTP request.

A token bound to the key is sent as ``Authorization: DPoP <token>`` with a fresh proof of the
method and URL (and the token's hash) on every request.  Signing is PyJWT's, the key
cryptography's (P-256, ES256).
"""

from __future__ import annotations

import base64
import hashlib
import time
import uuid
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from .signing import pyjwt

try:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec
except ImportError:  # pragma: no cover - cryptography comes with PyJWT[crypto]
    raise ImportError("DPoP needs PyJWT with cryptography: pip install 'mcptrio[auth]'") from None

ALGORITHM = "ES256"


class DPoPKey:
    """A P-256 key pair; ``nonces`` holds the last nonce each server (by origin) handed out."""

    def __init__(self, private_pem: str | None = None) -> None:
        if private_pem is None:
            self.key: ec.EllipticCurvePrivateKey = ec.generate_private_key(ec.SECP256R1())
        else:
            loaded = serialization.load_pem_private_key(private_pem.encode(), password=None)
            if not isinstance(loaded, ec.EllipticCurvePrivateKey):
                raise ValueError("a DPoP key must be an EC (P-256) private key")
            self.key = loaded
        self.public_jwk: dict[str, Any] = pyjwt().algorithms.ECAlgorithm.to_jwk(self.key.public_key(), as_dict=True)
        self.nonces: dict[str, str] = {}

    def pem(self) -> str:
        return self.key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        ).decode()

    def proof(self, method: str, url: str, *, access_token: str | None = None) -> str:
        """A proof for one request: ``htm``, ``htu`` (no query or fragment), ``iat``, a unique
        ``jti``, the server's last nonce, and ``ath`` when it carries a token."""
        parts = urlsplit(url)
        claims: dict[str, Any] = {
            "htm": method.upper(),
            "htu": urlunsplit((parts.scheme, parts.netloc, parts.path, "", "")),
            "iat": int(time.time()),
            "jti": str(uuid.uuid4()),
        }
        nonce = self.nonces.get(_origin(url))
        if nonce is not None:
            claims["nonce"] = nonce
        if access_token is not None:
            digest = hashlib.sha256(access_token.encode()).digest()
            claims["ath"] = base64.urlsafe_b64encode(digest).rstrip(b"=").decode()
        proof: str = pyjwt().encode(
            claims, self.key, algorithm=ALGORITHM, headers={"typ": "dpop+jwt", "jwk": self.public_jwk}
        )
        return proof

    def remember_nonce(self, url: str, nonce: str | None) -> bool:
        """Keep a server's new nonce (``DPoP-Nonce``); True if it differs from the last one."""
        if not nonce or self.nonces.get(_origin(url)) == nonce:
            return False
        self.nonces[_origin(url)] = nonce
        return True


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"
