"""Server-Sent Events framing, pure: JSON-RPC messages as ``data:`` events, comments as probes."""

from __future__ import annotations

COMMENT = b":\n\n"


def event(data: bytes, event_id: str | None = None, retry_ms: int | None = None) -> bytes:
    out = b""
    if event_id is not None:
        out += b"id: " + event_id.encode() + b"\n"
    if retry_ms is not None:
        out += b"retry: %d\n" % retry_ms
    return out + b"event: message\ndata: " + data + b"\n\n"


def priming(event_id: str, retry_ms: int) -> bytes:
    """An event with an id and empty data, so a client can resume before the first message."""
    return b"id: " + event_id.encode() + b"\nretry: %d\ndata: \n\n" % retry_ms


SSE_HEADERS = [
    (b"content-type", b"text/event-stream"),
    (b"cache-control", b"no-cache, no-transform"),
    (b"x-accel-buffering", b"no"),
]
