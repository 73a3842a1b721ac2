"""The layering of DESIGN.md is a check: import-linter contracts in pyproject.toml."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def lint_imports(tree: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(LINT_IMPORTS), "--config", str(tree / "pyproject.toml"), "--no-cache"],
        cwd=tree,
        env={"PYTHONPATH": str(tree), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_layers_and_acyclic_contracts_are_kept() -> None:
    done = lint_imports(ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    import tomllib

    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    assert f"{len(contracts)} kept, 0 broken" in done.stdout


def _copy_tree(tmp_path: Path) -> Path:
    shutil.copytree(ROOT / "mcptrio", tmp_path / "mcptrio", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    return tmp_path


def test_a_type_checking_import_of_the_app_from_the_runtime_breaks_the_layers(tmp_path: Path) -> None:
    tree = _copy_tree(tmp_path)
    worker = tree / "mcptrio" / "runtime" / "core.py"
    worker.write_text(
        worker.read_text().replace("if TYPE_CHECKING:\n", "if TYPE_CHECKING:\n    from ..app import App\n", 1)
    )
    done = lint_imports(tree)
    assert done.returncode == 1
    assert "mcptrio's layers: each imports only from those below it BROKEN" in done.stdout
    assert "mcptrio.runtime.core -> mcptrio.app" in done.stdout


def test_a_cycle_between_two_modules_of_one_package_is_refused(tmp_path: Path) -> None:
    tree = _copy_tree(tmp_path)
    registry = tree / "mcptrio" / "app" / "context.py"
    registry.write_text(
        registry.read_text().replace("if TYPE_CHECKING:\n", "if TYPE_CHECKING:\n    from .app import App\n", 1)
    )
    done = lint_imports(tree)
    assert done.returncode == 1
    assert "no import cycles among the modules of any package BROKEN" in done.stdout
