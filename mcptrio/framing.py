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
        frames: list[bytes | Oversize] = []
        start = 0
        while True:
            newline = data.find(b"\n", start)
            if newline < 0:
                self._keep(data[start:])
                return frames
            self._keep(data[start:newline])
            start = newline + 1
            if self._skipping:
                frames.append(Oversize(self._skipping))
                self._skipping = 0
            elif self._buffer.strip():
                line = bytes(self._buffer)
                frames.append(line)
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
