"""Sealed ``requestState`` for multi round-trip requests (2026-07-28, ``basic/patterns/mrtr.mdx``).

The state is ``base64url(payload) "." base64url(HMAC-SHA256(key, payload))``.  The payload binds
the method, a digest of the request's salient parameters, an expiry, and the input responses
gathered so far; anything that fails verification is refused, so a client can neither forge
answers nor replay state on another request or after it lapses.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from collections.abc import Sequence
from typing import Any, cast

import orjson

from . import errors
from .errors import McpError

# Parameters that change between the rounds of one request and so are not part of its identity.
ROUND_PARAMS = frozenset({"_meta", "inputResponses", "requestState"})


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def request_digest(method: str, params: dict[str, Any]) -> str:
    """A digest of what identifies the original request: method and non-round parameters."""
    salient = {k: v for k, v in params.items() if k not in ROUND_PARAMS}
    body = orjson.dumps([method, salient], option=orjson.OPT_SORT_KEYS)
    return _b64(hashlib.sha256(body).digest()[:16])


def owner_tag(owner: str) -> str:
    """Who the state belongs to (an authorized principal's binding; "" without authorization), hashed."""
    return _b64(hashlib.sha256(owner.encode()).digest()[:12]) if owner else ""


def seal(
    key: bytes, method: str, params: dict[str, Any], responses: dict[str, Any], expires_at: float, owner: str = ""
) -> str:
    payload = orjson.dumps(
        {"d": request_digest(method, params), "e": int(expires_at), "r": responses, "o": owner_tag(owner)}
    )
    tag = hmac.new(key, payload, hashlib.sha256).digest()
    return f"{_b64(payload)}.{_b64(tag)}"


def unseal(
    keys: bytes | Sequence[bytes], state: Any, method: str, params: dict[str, Any], now: float, owner: str = ""
) -> dict[str, Any]:
    """Verify ``state`` for this request (and ``owner``) and return the input responses it carries.

    ``keys``: the current sealing key, or the keys in use (current first: after a rotation the
    previous one still opens state sealed before it).  State sealed for another principal is
    refused exactly as a forged one is."""
    if not isinstance(state, str) or state.count(".") != 1:
        raise _tampered()
    payload_text, tag_text = state.split(".")
    try:
        payload, tag = _unb64(payload_text), _unb64(tag_text)
    except (ValueError, TypeError):
        raise _tampered() from None
    if isinstance(keys, bytes):
        keys = (keys,)
    if not any(hmac.compare_digest(tag, hmac.new(key, payload, hashlib.sha256).digest()) for key in keys):
        raise _tampered()
    body = orjson.loads(payload)
    if body.get("o", "") != owner_tag(owner):
        raise _tampered()
    if body["d"] != request_digest(method, params):
        raise errors.invalid_params("requestState belongs to a different request")
    if now > body["e"]:
        raise errors.invalid_params("requestState has expired; retry the request from the start")
    return cast("dict[str, Any]", body["r"])  # the responses seal() put there


def _tampered() -> McpError:
    return errors.invalid_params("requestState failed verification")
