"""SIGTERM and SIGINT on a real ``mcptrio serve --plugins bench`` subprocess, for every transport.

With two requests in flight, a short ``sleep(200)`` and a long ``sleep(60000)``, the signal must
start a graceful shutdown: the short request is answered, the long one is answered with a
"shutting down" error once the grace period (1 s, from ``--config``) has passed, every byte the
server wrote is a complete JSON-RPC message, and the process exits with status 0 in bounded time.
"""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
import trio
from trio_websocket import ConnectionClosed, open_websocket_url

from ..transports.http.client import (
    CLIENT_INFO,
    is_sse,
    legacy_headers,
    modern,
    new_client,
    notification,
    parse_sse,
    rpc,
)

ROOT = Path(__file__).resolve().parents[2]
GRACE = 1.0
EXIT_WITHIN = GRACE + 5.0  # seconds from the signal to the process's exit, at most
START_WITHIN = 20.0
LEGACY = "2025-11-25"
SHORT_MS, LONG_MS = 200, 60000

SIGNALS = {"SIGTERM": signal.SIGTERM, "SIGINT": signal.SIGINT}


# -- the server process ---------------------------------------------------------------------------------


def serve_command(transport: str, config: Path) -> list[str]:
    script = Path(sys.executable).parent / "mcptrio"
    head = (
        [str(script)]
        if script.exists()
        else [sys.executable, "-c", "import sys; from mcptrio.cli import main; sys.exit(main())"]
    )
    command = head + ["serve", "--plugins", "bench", "--transport", transport, "--config", str(config)]
    if transport != "stdio":
        command += ["--host", "127.0.0.1", "--port", "0"]
    return command


class Served:
    """A ``mcptrio serve`` subprocess; its stderr goes to a file (read for the URL and tracebacks)."""

    def __init__(self, process: trio.Process, stderr_path: Path) -> None:
        self.process = process
        self.stderr_path = stderr_path
        self.url = ""

    def stderr(self) -> str:
        return self.stderr_path.read_text(errors="replace")

    async def wait_for_url(self) -> str:
        with trio.move_on_after(START_WITHIN):
            while self.process.poll() is None:
                found = re.search(r"serving bench at (\S+)", self.stderr())
                if found:
                    self.url = found.group(1)
                    return self.url
                await trio.sleep(0.05)
        raise AssertionError(f"server did not start (status {self.process.poll()}); stderr:\n{self.stderr()}")

    async def signal_and_wait(self, signum: int) -> float:
        """Send ``signum``; return the seconds until the process exited (fails after EXIT_WITHIN)."""
        started = time.monotonic()
        self.process.send_signal(signum)
        with trio.move_on_after(EXIT_WITHIN):
            await self.process.wait()
        elapsed = time.monotonic() - started
        assert self.process.returncode is not None, (
            f"still running {EXIT_WITHIN} s after {signal.Signals(signum).name}; stderr:\n{self.stderr()}"
        )
        return elapsed


@pytest.fixture
def config_file(tmp_path: Path) -> Path:
    path = tmp_path / "serve.toml"
    path.write_text(f"[serve.limits]\nshutdown_grace = {GRACE}\n")
    return path


async def start(transport: str, config: Path, tmp_path: Path, **pipes: Any) -> Served:
    stderr_path = tmp_path / f"{transport}-stderr.log"
    with open(stderr_path, "wb") as stderr:
        process = await trio.lowlevel.open_process(
            serve_command(transport, config),
            stderr=stderr,
            cwd=str(ROOT),
            stdin=pipes.get("stdin", subprocess.DEVNULL),
            stdout=pipes.get("stdout", subprocess.DEVNULL),
        )
    return Served(process, stderr_path)


def kill(served: Served | None) -> None:
    if served is not None and served.process.poll() is None:
        served.process.kill()


# -- checks shared by every transport ----------------------------------------------------------------


def check_jsonrpc(message: Any) -> None:
    """A complete, well-formed JSON-RPC message from the server."""
    assert isinstance(message, dict) and message.get("jsonrpc") == "2.0", message
    if "method" not in message:
        assert "id" in message and ("result" in message) != ("error" in message), message
        if "error" in message:
            error = message["error"]
            assert isinstance(error.get("code"), int) and isinstance(error.get("message"), str), message
            assert "Traceback" not in error["message"], message


def check_outcome(answers: dict[Any, dict[str, Any]], elapsed: float, returncode: int | None, stderr: str) -> None:
    short, long = answers.get("short"), answers.get("long")
    assert short is not None, f"the short request was not answered; answers: {answers}"
    assert short.get("result", {}).get("content", [{}])[0].get("text") == f"slept {SHORT_MS} ms", short
    assert long is not None, f"the long request got no answer; answers: {answers}"
    assert "error" in long and "shutting down" in long["error"]["message"], long
    assert returncode == 0, f"exit status {returncode}; stderr:\n{stderr}"
    assert "Traceback" not in stderr, stderr
    # The long request kept the server busy for the whole grace period, and not much longer.
    assert GRACE * 0.8 <= elapsed < GRACE + 4, f"exited {elapsed:.2f} s after the signal (grace {GRACE} s)"


def sleep_call(ms: int, request_id: str) -> dict[str, Any]:
    return rpc("tools/call", {"name": "sleep", "arguments": {"ms": ms}}, request_id)


def stats_of(answer: dict[str, Any]) -> dict[str, int]:
    return json.loads(answer["result"]["content"][0]["text"])


async def both_in_flight(get_stats: Any) -> None:
    """Poll the bench counters until both sleeps run and neither has finished."""
    with trio.fail_after(10):
        while True:
            stats = await get_stats()
            if stats["started"] == 2:
                break
            await trio.sleep(0.01)
    assert stats["completed"] == 0, f"the short sleep finished before the signal could be sent: {stats}"


# -- stdio --------------------------------------------------------------------------------------------------


class StdioPeer:
    """Newline-delimited JSON over the subprocess's pipes, keeping every byte it wrote."""

    def __init__(self, process: trio.Process) -> None:
        assert process.stdin is not None and process.stdout is not None
        self.process = process
        self.raw = b""
        self._buffer = b""

    async def send(self, message: Any) -> None:
        assert self.process.stdin is not None
        await self.process.stdin.send_all(json.dumps(message).encode() + b"\n")

    async def receive(self) -> dict[str, Any] | None:
        assert self.process.stdout is not None
        while b"\n" not in self._buffer:
            data = await self.process.stdout.receive_some(65536)
            if not data:
                return None
            self.raw += data
            self._buffer += data
        line, self._buffer = self._buffer.split(b"\n", 1)
        message = json.loads(line)
        check_jsonrpc(message)
        return message

    async def answer(self, request_id: str) -> dict[str, Any]:
        while True:
            message = await self.receive()
            assert message is not None, f"stdout ended before the answer to {request_id}"
            if message.get("id") == request_id and "method" not in message:
                return message


@pytest.mark.parametrize("signame", ["SIGTERM", "SIGINT"])
async def test_stdio_signal_drains_then_exits_zero(signame, config_file, tmp_path):
    served = None
    try:
        served = await start("stdio", config_file, tmp_path, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        peer = StdioPeer(served.process)
        with trio.fail_after(START_WITHIN):
            await peer.send(
                rpc("initialize", {"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": CLIENT_INFO}, "init")
            )
            assert (await peer.answer("init"))["result"]["protocolVersion"] == LEGACY
            await peer.send(notification("notifications/initialized"))
            await peer.send(sleep_call(LONG_MS, "long"))
            await peer.send(sleep_call(SHORT_MS, "short"))
            polls = iter(range(10_000))

            async def get_stats() -> dict[str, int]:
                request_id = f"stats-{next(polls)}"
                await peer.send(rpc("tools/call", {"name": "sleep_stats", "arguments": {}}, request_id))
                return stats_of(await peer.answer(request_id))

            await both_in_flight(get_stats)

        # Everything the server writes from here on, until it closes stdout.
        mark = len(peer.raw) - len(peer._buffer)
        answers: dict[Any, dict[str, Any]] = {}

        async def read_to_end() -> None:
            while (message := await peer.receive()) is not None:
                answers[message.get("id")] = message

        with trio.fail_after(EXIT_WITHIN + 5):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(read_to_end)  # ends at EOF, which the exit brings
                elapsed = await served.signal_and_wait(SIGNALS[signame])
        tail = peer.raw[mark:]
        assert tail.endswith(b"\n") and peer._buffer == b"", f"a half-written message at the end: {tail[-200:]!r}"
        check_outcome(answers, elapsed, served.process.returncode, served.stderr())
    finally:
        kill(served)


# -- WebSocket ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("signame", ["SIGTERM", "SIGINT"])
async def test_websocket_signal_drains_then_exits_zero(signame, config_file, tmp_path):
    served = None
    try:
        served = await start("ws", config_file, tmp_path)
        url = await served.wait_for_url()
        async with open_websocket_url(url, subprotocols=["mcp"]) as ws:

            async def answer(request_id: str) -> dict[str, Any]:
                while True:
                    message = json.loads(await ws.get_message())
                    check_jsonrpc(message)
                    if message.get("id") == request_id and "method" not in message:
                        return message

            with trio.fail_after(START_WITHIN):
                await ws.send_message(
                    json.dumps(
                        rpc(
                            "initialize",
                            {"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": CLIENT_INFO},
                            "init",
                        )
                    )
                )
                assert (await answer("init"))["result"]["protocolVersion"] == LEGACY
                await ws.send_message(json.dumps(notification("notifications/initialized")))
                await ws.send_message(json.dumps(sleep_call(LONG_MS, "long")))
                await ws.send_message(json.dumps(sleep_call(SHORT_MS, "short")))
                polls = iter(range(10_000))

                async def get_stats() -> dict[str, int]:
                    request_id = f"stats-{next(polls)}"
                    await ws.send_message(
                        json.dumps(rpc("tools/call", {"name": "sleep_stats", "arguments": {}}, request_id))
                    )
                    return stats_of(await answer(request_id))

                await both_in_flight(get_stats)

            answers: dict[Any, dict[str, Any]] = {}
            closed: list[Any] = []

            async def read_to_close() -> None:
                while True:
                    try:
                        data = await ws.get_message()
                    except ConnectionClosed as exc:
                        closed.append(exc.reason)
                        return
                    message = json.loads(data)  # one whole message per frame, or this fails
                    check_jsonrpc(message)
                    answers[message.get("id")] = message

            with trio.fail_after(EXIT_WITHIN + 5):
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(read_to_close)
                    elapsed = await served.signal_and_wait(SIGNALS[signame])
        assert closed, "the WebSocket was not closed by the server"
        check_outcome(answers, elapsed, served.process.returncode, served.stderr())
    finally:
        kill(served)


# -- Streamable HTTP ---------------------------------------------------------------------------------------


async def read_whole(
    client: httpx.AsyncClient, url: str, body: dict[str, Any], headers: dict[str, str], into: dict[str, Any]
) -> None:
    """POST and keep the raw response (status, headers, every body byte, or the error)."""
    try:
        async with client.stream("POST", url, json=body, headers=headers) as response:
            into["status"] = response.status_code
            into["content_type"] = response.headers.get("content-type", "")
            into["sse"] = is_sse(response)
            into["body"] = b""
            async for chunk in response.aiter_raw():
                into["body"] += chunk
    except httpx.HTTPError as exc:
        into["error"] = f"{type(exc).__name__}: {exc}"


def answer_of(raw: dict[str, Any], request_id: str) -> dict[str, Any]:
    """The final JSON-RPC message of a whole HTTP answer, checked to be complete."""
    assert "error" not in raw, f"{request_id}: the HTTP exchange failed: {raw}"
    assert raw["status"] == 200, raw
    text = raw["body"].decode()
    if raw["sse"]:
        assert text.endswith("\n\n"), f"{request_id}: the event stream ends mid-event: {text[-200:]!r}"
        messages = [event.message for event in parse_sse(text) if event.data]
    else:
        messages = [json.loads(text)]
    assert messages, f"{request_id}: no message in {text!r}"
    for message in messages:
        check_jsonrpc(message)
    final = messages[-1]
    assert final.get("id") == request_id and "method" not in final, f"{request_id}: last message {final}"
    return final


@pytest.mark.parametrize(("era", "signame"), [("modern", "SIGTERM"), ("legacy", "SIGTERM"), ("modern", "SIGINT")])
async def test_http_signal_drains_then_exits_zero(era, signame, config_file, tmp_path):
    served = None
    try:
        served = await start("http", config_file, tmp_path)
        url = await served.wait_for_url()
        async with new_client() as client:
            if era == "legacy":
                with trio.fail_after(START_WITHIN):
                    init = rpc(
                        "initialize", {"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": CLIENT_INFO}, "init"
                    )
                    response = await client.post(url, json=init, headers=legacy_headers(version=None))
                    session_id = response.headers["mcp-session-id"]
                    done = await client.post(
                        url, json=notification("notifications/initialized"), headers=legacy_headers(session_id)
                    )
                    assert done.status_code == 202

                def request(ms: int, request_id: str) -> tuple[dict[str, Any], dict[str, str]]:
                    return sleep_call(ms, request_id), legacy_headers(session_id)
            else:

                def request(ms: int, request_id: str) -> tuple[dict[str, Any], dict[str, str]]:
                    return modern("tools/call", {"name": "sleep", "arguments": {"ms": ms}}, request_id)

            polls = iter(range(10_000))

            async def get_stats() -> dict[str, int]:
                body, headers = modern("tools/call", {"name": "sleep_stats", "arguments": {}}, f"stats-{next(polls)}")
                return stats_of((await client.post(url, json=body, headers=headers)).json())

            short: dict[str, Any] = {}
            long: dict[str, Any] = {}
            late: dict[str, Any] = {}
            with trio.fail_after(START_WITHIN + EXIT_WITHIN):
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(read_whole, client, url, *request(LONG_MS, "long"), long)
                    nursery.start_soon(read_whole, client, url, *request(SHORT_MS, "short"), short)
                    await both_in_flight(get_stats)
                    started = time.monotonic()
                    served.process.send_signal(SIGNALS[signame])
                    # A request arriving during the grace period is refused (or finds no listener).
                    await trio.sleep(0.1)
                    body, headers = modern("tools/call", {"name": "echo", "arguments": {"text": "late"}}, "late")
                    nursery.start_soon(read_whole, client, url, body, headers, late)
                    with trio.move_on_after(EXIT_WITHIN):
                        await served.process.wait()
                    elapsed = time.monotonic() - started
                    assert served.process.returncode is not None, f"still running {EXIT_WITHIN} s after {signame}"
        answers = {"short": answer_of(short, "short"), "long": answer_of(long, "long")}
        assert long["sse"], f"the long request's answer was not streamed: {long}"
        if "error" not in late:  # (a refused connection is fine too)
            assert late["status"] == 503, late
            refusal = json.loads(late["body"])
            check_jsonrpc(refusal)
            assert "draining" in refusal["error"]["message"] and refusal["error"]["code"] == -31503, refusal
        check_outcome(answers, elapsed, served.process.returncode, served.stderr())
    finally:
        kill(served)
