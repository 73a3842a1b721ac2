"""The peers table: every row of the peers suite with one column per server and a verdict against issue 31's
targets — stdio with 64 in flight ≥ 2× the TypeScript SDK, HTTP with 10 clients ≥ 1.5× it, ahead of FastMCP
on every throughput row, at or below both on every latency and memory row.

"The TypeScript SDK" is its best column on that row (either generation, stateful or stateless): a target
met against it is met against all of them.  Server CPU per call is shown without a verdict.  Under the table,
each ✗ row gets a line worked out from the figures measured with it (the server CPU per call and the cores
behind each throughput, Little's law for a closed loop of clients, the start-up of Python and Trio alone):
why it is missed, and how much less CPU per call, or start-up, meeting it would take.
"""

from __future__ import annotations

import re
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
    missed: list[str] = []
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
        best = best_ts(figure, medians)
        target, vs, met = verdict(figure, medians["mcptrio"], medians[best] if best else None, medians["fastmcp"])
        label = f"{figure.label} ({figure.unit} {arrow[figure.better]})"
        lines.append(f"| {label} | " + " | ".join(cells) + f" | {vs} | {target} | {met} |")
        if met == "✗":
            missed.append(f"- {figure.label}: {why_missed(figure, results, medians, best)}")
    if missed:
        lines += ["", "Where a row is ✗, what this run's own figures say of why, and what meeting it would take:", ""]
    return lines + missed + others_line(results)


def best_ts(figure: Figure, medians: dict[str, float | None]) -> str | None:
    """The TypeScript column that does best on this row (None: none measured)."""
    found = [(value, name) for name in TS_NAMES if (value := medians[name]) is not None]
    if not found:
        return None
    return (max if figure.better == "higher" else min)(found)[1]


def _load_keys(key: str) -> tuple[str, str, int | None] | None:
    """(the throughput key, the server CPU per call key, the clients: None for stdio) of a load row."""
    if key.startswith("peers.stdio.pipelined_64"):
        return "peers.stdio.pipelined_64", "peers.stdio.cpu_us_64", None
    found = re.fullmatch(r"(peers\.http\.c(\d+))\.(rps|p50_ms|p99_ms)", key)
    if found is None:
        return None
    return f"{found[1]}.rps", f"{found[1]}.cpu_us", int(found[2])


def _take(cores: float, rate: float, cpu_now: float) -> str:
    """What serving ``rate`` calls/s on ``cores`` takes of the server's CPU per call."""
    need = cores / rate * 1e6
    cut = 1 - need / cpu_now
    return f"{rate:,.0f} calls/s, {need:.1f} µs of CPU a call on mcptrio's {cores:.2f} cores ({cut:.1%} less)"


def why_missed(figure: Figure, results: Results, medians: dict[str, float | None], best: str | None) -> str:
    """One line on a ✗ row, from the figures measured with it: the server CPU per call and the
    cores behind each throughput, the start-up floor of Python and Trio."""
    mine = medians["mcptrio"]
    assert mine is not None  # (a row with no figure of mcptrio's has no verdict)
    higher = figure.better == "higher"
    factor = TS_FACTORS.get(figure.key, 1.0) if higher else 1.0
    ts = medians[best] if best is not None else None
    ts_missed = ts is not None and (mine < factor * ts if higher else mine > ts)
    other = best if ts_missed and best is not None else "fastmcp"  # (the one it is behind)
    if other == "fastmcp":
        factor = 1.0
    theirs, column = medians[other], COLUMNS[other]
    plain = f"mcptrio {figure.fmt.format(mine)} {figure.unit} against {column}'s {figure.fmt.format(theirs)}"
    load = _load_keys(figure.key)
    if load is not None:
        rate_key, cpu_key, clients_count = load
        rates = {name: results.median(rate_key, name) for name in ("mcptrio", other)}
        cpus = {name: results.median(cpu_key, name) for name in ("mcptrio", other)}
        if all(rates.values()) and all(cpus.values()):
            rate_m, rate_t, cpu_m, cpu_t = rates["mcptrio"], rates[other], cpus["mcptrio"], cpus[other]
            assert rate_m and rate_t and cpu_m and cpu_t
            cores_m, cores_t = rate_m * cpu_m / 1e6, rate_t * cpu_t / 1e6
            served = (
                f"mcptrio served {rate_m:,.0f} calls/s at {cpu_m:.1f} µs of server CPU a call ({cores_m:.2f} cores), "
                f"{column} {rate_t:,.0f} at {cpu_t:.1f} µs ({cores_t:.2f} cores)"
            )
            if higher:
                return f"{plain}. {served}: {factor:g}× it takes {_take(cores_m, factor * rate_t, cpu_m)}."
            if clients_count is None or clients_count < 2:
                return f"{plain}. One call at a time waits for the server's CPU per call: {served}."
            # A closed loop of clients waits clients ÷ throughput on average (Little's law); how far the
            # row's percentile is from that mean is the server's own spread.
            mean_m, mean_t = clients_count / rate_m * 1000, clients_count / rate_t * 1000
            spread = mine / mean_m
            uneven = (
                f" ({column}'s {figure.label.rsplit(': ', 1)[-1]} is below its mean: it answers some clients "
                "sooner than others)"
                if theirs < mean_t
                else ""
            )
            return (
                f"{plain}. {clients_count} clients sending a call each time one is answered wait "
                f"{clients_count} ÷ throughput on average: {mean_m:.2f} ms for mcptrio, {mean_t:.2f} for "
                f"{column}{uneven}. {served}. At mcptrio's own spread (this row {spread:.2f}× its mean), "
                f"{figure.fmt.format(theirs)} ms takes {_take(cores_m, clients_count * spread / theirs * 1000, cpu_m)}."
            )
    if figure.key.endswith("startup_ms"):
        floor = results.median("peers.floor.startup_ms", "mcptrio") or results.median(
            "bare.stdio.startup_ms", "mcptrio"
        )
        if floor is None:
            return (
                f"{plain}; the interpreter-and-Trio floor was not measured in this run (the floors suite measures it)."
            )
        reach = (
            f"mcptrio's own part under {theirs - floor:.0f} ms"
            if theirs > floor
            else "less than Python and Trio alone take: out of reach for a Python server"
        )
        return (
            f"{plain}. Python with Trio and orjson imported, answering at once (the bare stdio loop), takes "
            f"{floor:.0f} ms of it; at or below {column} takes {reach}."
        )
    return f"{plain} (bench/README.md, 'Peers', says what is known of it)."


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
