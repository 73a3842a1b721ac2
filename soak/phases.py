"""The soak's phases: warm-up, clean-up and RSS "before", the timed run, clean-up and RSS "after",
last echo, SIGTERM."""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import trio
from limits import HTTP_TIMEOUT, SCENARIO_TIMEOUT
from server_process import Server
from sim_client import SimClient
from summary import mb, summarise
from tally import Tally

from tests.transports.http.client import modern


async def run_phase(
    server: Server,
    tally: Tally,
    seconds: float,
    clients: int,
    seed: int,
    sessions: set[str],
    max_message_size: int,
    max_iterations: int,
) -> None:
    deadline = trio.current_time() + seconds
    with trio.move_on_after(seconds + SCENARIO_TIMEOUT + 10) as scope:
        async with trio.open_nursery() as nursery:
            for number in range(clients):
                sim = SimClient(number, server, tally, random.Random(seed * 1000 + number), sessions, max_message_size)
                nursery.start_soon(sim.run, deadline, max_iterations)
    if scope.cancelled_caught:
        tally.bad("timeout", "phase", "clients did not stop after the deadline")


async def call_stats(url: str) -> dict[str, int] | None:
    body, headers = modern("tools/call", {"name": "sleep_stats", "arguments": {}}, "stats")
    async with httpx.AsyncClient(trust_env=False, timeout=HTTP_TIMEOUT) as client:
        try:
            response = await client.post(url, json=body, headers=headers)
            return json.loads(response.json()["result"]["content"][0]["text"])
        except (httpx.HTTPError, ValueError, KeyError, IndexError, TypeError):
            return None


async def clean_up(server: Server, tally: Tally, sessions: set[str], settle: float) -> dict[str, Any]:
    """DELETE every session left open; wait for every sleep handler to end; settle; RSS."""
    async with httpx.AsyncClient(trust_env=False, timeout=HTTP_TIMEOUT) as client:
        for session_id in sorted(sessions):
            try:
                response = await client.delete(server.url, headers={"mcp-session-id": session_id})
            except httpx.HTTPError as exc:
                tally.bad("transport_error", "clean_up", f"DELETE: {exc}")
                continue
            if response.status_code != 200:
                tally.bad("wrong_answer", "clean_up", f"DELETE of a session left open: HTTP {response.status_code}")
        deleted = len(sessions)
        sessions.clear()
    stats = None
    with trio.move_on_after(15):
        while True:
            stats = await call_stats(server.url)
            if stats is not None and stats["started"] == stats["completed"] + stats["cancelled"]:
                break
            await trio.sleep(0.25)
    await trio.sleep(settle)
    return {"sessions_deleted": deleted, "stats": stats, "rss": server.rss()}


async def soak(args: argparse.Namespace) -> dict[str, Any]:
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    tally = Tally()
    sessions: set[str] = set()
    report: dict[str, Any] = {
        "seconds": args.seconds,
        "warmup": args.warmup,
        "clients": args.clients,
        "seed": seed,
        "max_message_size": args.max_message_size,
    }
    with tempfile.TemporaryDirectory(prefix="mcptrio-soak-") as workdir:
        server = Server(Path(workdir), args.max_message_size, args.grace)
        try:
            await server.start()
            report["url"] = server.url
            report["pid"] = server.process.pid  # type: ignore[union-attr]
            progress(args, f"server {server.url} (pid {report['pid']}); seed {seed}; warm-up {args.warmup:g} s")
            samples: list[tuple[float, int]] = []
            async with trio.open_nursery() as nursery:
                nursery.start_soon(sample_rss, server, samples)
                await run_phase(
                    server, tally, args.warmup, args.clients, seed, sessions, args.max_message_size, args.max_iterations
                )
                before = await clean_up(server, tally, sessions, args.settle)
                warm_requests = tally.requests
                progress(
                    args,
                    f"warm-up done ({warm_requests} requests); RSS before {mb(before['rss'])}; "
                    f"soaking {args.seconds:g} s with {args.clients} clients",
                )
                started = time.monotonic()
                await run_phase(
                    server,
                    tally,
                    args.seconds,
                    args.clients,
                    seed + 1,
                    sessions,
                    args.max_message_size,
                    args.max_iterations,
                )
                report["elapsed"] = round(time.monotonic() - started, 1)
                after = await clean_up(server, tally, sessions, args.settle)
                nursery.cancel_scope.cancel()
            report["alive_at_end"] = server.alive()
            last_echo = await final_echo(server.url) if server.alive() else False
            await server.stop()
            stderr = server.stderr()
        finally:
            server.kill()
    report.update(summarise(args, tally, before, after, samples, last_echo, server, stderr, warm_requests))
    return report


async def final_echo(url: str) -> bool:
    body, headers = modern("tools/call", {"name": "echo", "arguments": {"text": "still here"}}, "last")
    async with httpx.AsyncClient(trust_env=False, timeout=HTTP_TIMEOUT) as client:
        try:
            response = await client.post(url, json=body, headers=headers)
            return response.json()["result"]["content"][0]["text"] == "still here"
        except (httpx.HTTPError, ValueError, KeyError, IndexError, TypeError):
            return False


async def sample_rss(server: Server, samples: list[tuple[float, int]]) -> None:
    started = trio.current_time()
    while server.alive():
        rss = server.rss()
        if rss is not None:
            samples.append((round(trio.current_time() - started, 1), rss))
        await trio.sleep(2)


def progress(args: argparse.Namespace, text: str) -> None:
    if not args.quiet:
        print(f"soak: {text}", file=sys.stderr, flush=True)
