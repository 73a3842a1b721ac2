"""Instructions per stdio call and per start-up, counted by valgrind's callgrind: the same on a busy
machine as on a quiet one, so a change can be judged while others run benchmarks or tests.

    .venv/bin/python bench/instructions.py                    # echo calls, 64 in flight, `--plugins bench`
    .venv/bin/python bench/instructions.py --calls 20000 --window 16
    .venv/bin/python bench/instructions.py --startup everything  # spawn -> initialize answered -> exit

A call's count is (run with N calls - run with none) / N, both from spawn to exit, so start-up and
shutdown cancel out.  Counts are of user-space instructions only (no system calls, no waiting);
they vary by a few per cent with hash randomization, so PYTHONHASHSEED is fixed.  Needs valgrind
(Debian: apt-get install valgrind); the server runs about fifty times slower under it.
"""

from __future__ import annotations

import argparse
import compileall
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from client import StdioServer, stdio_line  # noqa: E402
from settings import REPO, TEXT  # noqa: E402


def counted(argv: list[str], calls: int, window: int) -> int:
    """Instructions of ``argv`` (a stdio server) under callgrind, driven with ``calls`` echo calls."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        # This checkout's mcptrio and plugins, ahead of whatever is installed.
        path = os.pathsep.join(str(p) for p in (REPO, REPO / "plugins" / "bench", REPO / "plugins" / "everything"))
        env = dict(os.environ, PYTHONHASHSEED="0", PYTHONPATH=path)
        server = StdioServer(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *argv],
            env=env,
            stderr=subprocess.DEVNULL,
            cwd=str(REPO),
        )
        server.initialize()
        if calls:
            echo = stdio_line("tools/call", {"name": "echo", "arguments": {"text": TEXT}})
            server.pipelined(echo, window, max_calls=calls, seconds=3600)
        server.stop(timeout=600)
        totals = re.search(rb"^(?:summary|totals): (\d+)", out.read_bytes(), re.M)
        if totals is None:
            raise SystemExit(f"no instruction count in {out}")
        return int(totals.group(1))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=5000)
    parser.add_argument("--window", type=int, default=64, help="requests kept outstanding")
    parser.add_argument("--plugins", default="bench", help="what the server serves for the calls")
    parser.add_argument("--startup", metavar="PLUGINS", help="count one start-up serving these plugins instead")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        raise SystemExit("bench/instructions.py needs valgrind (apt-get install valgrind)")
    for source in (REPO / "mcptrio", REPO / "plugins"):  # (compiling is not what is measured)
        compileall.compile_dir(str(source), quiet=1)
    serve = [sys.executable, "-m", "mcptrio", "serve", "--plugins"]
    if args.startup:
        total = counted(serve + [args.startup], 0, args.window)
        print(f"spawn -> initialize answered -> exit, --plugins {args.startup}: {total / 1e6:.0f} million instructions")
        return 0
    idle = counted(serve + [args.plugins], 0, args.window)
    busy = counted(serve + [args.plugins], args.calls, args.window)
    print(
        f"{args.calls} echo calls, {args.window} in flight, --plugins {args.plugins}: "
        f"{(busy - idle) / args.calls:,.0f} instructions per call (start-up and exit alone: {idle / 1e6:.0f} million)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
