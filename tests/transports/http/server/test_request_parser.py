"""The built-in server's request parser held to h11's on the same bytes: valid requests, fed whole,
a byte at a time and in random pieces, read the same by both; thousands of mangled ones (seeded),
where it never accepts what h11 refuses or reads a request h11 reads differently, and refuses
what h11 lets through only for the reasons it documents (rfc9112.py)."""

from __future__ import annotations

import random

import h11
import pytest

from mcptrio.transports.http.server.rfc9112 import BODY, DONE, BadRequest, RequestParser

MAX_HEAD = 64 * 1024
BODY_TEXT = b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}'

VALID = {
    "get": b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
    "post": (
        b"POST /mcp?x=1 HTTP/1.1\r\nHost: 127.0.0.1:8000\r\nAccept: application/json, text/event-stream\r\n"
        b"Content-Type: application/json\r\nMcp-Session-Id: 0123abcd\r\nContent-Length: %d\r\n\r\n%s"
    )
    % (len(BODY_TEXT), BODY_TEXT),
    "chunked": (
        b"POST /mcp HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
        b"5;name=value\r\nhello\r\n10 \r\n0123456789abcdef\r\n0\r\nX-Trailer: t\r\n\r\n"
    ),
    "http/1.0": b"GET / HTTP/1.0\r\nUser-Agent: x\r\n\r\n",
    "expect": b"POST / HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\nabc",
    "odd values": b"GET /%E2%82%AC HTTP/1.1\r\nHost: h\r\nX-Empty:\r\nX-Blanks: \t a  b \t\r\nX-Obs: caf\xe9\r\n\r\n",
    "same length twice": b"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 2, 2\r\nContent-Length: 2\r\n\r\nok",
    "pipelined": b"GET /a HTTP/1.1\r\nHost: h\r\n\r\nGET /b HTTP/1.1\r\nHost: h\r\n\r\n",
}


def with_h11(data: bytes, pieces: list[bytes] | None = None) -> tuple[str, object]:
    """("ok", the requests), ("bad", None) or ("incomplete", the requests so far), as h11 reads ``data``."""
    connection = h11.Connection(h11.SERVER, max_incomplete_event_size=MAX_HEAD)
    requests: list[tuple[bytes, bytes, bytes, list[tuple[bytes, bytes]], bytes]] = []
    current: list[object] = []
    try:
        for piece in pieces or [data]:
            connection.receive_data(piece)
            while True:
                event = connection.next_event()
                if event is h11.NEED_DATA:
                    break
                if isinstance(event, h11.Request):
                    current = [event.method, event.target, event.http_version, list(event.headers), b""]
                elif isinstance(event, h11.Data):
                    current[4] += bytes(event.data)  # type: ignore[operator]
                elif isinstance(event, h11.EndOfMessage):
                    requests.append(tuple(current))  # type: ignore[arg-type]
                    current = []
                    left = connection.trailing_data[0]  # (the next request: a fresh parser, as the server had)
                    connection = h11.Connection(h11.SERVER, max_incomplete_event_size=MAX_HEAD)
                    connection.receive_data(left)
                else:
                    break
    except h11.RemoteProtocolError:
        return "bad", None
    return ("incomplete" if current or connection.trailing_data[0] else "ok"), requests


def with_parser(data: bytes, pieces: list[bytes] | None = None) -> tuple[str, object]:
    """The same, as RequestParser reads it (with a BadRequest's reason in place of None)."""
    parser = RequestParser(MAX_HEAD)
    requests = []
    current: list[object] = []
    try:
        for piece in pieces or [data]:
            parser.feed(piece)
            while True:
                if parser.state is DONE:
                    requests.append(tuple(current))
                    parser.next_request()
                    current = []
                    continue
                if parser.state is BODY:
                    body = parser.read_body()
                    current[4] += body  # type: ignore[operator]
                    if parser.state is BODY and not body:
                        break
                    continue
                head = parser.next_head()
                if head is None:
                    break
                current = [head.method, head.target, head.http_version, head.headers, b""]
    except BadRequest as exc:
        return "bad", exc.reason
    return ("incomplete" if current or parser.buffer else "ok"), requests


@pytest.mark.parametrize("name", VALID)
def test_valid_requests_read_alike_whole_bytewise_and_in_random_pieces(name: str) -> None:
    data = VALID[name]
    expected = with_h11(data)
    assert expected[0] == "ok" and expected[1], expected
    assert with_parser(data) == expected
    assert with_parser(data, [data[i : i + 1] for i in range(len(data))]) == expected
    rng = random.Random(name)
    for _ in range(50):
        cuts = sorted(rng.sample(range(1, len(data)), min(5, len(data) - 1)))
        pieces = [data[a:b] for a, b in zip([0, *cuts], [*cuts, len(data)], strict=True)]
        assert with_parser(data, pieces) == expected, pieces


# Shapes h11 lets through that the parser refuses, each on purpose (rfc9112.py says why).
STRICTER = (
    "the request head holds a bare",
    "the request head holds a control character",
    "obsolete line folding",
    "is not served: HTTP/1.1 is",
    "Content-Length of",
    "malformed request body: a trailer field",
    "ends in a bare LF, not CRLF",  # (a chunk line: as the server refused it before, under h11)
    "hex digits",
    "the request line is not HTTP",
)
MANGLERS = b"\r\n\0\t :;,-0123456789abcdefABCDEF\x7f\x80\xff HTTP/1.0chunkedContent-LengthTransfer-EncodingHost"


def mangle(rng: random.Random, data: bytes) -> bytes:
    out = bytearray(data)
    for _ in range(rng.randint(1, 3)):
        at = rng.randrange(len(out) + 1)
        action = rng.random()
        if action < 0.4 and at < len(out):
            out[at] = rng.choice(MANGLERS)
        elif action < 0.7:
            start = rng.randrange(len(MANGLERS))
            out[at:at] = MANGLERS[start : start + rng.randint(1, 12)]
        else:
            del out[at : at + rng.randint(1, 4)]
    return bytes(out)


@pytest.mark.parametrize("seed", range(4))
def test_mangled_requests_are_never_read_otherwise_than_h11_reads_them(seed: int) -> None:
    rng = random.Random(seed)
    stricter = 0
    for _ in range(1500):
        data = mangle(rng, rng.choice(list(VALID.values())))
        ours, theirs = with_parser(data), with_h11(data)
        if ours[0] == "bad":
            if theirs[0] != "bad":
                assert isinstance(ours[1], str) and any(reason in ours[1] for reason in STRICTER), (data, ours, theirs)
                stricter += 1
            continue
        # Neither accepted nor left waiting for anything h11 would not: the same requests, the same state.
        assert ours == theirs, data
    assert stricter < 300, stricter  # (the stricter checks are a few shapes, not a different parser)


@pytest.mark.parametrize(
    ("data", "status", "reason"),
    [
        (b"GET / HTTP/1.1\r\nHost: h\nX: y\r\n\r\n", 400, "a bare LF"),
        (b"GET / HTTP/1.1\r\nHost: h\r\nX: a\rb\r\n\r\n", 400, "a bare CR"),
        (b"GET / HTTP/1.1\r\nHost: h\r\nX: a\x01b\r\n\r\n", 400, "a control character"),
        (b"GET / HTTP/1.1\r\nHost: h\r\nX: a\r\n  folded\r\n\r\n", 400, "obsolete line folding"),
        (b"GET / HTTP/1.1\r\nHost : h\r\n\r\n", 400, "malformed header name"),
        (b"GET / HTTP/1.1\r\nHost h\r\n\r\n", 400, "no colon"),
        (b"GET / HTTP/2.0\r\nHost: h\r\n\r\n", 505, "HTTP/2.0 is not served"),
        (b"GET  / HTTP/1.1\r\nHost: h\r\n\r\n", 400, "malformed request line"),
        (b"GET / HTTP/1.1\r\n\r\n", 400, "no Host header"),
        (b"GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400, "more than one Host header"),
        (b"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", 400, "conflicting"),
        (b"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1, 2\r\n\r\n", 400, "conflicting"),
        (b"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: -1\r\n\r\n", 400, "is not a number"),
        (b"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: " + b"9" * 19 + b"\r\n\r\n", 400, "19 digits"),
        (b"POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip\r\n\r\n", 501, "only Transfer-Encoding: chunked"),
        (
            b"POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n",
            501,
            "more",
        ),
        (b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03", 400, "not HTTP"),
        (b"GET / HTTP/1.1\r\nHost: h\r\nX: " + b"a" * MAX_HEAD, 431, "over the limit of 65536 bytes"),
    ],
)
def test_heads_refused_with_their_status_and_reason(data: bytes, status: int, reason: str) -> None:
    parser = RequestParser(MAX_HEAD)
    parser.feed(data)
    with pytest.raises(BadRequest) as refused:
        parser.next_head()
    assert (refused.value.status, reason in refused.value.reason) == (status, True), refused.value.reason


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        (b"zz\r\nhello\r\n0\r\n\r\n", "chunk size"),
        (b"5\nhello", "bare LF"),
        (b"5\r\nhelloXY", "not followed by CRLF"),
        (b"5\r\nhelloX", "not followed by CRLF"),  # (refused at its first wrong byte, not after two)
        (b"5;e=" + b"a" * 5000, "over 4096 bytes"),
        (b"5\r\nhello\r\n0\r\nnot a field\r\n\r\n", "trailer field"),
        (b"11111111111111111\r\n", "17 hex digits"),
    ],
)
def test_chunked_bodies_refused_as_soon_as_their_fault_arrives(body: bytes, reason: str) -> None:
    parser = RequestParser(MAX_HEAD)
    parser.feed(b"POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n" + body)
    assert parser.next_head() is not None
    with pytest.raises(BadRequest) as refused:
        while parser.read_body():
            pass
    assert reason in refused.value.reason and refused.value.status == 400, refused.value.reason


def test_expect_100_continue_holds_until_the_body_starts() -> None:
    parser = RequestParser(MAX_HEAD)
    parser.feed(b"POST / HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n")
    assert parser.next_head() is not None and parser.expects_continue
    assert parser.read_body() == b"" and parser.expects_continue
    parser.feed(b"a")
    assert parser.read_body() == b"a" and not parser.expects_continue and parser.state is BODY
    parser.feed(b"bcGET")
    assert parser.read_body() == b"bc" and parser.state is DONE and bytes(parser.buffer) == b"GET"


def test_a_head_past_the_limit_in_one_read_is_measured_whole() -> None:
    """The size of a head that came in one read is its own (rfc9112.refusal holds it to the limit)."""
    parser = RequestParser(100)
    data = b"GET / HTTP/1.1\r\nHost: h\r\nX: " + b"a" * 200 + b"\r\n\r\n"
    parser.feed(data)
    head = parser.next_head()
    assert head is not None and head.size == len(data)
