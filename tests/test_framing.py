"""Framing is pure: bytes in, whole frames out, nothing over the limit is buffered."""

from mcptrio.framing import LineFramer, Oversize


def test_splits_lines_across_chunks():
    framer = LineFramer(100)
    assert framer.feed(b'{"a":') == []
    assert framer.feed(b'1}\n{"b":2}\n{"c"') == [b'{"a":1}', b'{"b":2}']
    assert framer.feed(b":3}\n") == [b'{"c":3}']


def test_blank_lines_are_skipped_and_crlf_is_tolerated_by_json():
    framer = LineFramer(100)
    assert framer.feed(b"\n  \n{}\r\n") == [b"{}\r"]


def test_oversize_line_is_reported_once_and_not_buffered():
    framer = LineFramer(10)
    assert framer.feed(b"x" * 8) == []
    assert framer.feed(b"y" * 8) == []
    assert framer._buffer == bytearray()  # dropped, not kept
    assert framer.feed(b"z" * 1000) == []
    assert framer.feed(b"\n{}\n") == [Oversize(1016), b"{}"]


def test_line_exactly_at_limit_passes():
    framer = LineFramer(5)
    assert framer.feed(b"12345\n123456\n") == [b"12345", Oversize(6)]


def test_close_flushes_a_last_line_without_newline():
    framer = LineFramer(100)
    assert framer.feed(b'{"x":1}') == []
    assert framer.close() == [b'{"x":1}']
