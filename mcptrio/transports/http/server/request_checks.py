"""Checks on a request's framing that both HTTP servers make before the app sees the request.

RFC 9112 §6.1: a request with both Content-Length and Transfer-Encoding is read by the latter
and its connection closed after the answer (what follows may be a request smuggled past a proxy
that read it by the former); Transfer-Encoding in HTTP/1.0 is faulty framing.  The head's size
and its number of fields are held to limits of their own: h11 checks the size only while a head
is incomplete, so one read can take a head past it.  And the line at a chunk boundary (a chunk
size, or after the last chunk a trailer field) is checked as it arrives, which h11 leaves until
its CRLF comes: one ending in a bare LF would never complete.
"""

from __future__ import annotations

from collections.abc import Sequence
from http import HTTPStatus

MAX_CHUNK_LINE = 4096  # a chunk-size line with its extensions (read by no one), or a trailer field
PHRASES = {status.value: status.phrase for status in HTTPStatus}


def refusal(
    http_version: bytes, headers: Sequence[tuple[bytes, bytes]], head_size: int, max_head_size: int, max_headers: int
) -> tuple[int, str] | None:
    """(status, reason) of a request head to refuse, else None; ``headers`` with lower-case names."""
    if head_size > max_head_size:
        return 431, f"the request head is {head_size} bytes, over the limit of {max_head_size}"
    if len(headers) > max_headers:
        return 431, f"the request has {len(headers)} header fields, over the limit of {max_headers}"
    if http_version == b"1.0" and any(name == b"transfer-encoding" for name, _ in headers):
        return 400, "Transfer-Encoding in an HTTP/1.0 request: its framing can't be trusted (RFC 9112 section 6.1)"
    return None


def must_close(headers: list[tuple[bytes, bytes]]) -> bool:
    """Content-Length and Transfer-Encoding both: answer, then close the connection (RFC 9112 §6.1)."""
    length = encoding = False
    for name, _ in headers:
        if name == b"content-length":
            length = True
        elif name == b"transfer-encoding":
            encoding = True
    return length and encoding


def chunk_line_problem(pending: bytes, after_chunk: bool) -> str | None:
    """What is wrong with the line at the start of ``pending`` (the bytes of a chunked body not yet
    parsed, at a chunk boundary), if anything: a bare LF, or no end in sight."""
    if after_chunk and pending.startswith(b"\r\n"):
        pending = pending[2:]  # the CRLF that ends the chunk before
    end = pending.find(b"\n", 0, MAX_CHUNK_LINE + 1)
    if end == -1:
        if len(pending) > MAX_CHUNK_LINE:
            return f"a line of the chunked body (chunk size and extensions, or trailer) over {MAX_CHUNK_LINE} bytes"
        return None
    if end == 0 or pending[end - 1] != 0x0D:
        return "a line of the chunked body ends in a bare LF, not CRLF"
    return None


def error_body(status: int, reason: str) -> bytes:
    """The plain-text body of a refusal: its status, its phrase and why, on one line."""
    return f"{status} {PHRASES.get(status, '')}: {reason}\n".encode()
