"""``mcptrio rotate-key --state URL``: a new requestState sealing key for every server sharing that state."""

from __future__ import annotations

import argparse

import trio

from ..groups import first
from ..serve import ServeError
from .usage import Parser, UsageError


def add_command(commands: argparse._SubParsersAction[Parser]) -> None:
    rotate = commands.add_parser(
        "rotate-key",
        help="rotate the requestState sealing key of servers sharing state",
        description="Make a new current requestState sealing key in the shared state; every server using it "
        "switches at once, and state sealed with the previous key still opens until the next "
        "rotation.",
    )
    rotate.add_argument("--state", required=True, metavar="URL", help="the servers' --state URL")


def run(args: argparse.Namespace) -> int:
    from ..state import StateUnavailable, parse_state_url
    from ..state.redis import open_redis_state

    try:
        state = parse_state_url(args.state)
    except ValueError as exc:
        raise UsageError(str(exc)) from None

    async def rotate() -> int:
        async with open_redis_state(state) as shared:
            await shared.rotate_keys()
            return len(shared.sealing_keys)

    try:
        trio.run(rotate)
    except* StateUnavailable as group:
        raise ServeError(str(first(group))) from None
    print(f"rotated the requestState sealing key at {state}")
    return 0
