"""The walk of DESIGN.md ("One request, module by module"): the mcptrio modules whose code runs for
one 2026-07-28 tools/call over HTTP.  The count may only go down: a new module on the path of
every request is a decision to write down in DESIGN.md, with this number."""

import functools
import os
import sys

import httpx
import trio

import mcptrio
from mcptrio.transports.http import serve_http

from .transports.http.client import modern_tool

MODULES_ON_THE_WALK = 12  # DESIGN.md says which, and what would fold them


async def test_one_request_crosses_no_more_modules_than_design_md_says():
    app = mcptrio.App("walk")

    @app.tool()
    async def echo(text: str) -> str:
        return text

    root = os.path.dirname(mcptrio.__file__)
    seen: set[str] = set()

    def profile(frame, event, arg):
        if event == "call" and frame.f_code.co_filename.startswith(root):
            seen.add(os.path.relpath(frame.f_code.co_filename, root))

    async with trio.open_nursery() as nursery:
        url = await nursery.start(functools.partial(serve_http, app, port=0))
        async with httpx.AsyncClient(trust_env=False) as client:
            body, headers = modern_tool("echo", {"text": "x"}, 1)
            assert (await client.post(url, json=body, headers=headers)).status_code == 200  # (imports done)
            sys.setprofile(profile)
            try:
                answered = await client.post(url, json=body, headers=headers)
            finally:
                sys.setprofile(None)
        nursery.cancel_scope.cancel()
    assert answered.json()["result"]["content"][0]["text"] == "x"
    assert {"transports/http/asgi.py", "runtime/core.py", "app/pipeline.py"} <= seen, sorted(seen)
    assert len(seen) <= MODULES_ON_THE_WALK, sorted(seen)
