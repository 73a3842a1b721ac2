"""Installed the way a user installs: the sdists and wheels of mcptrio and of every first-party
plugin are built (``python -m build``) and checked (``twine check``), the wheels installed into a
fresh virtualenv that cannot see this checkout (their dependencies from PyPI, held to
constraints.txt), and the installed command is tried: serving needs no extra, the client commands
name theirs."""

import json
import os
import subprocess
import sys
import venv
from importlib.metadata import version
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = [ROOT, *sorted(p for p in (ROOT / "plugins").iterdir() if (p / "pyproject.toml").exists())]


def run(*args, **kwargs):
    done = subprocess.run([str(a) for a in args], capture_output=True, text=True, timeout=600, **kwargs)
    assert done.returncode == 0, f"{args}: {done.stdout[-3000:]}{done.stderr[-3000:]}"
    return done


@pytest.mark.long(40)
def test_the_wheels_install_and_serve_without_the_checkout(tmp_path):
    dist = tmp_path / "dist"
    for package in PACKAGES:
        run(sys.executable, "-m", "build", "--sdist", "--wheel", "--outdir", dist, package)
    built = sorted(path.name for path in dist.iterdir())
    assert len([name for name in built if name.endswith(".whl")]) == len(PACKAGES), built
    assert len([name for name in built if name.endswith(".tar.gz")]) == len(PACKAGES), built
    run(sys.executable, "-m", "twine", "check", "--strict", *sorted(dist.iterdir()))
    wheel = next(dist.glob("mcptrio-*.whl"))
    listing = run(sys.executable, "-m", "zipfile", "-l", wheel).stdout
    assert "mcptrio/py.typed" in listing
    assert "licenses/LICENSE" in listing
    metadata = run(
        sys.executable,
        "-c",
        "import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); "
        "print(z.read(next(n for n in z.namelist() if n.endswith('.dist-info/METADATA'))).decode())",
        wheel,
    ).stdout
    assert "License-Expression: MIT" in metadata
    assert "Classifier: Framework :: Trio" in metadata and "Classifier: Typing :: Typed" in metadata
    assert "Project-URL: Documentation, " in metadata and "Project-URL: Source, " in metadata
    for extra in ("auth", "otel", "redis", "client", "dev", "docs", "search"):
        assert f"Provides-Extra: {extra}" in metadata, extra

    env_dir = tmp_path / "user"
    venv.create(env_dir, with_pip=True)
    python = env_dir / "bin" / "python"
    clean = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    run(
        python,
        "-m",
        "pip",
        "install",
        "-q",
        "-c",
        ROOT / "constraints.txt",
        *sorted(dist.glob("*.whl")),
        cwd=tmp_path,
        env=clean,
    )
    where = run(python, "-c", "import mcptrio; print(mcptrio.__file__)", cwd=tmp_path, env=clean).stdout
    assert str(env_dir) in where and str(ROOT) not in where, where

    mcptrio = env_dir / "bin" / "mcptrio"
    expected = f"mcptrio {version('mcptrio')}"
    assert run(mcptrio, "--version", cwd=tmp_path, env=clean).stdout.strip() == expected
    plugins = run(mcptrio, "plugins", cwd=tmp_path, env=clean).stdout
    listed = {line.split()[0]: line.split()[1:3] for line in plugins.splitlines()}
    assert listed.keys() >= {"bench", "everything", "filesystem"}
    assert listed["everything"] == ["mcptrio-everything", version("mcptrio-everything")]  # distribution, version
    discover = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "server/discover",
        "params": {
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
                "io.modelcontextprotocol/clientInfo": {"name": "smoke", "version": "1"},
            }
        },
    }
    initialize = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "smoke", "version": "1"},
        },
    }
    served = run(
        mcptrio,
        "serve",
        "--plugins",
        "everything",
        cwd=tmp_path,
        env=clean,
        input=json.dumps(discover) + "\n" + json.dumps(initialize) + "\n",
    )
    answers = {message["id"]: message for message in map(json.loads, served.stdout.splitlines())}
    assert "2026-07-28" in answers[1]["result"]["supportedVersions"]
    assert answers[2]["result"]["protocolVersion"] == "2025-11-25"
    assert answers[2]["result"]["serverInfo"]["name"] == "everything"

    # The client commands are the `cli` extra (rich), which a plain install lacks: one line says so.
    assert (
        run(
            python, "-c", "import importlib.util; print(importlib.util.find_spec('rich'))", cwd=tmp_path, env=clean
        ).stdout.strip()
        == "None"
    )
    listed = subprocess.run(
        [str(mcptrio), "list", "--plugins", "bench"],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,
        env=clean,
    )
    assert (listed.returncode, listed.stderr.strip()) == (
        2,
        "mcptrio: error: the client commands need rich: pip install 'mcptrio[cli]'",
    )
