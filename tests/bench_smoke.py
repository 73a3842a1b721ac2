"""Running a benchmark script of bench/ in its smoke mode, as its smoke tests do."""

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent


def smoke_run(script: str, out: Path, timeout: float = 300, options: tuple[str, ...] = ()) -> tuple[str, Any]:
    """``bench/<script> --smoke --out <out> [options]`` in a fresh interpreter (the installed mcptrio, not a
    PYTHONPATH of the test run's): its stdout and the figures it wrote, once it exited 0."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run(
        [sys.executable, str(REPO / "bench" / script), "--smoke", "--out", str(out), *options],
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
        cwd=REPO,
        env=env,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-6000:]
    return done.stdout, json.loads(out.read_text())
