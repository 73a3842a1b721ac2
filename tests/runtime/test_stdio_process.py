"""A real subprocess served over stdio: both eras, bad input, drain on EOF and on SIGTERM."""

import signal
import sys
from pathlib import Path

import pytest
import trio

from mcptrio.protocol.versions import LEGACY_VERSIONS
from mcptrio.testing import open_process_client

ROOT = Path(__file__).resolve().parents[2]


def server_command(grace: float = 2.0):
    return [sys.executable, "-m", "tests.runtime.stdio_server", str(grace)]


@pytest.fixture(autouse=True)
def run_from_repo_root(monkeypatch):
    monkeypatch.chdir(ROOT)


def text_of(result):
    return result["content"][0]["text"]


@pytest.mark.parametrize("version", LEGACY_VERSIONS)
async def test_legacy_session_each_version(version):
    async with open_process_client(server_command(), version=version) as client:
        assert client.initialize_result["protocolVersion"] == version
        assert client.initialize_result["serverInfo"]["name"] == "test-server"
        names = [t["name"] for t in (await client.request("tools/list"))["tools"]]
        assert {"echo", "sleep", "print_noise"} <= set(names)
        assert text_of(await client.call_tool("echo", {"text": "über"})) == "über"
        # a handler's print() goes to stderr: stdout stays pure JSON (the client parses every line)
        assert text_of(await client.call_tool("print_noise")) == "printed"
        assert await client.request("ping") == {}
        contents = (await client.request("resources/read", {"uri": "test://hello"}))["contents"]
        assert contents == [{"uri": "test://hello", "text": "hello world", "mimeType": "text/plain"}]
    assert client.end.process.returncode == 0
    assert client.unmatched == []


async def test_modern_requests_over_stdio():
    handlers = {"elicitation/create": _accept_name}
    async with open_process_client(
        server_command(), era="modern", capabilities={"elicitation": {}}, handlers=handlers
    ) as client:
        discovered = await client.request("server/discover")
        assert "2026-07-28" in discovered["supportedVersions"]
        result = await client.call_tool("echo", {"text": "modern"})
        assert text_of(result) == "modern" and result["resultType"] == "complete"
        assert text_of(await client.call_tool("ask_name", resolve_input=True)) == "hello Zed"
    assert client.end.process.returncode == 0


async def _accept_name(params):
    return {"action": "accept", "content": {"name": "Zed"}}


async def test_bad_input_over_stdio_gets_errors_and_the_session_continues():
    async with open_process_client(server_command()) as client:
        bad = [
            b'{"jsonrpc":"2.0","id":1,"method":',
            b'{"jsonrpc":"2.0","id":2,"method":"ping","x":"\xc3\x28"}',
            b'"just a string"',
            b'{"id": 4, "method": "ping"}',
            b'{"jsonrpc":"2.0","id":5,"method":"ping","pad":"' + b"x" * (100 * 1024) + b'"}',
        ]
        for frame in bad:
            await client.send_raw(frame)
        errors = await client.wait_for_unmatched(len(bad))
        assert [e["error"]["code"] for e in errors] == [-32700, -32700, -32600, -32600, -32600]
        assert errors[3]["id"] == 4
        assert "exceeds the limit" in errors[4]["error"]["message"]
        assert await client.request("ping") == {}
    assert client.end.process.returncode == 0


async def test_stdin_eof_answers_every_request_in_flight():
    async with open_process_client(server_command(grace=5)) as client:
        answers = []
        for _ in range(20):
            _, channel = await client.start_request("tools/call", {"name": "sleep", "arguments": {"seconds": 0.3}})
            answers.append(channel)
    results = [await channel.receive() for channel in answers]
    assert [text_of(r["result"]) for r in results] == ["slept 0.3"] * 20
    assert client.end.process.returncode == 0


async def test_sigterm_drains_then_cancels_after_grace():
    async with open_process_client(server_command(grace=1)) as client:
        _, short = await client.start_request("tools/call", {"name": "sleep", "arguments": {"seconds": 0.2}})
        _, long = await client.start_request("tools/call", {"name": "sleep", "arguments": {"seconds": 60}})
        await trio.sleep(0.1)
        started = trio.current_time()
        client.end.process.send_signal(signal.SIGTERM)
        with trio.fail_after(10):
            await client.end.process.wait()
        elapsed = trio.current_time() - started
        assert text_of((await short.receive())["result"]) == "slept 0.2"
        assert "shutting down" in (await long.receive())["error"]["message"]
    assert client.end.process.returncode == 0
    assert 0.8 < elapsed < 5


async def test_more_than_a_pipe_holds_sent_at_once_both_ways_arrives_whole():
    """Twenty 30 KB calls at once, and their answers: lines a full pipe cut are finished before any
    other line is written (the client's writes to the server's stdin, the server's to its stdout)."""
    texts = [f"{n}:" + "x" * 30_000 for n in range(20)]
    echoed: list[str] = []

    async with open_process_client(server_command()) as client:

        async def call(text: str) -> None:
            echoed.append(text_of(await client.call_tool("echo", {"text": text})))

        async with trio.open_nursery() as nursery:
            for text in texts:
                nursery.start_soon(call, text)
    assert sorted(echoed) == sorted(texts)
    assert client.unmatched == []
