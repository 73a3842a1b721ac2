"""Abrupt-disconnect traffic: raw TCP closed mid-headers, mid-body, mid-stream (FIN or RST), unread
answers, abandoned requests."""

from __future__ import annotations

import json
import socket
import struct

import trio
from limits import LEGACY_VERSIONS
from traffic_legacy import LegacyTraffic

from tests.transports.http.client import legacy_headers, modern, rpc


class DisconnectTraffic(LegacyTraffic):
    """The disconnects scenario: the server must keep serving and its handlers must stop."""

    def raw_request(self, body: bytes, headers: dict[str, str], *, content_length: int | None = None) -> bytes:
        lines = [
            "POST /mcp HTTP/1.1",
            f"Host: 127.0.0.1:{self.server.port}",
            f"Content-Length: {len(body) if content_length is None else content_length}",
        ]
        lines += [f"{name}: {value}" for name, value in headers.items()]
        return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body

    async def raw_send_then_close(self, data: bytes, *, read_until: bytes | None = None, rst: bool = False) -> bytes:
        """Open a TCP connection, send ``data``, optionally read until ``read_until``, then close
        (with RST when ``rst``: SO_LINGER 0).  Returns what was read."""
        self.count("raw TCP")
        self.tally.events["disconnects"] += 1
        stream = await trio.open_tcp_stream("127.0.0.1", self.server.port)
        received = b""
        try:
            await stream.send_all(data)
            if read_until is not None:
                with trio.fail_after(10):
                    while read_until not in received:
                        chunk = await stream.receive_some(65536)
                        if not chunk:
                            break
                        received += chunk
            if rst:
                stream.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        finally:
            await stream.aclose()
        return received

    async def disconnects(self) -> None:
        kind = self.rng.choice(
            (
                "mid_headers",
                "mid_body",
                "mid_stream",
                "mid_stream_rst",
                "unread_answer",
                "abandon_legacy",
                "abandon_modern",
            )
        )
        self.note(f"disconnect {kind}")
        body, headers = modern("tools/call", {"name": "sleep", "arguments": {"ms": 60000}}, self.next_id())
        payload = json.dumps(body).encode()
        if kind == "mid_headers":
            full = self.raw_request(payload, headers)
            await self.raw_send_then_close(full[: self.rng.randint(5, full.index(b"\r\n\r\n"))])
        elif kind == "mid_body":
            full = self.raw_request(payload, headers)
            head = full.index(b"\r\n\r\n") + 4
            await self.raw_send_then_close(
                full[: head + self.rng.randint(0, len(payload) - 1)], rst=self.rng.random() < 0.5
            )
        elif kind in ("mid_stream", "mid_stream_rst"):
            self.tally.events["sleeps_sent"] += 1
            got = await self.raw_send_then_close(
                self.raw_request(payload, headers), read_until=b"\r\n\r\n", rst=kind == "mid_stream_rst"
            )
            if not got.startswith(b"HTTP/1.1 200") or b"text/event-stream" not in got:
                raise self.fail("wrong_answer", f"raw long sleep: {got[:300]!r}")
            self.tally.ok()
        elif kind == "unread_answer":
            body, headers = modern("tools/call", {"name": "echo", "arguments": {"text": "x" * 2000}}, self.next_id())
            await self.raw_send_then_close(
                self.raw_request(json.dumps(body).encode(), headers), rst=self.rng.random() < 0.5
            )
        else:
            # httpx gives up on the request before any answer (the connection is closed).
            if kind == "abandon_legacy":
                version = self.rng.choice(LEGACY_VERSIONS)
                session_id = await self.initialize(version)
                body = rpc("tools/call", {"name": "sleep", "arguments": {"ms": 60000}}, self.next_id())
                headers = legacy_headers(session_id, version)
            self.count("POST sleep 60000 (abandoned)")
            self.tally.events["sleeps_sent"] += 1
            self.tally.events["disconnects"] += 1
            with trio.move_on_after(self.rng.uniform(0.02, 0.2)) as scope:
                response = await self.client.post(self.url, json=body, headers=headers)
            if not scope.cancelled_caught:
                raise self.fail(
                    "wrong_answer", f"sleep(60 s) answered at once: {response.status_code} {response.text[:200]}"
                )
            if kind == "abandon_legacy":
                await self.legacy_echo(session_id, version)
                await self.delete(session_id, version)
