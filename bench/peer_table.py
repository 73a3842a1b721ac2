"""The peers table: every row of the peers suite with one column per server and a verdict against issue 31's
targets — stdio with 64 in flight ≥ 2× the TypeScript SDK, HTTP with 10 clients ≥ 1.5× it, ahead of FastMCP
on every throughput row, at or below both on every latency and memory row.

"The TypeScript SDK" is its best column on that row (either generation, stateful or stateless): a target
met against it is met against all of them.  Server CPU per call is shown without a verdict.
"""

from __future__ import annotations

import statistics

from figures import Figure
from peer_servers import COLUMNS, NAMES, TS_PEERS, TS_PINS
from peer_suite import peer_figures
from results import Results
from settings import Settings

TS_NAMES = tuple(name for name, _, _, _ in TS_PEERS)
# Throughput rows with a ratio to beat against the TypeScript SDK (others: ahead of FastMCP only).
TS_FACTORS = {"peers.stdio.pipelined_64": 2.0, "peers.http.c10.rps": 1.5}


def verdict(figure: Figure, mine: float | None, ts: float | None, fastmcp: float | None) -> tuple[str, str, str]:
    """(the target, this run's ratios, met: ✓ / ✗ / — when not decided)."""
    if "cpu" in figure.key:
        return "(reported)", ratios(mine, ts, fastmcp), "—"
    if figure.better == "higher":
        factor = TS_FACTORS.get(figure.key)
        target = (f"≥ {factor:g}× TS SDK, " if factor else "") + "> FastMCP"
        checks = [None if mine is None or fastmcp is None else mine > fastmcp]
        if factor:
            checks.append(None if mine is None or ts is None else mine >= factor * ts)
    else:
        target = "≤ TS SDK and ≤ FastMCP"
        checks = [None if mine is None or other is None else mine <= other for other in (ts, fastmcp)]
    decided = [check for check in checks if check is not None]
    met = "—" if not decided else ("✓" if all(decided) else "✗")
    return target, ratios(mine, ts, fastmcp), met


def ratios(mine: float | None, ts: float | None, fastmcp: float | None) -> str:
    parts = []
    for who, other in (("TS", ts), ("FastMCP", fastmcp)):
        if mine is not None and other:
            parts.append(f"{mine / other:.2f}× {who}")
    return ", ".join(parts) or "n/a"


def peers_table(results: Results, settings: Settings) -> list[str]:
    if not any(key.startswith("peers.") for key in results.samples):
        return []
    arrow = {"higher": "↑", "lower": "↓"}
    head = " | ".join(COLUMNS[name] for name in NAMES)
    lines = [
        "",
        f"### Peers, same run, same workload (issue 31): median of {settings.reps} interleaved repetitions",
        "",
        f"TypeScript SDK on Node 22 ({TS_PINS}); FastMCP from the project's venv. Over HTTP every answer is an "
        "event stream (the TypeScript SDK's and FastMCP's default; mcptrio `--response-mode sse`), each client "
        "in a session of its own (stateless: none). *vs* is mcptrio against the best TypeScript column and "
        "against FastMCP (↑: > 1 is mcptrio ahead; ↓: < 1 is).",
        "",
        f"| figure | {head} | vs | target | met |",
        "| --- |" + " ---: |" * (len(NAMES) + 1) + " --- | :---: |",
    ]
    for figure in peer_figures(settings):
        medians = {name: results.median(figure.key, name) for name in NAMES}
        na = results.na.get(figure.key, {})
        cells = [
            (f"n/a ({na[name]})" if name in na else "—") if medians[name] is None else figure.fmt.format(medians[name])
            for name in NAMES
        ]
        ts_values = [v for name in TS_NAMES if (v := medians[name]) is not None]
        best_ts = (max if figure.better == "higher" else min)(ts_values) if ts_values else None
        target, vs, met = verdict(figure, medians["mcptrio"], best_ts, medians["fastmcp"])
        label = f"{figure.label} ({figure.unit} {arrow[figure.better]})"
        lines.append(f"| {label} | " + " | ".join(cells) + f" | {vs} | {target} | {met} |")
    return lines + others_line(results)


def others_line(results: Results) -> list[str]:
    """How much CPU other processes took while the rows were measured (2 cores: it moves every figure)."""
    parts = []
    for what, figure in (
        ("stdio echo", "peers.stdio.others"),
        ("HTTP echo", "peers.http.others"),
        ("slow calls", "peers.slow."),
    ):
        foreign = sorted(
            p["foreign_cores"] for p in results.phases if p["figure"].startswith(figure) and "foreign_cores" in p
        )
        if foreign:
            parts.append(f"{what} median {statistics.median(foreign):.2f} (max {foreign[-1]:.2f})")
    return ["", "Other processes' CPU while these rows ran, in cores: " + "; ".join(parts) + "."] if parts else []
