"""The binary payloads the fixtures return, built once at import: a 1x1 red PNG and a short WAV."""

from __future__ import annotations

import base64
import io
import struct
import wave
import zlib


def _png_chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def red_pixel_png() -> bytes:
    """A valid 1x1 PNG whose one pixel is opaque red (8-bit RGBA)."""
    header = struct.pack(">IIBBBBB", 1, 1, 8, 6, 0, 0, 0)  # width, height, depth, RGBA, deflate, filter, no interlace
    scanline = b"\x00" + bytes((255, 0, 0, 255))  # filter byte "none", then one RGBA pixel
    return (
        b"\x89PNG\r\n\x1a\n"
        + _png_chunk(b"IHDR", header)
        + _png_chunk(b"IDAT", zlib.compress(scanline))
        + _png_chunk(b"IEND", b"")
    )


def silent_wav(frames: int = 8, rate: int = 8000) -> bytes:
    """A valid mono 16-bit PCM WAV file of ``frames`` silent samples."""
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(b"\x00\x00" * frames)
    return buffer.getvalue()


PNG_BYTES = red_pixel_png()
PNG_BASE64 = base64.b64encode(PNG_BYTES).decode("ascii")
WAV_BASE64 = base64.b64encode(silent_wav()).decode("ascii")


def image_block() -> dict[str, str]:
    """The image content block the image tool, the mixed tool and the image prompt share."""
    return {"type": "image", "data": PNG_BASE64, "mimeType": "image/png"}
