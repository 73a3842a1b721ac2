"""Tool search, measured: ``search_tools`` over a 5,000-tool catalogue, in process (memory transport),
its latency per request (p50/p99) with no visibility configured and with a rule hiding half the
tools, and how long building the index takes.

    .venv/bin/python bench/tool_search.py            # about half a minute
    .venv/bin/python bench/tool_search.py --smoke    # a few seconds, every figure once

The catalogue's names and descriptions are made of a few hundred words (verbs, nouns, places), so a
query's words are shared by tens to hundreds of tools, as in a real catalogue; the queries (two or
three words) are drawn at random, the same for every variant.  Latency is the wall time of one
2026-07-28 ``tools/call search_tools`` from the in-memory client, server and client in this
process, sequential.  See bench/README.md.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from pathlib import Path
from typing import TYPE_CHECKING

import trio

if TYPE_CHECKING:
    import mcptrio

ROOT = Path(__file__).resolve().parent.parent
TOOLS = 5_000
VERBS = "get list create update delete sync export import archive restore search count rotate scan merge".split()
NOUNS = (
    "invoice customer order ticket shipment payment refund report user group role key secret bucket file folder "
    "image video message channel calendar event meeting task project issue commit branch release build deploy "
    "alert metric log trace dashboard contract lead account address product price stock warehouse route"
).split()
PLACES = "region zone cluster tenant workspace team store site office country".split()


# The handlers (their signatures name the tools' arguments, which the schema and the index see).
async def by_id(id: str, since: str = "", limit: int = 10) -> str:
    return "done"


async def by_name(name: str, owner: str = "", status: str = "") -> str:
    return "done"


async def by_query(query: str, region: str = "", format: str = "") -> str:
    return "done"


async def by_tag(tag: str, priority: str = "", until: str = "") -> str:
    return "done"


async def by_amount(amount: float, currency: str = "", id: str = "") -> str:
    return "done"


HANDLERS = [by_id, by_name, by_query, by_tag, by_amount]
ARGUMENTS = "id name query since until limit owner status region format tag priority currency amount".split()


def catalogue(tools: int, rule: bool) -> mcptrio.App:
    import mcptrio

    app = mcptrio.App(
        "tool-search-bench",
        tool_search=True,
        visible=(lambda component, request: "internal" not in component.tags) if rule else None,
    )
    pick = random.Random(27)

    for n in range(tools):
        verb, noun, place = pick.choice(VERBS), pick.choice(NOUNS), pick.choice(PLACES)
        handler = pick.choice(HANDLERS)
        app.tool(
            f"{verb}_{noun}_{n}",
            description=f"{verb.capitalize()} a {noun} of a {place}.",
            tags=["internal"] if n % 2 else ["public"],
        )(handler)
    return app


def queries(count: int) -> list[str]:
    pick = random.Random(7)
    words = VERBS + NOUNS + PLACES + ARGUMENTS
    return [" ".join(pick.sample(words, pick.choice((2, 3)))) for _ in range(count)]


async def latencies(app: mcptrio.App, asked: list[str]) -> dict[str, float]:
    from mcptrio.testing import open_client

    async with open_client(app, era="modern") as client:
        for query in asked[:20]:  # (warm)
            await client.call_tool("search_tools", {"query": query})
        took, found = [], 0
        for query in asked:
            started = time.perf_counter()
            result = await client.call_tool("search_tools", {"query": query, "limit": 10})
            took.append((time.perf_counter() - started) * 1e3)
            found += len(result["structuredContent"]["tools"])
    took.sort()
    return {
        "p50, ms": statistics.median(took),
        "p99, ms": took[min(len(took) - 1, int(len(took) * 0.99))],
        "hits per search": found / len(asked),
    }


def run(args: argparse.Namespace) -> None:
    tools = 500 if args.smoke else TOOLS
    asked = queries(100 if args.smoke else args.requests)
    figures: dict[str, dict[str, float]] = {}
    for name, rule in (("no visibility configured", False), ("a rule hiding half", True)):
        app = catalogue(tools, rule)
        assert app.tool_search is not None
        started = time.perf_counter()
        app.tool_search.index(app.tools)
        built = (time.perf_counter() - started) * 1e3
        figures[name] = {"index build, ms": built, **trio.run(latencies, app, asked)}
    print(f"| search_tools over {tools:,} tools, in process | p50: ms | p99: ms | hits | index build: ms |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for name, f in figures.items():
        print(
            f"| {name} | {f['p50, ms']:.2f} | {f['p99, ms']:.2f} | {f['hits per search']:.1f} "
            f"| {f['index build, ms']:.0f} |"
        )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(figures, indent=1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--smoke", action="store_true")
    parser.add_argument("--requests", type=int, default=5000)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "tool_search.json")
    run(parser.parse_args())


if __name__ == "__main__":
    main()
