"""A stream session's workers: each waits for the next request once done with one (runtime/core.py).

The guarantees of a task per request must hold: context variables per request, a cancelled
request never answered and its worker unharmed, deadlines only while a request runs, answers
that wait for room in the outbox, and a bounded number of idle workers.
"""

import contextlib
import contextvars
import functools

import orjson
import pytest
import trio
import trio.testing

from mcptrio import App, SessionLimits
from mcptrio.runtime.core import ANSWERS_PER_TURN, IDLE_WORKERS, WORKER_NAME
from mcptrio.serve import serve_stream
from mcptrio.testing import open_client
from mcptrio.transports.stdio import LineMessageStream

from .apps import build_app

REQUEST_VAR: contextvars.ContextVar[str] = contextvars.ContextVar("request_var", default="unset")


def text_of(result):
    return result["content"][0]["text"]


def line(message) -> bytes:
    return orjson.dumps(message) + b"\n"


def call(request_id, name, arguments) -> bytes:
    return line(
        {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": {"name": name, "arguments": arguments}}
    )


INITIALIZE = line(
    {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    }
)
INITIALIZED = line({"jsonrpc": "2.0", "method": "notifications/initialized"})


class Lines:
    """The client's end of a newline-delimited stream (as stdio is)."""

    def __init__(self, stream: trio.abc.Stream) -> None:
        self.stream = stream
        self.buffer = b""

    async def send(self, data: bytes) -> None:
        await self.stream.send_all(data)

    async def message(self) -> dict:
        while b"\n" not in self.buffer:
            data = await self.stream.receive_some(65536)
            assert data, "the server closed its output"
            self.buffer += data
        first, self.buffer = self.buffer.split(b"\n", 1)
        return orjson.loads(first)

    async def answers(self, count: int) -> dict:
        """The next ``count`` answers, by id."""
        found = {}
        while len(found) < count:
            message = await self.message()
            if "id" in message:
                found[message["id"]] = message
        return found


@contextlib.asynccontextmanager
async def serve_lines(app: App, limits: SessionLimits | None = None, *, lockstep: bool = False):
    """``app`` served over an in-memory byte stream, framed by lines like stdio; yields the client's end."""
    pair = trio.testing.lockstep_stream_pair() if lockstep else trio.testing.memory_stream_pair()
    server_end, client_end = pair
    stream = LineMessageStream(server_end, server_end)
    client = Lines(client_end)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(functools.partial(serve_stream, app, stream, limits=limits))
        await client.send(INITIALIZE + INITIALIZED)
        assert (await client.answers(1))[0]["result"]["protocolVersion"] == "2025-11-25"
        yield client
        nursery.cancel_scope.cancel()


def worker_tasks() -> list[trio.lowlevel.Task]:
    found = []

    def walk(task: trio.lowlevel.Task) -> None:
        if task.name == WORKER_NAME:
            found.append(task)
        for nursery in task.child_nurseries:
            for child in nursery.child_tasks:
                walk(child)

    walk(trio.lowlevel.current_root_task())
    return found


def context_app(**kwargs) -> App:
    app = build_app(**kwargs)

    @app.tool()
    async def set_var(value: str) -> str:
        before = REQUEST_VAR.get()
        REQUEST_VAR.set(value)
        await trio.sleep(0)
        return f"{before}->{REQUEST_VAR.get()}"

    @app.tool()
    async def swallow_cancel(seconds: float) -> str:
        try:
            await trio.sleep(seconds)
        except trio.Cancelled:
            pass  # a handler that should not, and does
        return "swallowed"

    return app


async def test_each_request_has_the_readers_context_and_sets_nothing_for_the_next():
    app = context_app()
    token = REQUEST_VAR.set("from the embedding program")
    try:
        async with open_client(app) as client:
            for value in ("a", "b", "c"):  # one after another: the same worker serves them
                result = await client.call_tool("set_var", {"value": value})
                assert text_of(result) == f"from the embedding program->{value}"
    finally:
        REQUEST_VAR.reset(token)


@pytest.mark.parametrize("tool", ["sleep", "swallow_cancel"])
async def test_a_cancelled_request_leaves_its_worker_serving(tool, autojump_clock):
    """Also when its handler swallows the cancellation and returns: the next requests, on the
    worker whose scope that cancel spent, are not cancelled."""
    app = context_app()
    async with open_client(app) as client:
        request_id, answer = await client.start_request("tools/call", {"name": tool, "arguments": {"seconds": 1000}})
        await trio.sleep(1)
        await client.notify("notifications/cancelled", {"requestId": request_id})
        assert await client.request("ping") == {}
        for _ in range(3):
            assert text_of(await client.call_tool("sleep", {"seconds": 1})) == "slept 1"
        if tool == "sleep":
            assert app.stats == {"started": 4, "finished": 3, "cancelled": 1}
            with pytest.raises(trio.WouldBlock):
                answer.receive_nowait()


async def test_a_handler_that_swallows_its_deadline_leaves_its_worker_serving(autojump_clock):
    """Its deadline cancelled the scope it ran in, and it answered all the same: the requests
    after it are not cancelled."""
    app = context_app(limits=SessionLimits(request_timeout=5))
    async with open_client(app) as client:
        assert text_of(await client.call_tool("swallow_cancel", {"seconds": 1000})) == "swallowed"
        for _ in range(3):
            assert text_of(await client.call_tool("sleep", {"seconds": 1})) == "slept 1"
        assert app.stats == {"started": 3, "finished": 3, "cancelled": 0}


async def test_a_deadline_holds_only_while_its_request_runs(autojump_clock):
    app = build_app(limits=SessionLimits(request_timeout=5))
    async with open_client(app) as client:
        assert text_of(await client.call_tool("sleep", {"seconds": 1})) == "slept 1"
        await trio.sleep(100)  # the worker waits far past that request's deadline
        assert text_of(await client.call_tool("sleep", {"seconds": 4})) == "slept 4"
        result = await client.call_tool("sleep", {"seconds": 6})
        assert result["isError"] is True and "timed out after 5 s" in text_of(result)
        assert text_of(await client.call_tool("sleep", {"seconds": 1})) == "slept 1"


async def test_a_request_cancelled_before_a_worker_took_it_is_not_answered(autojump_clock):
    app = build_app()
    async with serve_lines(app) as client:
        # One read carries the request and its cancel: the reader handles both before any worker runs.
        cancel = line({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}})
        await client.send(
            call(1, "sleep", {"seconds": 1000}) + cancel + line({"jsonrpc": "2.0", "id": 2, "method": "ping"})
        )
        assert await client.answers(1) == {2: {"jsonrpc": "2.0", "id": 2, "result": {}}}
        await trio.sleep(2000)
        await client.send(call(3, "echo", {"text": "after"}))
        assert text_of((await client.answers(1))[3]["result"]) == "after"  # and no answer to 1 came before it
        assert app.stats["cancelled"] == 1 and app.stats["finished"] == 0


async def test_answers_that_wait_for_room_in_the_outbox_all_arrive():
    app = build_app()
    async with serve_lines(app, SessionLimits(outbox_size=1), lockstep=True) as client:
        # Nobody reads for a while: the writer blocks, the outbox fills, workers wait with their answers.
        await client.send(b"".join(call(i, "echo", {"text": str(i)}) for i in range(1, 41)))
        await trio.testing.wait_all_tasks_blocked()
        answers = await client.answers(40)
        assert {i: text_of(a["result"]) for i, a in answers.items()} == {i: str(i) for i in range(1, 41)}
        await client.send(call(41, "echo", {"text": "more"}))
        assert text_of((await client.answers(1))[41]["result"]) == "more"


class Writes(trio.abc.SendStream):
    """A send stream that keeps what each write carried, then passes it on."""

    def __init__(self, inner: trio.abc.SendStream) -> None:
        self.inner = inner
        self.writes: list[bytes] = []

    async def send_all(self, data) -> None:
        self.writes.append(bytes(data))
        await self.inner.send_all(data)

    async def wait_send_all_might_not_block(self) -> None:
        await self.inner.wait_send_all_might_not_block()

    async def aclose(self) -> None:
        await self.inner.aclose()


async def test_a_burst_is_answered_in_turns_so_the_client_can_read_while_the_rest_are_served():
    """64 calls in one read, none of which waits: the first answers go out before the last are
    made (over a pipe the client reads them and sends more meanwhile), every one in order."""
    server_end, client_end = trio.testing.memory_stream_pair()
    out = Writes(server_end)
    client = Lines(client_end)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(functools.partial(serve_stream, build_app(), LineMessageStream(server_end, out)))
        await client.send(INITIALIZE + INITIALIZED)
        await client.answers(1)
        out.writes.clear()
        await client.send(b"".join(call(i, "echo", {"text": str(i)}) for i in range(1, 65)))
        answers = [await client.message() for _ in range(64)]
        assert [text_of(a["result"]) for a in answers] == [str(i) for i in range(1, 65)]
        per_write = [w.count(b"\n") for w in out.writes]
        # The writer runs in the scheduler's next batch, before or after the worker's next turn
        # (Trio runs a batch in either order); later writes may carry more here, since this
        # stream's writes wait a turn and a pipe's do not.
        assert sum(per_write) == 64 and per_write[0] <= 2 * ANSWERS_PER_TURN, per_write
        nursery.cancel_scope.cancel()


async def test_idle_workers_are_bounded(autojump_clock):
    app = build_app()
    async with serve_lines(app) as client:
        await client.send(b"".join(call(i, "sleep", {"seconds": 1}) for i in range(1, 101)))
        assert len(await client.answers(100)) == 100
        await trio.testing.wait_all_tasks_blocked()
        assert 1 <= len(worker_tasks()) <= IDLE_WORKERS


def test_run_in_context_steps_any_awaitable_in_its_context():
    from mcptrio.runtime.in_context import run_in_context

    class Later:
        def __await__(self):
            yield from trio.sleep(0).__await__()
            return REQUEST_VAR.get()

    async def main():
        context = contextvars.copy_context()
        context.run(REQUEST_VAR.set, "inside")
        seen = []
        assert await run_in_context(context, Later(), lambda: seen.append("waits")) == "inside"
        assert seen == ["waits"] and REQUEST_VAR.get() == "unset"

    trio.run(main)
