"""What every HTTP route shares: the ASGI callables and Accept checks."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]


def accepts(headers: dict[bytes, bytes], *types: bytes) -> bool:
    accept = headers.get(b"accept", b"*/*").lower()
    if b"*/*" in accept:
        return True
    for media_type in types:
        if media_type not in accept:
            return False
    return True
