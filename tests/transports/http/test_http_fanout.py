"""A change told to many listen streams at once, over real sockets: each stream hears every change,
in order; a client that stops reading is cut off without holding up the others; a closed stream
leaves no registration behind."""

from __future__ import annotations

import json
import socket
from typing import Any
from urllib.parse import urlsplit

import trio

from mcptrio import App

from .client import SUBSCRIPTION_ID, http_server, modern, wait_until

URIS = [f"test://fanout/{n}" for n in range(8)]


def _listen_request(url: str, request_id: str, uris: list[str]) -> bytes:
    body, headers = modern("subscriptions/listen", {"notifications": {"resourceSubscriptions": uris}}, request_id)
    data = json.dumps(body).encode()
    parts = urlsplit(url)
    lines = [f"POST {parts.path} HTTP/1.1", f"Host: {parts.netloc}", f"Content-Length: {len(data)}"]
    lines += [f"{name}: {value}" for name, value in headers.items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + data


class RawListener:
    """A listen stream on a plain socket: its SSE messages, read as fast (or as slowly) as the test likes."""

    def __init__(self, stream: trio.SocketStream) -> None:
        self.stream = stream
        self.buffer = b""
        self.messages: list[dict[str, Any]] = []
        self.ended = False

    @classmethod
    async def open(cls, url: str, request_id: str, uris: list[str], receive_buffer: int | None = None) -> RawListener:
        parts = urlsplit(url)
        sock = trio.socket.socket()
        if receive_buffer is not None:  # before connecting: the window the server sees stays small
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
        await sock.connect((parts.hostname, parts.port))
        listener = cls(trio.SocketStream(sock))
        await listener.stream.send_all(_listen_request(url, request_id, uris))
        while not listener.messages:
            await listener.read()
        assert listener.messages[0]["method"] == "notifications/subscriptions/acknowledged", listener.messages
        return listener

    async def read(self, size: int = 65536) -> None:
        try:
            data = await self.stream.receive_some(size)
        except trio.BrokenResourceError:
            data = b""
        if not data:
            self.ended = True
            return
        self.buffer += data
        while b"\n\n" in self.buffer:
            event, self.buffer = self.buffer.split(b"\n\n", 1)
            for line in event.split(b"\n"):
                if line.startswith(b"data: ") and line[6:].strip():
                    self.messages.append(json.loads(line[6:]))

    def updated(self) -> list[str]:
        return [m["params"]["uri"] for m in self.messages if m["method"] == "notifications/resources/updated"]

    async def read_until(self, count: int) -> None:
        while len(self.updated()) < count and not self.ended:
            await self.read()


async def _notify(app: App, rounds: int) -> list[str]:
    """``rounds`` changes, each URI in turn, one after the other with no time between them (each
    lets the other tasks run, as changes made by separate calls would: a burst of more than
    ``stream_buffer`` changes behind one write ends a stream by design)."""
    told = []
    for n in range(rounds):
        uri = URIS[n % len(URIS)]
        await app.notify_resource_updated(uri)
        told.append(uri)
        await trio.lowlevel.checkpoint()
    return told


async def test_every_stream_hears_every_change_in_order(app: App) -> None:
    async with http_server(app) as url:
        with trio.fail_after(20):
            listeners = [await RawListener.open(url, f"sub-{n}", URIS) for n in range(20)]
            told = await _notify(app, 300)
            for listener in listeners:
                await listener.read_until(len(told))
                assert listener.updated() == told
                ids = {m["params"]["_meta"][SUBSCRIPTION_ID] for m in listener.messages}
                assert len(ids) == 1, ids  # each stream's own subscription id on every message
            for listener in listeners:
                await listener.stream.aclose()


async def test_a_slow_reader_gets_every_change_in_order(app: App) -> None:
    """A reader slower than the changes: what its socket can't take waits, in order, and arrives."""
    async with http_server(app) as url:
        with trio.fail_after(30):
            slow = await RawListener.open(url, "slow", URIS, receive_buffer=4096)
            told = await _notify(app, 1000)  # ~170 KB of events: more than the socket buffers hold
            while len(slow.updated()) < len(told) and not slow.ended:
                await slow.read(4096)
                await trio.sleep(0)
            assert slow.updated() == told
            await slow.stream.aclose()


async def test_a_client_that_stops_reading_is_cut_off_and_holds_up_no_one(app: App) -> None:
    async with http_server(app) as url:
        with trio.fail_after(60):
            stuck = await RawListener.open(url, "stuck", URIS, receive_buffer=4096)
            reader = await RawListener.open(url, "reader", URIS)
            told: list[str] = []
            while len(app.listeners) == 2 and len(told) < 200_000:  # until the stuck one is dropped
                told += await _notify(app, 500)
                await reader.read_until(len(told))
                assert reader.updated() == told  # the reading stream heard each change, the other stalled
            assert len(app.listeners) == 1, "the stream that stopped reading was cut off"
            while not stuck.ended:  # its connection ends: what it had before the cut, then EOF or a reset
                await stuck.read()
            assert stuck.updated() == told[: len(stuck.updated())]  # nothing out of order before the cut
            assert len(stuck.updated()) < len(told)
            await reader.stream.aclose()
            await stuck.stream.aclose()


async def test_a_closed_stream_frees_its_registration(app: App) -> None:
    async with http_server(app) as url:
        with trio.fail_after(10):
            first = await RawListener.open(url, "first", URIS[:2])
            second = await RawListener.open(url, "second", URIS[1:3])
            assert [len(app.audience.listening("resourceSubscriptions", uri)) for uri in URIS[:3]] == [1, 2, 1]
            await first.stream.aclose()
            await wait_until(lambda: len(app.listeners) == 1, 5, "the closed stream's listener is dropped")
            assert [len(app.audience.listening("resourceSubscriptions", uri)) for uri in URIS[:3]] == [0, 1, 1]
            await second.stream.aclose()
            await wait_until(lambda: not app.listeners, 5, "every listener is dropped")
            assert all(not app.audience.listening("resourceSubscriptions", uri) for uri in URIS)
