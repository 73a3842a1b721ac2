"""``mcptrio bundle --platform TAG``: the packages pip installs as wheels for each named platform (here
from this machine's package indexes, offline) into ``server/lib-<sys.platform>``, which the start script
picks; the bundle checked by the official MCPB CLI and started by a Python with nothing installed (the
Linux one: the Windows folder is checked for what Windows needs, not run)."""

import subprocess
import sys
from pathlib import Path

import pytest

from .installing import call, client_command, installed


@pytest.mark.long
async def test_a_bundle_for_two_platforms_starts_from_its_own_lib_folder(tmp_path: Path, bare_python: Path) -> None:
    bundle = tmp_path / "everything.mcpb"
    tags = ["--platform", "manylinux2014_x86_64", "--platform", "win_amd64"]
    command = [sys.executable, "-m", "mcptrio.cli", "bundle", "everything", *tags, "--out", str(bundle)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    folder = tmp_path / "installed"
    manifest = installed(bundle, folder)
    assert manifest["compatibility"]["platforms"] == ["linux", "win32"]
    server = folder / "server"
    assert sorted(p.name for p in server.iterdir() if p.is_dir()) == ["lib-linux", "lib-win32"]
    # Windows gets Windows wheels, and what only Windows needs (trio's cffi); Linux does not
    assert list((server / "lib-win32").glob("_cffi_backend.*.pyd")) and list(
        (server / "lib-win32").glob("orjson/*.pyd")
    )
    assert not list((server / "lib-linux").glob("_cffi_backend*")) and list((server / "lib-linux").glob("orjson/*.so"))
    argv, env = client_command(manifest, folder, {}, bare_python)
    text, error = await call(argv, env, tmp_path, "greet", {"name": "wheels"})
    assert not error and text == "Hello, wheels!"
