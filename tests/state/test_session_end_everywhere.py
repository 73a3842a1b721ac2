"""A session ended (DELETE) on one worker is ended on every worker by the time the DELETE is
answered, however busy the others are: real processes sharing one real Redis."""

import contextlib
import functools
import textwrap

import httpx
import trio

from ..transports.http.client import call_tool, initialize, legacy_headers
from .processes import mcptrio_serve

# A tool that holds its worker's event loop: what that worker hears from Redis meanwhile, and a
# request that comes meanwhile, are both waiting for it when it lets go.
BUSY = textwrap.dedent(
    """
    import time
    import mcptrio

    plugin = mcptrio.Registry("busy")

    @plugin.tool()
    async def echo(text: str) -> str:
        return text

    @plugin.tool()
    async def hold(ms: int) -> str:
        time.sleep(ms / 1000)  # (on purpose: the loop does nothing else meanwhile)
        return "held"
    """
)


@contextlib.asynccontextmanager
async def workers(redis, tmp_path, *names):
    """A ``mcptrio serve`` of ``BUSY`` per name, all sharing ``redis``, and an HTTP client."""
    app = tmp_path / "busy.py"
    app.write_text(BUSY)
    async with contextlib.AsyncExitStack() as stack:
        served = [
            await stack.enter_async_context(
                mcptrio_serve(tmp_path, str(app), "--state", redis.url, name=name, plugins=None)
            )
            for name in names
        ]
        http = await stack.enter_async_context(httpx.AsyncClient(timeout=10, trust_env=False))
        yield (*served, http)


async def test_a_request_after_the_delete_is_404_on_a_worker_that_was_busy_meanwhile(redis, tmp_path):
    async with workers(redis, tmp_path, "a", "b") as (a, b, http):
        served = []
        with trio.fail_after(60):
            for _ in range(8):
                session_id = await initialize(http, a.url)
                headers = legacy_headers(session_id)
                echoed = await http.post(b.url, json=call_tool("echo", {"text": "b"}, 2), headers=headers)
                assert echoed.status_code == 200  # (b holds the session now)
                async with trio.open_nursery() as nursery:
                    hold = functools.partial(http.post, json=call_tool("hold", {"ms": 300}, 3), headers=headers)
                    nursery.start_soon(hold, b.url)
                    await trio.sleep(0.1)  # (b's loop is held from now on)
                    gone = await http.delete(a.url, headers=headers)
                    assert gone.status_code == 200
                    after = await http.post(b.url, json=call_tool("echo", {"text": "x"}, 4), headers=headers)
                    served.append(after.status_code)
        assert served == [404] * 8, served


async def test_a_worker_that_died_holds_up_a_delete_only_until_its_heartbeat_lapses(redis, tmp_path):
    async with workers(redis, tmp_path, "a", "b", "c") as (a, b, c, http):
        with trio.fail_after(60):
            first, second = await initialize(http, a.url), await initialize(http, a.url)
            c.process.kill()  # (its last word in the shared state says it has heard nothing since)
            killed = trio.current_time()
            await c.process.wait()
            # Just killed, it still looks alive (its heartbeat lasts 2-3 s more): waited for as
            # long as a record read here is trusted (shared_session_check, 1 s), not longer.
            started = trio.current_time()
            gone = await http.delete(a.url, headers=legacy_headers(first))
            took = trio.current_time() - started
            assert gone.status_code == 200 and took < 3.0
            if started - killed < 1.0:  # (on a machine that slow, its heartbeat may have lapsed)
                assert took >= 0.9
            await trio.sleep(3.5)  # (its heartbeat has lapsed: it is not waited for any more)
            started = trio.current_time()
            gone = await http.delete(a.url, headers=legacy_headers(second))
            assert gone.status_code == 200 and trio.current_time() - started < 0.8
            for session_id in (first, second):
                after = await http.post(
                    b.url, json=call_tool("echo", {"text": "x"}, 2), headers=legacy_headers(session_id)
                )
                assert after.status_code == 404
