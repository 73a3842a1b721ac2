"""HTTP/1.1 messages as both servers hold them to the RFC: the requests refused before the app sees
them, and the bytes of a response (its head, then its body sized, chunked or to the close).

Requests.  RFC 9112 §6.1: a request with both Content-Length and Transfer-Encoding is read by
the latter and its connection closed after the answer (what follows may be a request smuggled
past a proxy that read it by the former); Transfer-Encoding in HTTP/1.0 is faulty framing.  The
head's size and its number of fields are held to limits of their own: h11 checks the size only
while a head is incomplete, so one read can take a head past it.  And the line at a chunk
boundary (a chunk size, or after the last chunk a trailer field) is checked as it arrives, which
h11 leaves until its CRLF comes: one ending in a bare LF would never complete.

Responses.  h11 parses every request (h11_server.py); the response side is written here because
it is half of h11's cost per request (header validation, its state machine) for what is a status
line, header lines and a framing choice.  The checks h11 makes on the way out are kept: a header
name must be a token, no header may carry CR, LF or NUL (no response splitting), a body must
match its Content-Length; a violation is ``FramingError``, which the server treats as the app's
failure (the connection is closed).
"""

from __future__ import annotations

import re
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


_TOKEN = re.compile(rb"[-!#$%&'*+.^_`|~0-9a-zA-Z]+")
_CHECKED_NAMES: set[bytes] = set()  # names seen to be tokens (an app sends the same few again and again)
_STATUS_LINES = {code: b"HTTP/1.1 %d %s\r\n" % (code, phrase.encode()) for code, phrase in PHRASES.items()}
CONTINUE = b"HTTP/1.1 100 Continue\r\n\r\n"


class FramingError(Exception):
    """A response that can't be written as HTTP/1.1: a bad header, or a body that breaks its framing."""


def status_line(status: int) -> bytes:
    line = _STATUS_LINES.get(status)
    if line is None:
        if not 100 <= status <= 999:
            raise FramingError(f"status {status} is not a three-digit HTTP status")
        line = b"HTTP/1.1 %d \r\n" % status
    return line


class ResponseFraming:
    """How the body of one response goes out, decided with its head."""

    __slots__ = ("chunked", "remaining", "no_body", "close")

    def __init__(self) -> None:
        self.chunked = False
        self.remaining: int | None = None  # bytes still due under a Content-Length
        self.no_body = False  # HEAD, 1xx, 204, 304: whatever the app gives is not sent
        self.close = False  # the connection ends after this response

    def head(
        self,
        status: int,
        headers: list[tuple[bytes, bytes]],
        whole_body: bytes | None,
        *,
        head_request: bool,
        http11: bool,
        keep_alive: bool,
        date: bytes,
    ) -> bytes:
        """The head, given the app's headers; ``whole_body``: the body, when it is all in the first write."""
        lines = [status_line(status)]
        length = None
        self.close = not keep_alive
        for name, value in headers:
            lower = name.lower()
            if lower not in _CHECKED_NAMES:
                if not _TOKEN.fullmatch(lower):
                    raise FramingError(f"header name {name!r} is not a token")
                _CHECKED_NAMES.add(lower)
            if lower == b"content-length":
                if not value.isdigit():
                    raise FramingError(f"Content-Length {value!r} is not a number")
                length = int(value)
            elif lower == b"transfer-encoding":
                if value.strip().lower() != b"chunked":
                    raise FramingError(f"Transfer-Encoding {value!r}: only chunked is written")
                self.chunked = True
                if not http11:
                    continue  # an HTTP/1.0 client gets the body to the close instead
            elif lower == b"connection":
                if b"close" in value.lower():
                    self.close = True
                continue  # written below, once
            lines.append(b"%s: %s\r\n" % (name, value))
        bodiless = status < 200 or status in (204, 304)
        self.no_body = head_request or bodiless
        if not bodiless and length is None and not self.chunked:
            if whole_body is not None:  # (for a HEAD too: the length its GET would have)
                length = len(whole_body)
                lines.append(b"content-length: %d\r\n" % length)
            elif head_request:
                pass
            elif http11:
                self.chunked = True
                lines.append(b"transfer-encoding: chunked\r\n")
            else:
                self.close = True  # HTTP/1.0: the body ends with the connection
        if self.chunked and not http11:
            self.chunked, self.close = False, True
        if length is not None and self.chunked:
            raise FramingError("both Content-Length and Transfer-Encoding")
        self.remaining = None if self.no_body else length
        if self.close:
            lines.append(b"connection: close\r\n")
        lines.append(b"date: %s\r\n\r\n" % date)
        data = b"".join(lines)
        # One line break per line, each a CRLF, and no NUL: nothing the app gave split a header.
        breaks = len(lines) + 1
        if data.count(b"\n") != breaks or data.count(b"\r") != breaks or b"\0" in data:
            raise FramingError("a header value holds CR, LF or NUL")
        return data

    def body(self, data: bytes, more: bool) -> bytes:
        """The bytes for the next piece of the body (``more``: not the last)."""
        if self.no_body:
            return b""
        if self.chunked:
            out = b"%x\r\n%s\r\n" % (len(data), data) if data else b""
            return out if more else out + b"0\r\n\r\n"
        if self.remaining is not None:
            self.remaining -= len(data)
            if self.remaining < 0 or (not more and self.remaining > 0):
                raise FramingError("the body does not match its Content-Length")
        return data
