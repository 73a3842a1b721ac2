"""The openapi plugin, measured: a generated tool's call against calling the same API directly with
httpx from the same process (the cost the tool adds), and the load time of GitHub's REST description
(1,223 operations; the target is 1 s or less).

    .venv/bin/python bench/openapi.py            # about half a minute
    .venv/bin/python bench/openapi.py --smoke    # a few seconds, every figure once

The API is a FastAPI application served by hypercorn (its Trio worker) in a process of its own on
127.0.0.1 (``python bench/openapi.py api``).  Calls are sequential, one client: ``GET /items/{id}``
answering a small JSON object, through ``httpx.AsyncClient`` under Trio, and as the tool ``get_item``
served in process (the memory transport, 2026-07-28) whose handler sends the same request through
the plugin's own pooled client and checks the answer against its output schema.  Figures are medians
over ``--reps`` rounds, the two interleaved; the load time is the median of ``--reps`` loads of the
xz-compressed fixture (read, decompress, parse, build every tool).  See bench/README.md.
"""

import argparse
import functools
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import trio

ROOT = Path(__file__).resolve().parent.parent
GITHUB = ROOT / "plugins" / "openapi" / "tests" / "data" / "api.github.com.json.xz"


def serve_api() -> None:
    """The API: a FastAPI app on a free loopback port, which it prints, until stdin closes."""
    import hypercorn.config
    import hypercorn.trio
    from fastapi import FastAPI
    from pydantic import BaseModel

    class Item(BaseModel):
        id: int
        name: str
        tags: list[str]

    api = FastAPI(title="bench")

    @api.get("/items/{item_id}", operation_id="get_item")
    async def get_item(item_id: int) -> Item:
        return Item(id=item_id, name=f"item {item_id}", tags=["a", "b"])

    async def main() -> None:
        config = hypercorn.config.Config()
        config.bind, config.accesslog, config.errorlog = ["127.0.0.1:0"], None, None
        async with trio.open_nursery() as nursery:
            binds = await nursery.start(functools.partial(hypercorn.trio.serve, api, config))
            print(binds[0], flush=True)
            await trio.to_thread.run_sync(sys.stdin.read)
            nursery.cancel_scope.cancel()

    trio.run(main)


def percentiles(measured: tuple[list[float], float]) -> dict[str, float]:
    """p50 and p99 of the calls' wall times, and the CPU this process spent per call."""
    took, cpu = sorted(measured[0]), measured[1]
    return {
        "p50, ms": statistics.median(took),
        "p99, ms": took[min(len(took) - 1, int(len(took) * 0.99))],
        "CPU per call, ms": cpu * 1e3 / len(took),
    }


async def direct(url: str, calls: int) -> tuple[list[float], float]:
    import httpx

    took = []
    async with httpx.AsyncClient() as client:
        for n in range(calls + 20):
            if n == 20:  # (warm)
                cpu = time.process_time()
            started = time.perf_counter()
            response = await client.get(f"{url}/items/{n}")
            response.json()
            if n >= 20:
                took.append((time.perf_counter() - started) * 1e3)
    return took, time.process_time() - cpu


async def through_tool(url: str, document: dict[str, Any], calls: int) -> tuple[list[float], float]:
    from mcptrio_openapi import from_openapi

    import mcptrio
    from mcptrio.testing import open_client

    app = mcptrio.App(name="bench")
    app.include(from_openapi(document, base_url=url))
    took = []
    async with open_client(app, era="modern") as client:
        for n in range(calls + 20):
            if n == 20:
                cpu = time.process_time()
            started = time.perf_counter()
            result = await client.call_tool("get_item", {"item_id": n})
            if n >= 20:
                took.append((time.perf_counter() - started) * 1e3)
            assert result["structuredContent"]["id"] == n, result
    return took, time.process_time() - cpu


def load_seconds() -> tuple[float, int, int]:
    from mcptrio_openapi import OpenApiSettings, load

    started = time.perf_counter()
    loaded = load(OpenApiSettings(GITHUB))
    return time.perf_counter() - started, len(loaded.registry.tools), len(loaded.skipped)


def run(args: argparse.Namespace) -> None:
    calls, reps = (50, 1) if args.smoke else (args.calls, args.reps)
    api = subprocess.Popen(
        [sys.executable, __file__, "api"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=ROOT
    )
    try:
        assert api.stdout is not None
        url = api.stdout.readline().strip()
        import httpx

        document = httpx.get(f"{url}/openapi.json").json()
        rounds: dict[str, list[dict[str, float]]] = {"httpx, direct": [], "tool call, in process": []}
        for _ in range(reps):
            rounds["httpx, direct"].append(percentiles(trio.run(direct, url, calls)))
            rounds["tool call, in process"].append(percentiles(trio.run(through_tool, url, document, calls)))
    finally:
        api.communicate(timeout=10)
    figures: dict[str, dict[str, float]] = {
        name: {key: statistics.median(r[key] for r in runs) for key in runs[0]} for name, runs in rounds.items()
    }
    figures["added by the tool"] = {
        key: figures["tool call, in process"][key] - figures["httpx, direct"][key]
        for key in ("p50, ms", "p99, ms", "CPU per call, ms")
    }
    loads = [load_seconds() for _ in range(reps if args.smoke else max(reps, 5))]
    figures["GitHub REST description"] = {
        "load, s": statistics.median(seconds for seconds, _, _ in loads),
        "tools": loads[0][1],
        "skipped": loads[0][2],
    }
    print(f"| GET /items/{{id}}, {calls} sequential calls | p50: ms | p99: ms | CPU per call: ms |")
    print("| --- | ---: | ---: | ---: |")
    for name in ("httpx, direct", "tool call, in process", "added by the tool"):
        f = figures[name]
        print(f"| {name} | {f['p50, ms']:.3f} | {f['p99, ms']:.3f} | {f['CPU per call, ms']:.3f} |")
    github = figures["GitHub REST description"]
    print(
        f"\nGitHub REST description: {github['tools']:.0f} tools, {github['skipped']:.0f} skipped, "
        f"loaded in {github['load, s']:.2f} s (median)"
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(figures, indent=1))


def main() -> None:
    if sys.argv[1:] == ["api"]:
        serve_api()
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--smoke", action="store_true")
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "openapi.json")
    run(parser.parse_args())


if __name__ == "__main__":
    main()
