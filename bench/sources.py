"""One version of mcptrio per run: a private byte-compiled copy of the sources, and a digest to tell if they changed."""

from __future__ import annotations

import compileall
import hashlib
import shutil
import subprocess
from pathlib import Path

from settings import REPO


def source_state(mcptrio_dir: Path = REPO / "mcptrio",
                 bench_dir: Path = REPO / "plugins" / "bench" / "mcptrio_bench") -> dict[str, str]:
    """The commit and a digest of mcptrio's sources and the bench plugin, uncommitted edits included."""
    digest = hashlib.sha1()
    for name, root in (("mcptrio", mcptrio_dir), ("mcptrio_bench", bench_dir)):
        for path in sorted(root.rglob("*.py")):
            digest.update(f"{name}/{path.relative_to(root)}".encode() + b"\0" + path.read_bytes())
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True)
    return {"commit": commit.stdout.strip() or "unknown", "sources_sha1": digest.hexdigest()[:12]}


def snapshot_sources(workdir: Path) -> Path:
    """A private copy of mcptrio and the bench plugin, byte-compiled, for every mcptrio server of
    this run: others edit the work tree meanwhile, and one run must measure one version.  Put first
    on PYTHONPATH it shadows the editable install (whose finder comes after the path finder)."""
    snapshot = workdir / "src"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(REPO / "mcptrio", snapshot / "mcptrio", ignore=ignore)
    shutil.copytree(REPO / "plugins" / "bench" / "mcptrio_bench", snapshot / "mcptrio_bench", ignore=ignore)
    compileall.compile_dir(str(snapshot), quiet=1)
    return snapshot
