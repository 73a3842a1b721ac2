"""The soak's verdict and report: what failed (errors, leaks, RSS growth, exit), the JSON report
and the one-screen summary."""

from __future__ import annotations

import argparse
from typing import Any

from limits import MB
from server_process import Server
from tally import Tally


def summarise(
    args: argparse.Namespace,
    tally: Tally,
    before: dict[str, Any],
    after: dict[str, Any],
    samples: list[tuple[float, int]],
    last_echo: bool,
    server: Server,
    stderr: str,
    warm_requests: int,
) -> dict[str, Any]:
    failures: list[str] = []
    stats = after["stats"]
    # Traffic-level problems.
    unexpected = sum(tally.unexpected.values())
    if unexpected:
        failures.append(f"{unexpected} unexpected error(s)")
    # The server: up all along, no traceback on stderr, a clean exit on SIGTERM.
    tracebacks = stderr.count("Traceback (most recent call last)")
    if not after.get("rss") or not last_echo:
        failures.append("server died or stopped answering")
    if tracebacks:
        failures.append(f"{tracebacks} traceback(s) on the server's stderr")
    if server.exit_status != 0:
        failures.append(f"server exit status after SIGTERM: {server.exit_status} (None: had to be killed)")
    # No leaked handler: every sleep started was completed or cancelled.
    leak_ok = stats is not None and stats["started"] == stats["completed"] + stats["cancelled"]
    if not leak_ok:
        failures.append(f"sleep handlers leaked (or stats unavailable): {stats}")
    elif stats["started"] > tally.events["sleeps_sent"] or stats["completed"] < tally.events["sleeps_answered"]:
        failures.append(f"sleep counters disagree with the clients: {stats} vs {dict(tally.events)}")
    # Memory.
    rss_before, rss_after = before.get("rss"), after.get("rss")
    growth = (rss_after - rss_before) if rss_before and rss_after else None
    bound = args.max_rss_growth_mb * MB
    if growth is None:
        failures.append("RSS not measured")
    elif growth > bound:
        failures.append(f"RSS grew by {growth / MB:.1f} MB (bound {args.max_rss_growth_mb:g} MB)")
    server_lines = [line for line in stderr.splitlines() if line.strip()]
    return {
        "requests": tally.requests,
        "requests_warmup": warm_requests,
        "checked_ok": tally.checked_ok,
        "expected_errors": sum(tally.expected.values()),
        "expected_by_case": dict(sorted(tally.expected.items())),
        "unexpected_errors": unexpected,
        "unexpected_by_kind": dict(tally.unexpected),
        "unexpected_samples": tally.samples,
        "scenarios": dict(tally.scenarios),
        "events": dict(sorted(tally.events.items())),
        "sleep_stats": stats,
        "no_leaked_handlers": leak_ok,
        "rss_before": rss_before,
        "rss_after": rss_after,
        "rss_growth": growth,
        "rss_bound": bound,
        "rss_samples": samples,
        "sessions_deleted_at_cleanup": before["sessions_deleted"] + after["sessions_deleted"],
        "server_alive_at_end": bool(rss_after) and last_echo,
        "server_stderr_tracebacks": tracebacks,
        "server_stderr_tail": server_lines[-30:],
        "server_exit_status": server.exit_status,
        "server_exit_seconds": None if server.exit_seconds is None else round(server.exit_seconds, 2),
        "failures": failures,
        "passed": not failures,
    }


def mb(value: int | None) -> str:
    return "n/a" if value is None else f"{value / MB:.1f} MB"


def render(report: dict[str, Any]) -> str:
    events = report["events"]
    stats = report["sleep_stats"] or {}
    growth = report["rss_growth"]
    lines = [
        f"mcptrio soak: {report['elapsed']} s + {report['warmup']:g} s warm-up, {report['clients']} clients, "
        f"seed {report['seed']}, {report['url']}",
        f"  requests sent        {report['requests']:>8}   ({report['requests_warmup']} in warm-up; scenarios "
        + ", ".join(f"{k} {v}" for k, v in sorted(report["scenarios"].items()))
        + ")",
        f"  answers checked ok   {report['checked_ok']:>8}",
        f"  expected errors      {report['expected_errors']:>8}"
        f"   ({len(report['expected_by_case'])} kinds of bad input,"
        f" max-message-size {report['max_message_size']})",
        f"  cancellations        close {events.get('cancelled_by_close', 0)}, notification "
        f"{events.get('cancelled_by_notification', 0)}; abrupt disconnects {events.get('disconnects', 0)}",
        f"  UNEXPECTED errors    {report['unexpected_errors']:>8}   {report['unexpected_by_kind'] or ''}",
        f"  sleep handlers       started {stats.get('started')} = completed {stats.get('completed')} + cancelled "
        f"{stats.get('cancelled')}: {'no leak' if report['no_leaked_handlers'] else 'LEAK'}",
        f"  server RSS           before {mb(report['rss_before'])} -> after {mb(report['rss_after'])} "
        f"({'n/a' if growth is None else f'{growth / MB:+.1f} MB'}; bound +{report['rss_bound'] / MB:g} MB)",
        f"  server               {'alive' if report['server_alive_at_end'] else 'DEAD'}; stderr tracebacks "
        f"{report['server_stderr_tracebacks']}; SIGTERM -> exit {report['server_exit_status']} in "
        f"{report['server_exit_seconds']} s",
    ]
    for sample in report["unexpected_samples"][:8]:
        lines.append(f"    ! {sample['kind']} in {sample['scenario']}: {sample['detail'][:200]}")
    if report["server_stderr_tracebacks"]:
        lines.append("  server stderr (tail):")
        lines += [f"    | {line[:160]}" for line in report["server_stderr_tail"][-12:]]
    lines.append("RESULT: " + ("PASS" if report["passed"] else "FAIL: " + "; ".join(report["failures"])))
    return "\n".join(lines)
