"""Sans-I/O framing: a byte stream becomes whole newline-delimited frames, with a size limit.

A line longer than the limit is not buffered: its bytes are dropped as they arrive and the
line is reported once as :class:`Oversize`, so a hostile peer cannot grow memory without bound.
"""

from __future__ import annotations

import attrs

DEFAULT_MAX_MESSAGE_SIZE = 4 * 1024 * 1024


@attrs.frozen
class Oversize:
    """A frame that exceeded the limit; ``size`` is how many bytes it had (at least)."""

    size: int


class LineFramer:
    """Splits a byte stream on ``\\n``; ``feed`` returns complete frames (``bytes`` or Oversize)."""

    def __init__(self, max_size: int = DEFAULT_MAX_MESSAGE_SIZE) -> None:
        self.max_size = max_size
        self._buffer = bytearray()
        self._skipping = 0  # bytes dropped from the current oversize line, 0 when not skipping

    def feed(self, data: bytes | bytearray) -> list[bytes | Oversize]:
        if not isinstance(data, bytes):
            data = bytes(data)
        pieces = data.split(b"\n")
        if len(pieces) == 1:
            self._keep(data)  # no newline: all of it belongs to the line being read
            return []
        frames: list[bytes | Oversize] = []
        first = pieces[0]
        if self._skipping or self._buffer:
            self._keep(first)
            self._end_line(frames)
        else:
            self._whole_line(first, frames)
        for line in pieces[1:-1]:
            self._whole_line(line, frames)
        self._keep(pieces[-1])
        return frames

    def _whole_line(self, line: bytes, frames: list[bytes | Oversize]) -> None:
        """A line that arrived whole: a frame unless it is blank or over the limit."""
        if len(line) > self.max_size:
            frames.append(Oversize(len(line)))
        elif line and not line.isspace():
            frames.append(line)

    def _end_line(self, frames: list[bytes | Oversize]) -> None:
        """The line being read (begun in an earlier chunk) has ended."""
        if self._skipping:
            frames.append(Oversize(self._skipping))
            self._skipping = 0
        elif self._buffer.strip():
            frames.append(bytes(self._buffer))
        self._buffer.clear()

    def _keep(self, chunk: bytes | bytearray) -> None:
        if self._skipping:
            self._skipping += len(chunk)
        elif len(self._buffer) + len(chunk) > self.max_size:
            self._skipping = len(self._buffer) + len(chunk)
            self._buffer.clear()
        else:
            self._buffer += chunk

    def close(self) -> list[bytes | Oversize]:
        """End of stream: a last line without a newline still counts as a frame."""
        return self.feed(b"\n")
