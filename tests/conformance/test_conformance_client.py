"""The official MCP conformance suite's client mode against conformance/everything_client.py: every
client scenario at the suite's own revision for it, then every one at 2026-07-28, judged against
conformance/expected-client-failures.yaml."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.long(40)
def test_official_conformance_suite_passes_against_the_client():
    done = subprocess.run(
        [sys.executable, str(ROOT / "conformance" / "run_client.py")],
        capture_output=True,
        text=True,
        timeout=1200,
        cwd=ROOT,
    )
    print(done.stdout)
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
    runs = json.loads(done.stdout.strip().splitlines()[-1])["runs"]
    assert set(runs) == {"default", "2026-07-28"}
    for groups in runs.values():
        assert groups["auth"]["passed"] > 300 and groups["core"]["passed"] > 50
