"""``mcptrio new NAME`` writes a plugin package that installs and passes its own tests at once."""

import os
import site
import subprocess
import sys
import venv

import pytest

MCPTRIO = [sys.executable, "-m", "mcptrio"]


@pytest.mark.long
def test_new_then_its_readme_commands_pass(tmp_path):
    done = subprocess.run([*MCPTRIO, "new", "demo", "--dir", str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    package = tmp_path / "demo"
    readme = (package / "README.md").read_text()
    assert "pip install -e '.[test]' && pytest" in readme and "mcptrio serve --plugins demo" in readme
    # A fresh virtualenv that sees this one's packages (the local mcptrio, pytest, trio) through a
    # .pth file: pip installs just the new package (its build backend from PyPI, as for any install).
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=False)  # (pip comes from this venv, through the .pth)
    python = env_dir / "bin" / "python"
    target_site = subprocess.run(
        [str(python), "-c", "import site; print(site.getsitepackages()[0])"], capture_output=True, text=True, check=True
    ).stdout.strip()
    with open(os.path.join(target_site, "outer.pth"), "w") as pth:  # (addsitedir: its .pth files count too)
        pth.write("".join(f"import site; site.addsitedir({path!r})\n" for path in site.getsitepackages()))
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PATH"] = f"{env_dir / 'bin'}:{env['PATH']}"
    install = subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "--no-deps", "-e", "."],
        cwd=package,
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert install.returncode == 0, install.stdout + install.stderr
    tests = subprocess.run(
        [str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        cwd=package,
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert tests.returncode == 0, tests.stdout + tests.stderr
    assert "6 passed" in tests.stdout  # greet in 2 eras; resource and prompt in 2 eras × 2 transports
    served = subprocess.run(
        [str(python), "-m", "mcptrio", "call", "--plugins", "demo", "greet", "name=Ada"],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert served.stdout.strip() == "Hello, Ada!", served.stderr


def test_a_bad_name_or_an_existing_folder_is_one_line_and_exit_2(tmp_path):
    for name in ("Demo", "9lives", "class", "a-b"):
        done = subprocess.run([*MCPTRIO, "new", name, "--dir", str(tmp_path)], capture_output=True, text=True)
        assert done.returncode == 2 and "a plugin name is lower-case" in done.stderr
    (tmp_path / "taken").mkdir()
    done = subprocess.run([*MCPTRIO, "new", "taken", "--dir", str(tmp_path)], capture_output=True, text=True)
    assert done.returncode == 2 and "exists already" in done.stderr
