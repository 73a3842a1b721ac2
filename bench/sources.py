"""One version of mcptrio per run: a private byte-compiled copy of the sources, and a digest to tell if they changed."""

from __future__ import annotations

import compileall
import hashlib
import shutil
import subprocess
from pathlib import Path

from settings import REPO

# What a run measures, besides mcptrio itself: the bench plugin, and `everything` (the start-up figure).
PLUGINS = {
    "mcptrio_bench": REPO / "plugins" / "bench" / "mcptrio_bench",
    "mcptrio_everything": REPO / "plugins" / "everything" / "mcptrio_everything",
}


def source_state(root: Path | None = None) -> dict[str, str]:
    """The commit and a digest of mcptrio's sources and the measured plugins, uncommitted edits included;
    ``root``: a snapshot's directory instead of the work tree."""
    dirs = (
        {"mcptrio": REPO / "mcptrio", **PLUGINS}
        if root is None
        else {name: root / name for name in ("mcptrio", *PLUGINS)}
    )
    digest = hashlib.sha1()
    for name, directory in dirs.items():
        for path in sorted(directory.rglob("*.py")):
            digest.update(f"{name}/{path.relative_to(directory)}".encode() + b"\0" + path.read_bytes())
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True)
    return {"commit": commit.stdout.strip() or "unknown", "sources_sha1": digest.hexdigest()[:12]}


def snapshot_sources(workdir: Path) -> Path:
    """A private copy of mcptrio and the measured plugins, byte-compiled, for every mcptrio server of
    this run: others edit the work tree meanwhile, and one run must measure one version.  Put first
    on PYTHONPATH it shadows the editable install (whose finder comes after the path finder)."""
    snapshot = workdir / "src"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(REPO / "mcptrio", snapshot / "mcptrio", ignore=ignore)
    for name, path in PLUGINS.items():
        shutil.copytree(path, snapshot / name, ignore=ignore)
    compileall.compile_dir(str(snapshot), quiet=1)
    return snapshot
