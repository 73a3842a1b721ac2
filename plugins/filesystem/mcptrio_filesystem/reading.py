"""Reading files: UTF-8 text (whole, or its first or last lines) and images or audio."""

from __future__ import annotations

import os
import re
from typing import IO

from .errors import FsError
from .fsops import CHUNK, MAX_MEDIA_BYTES, MAX_TEXT_BYTES, human, open_file
from .paths import Location

# By extension, so the answer never depends on the host's mime.types.
MEDIA_TYPES = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
    ".bmp": "image/bmp",
    ".svg": "image/svg+xml",
    ".ico": "image/x-icon",
    ".mp3": "audio/mpeg",
    ".wav": "audio/wav",
    ".ogg": "audio/ogg",
    ".oga": "audio/ogg",
    ".flac": "audio/flac",
    ".m4a": "audio/mp4",
    ".aac": "audio/aac",
    ".opus": "audio/opus",
    ".weba": "audio/webm",
}

# C0 controls other than tab, newlines, form feed, vertical tab and ESC (ANSI colours in logs).
_CONTROLS = re.compile("[\x01-\x08\x0e-\x1a\x1c-\x1f\x7f]")


def decode(data: bytes, loc: Location) -> str:
    """``data`` as text, or a clear refusal when it looks binary."""
    refusal = FsError(f"not a text file (binary content): {loc.shown}; use read_media_file for images and audio")
    if b"\0" in data:
        raise refusal
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise refusal from None
    if len(_CONTROLS.findall(text)) > len(text) // 100:
        raise refusal
    return text


def _head(file: IO[bytes], lines: int, loc: Location) -> bytes:
    data = b""
    while data.count(b"\n") < lines:
        if len(data) > MAX_TEXT_BYTES:
            raise FsError(f"the first {lines} lines of {loc.shown} are over the {human(MAX_TEXT_BYTES)} limit")
        chunk = file.read(CHUNK)
        if not chunk:
            return data
        data += chunk
    return b"\n".join(data.split(b"\n", lines)[:lines]) + b"\n"


def _tail(file: IO[bytes], size: int, lines: int, loc: Location) -> bytes:
    data, start = b"", size
    while True:
        ends_with_newline = data.endswith(b"\n")
        body = data[:-1] if ends_with_newline else data
        if body.count(b"\n") >= lines or start == 0:  # the first of the last lines is complete
            break
        if len(data) > MAX_TEXT_BYTES:
            raise FsError(f"the last {lines} lines of {loc.shown} are over the {human(MAX_TEXT_BYTES)} limit")
        step = min(CHUNK, start)
        start -= step
        file.seek(start)
        data = file.read(step) + data
    if not data:
        return b""
    kept = body.split(b"\n")[-lines:]
    return b"\n".join(kept) + (b"\n" if ends_with_newline else b"")


def read_text(loc: Location, head: int | None, tail: int | None) -> str:
    """The file's text; with ``head``/``tail`` only its first/last lines (then any size may be read)."""
    limit = MAX_TEXT_BYTES if head is None and tail is None else 0
    with open_file(loc, limit, "read_text_file (use head or tail for part of a larger file)") as (file, size):
        if head is not None:
            data = _head(file, head, loc)
        elif tail is not None:
            data = _tail(file, size, tail, loc)
        else:
            data = file.read(MAX_TEXT_BYTES + 1)
        if len(data) > MAX_TEXT_BYTES:  # the file grew, or the lines asked for are too long
            raise FsError(f"{loc.shown}: the text asked for is over the {human(MAX_TEXT_BYTES)} limit")
    return decode(data, loc)


def media_type(loc: Location) -> str:
    mime = MEDIA_TYPES.get(os.path.splitext(loc.real)[1].lower())
    if mime is None:
        known = ", ".join(sorted(MEDIA_TYPES))
        raise FsError(f"not an image or audio file by its extension: {loc.shown} (known: {known})")
    return mime


def read_media(loc: Location) -> tuple[bytes, str]:
    """The bytes of an image or audio file and its MIME type."""
    mime = media_type(loc)
    with open_file(loc, MAX_MEDIA_BYTES, "read_media_file") as (file, _):
        data = file.read(MAX_MEDIA_BYTES + 1)
    if len(data) > MAX_MEDIA_BYTES:
        raise FsError(f"{loc.shown} is over the {human(MAX_MEDIA_BYTES)} limit of read_media_file")
    return data, mime
