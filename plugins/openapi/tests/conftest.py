"""Fixtures: the FastAPI shop served by hypercorn's Trio worker on a free loopback port."""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator

import hypercorn.config
import hypercorn.trio
import pytest
import trio
from shop_api import make_app


@pytest.fixture
async def shop() -> AsyncIterator[str]:
    """The shop API's base URL, served for the test (its document at /openapi.json)."""
    config = hypercorn.config.Config()
    config.bind, config.accesslog, config.errorlog, config.graceful_timeout = ["127.0.0.1:0"], None, None, 1
    stop = trio.Event()
    async with trio.open_nursery() as nursery:
        binds = await nursery.start(
            functools.partial(hypercorn.trio.serve, make_app(), config, shutdown_trigger=stop.wait)
        )
        yield binds[0]
        stop.set()
