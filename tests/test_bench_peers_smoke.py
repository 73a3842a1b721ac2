"""bench/run.py --smoke --suites peers: every peer of the peers table (the TypeScript SDK 1.x and 2.x,
stateful and stateless, on Node; FastMCP) beside mcptrio and the Python SDK produces each of its figures,
and every row gets a verdict.  No speed is asserted."""

import pytest

from .bench_smoke import smoke_run

SERVERS = ("mcptrio", "sdk", "ts1", "ts1_stateless", "ts2", "ts2_stateless", "fastmcp")
STATELESS = ("ts1_stateless", "ts2_stateless")


@pytest.fixture(scope="module")
def smoke(tmp_path_factory):
    out = tmp_path_factory.mktemp("bench") / "peers.json"
    return smoke_run("run.py", out, timeout=600, options=("--suites", "peers"))


def test_every_peer_produced_its_figures(smoke):
    _, document = smoke
    figures = {f["key"]: f for f in document["figures"] if f["key"].startswith("peers.")}
    assert {"peers.stdio.pipelined_64", "peers.http.c10.rps", "peers.sessions_per_s", "peers.slow.n200.p99_ms"} <= set(
        figures
    )
    for key, figure in figures.items():
        for server in SERVERS:
            if server in STATELESS and key.startswith("peers.stdio."):
                # The stateless variants are the same program over stdio: measured once, in the stateful column.
                assert server not in figure["samples"], key
            elif server in STATELESS and key.startswith(("peers.session", "peers.rss_idle")):
                assert figure["na"][server] == "stateless: no sessions", key
            else:
                samples = figure["samples"].get(server)
                assert samples, (key, server, figure["na"].get(server))
                if not figure["delta"] and "cpu" not in key:
                    assert all(v > 0 for v in samples), (key, server, samples)
    measured = {p["impl"] for p in document["phases"]}
    assert set(SERVERS) <= measured


def test_every_row_has_a_verdict(smoke):
    stdout, document = smoke
    assert "### Peers, same run, same workload (issue 31)" in stdout
    header = "| figure | mcptrio | Python SDK | TS SDK 1.x | TS SDK 1.x stateless | TS SDK 2.x | TS SDK 2.x stateless |"
    assert header in stdout
    rows = [line for line in stdout.splitlines() if line.startswith("| ") and "(" in line and "|" in line[2:]]
    peer_rows = [row for row in rows if row.count("|") == 12 and not row.startswith("| figure")]
    verdicts = [row.rsplit("|", 2)[1].strip() for row in peer_rows]
    # every row but the server CPU per call (reported, no target) is decided
    assert len(peer_rows) == len([f for f in document["figures"] if f["key"].startswith("peers.")])
    assert sorted(v for v in verdicts if v not in ("✓", "✗")) == ["—"]
    assert not [note for note in document["notes"] if "not measured" in note]
