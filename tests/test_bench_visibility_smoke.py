"""bench/visibility.py --smoke: every figure of the who-sees-what benchmark is measured (no speed
is asserted), and each list variant lists the tools its caller may see."""

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BENCH = REPO / "bench" / "visibility.py"


def test_the_smoke_run_measures_every_figure(tmp_path):
    out = tmp_path / "visibility.json"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run(
        [sys.executable, str(BENCH), "--smoke", "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
        stdin=subprocess.DEVNULL,
        cwd=REPO,
        env=env,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-6000:]
    figures = json.loads(out.read_text())
    listed = {name: f["tools listed"] for name, f in figures.items() if "tools listed" in f}
    assert listed == {
        "show (unfiltered)": 5000,
        "filter, narrow token (2,500 shown)": 2501,
        "filter, wide token (5,000 shown)": 5000,
        "a rule, no auth (2,500 shown)": 2501,
        "no auth, no rule": 5000,
    }
    assert all(f["calls/s"] > 0 for name, f in figures.items() if name.startswith("echo"))
    in_process = [f for name, f in figures.items() if name.startswith("in process")]
    assert len(in_process) == 3 and all(value > 0 for f in in_process for value in f.values())
    assert "| in process, CPU per request" in done.stdout
