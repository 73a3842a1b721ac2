"""A namespaced plugin's resource update, told by its own URI on one worker, reaches the subscribers
of the served URI on another worker, through a real Redis."""

from __future__ import annotations

import contextlib

import trio

from mcptrio import App
from mcptrio.client import connect

from ..app.files_plugin import files_plugin
from ..transports.http.client import http_server


async def test_an_update_by_the_plugins_own_uri_reaches_a_listen_stream_on_another_worker(redis):
    apps = [App("worker"), App("worker")]
    for app in apps:
        app.include(files_plugin(), prefix="fs")
    async with contextlib.AsyncExitStack() as stack:
        here, there = [await stack.enter_async_context(http_server(app, state=redis.url)) for app in apps]
        async with connect(there, era="modern") as listening, connect(here, era="modern") as touching:
            async with listening.listen(resourceSubscriptions=["fs+note://beta"]) as delivered:
                with trio.fail_after(10):
                    await touching.call_tool("fs_touch", {"uri": "note://beta"})
                    updated = await anext(delivered)
    assert updated["params"]["uri"] == "fs+note://beta"
