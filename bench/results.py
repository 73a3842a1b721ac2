"""The samples of a run: by figure and server, by repetition (for paired ratios), phases and notes."""

from __future__ import annotations

import statistics
import sys
from typing import Any


class Results:
    """Every sample by figure and server, every phase's raw record, and the notes."""

    def __init__(self) -> None:
        self.samples: dict[str, dict[str, list[float]]] = {}
        self.na: dict[str, dict[str, str]] = {}
        self.phases: list[dict[str, Any]] = []
        self.notes: list[str] = []
        self.source_start: dict[str, str] = {}
        self.source_end: dict[str, str] = {}
        self.load: dict[str, Any] = {}
        self.rep = 0  # the repetition now running: samples are also kept by repetition, for paired ratios
        self.by_rep: dict[str, dict[str, dict[int, float]]] = {}

    def add(self, key: str, impl: str, value: float | None, why_na: str | None = None) -> None:
        if value is None:
            self.na.setdefault(key, {})[impl] = why_na or "n/a"
            return
        self.samples.setdefault(key, {}).setdefault(impl, []).append(float(value))
        self.by_rep.setdefault(key, {}).setdefault(impl, {})[self.rep] = float(value)

    def paired_ratio(self, key: str, impl: str, base_key: str, base_impl: str) -> float | None:
        """Median over repetitions of (key, impl) / (base_key, base_impl) within each repetition:
        slow drift of the machine's speed cancels out of each ratio."""
        mine = self.by_rep.get(key, {}).get(impl, {})
        base = self.by_rep.get(base_key, {}).get(base_impl, {})
        ratios = [mine[rep] / base[rep] for rep in mine if base.get(rep)]
        return statistics.median(ratios) if ratios else None

    def phase(self, **record: Any) -> None:
        self.phases.append(record)

    def note(self, text: str) -> None:
        print(f"  note: {text}", file=sys.stderr, flush=True)
        self.notes.append(text)

    def median(self, key: str, impl: str) -> float | None:
        values = self.samples.get(key, {}).get(impl)
        return statistics.median(values) if values else None
