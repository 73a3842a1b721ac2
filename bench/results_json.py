"""The results file (bench/results/latest.json): every figure's samples, medians and ratio, the
run's meta, notes and phases."""

from __future__ import annotations

import os
import platform
import statistics
import time
from pathlib import Path
from typing import Any

import orjson
from figures import baseline_list, figure_list
from many_connections import FIGURES as CONNECTION_FIGURES
from mixed_load import figures as mixed_figures
from peer_servers import NAMES as PEER_NAMES
from peer_suite import peer_figures
from results import Results
from scale_out import FIGURES as SCALE_FIGURES
from settings import SDK_PIN, Settings
from tasks_load import FIGURES as TASK_FIGURES
from variants import variant_figures


def save(results: Results, settings: Settings, impls: list[str], out: Path, wall: float) -> None:
    figures = []
    for figure in (
        figure_list(settings)
        + baseline_list(settings)
        + variant_figures()
        + TASK_FIGURES
        + SCALE_FIGURES
        + CONNECTION_FIGURES
        + mixed_figures(settings)
        + peer_figures(settings)
    ):
        entry: dict[str, Any] = {
            "key": figure.key,
            "label": figure.label,
            "unit": figure.unit,
            "better": figure.better,
            "zero_ok": figure.zero_ok,
            "delta": figure.delta,
            "samples": {},
            "median": {},
            "na": results.na.get(figure.key, {}),
        }
        for impl in dict.fromkeys([*impls, *PEER_NAMES]):  # (the peers suite's columns too)
            values = results.samples.get(figure.key, {}).get(impl)
            if values:
                entry["samples"][impl] = values
                entry["median"][impl] = statistics.median(values)
        a, b = entry["median"].get("mcptrio"), entry["median"].get("sdk")
        entry["ratio"] = a / b if a is not None and b else None
        figures.append(entry)
    document = {
        "meta": {
            "when": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "wall_s": wall,
            "settings": {k: v for k, v in settings.__dict__.items()},
            "servers": impls,
            "sdk": SDK_PIN,
            "mcptrio_source": {"start": results.source_start, "end": results.source_end},
            "machine_load": results.load,
            "python": platform.python_version(),
            "machine": {"cpus": os.cpu_count(), "platform": platform.platform()},
            "bare_baselines": {
                "mcptrio": "mcptrio's HTTP server (http11_server.py) + bare ASGI app; bare Trio stdio loop",
                "sdk": "uvicorn (asyncio) + bare ASGI app",
            },
        },
        "figures": figures,
        "notes": results.notes,
        "phases": results.phases,
    }
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(orjson.dumps(document, option=orjson.OPT_INDENT_2))
