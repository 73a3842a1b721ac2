"""A lost legacy session and a broken stream, over real HTTP: the server restarted between two calls
(a new session, the call asked again), killed during one (asked again only if the tool may run
twice, else a clear error), down when a call goes out (refused: tried once more after a pause;
a WebSocket's connection likewise), and a connection cut mid-call (the stream resumed with
Last-Event-ID)."""

from __future__ import annotations

import functools
import logging
import socket

import pytest
import trio

import mcptrio
import mcptrio.client
from mcptrio.client import McpError
from mcptrio.transports.http import HttpConfig, serve_http
from mcptrio.transports.websocket import serve_websocket


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def make_app(started: list[str]) -> mcptrio.App:
    app = mcptrio.App("sessions")

    @app.tool()
    async def hello() -> str:
        return "hello"

    @app.tool()
    async def slow_write() -> str:
        started.append("slow_write")
        await trio.sleep(1 if len(started) == 1 else 0)
        return "written"

    @app.tool(annotations={"readOnlyHint": True})
    async def slow_read() -> str:
        started.append("slow_read")
        await trio.sleep(1 if len(started) == 1 else 0)
        return "read"

    return app


class Server:
    """mcptrio's HTTP server on one port, stopped (hard: connections dropped) and started again."""

    def __init__(self, nursery: trio.Nursery, started: list[str]) -> None:
        self.nursery, self.started, self.port = nursery, started, free_port()
        self.scope = trio.CancelScope()

    async def start(self) -> str:
        self.scope = trio.CancelScope()
        scope = self.scope

        async def run(task_status: trio.TaskStatus[str] = trio.TASK_STATUS_IGNORED) -> None:
            with scope:
                await serve_http(
                    make_app(self.started), port=self.port, config=HttpConfig(path="/mcp"), task_status=task_status
                )

        return await self.nursery.start(run)

    def kill(self) -> None:
        self.scope.cancel()


async def test_a_server_restarted_between_two_calls_means_a_new_session(caplog):
    caplog.set_level(logging.WARNING, "mcptrio.client")
    lost: list[tuple[str | None, str | None]] = []
    async with trio.open_nursery() as nursery:
        server = Server(nursery, [])
        url = await server.start()
        with trio.fail_after(20):
            async with mcptrio.client.connect(
                url, era="legacy", on_session_lost=lambda old, new: lost.append((old, new))
            ) as client:
                assert (await client.call_tool("hello")).content[0].text == "hello"
                first = client.raw.end.session_id
                server.kill()
                await trio.sleep(0.1)
                await server.start()
                assert (await client.call_tool("hello")).content[0].text == "hello"
                assert lost == [(first, client.raw.end.session_id)] and first != client.raw.end.session_id
        server.kill()
    assert f"the server lost session {first} (HTTP 404)" in caplog.text


@pytest.mark.parametrize("era", ["legacy", "modern"])
@pytest.mark.parametrize("tool", ["slow_write", "slow_read"])
async def test_a_call_the_server_died_during_is_repeated_only_if_it_may_run_twice(tool, era):
    """The same rule in both eras: a 2026-07-28 request is asked again without a new session."""
    started: list[str] = []
    async with trio.open_nursery() as nursery:
        server = Server(nursery, started)
        url = await server.start()
        with trio.fail_after(30):
            async with mcptrio.client.connect(url, era=era) as client:
                await client.list_tools()
                async with trio.open_nursery() as calls:
                    outcome: list[object] = []

                    async def call() -> None:
                        try:
                            outcome.append((await client.call_tool(tool)).content[0].text)
                        except McpError as error:
                            outcome.append(error)

                    calls.start_soon(call)
                    while not started:
                        await trio.sleep(0.01)
                    await trio.sleep(0.5)  # (after stream_after, 0.25 s: the answer streams, its event id sent)
                    server.kill()
                    await trio.sleep(0.1)
                    await server.start()
        server.kill()
    if tool == "slow_read":  # read-only: asked again on a new session
        assert outcome == ["read"] and started == ["slow_read", "slow_read"]
    else:
        [error] = outcome
        assert isinstance(error, McpError) and error.data["mayHaveRun"] is True
        assert "which may have run: not called again" in error.message and started == ["slow_write"]


class Heard(logging.Handler):
    """Sets ``event`` when a log line says ``words``."""

    def __init__(self, words: str) -> None:
        super().__init__()
        self.words, self.event = words, trio.Event()

    def emit(self, record: logging.LogRecord) -> None:
        if self.words in record.getMessage():
            self.event.set()


@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_a_call_whose_connection_was_refused_is_tried_once_more(era, caplog):
    """The server is down when the call goes out: refused, it cannot have run, so even a tool not
    annotated idempotent is asked again, once, after a pause in which the server came back on its
    port (a legacy call then meets the lost session's 404 and goes on a new one)."""
    caplog.set_level(logging.INFO, "mcptrio.client")
    heard = Heard("trying once more in 0.5 s")
    logging.getLogger("mcptrio.client").addHandler(heard)
    started: list[str] = []
    outcome: list[object] = []
    try:
        async with trio.open_nursery() as nursery:
            server = Server(nursery, started)
            url = await server.start()
            with trio.fail_after(20):
                async with mcptrio.client.connect(url, era=era) as client:
                    assert (await client.call_tool("hello")).content[0].text == "hello"
                    server.kill()
                    await trio.sleep(0.1)

                    async def call() -> None:
                        outcome.append((await client.call_tool("slow_write")).content[0].text)

                    async with trio.open_nursery() as calls:
                        calls.start_soon(call)
                        await heard.event.wait()  # (the first attempt was refused)
                        assert not started
                        await server.start()
            server.kill()
    finally:
        logging.getLogger("mcptrio.client").removeHandler(heard)
    assert outcome == ["written"] and started == ["slow_write"]
    assert f"{url}: ConnectError: all attempts to connect" in caplog.text


async def test_a_server_down_for_longer_is_a_clear_error_after_one_more_try(caplog):
    """Refused twice: the caller gets the transport error (the call never ran), after one pause."""
    caplog.set_level(logging.INFO, "mcptrio.client")
    async with trio.open_nursery() as nursery:
        server = Server(nursery, [])
        url = await server.start()
        with trio.fail_after(20):
            async with mcptrio.client.connect(url, era="modern") as client:
                server.kill()
                await trio.sleep(0.1)
                before = trio.current_time()
                with pytest.raises(McpError) as failed:
                    await client.call_tool("slow_write")
                assert trio.current_time() - before >= 0.5
    assert failed.value.data == {"transport": True, "mayHaveRun": False}
    assert caplog.text.count("trying once more") == 1


class Relay:
    """A TCP relay in front of a server whose connections can all be cut at once."""

    def __init__(self, target: int) -> None:
        self.target = target
        self.streams: list[trio.SocketStream] = []

    async def serve(self, client: trio.SocketStream) -> None:
        server = await trio.open_tcp_stream("127.0.0.1", self.target)
        self.streams += [client, server]

        async def pump(source: trio.SocketStream, sink: trio.SocketStream) -> None:
            try:
                while data := await source.receive_some(65536):
                    await sink.send_all(data)
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                pass
            await trio.aclose_forcefully(sink)

        async with trio.open_nursery() as nursery:
            nursery.start_soon(pump, client, server)
            nursery.start_soon(pump, server, client)

    async def cut(self) -> None:
        for stream in self.streams:
            await trio.aclose_forcefully(stream)
        self.streams.clear()


async def test_a_stream_cut_mid_call_is_resumed_with_last_event_id():
    started: list[str] = []
    async with trio.open_nursery() as nursery:
        server = Server(nursery, started)
        await server.start()
        relay = Relay(server.port)
        listeners = await nursery.start(trio.serve_tcp, relay.serve, 0)
        port = listeners[0].socket.getsockname()[1]
        with trio.fail_after(20):
            async with mcptrio.client.connect(f"http://127.0.0.1:{port}/mcp", era="legacy") as client:
                session = client.raw.end.session_id
                async with trio.open_nursery() as calls:
                    answers: list[str] = []

                    async def call() -> None:
                        answers.append((await client.call_tool("slow_write")).content[0].text)

                    calls.start_soon(call)
                    while not started:
                        await trio.sleep(0.01)
                    await trio.sleep(0.5)  # (the answer streams by now, its priming event id sent)
                    await relay.cut()  # the POST's connection is gone; the server's call runs on
                assert answers == ["written"] and started == ["slow_write"]  # resumed, not called again
                assert client.raw.end.session_id == session
        server.kill()
        nursery.cancel_scope.cancel()


async def test_a_websocket_connection_refused_is_tried_once_more(caplog):
    """The WebSocket server is not listening yet when connect() dials; it is, on that port, after
    the pause: the connection is made on the second try."""
    caplog.set_level(logging.INFO, "mcptrio.client")
    heard = Heard("trying once more in 0.5 s")
    logging.getLogger("mcptrio.client").addHandler(heard)
    port = free_port()
    stop = trio.Event()
    try:
        with trio.fail_after(20):
            async with trio.open_nursery() as nursery:

                async def serve_when_refused() -> None:
                    await heard.event.wait()  # (the first try was refused)
                    await nursery.start(
                        functools.partial(serve_websocket, make_app([]), port=port, shutdown_trigger=stop.wait)
                    )

                nursery.start_soon(serve_when_refused)
                async with mcptrio.client.connect(f"ws://127.0.0.1:{port}/mcp") as client:
                    answer = await client.call_tool("hello")
                stop.set()
    finally:
        logging.getLogger("mcptrio.client").removeHandler(heard)
    assert answer.content[0].text == "hello" and heard.event.is_set()
    assert caplog.text.count("trying once more") == 1
