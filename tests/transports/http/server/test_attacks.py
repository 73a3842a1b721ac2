"""Attacks on ``serve_http`` over real sockets, each against both of its servers (mcptrio's own and
hypercorn as mcptrio runs it): a request smuggled behind Content-Length + Transfer-Encoding,
malformed chunking, an oversized head, a flood of header fields, a client that stops reading, one
connection too many, slow and idle clients, and the two pipelined shapes that ended hypercorn's
process or truncated its answer when it served ``McpHttpApp`` on its own."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable

import attrs
import pytest
import trio

from mcptrio.transports.http import HttpConfig

from ..client import CLIENT_INFO, META_CAPABILITIES, META_CLIENT_INFO, META_VERSION, MODERN, http_server

CONFIG = HttpConfig(header_timeout=1.0, keep_alive_timeout=1.0, body_timeout=1.0, write_timeout=0.5, max_connections=8)
HIDDEN = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"  # what an attack tries to get served unseen


@pytest.fixture(params=["builtin", "hypercorn"])
def server(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
async def port(app, server: str) -> AsyncIterator[int]:
    async with http_server(app, config=CONFIG, server=server) as url:
        yield int(url.rsplit(":", 1)[1].split("/")[0])


# -- requests, raw ---------------------------------------------------------------------------------


def echo(text: str = "x", request_id: int = 1) -> bytes:
    meta = {META_VERSION: MODERN, META_CAPABILITIES: {}, META_CLIENT_INFO: CLIENT_INFO}
    return json.dumps(
        {
            "jsonrpc": "2.0",
            "id": request_id,
            "method": "tools/call",
            "params": {"name": "echo", "arguments": {"text": text}, "_meta": meta},
        }
    ).encode()


def head(version: str = "1.1", *lines: str) -> bytes:
    return "\r\n".join(
        [
            f"POST /mcp HTTP/{version}",
            "Host: 127.0.0.1",
            "Content-Type: application/json",
            "Accept: application/json, text/event-stream",
            f"MCP-Protocol-Version: {MODERN}",
            "Mcp-Method: tools/call",
            "Mcp-Name: echo",
            *lines,
            "",
            "",
        ]
    ).encode()


def post(body: bytes) -> bytes:
    return head("1.1", f"Content-Length: {len(body)}") + body


def chunked(body: bytes) -> bytes:
    return b"%x\r\n%s\r\n0\r\n\r\n" % (len(body), body)


# -- what came back ----------------------------------------------------------------------------------


@attrs.frozen
class Answer:
    status: int
    headers: dict[bytes, bytes]
    body: bytes
    whole: bool  # all the body its framing announced


@attrs.frozen
class Outcome:
    answers: list[Answer]
    end: str  # "eof": the server closed; "reset"; "open": still open when the client stopped waiting
    seconds: float

    @property
    def statuses(self) -> list[int]:
        return [answer.status for answer in self.answers]


def parse(raw: bytes) -> list[Answer]:
    """The responses in what the server wrote (the last one possibly cut short)."""
    answers = []
    while raw:
        top, found, rest = raw.partition(b"\r\n\r\n")
        if not found:
            break
        status_line, *lines = top.split(b"\r\n")
        headers = {name.strip().lower(): value.strip() for name, _, value in (line.partition(b":") for line in lines)}
        if b"content-length" in headers:
            size = int(headers[b"content-length"])
            body, raw = rest[:size], rest[size:]
            answers.append(Answer(int(status_line.split()[1]), headers, body, len(body) == size))
        elif headers.get(b"transfer-encoding") == b"chunked":
            body, raw, whole = _dechunk(rest)
            answers.append(Answer(int(status_line.split()[1]), headers, body, whole))
        else:  # to the close
            answers.append(Answer(int(status_line.split()[1]), headers, rest, True))
            break
    return answers


def _dechunk(data: bytes) -> tuple[bytes, bytes, bool]:
    body = b""
    while True:
        line, found, data = data.partition(b"\r\n")
        if not found:
            return body, b"", False
        size = int(line.split(b";")[0], 16)
        if size == 0:
            return body, data[2:], True
        body, data = body + data[:size], data[size + 2 :]


async def exchange(
    port: int,
    *pieces: bytes,
    wait: float = 5.0,
    pause: float = 0.0,
    read_after: float = 0.0,
    receive_buffer: int | None = None,
) -> Outcome:
    """Write ``pieces`` (``pause`` s apart) while reading whatever comes until the server closes or
    ``wait`` s pass (reading starts after ``read_after`` s)."""
    sock = trio.socket.socket()
    if receive_buffer is not None:
        sock.setsockopt(trio.socket.SOL_SOCKET, trio.socket.SO_RCVBUF, receive_buffer)
    await sock.connect(("127.0.0.1", port))
    stream = trio.SocketStream(sock)
    received, end, started = bytearray(), "open", trio.current_time()

    async def write() -> None:
        try:
            for piece in pieces:
                await stream.send_all(piece)
                await trio.sleep(pause)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            pass

    async with trio.open_nursery() as nursery:
        nursery.start_soon(write)
        await trio.sleep(read_after)
        with trio.move_on_after(wait):
            try:
                while data := await stream.receive_some(1 << 20):
                    received += data
                end = "eof"
            except trio.BrokenResourceError:
                end = "reset"
        nursery.cancel_scope.cancel()
    await trio.aclose_forcefully(stream)
    return Outcome(parse(bytes(received)), end, trio.current_time() - started)


async def assert_still_serving(port: int) -> None:
    outcome = await exchange(port, HIDDEN.replace(b"\r\n\r\n", b"\r\nConnection: close\r\n\r\n"))
    assert outcome.statuses == [200], outcome


def assert_refused(outcome: Outcome, status: int, reason: str | None) -> None:
    """One answer, ``status``, saying ``reason`` (when given); the connection closed, not reset."""
    [answer] = outcome.answers
    assert (answer.status, answer.whole, answer.headers.get(b"connection")) == (status, True, b"close"), outcome
    if reason is not None:
        assert reason in answer.body.decode(), answer.body
    assert outcome.end == "eof", outcome


# -- the attacks -----------------------------------------------------------------------------------------


async def test_content_length_with_transfer_encoding_is_answered_then_the_connection_closes(port: int) -> None:
    body = chunked(echo("by the chunks"))
    outcome = await exchange(
        port, head("1.1", f"Content-Length: {len(body)}", "Transfer-Encoding: chunked") + body + HIDDEN
    )
    [answer] = outcome.answers  # read by Transfer-Encoding, answered; the request behind it is not served
    assert answer.status == 200 and b"by the chunks" in answer.body, outcome
    assert answer.headers[b"connection"] == b"close" and outcome.end == "eof", outcome
    await assert_still_serving(port)


MALFORMED = {
    "bad size": b"zz\r\nhello\r\n0\r\n\r\n",
    "negative size": b"-5\r\nhello\r\n0\r\n\r\n",
    "bare LF": b"5\nhello\n0\n\n",
    "missing CRLF": b"5\r\nhelloXY0\r\n\r\n",
    "1 MiB chunk extension": b"5;e=" + b"a" * (1 << 20) + b"\r\nhello\r\n0\r\n\r\n",
    "1 MiB trailer": b"5\r\nhello\r\n0\r\nX-T: " + b"a" * (1 << 20) + b"\r\n\r\n",
}
# hypercorn's own parser refuses these before McpHttpApp sees them, with its statuses and no text;
# a bare LF it waits on, until McpHttpApp's body timeout answers 408 (with its reason).
ON_HYPERCORN = {
    "bare LF": (408, "the body did not arrive"),
    "1 MiB chunk extension": (431, None),
    "1 MiB trailer": (431, None),
}


@pytest.mark.parametrize("case", MALFORMED)
async def test_a_malformed_chunked_body_is_refused_with_400_and_a_lingering_close(
    port: int, server: str, case: str
) -> None:
    # (a request behind the bare LFs would end their line with its CRLF: nothing follows them)
    behind = b"" if case == "bare LF" else HIDDEN
    outcome = await exchange(port, head("1.1", "Transfer-Encoding: chunked") + MALFORMED[case] + behind)
    if server == "builtin":
        assert_refused(outcome, 400, "400 Bad Request: malformed request body: ")
        assert outcome.seconds < CONFIG.body_timeout, outcome  # (refused as it came, not timed out)
    else:
        assert_refused(outcome, *ON_HYPERCORN.get(case, (400, None)))
    await assert_still_serving(port)


async def test_the_head_size_limit_holds_whatever_the_reads(port: int) -> None:
    """A head of 127 KiB in two writes: the first leaves it unfinished under the 64 KiB limit, the
    second completes it in one read (which h11's own check never sees)."""
    start = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: "
    outcome = await exchange(
        port, start + b"a" * (CONFIG.max_head_size - 500), b"a" * (62 * 1024) + b"\r\n\r\n", pause=0.2
    )
    assert_refused(outcome, 431, "over the limit of 65536")
    fits = await exchange(port, start + b"a" * (CONFIG.max_head_size - 500) + b"\r\nConnection: close\r\n\r\n")
    assert fits.statuses == [200], fits


async def test_too_many_header_fields_get_431(port: int) -> None:
    body = echo()
    flood = await exchange(port, head("1.1", *["a:b"] * 10_000, f"Content-Length: {len(body)}") + body)
    assert_refused(flood, 431, f"10007 header fields, over the limit of {CONFIG.max_headers}")
    many = await exchange(port, head("1.1", *["a:b"] * 90, f"Content-Length: {len(body)}", "Connection: close") + body)
    assert many.statuses == [200], many


async def test_a_client_that_stops_reading_is_cut_off_after_the_write_timeout(port: int) -> None:
    """40 echo calls of 256 KiB each, pipelined, and nothing read for 2 s: past the write timeout
    (0.5 s) the server has closed the connection, so the client then reads what was in the socket
    buffers and the end, not 40 answers."""
    calls = [post(echo("y" * 256 * 1024, n)) for n in range(40)]
    outcome = await exchange(port, *calls, read_after=2.0, wait=3.0, receive_buffer=4096)
    assert outcome.end in ("eof", "reset") and len(outcome.answers) < 40, (outcome.end, len(outcome.answers))
    await assert_still_serving(port)


async def test_one_connection_over_the_limit_gets_503_with_a_reason_and_is_closed(port: int) -> None:
    held = [await trio.open_tcp_stream("127.0.0.1", port) for _ in range(CONFIG.max_connections)]
    outcome = await next_answer(port, lambda status: status != 200)  # (once the server has accepted them all)
    assert_refused(outcome, 503, f"the server has its limit of {CONFIG.max_connections} connections open")
    assert outcome.answers[0].headers[b"retry-after"] == b"1"
    await held.pop().aclose()
    assert (await next_answer(port, lambda status: status == 200)).statuses == [200]  # (once it has seen the end)
    for stream in held:
        await stream.aclose()


async def next_answer(port: int, wanted: Callable[[int], bool]) -> Outcome:
    """The first answer to a /healthz on a new connection whose status is ``wanted`` (within 5 s)."""
    with trio.fail_after(5):
        while True:
            outcome = await exchange(port, HIDDEN)
            if outcome.answers and wanted(outcome.answers[0].status):
                return outcome
            await trio.sleep(0.05)


async def test_the_head_body_and_idle_timeouts_hold(port: int) -> None:
    outcomes = {}

    async def attack(name: str, *pieces: bytes, pause: float = 0.0) -> None:
        outcomes[name] = await exchange(port, *pieces, pause=pause, wait=4.0)

    body = echo()
    slow_head = [bytes([byte]) for byte in post(body)[:40]]
    async with trio.open_nursery() as nursery:
        nursery.start_soon(lambda: attack("slow head", *slow_head, pause=0.1))  # a byte every 0.1 s
        nursery.start_soon(attack, "slow body", post(body)[:-10])
        nursery.start_soon(attack, "idle", b"")
    slow, slow_body, idle = outcomes["slow head"], outcomes["slow body"], outcomes["idle"]
    # (closed by the header timeout: 1 s, and well before the 4 s the client waits)
    assert (slow.answers, slow.end) == ([], "eof") and slow.seconds < CONFIG.header_timeout + 1.5, slow
    assert (idle.answers, idle.end) == ([], "eof") and idle.seconds < CONFIG.header_timeout + 1.5, idle
    assert_refused(slow_body, 408, f"the body did not arrive within {CONFIG.body_timeout:g} s")


HEADS = {  # shapes h11 (so hypercorn) serves or waits on, which a proxy in front may read otherwise
    "ended by bare LFs": (b"GET /healthz HTTP/1.1\nHost: 127.0.0.1\n\n", 400, "a bare LF"),
    "folded": (b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX: a\r\n b\r\n\r\n", 400, "obsolete line folding"),
    "a bare CR": (b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX: a\rb\r\n\r\n", 400, "a bare CR"),
    "HTTP/1.2": (b"GET /healthz HTTP/1.2\r\nHost: 127.0.0.1\r\n\r\n", 505, "HTTP/1.2 is not served"),
    "a TLS hello": (b"\x16\x03\x01\x00\xa5\x01\x00\x00\xa1\x03\x03", 400, "the request line is not HTTP"),
}


@pytest.mark.parametrize("case", HEADS)
async def test_heads_h11_would_let_through_are_refused_at_once_by_the_builtin_server(app, case: str) -> None:
    data, status, reason = HEADS[case]
    async with http_server(app, config=CONFIG, server="builtin") as url:
        behind = b"" if case == "a TLS hello" else HIDDEN  # (refused with no head's end in sight)
        outcome = await exchange(int(url.rsplit(":", 1)[1].split("/")[0]), data + behind)
        assert_refused(outcome, status, reason)
        assert outcome.seconds < CONFIG.header_timeout, outcome  # (refused as it came, not timed out)


async def test_http10_chunked_keep_alive_with_a_pipelined_request_is_refused_and_the_server_lives_on(
    port: int, server: str
) -> None:
    """The shape that ended hypercorn's process serving McpHttpApp about once in six tries."""
    attack = head("1.0", "Transfer-Encoding: chunked", "Connection: keep-alive") + chunked(echo()) + HIDDEN
    for _ in range(30):
        outcome = await exchange(port, attack)
        # refused (by mcptrio's check, or by hypercorn's parser that saw the pipelined bytes first)
        assert_refused(outcome, 400, "Transfer-Encoding in an HTTP/1.0 request" if server == "builtin" else None)
    await assert_still_serving(port)


async def test_a_get_with_an_unread_body_and_a_pipelined_request_gets_its_whole_answer(port: int) -> None:
    """The shape that got a truncated 200 from hypercorn serving McpHttpApp."""
    attack = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\n\r\nhello" + HIDDEN
    for _ in range(30):
        outcome = await exchange(port, attack)
        first = outcome.answers[0]
        assert (first.status, first.whole, first.body) == (200, True, b'{"status":"ok"}'), outcome
        assert outcome.end == "eof" and len(outcome.answers) <= 2, outcome
    await assert_still_serving(port)
