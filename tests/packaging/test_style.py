"""One formatter and linter for the whole tree, as the test command runs them: ``ruff format`` and
``ruff check`` with the settings in pyproject.toml ([tool.ruff]), and proof that each is live."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def ruff(*args, cwd=ROOT):
    return subprocess.run(
        [sys.executable, "-m", "ruff", *map(str, args)], cwd=cwd, capture_output=True, text=True, timeout=300
    )


def test_the_tree_is_formatted():
    done = ruff("format", "--check", ".")
    assert done.returncode == 0, f"run `ruff format .`:\n{done.stdout}{done.stderr}"


def test_the_tree_is_clean_under_the_linter():
    done = ruff("check", ".")
    assert done.returncode == 0, f"ruff check found:\n{done.stdout}{done.stderr}"


def test_both_see_a_file_that_breaks_them(tmp_path):
    (tmp_path / "pyproject.toml").write_text((ROOT / "pyproject.toml").read_text())
    (tmp_path / "bad.py").write_text("import os,sys\nx=( 1 )\n")
    assert ruff("format", "--check", ".", cwd=tmp_path).returncode == 1
    linted = ruff("check", ".", cwd=tmp_path)
    assert linted.returncode == 1 and "F401" in linted.stdout
