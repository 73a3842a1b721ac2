"""The printed report: the main table (mcptrio | SDK | ratio), the bare-floor table, then experiment,
variants, targets, notes."""

from __future__ import annotations

from feature_costs import feature_costs_table
from figures import Figure, clients, figure_list
from many_connections import connections_table
from mixed_load import mixed_table
from peer_table import peers_table
from results import Results
from scale_out import scale_table
from settings import SDK_PIN, SUITES, Settings
from targets import stdio_targets_table, targets_table
from tasks_load import tasks_table
from variants import hypercorn_table, servers_table, variants_table


def fmt(figure: Figure, value: float | None, na: str | None) -> str:
    if value is None:
        return f"n/a ({na})" if na else "n/a"
    return figure.fmt.format(value)


def ratio_text(a: float | None, b: float | None, figure: Figure) -> str:
    if a is None or b is None or b == 0:
        return "n/a"
    r = a / b
    good = r >= 1 if figure.better == "higher" else r <= 1
    return f"{r:.2f}" + ("" if abs(r - 1) < 0.05 else (" ✓" if good else " ✗"))


def report(results: Results, settings: Settings, impls: list[str]) -> str:
    full = set(settings.suites) == set(SUITES)
    lines = main_table(results, settings, impls, full) if full or {"stdio", "http"} & set(settings.suites) else []
    if "http" in settings.suites:
        lines += bare_table(results, settings)
    lines += hypercorn_table(results)
    lines += servers_table(results)
    lines += variants_table(results)
    lines += tasks_table(results)
    lines += scale_table(results)
    lines += connections_table(results)
    lines += mixed_table(results, settings)
    lines += feature_costs_table(results)
    lines += peers_table(results, settings)
    if "mcptrio" in impls and "sdk" in impls and full:
        lines += targets_table(results, settings)
    if "mcptrio" in impls and "stdio" in settings.suites:
        lines += stdio_targets_table(results, settings)
    bare_stdio = results.median("bare.stdio.pipelined_64", "mcptrio")
    mine = results.median("stdio.pipelined_64", "mcptrio")
    if bare_stdio and mine:
        bare_cpu = results.median("bare.stdio.cpu_us_pipelined_64", "mcptrio")
        cpu = "" if bare_cpu is None else f"; the bare loop's CPU per call {bare_cpu:.1f} µs"
        lines += [
            "",
            f"stdio, 64 pipelined: bare Trio echo loop {bare_stdio:.0f} calls/s, mcptrio {mine:.0f} calls/s "
            f"({100 * mine / bare_stdio:.0f}% of bare){cpu}.",
        ]
    if results.notes:
        lines += ["", "Notes:"] + [f"- {n}" for n in results.notes]
    return "\n".join(lines)


def main_table(results: Results, settings: Settings, impls: list[str], full: bool = True) -> list[str]:
    """Every figure (of a partial run, ``--suites``: every one measured): the medians of mcptrio and
    the SDK, and their ratio."""
    arrow = {"higher": "↑", "lower": "↓"}
    lines = [
        f"### mcptrio ({results.source_start.get('commit', '?')}) vs official MCP Python SDK ({SDK_PIN}) — "
        f"median of {settings.reps} interleaved repetitions",
        "",
        "| figure | mcptrio | SDK | ratio mcptrio/SDK |",
        "| --- | ---: | ---: | ---: |",
    ]
    for figure in figure_list(settings):
        if settings.part == "stdio" and not figure.key.startswith("stdio."):
            continue
        a, b = results.median(figure.key, "mcptrio"), results.median(figure.key, "sdk")
        na = results.na.get(figure.key, {})
        if not full and a is None and b is None and not na:
            continue
        lines.append(
            f"| {figure.label} ({figure.unit} {arrow[figure.better]}) | "
            f"{fmt(figure, a, na.get('mcptrio')) if 'mcptrio' in impls else '—'} | "
            f"{fmt(figure, b, na.get('sdk')) if 'sdk' in impls else '—'} | {ratio_text(a, b, figure)} |"
        )
    return lines + [
        "",
        "↑ higher is better, ↓ lower is better; ✓/✗ mark a ratio at least 5% in mcptrio's favour/against it.",
    ]


def bare_table(results: Results, settings: Settings) -> list[str]:
    """Each server's MCP throughput and latency beside a bare ASGI app on the same HTTP server."""
    lines = [
        "",
        "### Against a bare ASGI app on the same HTTP server (the floor: server + client, no MCP)",
        "",
        "| figure | bare, mcptrio's server | mcptrio legacy JSON | % | mcptrio 2026-07-28 | % |"
        " bare uvicorn | SDK legacy JSON | % | SDK 2026-07-28 | % |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    # (row label, figure suffix, format, show the share of bare)
    for label, suffix, digits, share in (("calls/s", "rps", "{:.0f}", True), ("p50 ms", "p50_ms", "{:.2f}", False)):
        for c in settings.concurrency:
            row = [f"{clients(c)}, {label}"]
            for impl in ("mcptrio", "sdk"):
                bare = results.median(f"bare.c{c}.{suffix}", impl)
                row.append("—" if bare is None else digits.format(bare))
                for mode in ("legacy_json", "modern"):
                    value = results.median(f"http.{mode}.c{c}.{suffix}", impl)
                    row.append("—" if value is None else digits.format(value))
                    if not share:
                        row.append("")
                    else:
                        row.append("—" if value is None or not bare else f"{100 * value / bare:.0f}%")
            lines.append("| " + " | ".join(row) + " |")
    return lines
