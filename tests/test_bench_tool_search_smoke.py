"""bench/tool_search.py --smoke: every figure of the tool search benchmark is measured (no speed is
asserted), and each search finds tools."""

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BENCH = REPO / "bench" / "tool_search.py"


def test_the_smoke_run_measures_every_figure(tmp_path):
    out = tmp_path / "tool_search.json"
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
    assert set(figures) == {"no visibility configured", "a rule hiding half"}
    for figure in figures.values():
        assert set(figure) == {"index build, ms", "p50, ms", "p99, ms", "hits per search"}
        assert all(value > 0 for value in figure.values())
        assert figure["p50, ms"] <= figure["p99, ms"]
    assert "| search_tools over 500 tools, in process |" in done.stdout
