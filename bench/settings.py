"""The run's fixed names (paths, host, payload, HTTP modes) and the Settings of one run."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
SDK_VENV = BENCH / ".venv-sdk"
SDK_PIN = "mcp==2.3.0"
SDK_STAMP = SDK_VENV / f".installed-{SDK_PIN}"
RESULTS = BENCH / "results"
HOST = "127.0.0.1"
PATH = "/mcp"
IMPLS = ("mcptrio", "sdk")
PARTS = ("all", "stdio")
TEXT = "hello"  # the echo payload
HTTP_MODES = ("legacy_sse", "legacy_json", "modern")
# What one repetition runs, in this order (``run.py --suites`` picks some).
SUITES = ("stdio", "http", "variants", "floors", "tasks", "scale", "fanout", "connections", "mixed", "peers")
MODE_NAMES = {"legacy_sse": "legacy SSE", "legacy_json": "legacy JSON", "modern": "2026-07-28"}


@dataclass
class Settings:
    reps: int = 3
    seconds: float = 1.5  # each throughput phase's time bound
    warmup: float = 0.3  # untimed load before each throughput phase
    max_calls: int = 50_000  # each throughput phase's count bound
    concurrency: tuple[int, ...] = (1, 10, 100)
    windows: tuple[int, ...] = (1, 16, 64)
    sessions: int = 1000
    eof_requests: int = 20
    eof_sleep_ms: int = 200
    cancel_sleep_ms: int = 10_000
    cancel_bound: float = 3.0  # how long cancelled work gets to stop before we call it n/a
    startups: int = 5  # spawns of `serve --plugins everything` per repetition (their median is the sample)
    part: str = "all"  # "stdio": only the stdio suites and the stdio floor
    mixed_in_flight: tuple[int, ...] = (0, 100, 1000, 10_000)  # slow calls open under the echo calls (mixed_load.py)
    mixed_echoes: int = 300  # timed sequential echo calls per count
    mixed_warmup: int = 20  # untimed echo calls before them
    mixed_quiet: float = 1.0  # seconds over which the server's CPU is read with the slow calls open
    suites: tuple[str, ...] = SUITES
    smoke: bool = False

    @classmethod
    def smoke_settings(cls) -> Settings:
        # Time-bound phases of 0.25 s: long enough for /proc/<pid>/stat's 10 ms ticks to see CPU.
        return cls(
            reps=1,
            seconds=0.25,
            warmup=0.05,
            max_calls=5000,
            sessions=100,
            startups=1,
            mixed_in_flight=(0, 200),
            mixed_echoes=30,
            mixed_warmup=5,
            mixed_quiet=0.25,
            smoke=True,
        )

    def bounds(self) -> dict[str, Any]:
        """The time and count bounds of one throughput phase, as the stdio client takes them."""
        return {"max_calls": self.max_calls, "seconds": self.seconds}


def log(text: str) -> None:
    print(text, file=sys.stderr, flush=True)
