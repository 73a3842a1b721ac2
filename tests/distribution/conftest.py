import subprocess
import sys
from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def bare_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A Python with nothing installed (a venv of the base interpreter): what a bundle meets on a desktop."""
    folder = tmp_path_factory.mktemp("bare")
    base = Path(sys.base_prefix) / "bin" / f"python{sys.version_info.major}.{sys.version_info.minor}"
    subprocess.run([str(base), "-m", "venv", "--without-pip", str(folder)], check=True, timeout=60)
    python = folder / "bin" / "python"
    assert subprocess.run([str(python), "-c", "import trio"], capture_output=True).returncode != 0
    return python
