"""The bounded soak run (``soak/soak.py``) as a test: 30 s of mixed traffic against a real
``mcptrio serve --transport http``, which must end with exit status 0 and no unexpected error."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
import trio

ROOT = Path(__file__).resolve().parents[2]
SOAK = ROOT / "soak" / "soak.py"
SECONDS = 30
# Start-up, warm-up (5 s), clean-ups and settles (~5 s), the tail of the last scenarios, shutdown.
RUN_WITHIN = SECONDS + 120


@pytest.mark.long(40)
async def test_soak_30_seconds_has_no_unexpected_errors():
    with trio.fail_after(RUN_WITHIN):
        run = await trio.run_process(
            [sys.executable, str(SOAK), "--seconds", str(SECONDS), "--json", "--quiet"],
            cwd=str(ROOT),
            capture_stdout=True,
            capture_stderr=True,
            check=False,
        )
    summary = run.stderr.decode(errors="replace")  # the human-readable summary
    report = json.loads(run.stdout)
    assert report["requests"] > 0, summary
    assert report["checked_ok"] > 0, summary
    assert report["expected_errors"] > 0, summary  # the bad input was sent, and refused as it should be
    assert report["unexpected_errors"] == 0, summary
    assert report["no_leaked_handlers"], summary
    assert report["server_exit_status"] == 0, summary
    assert run.returncode == 0, summary
