"""Health probes and the drain: /healthz, /readyz, SIGTERM with work in flight, on HTTP and WebSocket."""

from __future__ import annotations

import functools
import json
import re
import signal
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
import trio
from trio_websocket import ConnectionRejected, open_websocket_url

import mcptrio
from mcptrio.transports.http import HttpConfig, serve_http
from mcptrio.transports.websocket import serve_websocket

from ..transports.http.client import CLIENT_INFO, final_of, modern_tool, new_client, rpc

MCPTRIO = [sys.executable, "-m", "mcptrio"]


def sleepy_app() -> mcptrio.App:
    app = mcptrio.App("sleepy")

    @app.tool()
    async def nap(seconds: float) -> str:
        await trio.sleep(seconds)
        return "rested"

    app.plugins.append("sleepy")
    return app


async def test_healthz_and_readyz_outside_the_mcp_path_and_the_host_check():
    stop = trio.Event()
    async with trio.open_nursery() as nursery:
        url = await nursery.start(functools.partial(serve_http, sleepy_app(), port=0, shutdown_trigger=stop.wait))
        base = url.rsplit("/", 1)[0]
        async with new_client() as http:
            alive = await http.get(f"{base}/healthz", headers={"host": "10.1.2.3:8080"})  # a probe's Host
            assert alive.status_code == 200 and alive.json() == {"status": "ok"}
            assert alive.headers["cache-control"] == "no-store"
            ready = await http.get(f"{base}/readyz")
            assert ready.status_code == 200
            report = ready.json()
            assert report["status"] == "ready" and report["plugins"] == ["sleepy"]
            assert report["requests"] == {"in_flight": 0, "limit": 2000, "refused": 0}
            assert report["streams"]["open"] == 0 and report["streams"]["limit"] == 20_000
            assert (await http.head(f"{base}/readyz")).status_code == 200
            refused = await http.post(f"{base}/healthz")
            assert refused.status_code == 405 and refused.headers["allow"] == "GET, HEAD"
        stop.set()


async def test_probe_paths_are_configurable_and_may_be_turned_off():
    with pytest.raises(ValueError):
        HttpConfig(path="/mcp", health_path="/mcp")
    stop = trio.Event()
    async with trio.open_nursery() as nursery:
        config = HttpConfig(health_path=None, ready_path="/ops/ready")
        url = await nursery.start(
            functools.partial(serve_http, sleepy_app(), port=0, config=config, shutdown_trigger=stop.wait)
        )
        base = url.rsplit("/", 1)[0]
        async with new_client() as http:
            assert (await http.get(f"{base}/healthz")).status_code == 404
            assert (await http.get(f"{base}/ops/ready")).status_code == 200
        stop.set()


async def test_during_the_drain_readyz_is_503_new_work_is_refused_and_work_in_flight_finishes():
    stop = trio.Event()
    async with trio.open_nursery() as nursery:
        url = await nursery.start(
            functools.partial(
                serve_http,
                sleepy_app(),
                port=0,
                shutdown_trigger=stop.wait,
                limits=mcptrio.SessionLimits(shutdown_grace=5),
            )
        )
        base = url.rsplit("/", 1)[0]
        answers: list[httpx.Response] = []
        async with new_client() as http:

            async def call() -> None:
                body, headers = modern_tool("nap", {"seconds": 1.0}, 1)
                answers.append(await http.post(url, json=body, headers=headers))

            nursery.start_soon(call)
            await trio.sleep(0.3)
            stop.set()
            await trio.sleep(0.1)
            ready = await http.get(f"{base}/readyz")
            assert (
                ready.status_code == 503 and ready.json() == {"status": "draining"} and "retry-after" in ready.headers
            )
            assert (await http.get(f"{base}/healthz")).status_code == 200
            body, headers = modern_tool("nap", {"seconds": 0}, 2)
            late = await http.post(url, json=body, headers=headers)
            assert late.status_code == 503 and late.headers["retry-after"] == "1"
            assert late.json()["error"]["code"] == -31503 and late.json()["id"] == 2
            with trio.fail_after(5):
                while not answers:
                    await trio.sleep(0.05)
    assert final_of(answers[0])["result"]["content"][0]["text"] == "rested"


async def test_websocket_drain_refuses_new_connections_and_finishes_work_in_flight():
    stop = trio.Event()
    async with trio.open_nursery() as nursery:
        url = await nursery.start(
            functools.partial(
                serve_websocket,
                sleepy_app(),
                port=0,
                shutdown_trigger=stop.wait,
                limits=mcptrio.SessionLimits(shutdown_grace=5),
            )
        )
        with trio.fail_after(10):
            async with open_websocket_url(url, subprotocols=["mcp"]) as ws:
                params = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": CLIENT_INFO}
                await ws.send_message(json.dumps(rpc("initialize", params, 0)))
                await ws.get_message()
                await ws.send_message(json.dumps(rpc("tools/call", {"name": "nap", "arguments": {"seconds": 0.5}}, 1)))
                await trio.sleep(0.1)
                stop.set()
                await trio.sleep(0.05)
                with pytest.raises(ConnectionRejected) as rejected:
                    async with open_websocket_url(url, subprotocols=["mcp"]):
                        pass
                assert rejected.value.status_code == 503
                answer = json.loads(await ws.get_message())
        assert answer["result"]["content"][0]["text"] == "rested"


# -- the command, with SIGTERM ----------------------------------------------------------------------


async def start_server(tmp_path: Path, drain_timeout: float) -> tuple[trio.Process, str, Path]:
    stderr_path = tmp_path / "stderr.log"
    with open(stderr_path, "wb") as err:
        process = await trio.lowlevel.open_process(
            MCPTRIO
            + [
                "serve",
                "--plugins",
                "bench",
                "--transport",
                "http",
                "--port",
                "0",
                "--log-format",
                "json",
                "--drain-timeout",
                str(drain_timeout),
            ],
            stderr=err,
            stdin=subprocess.DEVNULL,
        )
    with trio.fail_after(20):
        while True:
            found = re.search(r"serving bench at (\S+?)\"", stderr_path.read_text())
            if found:
                return process, found.group(1), stderr_path
            assert process.poll() is None, stderr_path.read_text()
            await trio.sleep(0.05)


async def twenty_calls_then_sigterm(tmp_path: Path, drain_timeout: float, ms: int) -> tuple[list, list, int, Path]:
    process, url, stderr_path = await start_server(tmp_path, drain_timeout)
    base = url.rsplit("/", 1)[0]
    answers: list[dict] = []
    ready_during: list[int] = []
    try:
        async with new_client() as http, trio.open_nursery() as nursery:

            async def call(n: int) -> None:
                body, headers = modern_tool("sleep", {"ms": ms}, n)
                answers.append(final_of(await http.post(url, json=body, headers=headers), n))

            for n in range(20):
                nursery.start_soon(call, n)
            await trio.sleep(0.5)  # all twenty in flight (each sleeps far longer than this)
            process.send_signal(signal.SIGTERM)
            await trio.sleep(0.2)
            ready_during.append((await http.get(f"{base}/readyz")).status_code)
        with trio.fail_after(drain_timeout + 10):
            code = await process.wait()
    finally:
        if process.poll() is None:
            process.kill()
    return answers, ready_during, code, stderr_path


async def test_sigterm_with_twenty_calls_in_flight_answers_all_then_exits_zero(tmp_path: Path):
    answers, ready_during, code, _ = await twenty_calls_then_sigterm(tmp_path, drain_timeout=10, ms=1500)
    assert code == 0
    assert ready_during == [503]
    assert len(answers) == 20
    assert all(a["result"]["content"][0]["text"] == "slept 1500 ms" for a in answers), answers


async def test_a_drain_timeout_shorter_than_the_calls_cancels_them_and_exits_zero(tmp_path: Path):
    answers, ready_during, code, stderr_path = await twenty_calls_then_sigterm(tmp_path, drain_timeout=0.5, ms=30000)
    assert code == 0 and ready_during == [503]
    assert len(answers) == 20
    assert all("cancelled" in a["error"]["message"] for a in answers), answers
    access = [json.loads(line) for line in stderr_path.read_text().splitlines() if '"mcptrio.access"' in line]
    # the handlers saw Cancelled: each call's line, written as it unwound, says so
    assert [line["outcome"] for line in access if line["name"] == "sleep"] == ["cancelled"] * 20
