"""Failures while clients stream: a worker SIGKILLed, Redis restarted.  Every request ends
answered, or failed with an error saying it was not re-run, or sent again when nothing of it
could be resumed; none is lost and none answered twice.  The counts are printed."""

import os
import signal

import trio

from .load_clients import Counts, calling_client
from .processes import mcptrio_serve

CLIENTS, CALLS, MS = 10, 12, 300


async def ten_clients_then(server, counts, failure):
    """Ten clients calling through ``failure()``, started once 20 calls were answered."""
    with trio.fail_after(90):
        async with trio.open_nursery() as nursery:
            for n in range(CLIENTS):
                nursery.start_soon(calling_client, server.url, counts, f"c{n}", CALLS, MS)
            while counts["answered"] < 20:
                await trio.sleep(0.05)
            await failure()


async def test_sigkill_a_worker_while_ten_clients_stream(redis, tmp_path):
    counts = Counts()
    async with mcptrio_serve(tmp_path, "--workers", "2", "--state", redis.url, "--response-mode", "sse") as server:

        async def kill_one():
            os.kill(server.busiest_child(), signal.SIGKILL)  # (a worker with requests in flight)

        await ten_clients_then(server, counts, kill_one)
    print("SIGKILL a worker:", counts.report())
    assert counts["sent"] == CLIENTS * CALLS
    assert counts["answered"] + counts["failed"] == counts["sent"]
    assert counts["lost"] == 0 and counts.duplicated == 0
    assert counts["retried"] + counts["failed"] + counts["resumed"] > 0, "the kill touched no request"
    assert "exited with status -9; starting it again" in server.log()


async def test_restart_redis_while_ten_clients_call(durable_redis, tmp_path):
    counts = Counts()
    async with mcptrio_serve(
        tmp_path, "--workers", "2", "--state", durable_redis.url, "--response-mode", "sse"
    ) as server:

        async def restart():
            durable_redis.stop()
            await trio.sleep(1.0)
            durable_redis.start()

        await ten_clients_then(server, counts, restart)
    print("restart Redis:", counts.report())
    assert counts["sent"] == CLIENTS * CALLS
    assert counts["answered"] == counts["sent"], "no request may fail for a Redis restart"
    assert counts["lost"] == 0 and counts.duplicated == 0
    assert counts["retried"] > 0, "the restart touched no request"
