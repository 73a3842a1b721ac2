"""The type checker, as the test command runs it: ``mypy`` strict on the whole package, with the
settings in pyproject.toml ([tool.mypy]); and proof that the check is live, by a small user
module that misuses the public API and must fail it.

mypy keeps its cache in .mypy_cache at the root (git ignores it), so a second run takes a second.
"""

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def mypy(*args):
    """``python -m mypy`` from the repository root, with its configuration from pyproject.toml."""
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", "pyproject.toml", *map(str, args)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.mark.long
def test_the_package_is_clean_under_strict_mypy():
    done = mypy()  # the files: [tool.mypy] files, the mcptrio package
    assert done.returncode == 0, f"mypy found errors:\n{done.stdout}{done.stderr}"


def test_misusing_the_public_api_fails_the_check(tmp_path):
    user = tmp_path / "user_module.py"
    user.write_text(
        textwrap.dedent("""\
        import mcptrio

        app = mcptrio.App(123)


        @app.tool()
        async def add(a: int, b: int) -> int:
            return a + b


        async def main() -> None:
            await add("one", 2)


        def version() -> int:
            return mcptrio.__version__
        """)
    )
    done = mypy(user)
    output = done.stdout + done.stderr
    assert done.returncode == 1, output
    # The App's own signature; a decorated tool keeps its signature; a lazily imported name its type.
    assert 'user_module.py:3: error: Argument 1 to "App" has incompatible type "int"; expected "str"' in output
    assert 'user_module.py:12: error: Argument 1 to "add" has incompatible type "str"; expected "int"' in output
    assert 'user_module.py:16: error: Incompatible return value type (got "str", expected "int")' in output
    assert "Found 3 errors in 1 file" in output
