"""The official MCP conformance suite over real HTTP: every server scenario with no version filter
(extension scenarios such as tasks-* included), then at each spec version; on hypercorn, the run
with no version filter only, which has every scenario (the runs at each version repeat them)."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def run_suite(*options: str) -> subprocess.CompletedProcess[str]:
    """``conformance/run.py`` with ``options``; its output printed (shown when a test fails)."""
    done = subprocess.run(
        [sys.executable, str(ROOT / "conformance" / "run.py"), *options],
        capture_output=True,
        text=True,
        timeout=1800,
        cwd=ROOT,
    )
    print(done.stdout)
    return done


@pytest.mark.parametrize(
    "server, versions", [("builtin", ("all", "2025-11-25", "2026-07-28")), ("hypercorn", ("all",))]
)
def test_official_conformance_suite_passes(server, versions):
    done = run_suite(*[f"--spec-version={version}" for version in versions], "--http-server", server)
    assert all(f"conformance {version}:" in done.stdout for version in versions)
    assert "conformance all:" in done.stdout and " 0 failed" in done.stdout.split("conformance all:")[1].splitlines()[0]
    assert done.returncode == 0, done.stdout + done.stderr


def test_official_conformance_suite_passes_on_two_workers_sharing_redis():
    """The same suite against ``--workers 2 --state redis://…``: the kernel hands each connection
    to either worker, so the suite's sessions, resumptions and tasks cross between them."""
    from ..state.redis_server import redis_server

    with redis_server() as redis:
        done = run_suite("--spec-version", "all", "--state", redis.url, "--workers", "2")
    assert "conformance all:" in done.stdout and " 0 failed" in done.stdout.split("conformance all:")[1].splitlines()[0]
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.long
@pytest.mark.parametrize("upstream", ["stdio", "http"])
def test_official_conformance_suite_passes_through_the_gateway(upstream):
    """The ``everything`` plugin served by an upstream ``mcptrio serve`` (over stdio, or HTTP) and put
    behind the gateway with no namespace: every scenario (the tasks extension's included) and those
    of each spec version, 0 failures."""
    done = run_suite(
        "--gateway", upstream, "--spec-version=all", "--spec-version=2025-11-25", "--spec-version=2026-07-28"
    )
    for version in ("all", "2025-11-25", "2026-07-28"):
        line = done.stdout.split(f"conformance {version}:")[1].splitlines()[0]
        assert " 0 failed" in line and " 0 passed" not in line, line
    assert done.returncode == 0, done.stdout + done.stderr


# What a legacy upstream cannot say, so no gateway can bridge it: the keys the server would have
# given its questions (the legacy wire has none), and which capabilities this caller declared (a
# shared legacy session declares them once, at its handshake).
BRIDGING_LIMITS = {"input-required-result-basic-elicitation", "input-required-result-capability-check"}


def test_the_2026_07_28_scenarios_pass_through_the_gateway_in_front_of_a_legacy_upstream():
    """Era bridging: the upstream pinned to the handshake era, the front speaking 2026-07-28."""
    done = run_suite("--gateway", "stdio", "--upstream-era", "legacy", "--spec-version=2026-07-28")
    line = done.stdout.split("conformance 2026-07-28:")[1].splitlines()[0]
    assert int(line.split(" scenarios")[0]) >= 40, line
    failed = {found.split(" ")[0] for found in done.stdout.split("  failed: ")[1:]}
    assert failed == BRIDGING_LIMITS, done.stdout
