"""bench/run.py --smoke: every benchmark phase runs, on both servers and the peers (the TypeScript
SDK 1.x and 2.x, stateful and stateless, on Node; FastMCP), and every figure is there.

It includes the official SDK: its private virtualenv (bench/.venv-sdk, ``mcp==2.3.0`` from PyPI)
takes about 15 s to create the first time and is reused afterwards, and the smoke run itself
takes about 30 s.  No speed is asserted: only that the run completes and measured something.
"""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from .bench_smoke import smoke_run

REPO = Path(__file__).resolve().parent.parent
RUN = REPO / "bench" / "run.py"
SERVERS = ("mcptrio", "sdk")
PEERS = ("ts1", "ts1_stateless", "ts2", "ts2_stateless", "fastmcp")  # the peers suite's other columns
PEER_SERVERS = (*SERVERS, *PEERS)
STATELESS = ("ts1_stateless", "ts2_stateless")


@pytest.fixture(scope="module")
def smoke(tmp_path_factory):
    return smoke_run("run.py", tmp_path_factory.mktemp("bench") / "smoke.json", timeout=600)


def prints_the_table(smoke):
    stdout, _ = smoke
    assert "| figure | mcptrio | SDK | ratio mcptrio/SDK |" in stdout
    assert "| bare, mcptrio's server |" in stdout
    assert "### mcptrio's HTTP server against hypercorn" in stdout
    assert "### `mcptrio serve` on each HTTP server, TLS off and on" in stdout
    assert "### Each feature off against on, same run, with its issue's target" in stdout
    assert "### The targets (issue 5), from this run" in stdout
    assert "### The stdio targets (issue 19), from this run" in stdout
    # every target row has a verdict: issue 5 and 19 (16), the stdio ones (4: a file's start-up among them),
    # the features of issues 13-16, 31 and 33 with a target that a smoke run measures (11: the
    # 1,000-slow-calls row needs a full run), the peers table's rows but the CPU ones (18)
    assert stdout.count("| ✓ |") + stdout.count("| ✗ |") == 16 + 4 + 11 + 18
    assert "### Many connections on one worker" in stdout
    assert "### Fast calls among slow ones" in stdout
    assert re.search(r"Sessions: each is two POSTs .* so \d+/s is \d+ POSTs/s, \d+% of what the bare ASGI app", stdout)


def every_figure_has_positive_numbers(smoke):
    _, document = smoke
    assert document["meta"]["servers"] == list(SERVERS)
    figures = {f["key"]: f for f in document["figures"]}
    expected = {
        "stdio.sequential",
        "stdio.pipelined_1",
        "stdio.pipelined_16",
        "stdio.pipelined_64",
        "stdio.startup_ms",
        "stdio.peak_rss_mib",
        "stdio.cancel_stop_ms",
        "stdio.cancel_next_ms",
        "stdio.eof_answered",
        "http.sessions_per_s",
        "http.session_kib",
        "http.sessions_rss_deleted_mib",
        "http.cancel_legacy_next_ms",
        "http.cancel_modern_stop_ms",
        "bare.c10.rps",
        "bare.stdio.pipelined_64",
        "hypercorn.bare.c10.rps",
        "hypercorn.legacy_json.c10.rps",
        "hypercorn.modern.c10.rps",
        "server.builtin_tls.c10.rps",
        "server.hypercorn.c10.rps",
        "server.hypercorn_tls.c10.rps",
        "connections.keepalive.kib_per_connection",
        "connections.keepalive.open.p99_ms",
        "connections.sessions.kib_per_session",
        "connections.sessions.open.p99_ms",
    }
    expected |= {
        f"http.{mode}.c{c}.{what}"
        for mode in ("legacy_sse", "legacy_json", "modern")
        for c in (1, 10, 100)
        for what in ("rps", "p50_ms", "p99_ms")
    }
    expected |= {
        f"{prefix}.n{n}.{what}"
        for prefix in ("mixed", "mixed.json")
        for n in (0, 200)
        for what in ("p50_ms", "p99_ms", "max_ms", "quiet_cpu_pct")
    }
    assert expected <= set(figures)
    cpu_seen = []
    for key, figure in figures.items():
        # The stdio floor, the same apps on hypercorn, the variants and the server rows
        # (bench/variants.py) and tasks (bench/tasks_load.py: the SDK's server has none) are mcptrio's
        # only, and so is mcptrio's JSON mode under slow calls (bench/mixed_load.py).
        mcptrio_only = (
            "bare.stdio.",
            "hypercorn.",
            "variant.",
            "server.",
            "tasks.",
            "scale.",
            "connections.",
            "mixed.json.",
        )
        servers = ("mcptrio",) if key.startswith(mcptrio_only) else SERVERS
        for server in servers:
            if server in figure["na"]:
                # A behaviour the server lacks (e.g. the SDK does not stop a legacy request whose
                # response was closed) is reported as n/a with the reason; mcptrio has none.
                assert server == "sdk", (key, figure["na"])
                assert figure["na"][server]
                continue
            samples = figure["samples"].get(server)
            assert samples, (key, server)
            assert all(isinstance(v, (int, float)) for v in samples), (key, server, samples)
            if figure["delta"]:
                continue  # RSS with N sessions minus RSS before: the allocator may reuse freed memory
            if figure["zero_ok"] or "cpu" in key:
                # A count that can honestly be 0 (SDK answers no in-flight request at stdin EOF),
                # and CPU per call, which /proc/<pid>/stat counts in 10 ms ticks: >= 0 here.
                assert all(v >= 0 for v in samples), (key, server, samples)
            else:
                assert all(v > 0 for v in samples), (key, server, samples)
            if "cpu" in key:
                cpu_seen.append(samples[0])
    assert any(v > 0 for v in cpu_seen), "no server CPU time was measured at all"
    phases = document["phases"]
    assert {p["impl"] for p in phases} == set(SERVERS) | set(PEERS)
    assert any(p.get("latencies_us") for p in phases)


def every_peer_produced_its_figures(smoke):
    _, document = smoke
    figures = {f["key"]: f for f in document["figures"] if f["key"].startswith("peers.")}
    assert {
        "peers.stdio.pipelined_64",
        "peers.http.c10.rps",
        "peers.sessions_per_s",
        "peers.stream_kib",
        "peers.slow.n200.p99_ms",
    } <= set(figures)
    for key, figure in figures.items():
        for server in PEER_SERVERS:
            if server in STATELESS and key.startswith("peers.stdio."):
                # The stateless variants are the same program over stdio: measured once, in the stateful column.
                assert server not in figure["samples"], key
            elif server in STATELESS and key.startswith(("peers.session", "peers.rss_idle", "peers.stream")):
                assert figure["na"][server] == "stateless: no sessions", key
            else:
                samples = figure["samples"].get(server)
                assert samples, (key, server, figure["na"].get(server))
                if not figure["delta"] and "cpu" not in key:
                    assert all(v > 0 for v in samples), (key, server, samples)
    measured = {p["impl"] for p in document["phases"]}
    assert set(PEER_SERVERS) <= measured


def every_peer_row_has_a_verdict(smoke):
    stdout, document = smoke
    assert "### Peers, same run, same workload (issue 31)" in stdout
    header = "| figure | mcptrio | Python SDK | TS SDK 1.x | TS SDK 1.x stateless | TS SDK 2.x | TS SDK 2.x stateless |"
    assert header in stdout
    rows = [line for line in stdout.splitlines() if line.startswith("| ") and "(" in line and "|" in line[2:]]
    peer_rows = [row for row in rows if row.count("|") == 12 and not row.startswith("| figure")]
    verdicts = [row.rsplit("|", 2)[1].strip() for row in peer_rows]
    # every row but the server CPU per call (reported, no target) is decided
    peer_figures = [f["key"] for f in document["figures"] if f["key"].startswith("peers.")]
    assert len(peer_rows) == len(peer_figures)
    assert sorted(v for v in verdicts if v not in ("✓", "✗")) == ["—"] * len([k for k in peer_figures if "cpu" in k])
    # and every row missed is explained under the table, from this run's figures
    labels = [row.removeprefix("| ").split(" | ", 1)[0].rsplit(" (", 1)[0] for row in peer_rows]  # (unit cut off)
    missed = [label for label, v in zip(labels, verdicts, strict=True) if v == "✗"]
    explained = [
        line.split(": mcptrio ", 1)[0].removeprefix("- ") for line in stdout.splitlines() if line.startswith("- ")
    ]
    assert [row for row in missed if row not in explained] == [], stdout
    assert not [note for note in document["notes"] if "not measured" in note]


@pytest.mark.long(160)
def test_the_smoke_run_measures_every_figure_of_every_server_and_peer(smoke):
    """One test for the one smoke run (a module fixture is made again on each xdist worker that
    runs a test of the module: several tests would run the whole bench several times)."""
    prints_the_table(smoke)
    every_figure_has_positive_numbers(smoke)
    every_peer_produced_its_figures(smoke)
    every_peer_row_has_a_verdict(smoke)


def test_stdio_part_alone(tmp_path):
    """--part stdio: the stdio suites, the start-up of `serve --plugins everything` and the bare
    stdio floor, with issue 19's targets; nothing over HTTP."""
    out = tmp_path / "stdio.json"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run(
        [sys.executable, str(RUN), "--smoke", "--part", "stdio", "--only", "mcptrio", "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
        stdin=subprocess.DEVNULL,
        cwd=REPO,
        env=env,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-6000:]
    assert "### The stdio targets (issue 19), from this run" in done.stdout
    assert "HTTP" not in done.stdout and "bare, mcptrio's server" not in done.stdout
    figures = {f["key"]: f for f in json.loads(out.read_text())["figures"]}
    for key in (
        "stdio.pipelined_64",
        "stdio.startup_everything_ms",
        "stdio.startup_file_ms",
        "bare.stdio.pipelined_64",
        "bare.stdio.cpu_us_pipelined_64",
    ):
        assert figures[key]["samples"].get("mcptrio"), key
    assert not figures["http.modern.c10.rps"]["samples"]
