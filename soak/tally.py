"""What the clients saw, counted: requests, checked answers, expected and unexpected errors (with samples), events."""

from __future__ import annotations

import collections
from typing import Any

from limits import MAX_SAMPLES


class Tally:
    """Everything the clients saw, counted; unexpected errors also kept (capped) with details."""

    def __init__(self) -> None:
        self.requests = 0
        self.checked_ok = 0
        self.expected = collections.Counter[str]()
        self.unexpected = collections.Counter[str]()
        self.samples: list[dict[str, Any]] = []
        self.scenarios = collections.Counter[str]()
        self.events = collections.Counter[str]()  # sleeps sent/answered, cancellations, disconnects

    def ok(self, n: int = 1) -> None:
        self.checked_ok += n

    def expect(self, case: str) -> None:
        self.expected[case] += 1

    def bad(self, kind: str, scenario: str, detail: str) -> None:
        self.unexpected[kind] += 1
        if len(self.samples) < MAX_SAMPLES:
            self.samples.append({"kind": kind, "scenario": scenario, "detail": detail[:600]})


class Failed(Exception):
    """A check failed; already recorded in the tally: abandon the rest of this scenario."""
