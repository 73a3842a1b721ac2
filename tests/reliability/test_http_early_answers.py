"""Answers the HTTP endpoint gives before it has read the request body.

HTTP/1.1 connections are persistent unless a response says ``Connection: close``: a client may
send its next request on the same connection as soon as it has read a response.  So a server
that refuses a request before reading all of its body (too large, wrong media type, ...) must
either announce the close or keep the connection usable.  And a request refused because the
server is shutting down is still a JSON-RPC request whose answer carries its id.
"""

from __future__ import annotations

import functools
import json
from typing import Any

import pytest
import trio
from mcptrio_bench import plugin, stats

import mcptrio
from mcptrio import SessionLimits
from mcptrio.transports.http import serve_http

from ..transports.http.client import ACCEPT, modern, new_client

LIMIT = 65536


def bench_app() -> mcptrio.App:
    app = mcptrio.App("early-answers")
    app.include(plugin)
    return app


def request_head(port: int, headers: dict[str, str], length: int, method: str = "POST", path: str = "/mcp") -> bytes:
    lines = [f"{method} {path} HTTP/1.1", f"Host: 127.0.0.1:{port}", f"Content-Length: {length}"]
    lines += [f"{name}: {value}" for name, value in headers.items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


async def read_response(stream: trio.SocketStream, buffer: bytearray) -> tuple[int, dict[str, str], bytes] | None:
    """One whole response with a Content-Length body; None when the server closed the connection."""
    while b"\r\n\r\n" not in buffer:
        data = await stream.receive_some(65536)
        if not data:
            return None
        buffer += data
    head, _, rest = bytes(buffer).partition(b"\r\n\r\n")
    status_line, *header_lines = head.decode("latin-1").split("\r\n")
    headers = {name.strip().lower(): value.strip() for name, _, value in (h.partition(":") for h in header_lines)}
    length = int(headers.get("content-length", "0"))
    while len(rest) < length:
        data = await stream.receive_some(65536)
        if not data:
            return None
        rest += data
    buffer[:] = rest[length:]
    return int(status_line.split()[1]), headers, rest[:length]


async def read_to_eof(stream: trio.SocketStream) -> None:
    while await stream.receive_some(65536):
        pass


@pytest.mark.parametrize("case", ["oversize", "wrong_media_type", "wrong_path", "wrong_method"])
async def test_refusal_before_the_body_keeps_or_closes_the_connection_explicitly(case):
    """413 (declared size over the limit), 415, 404 (POST to another path) and 405 (PUT) are
    answered before the body is read; the next request on the same keep-alive connection must
    then be answered, unless the refusal said ``Connection: close``."""
    app = bench_app()
    async with trio.open_nursery() as nursery:
        url = await nursery.start(
            functools.partial(serve_http, app, host="127.0.0.1", port=0, limits=SessionLimits(max_message_size=LIMIT))
        )
        port = int(url.rsplit(":", 1)[1].split("/")[0])
        headers = {"Content-Type": "application/json", "Accept": ACCEPT}
        method, path, first = "POST", "/mcp", 0  # first: body bytes sent before the answer is read
        body = json.dumps(modern("server/discover", {}, 1)[0])
        if case == "oversize":
            body = json.dumps(modern("tools/call", {"name": "echo", "arguments": {"text": "x" * (LIMIT + 100)}}, 1)[0])
            first = 1000  # part of the body; the refusal comes from the declared length
            expected_status = 413
        elif case == "wrong_media_type":
            headers["Content-Type"] = "text/plain"
            expected_status = 415
        elif case == "wrong_path":
            path, expected_status = "/elsewhere", 404
        else:
            method, expected_status = "PUT", 405
        payload = body.encode()
        with trio.fail_after(10):
            stream = await trio.open_tcp_stream("127.0.0.1", port)
            async with stream:
                await stream.send_all(request_head(port, headers, len(payload), method, path) + payload[:first])
                buffer = bytearray()
                answer = await read_response(stream, buffer)
                assert answer is not None, "no answer at all to the refused request"
                status, answer_headers, answer_body = answer
                assert status == expected_status, (status, answer_body)
                if answer_headers.get("content-type") == "application/json":
                    assert json.loads(answer_body)["error"]["code"] == -32600
                if "close" in answer_headers.get("connection", "").lower():
                    await read_to_eof(stream)  # announced: the server closes, and that is all right
                else:
                    # Not announced: the connection is still ours. Finish the body as HTTP
                    # requires, then send the next request on it, as any keep-alive client may
                    # (the pause stands for the rest of the body still being in transit).
                    follow, follow_headers = modern("server/discover", {}, 2)
                    follow_payload = json.dumps(follow).encode()
                    await trio.sleep(0.2)
                    try:
                        await stream.send_all(payload[first:])
                        await stream.send_all(request_head(port, follow_headers, len(follow_payload)) + follow_payload)
                        next_answer = await read_response(stream, buffer)
                    except trio.BrokenResourceError:
                        next_answer = None
                    assert next_answer is not None, (
                        f"the server closed the connection after its {status} answer, which did not say "
                        f"'Connection: close' (headers {answer_headers}): a keep-alive client's next request "
                        f"on it is lost"
                    )
                    assert next_answer[0] == 200, next_answer
        nursery.cancel_scope.cancel()


async def test_request_refused_during_shutdown_is_answered_with_its_id():
    """During the grace period a new POST gets 503; its JSON-RPC error names the request's id."""
    app = bench_app()
    stats.update(started=0, completed=0, cancelled=0)
    stop = trio.Event()
    async with trio.open_nursery() as nursery:
        url = await nursery.start(
            functools.partial(
                serve_http,
                app,
                host="127.0.0.1",
                port=0,
                limits=SessionLimits(shutdown_grace=1.0),
                shutdown_trigger=stop.wait,
            )
        )
        async with new_client() as client:

            async def long_request() -> None:
                body, headers = modern("tools/call", {"name": "sleep", "arguments": {"ms": 60000}}, "long")
                await client.post(url, json=body, headers=headers)

            with trio.fail_after(15):
                async with trio.open_nursery() as requests:
                    requests.start_soon(long_request)
                    while stats["started"] < 1:
                        await trio.sleep(0.01)
                    stop.set()  # graceful shutdown starts; the long request keeps it in its grace period
                    await trio.sleep(0.1)
                    body, headers = modern("tools/call", {"name": "echo", "arguments": {"text": "late"}}, "late")
                    response = await client.post(url, json=body, headers=headers)
        assert response.status_code == 503, response.text
        refusal: dict[str, Any] = response.json()
        assert "draining" in refusal["error"]["message"], refusal
        assert refusal["error"]["code"] == -31503 and refusal["error"]["data"] == {"retryAfter": 1}
        assert refusal["id"] == "late", f"the refusal does not name the request it refuses: {refusal}"
