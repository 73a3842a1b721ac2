"""``mcptrio bundle --platform TAG``: the packages pip installs as wheels for that platform (here this
machine's, from its indexes, offline) into ``server/lib-<sys.platform>``, which the start script picks;
the bundle checked by the official MCPB CLI and started by a Python with nothing installed."""

import subprocess
import sys
from pathlib import Path

from .installing import call, client_command, installed

HOST_TAG = "manylinux2014_x86_64"


async def test_a_platform_bundle_starts_from_its_own_lib_folder(tmp_path: Path, bare_python: Path) -> None:
    bundle = tmp_path / "everything.mcpb"
    command = [
        sys.executable,
        "-m",
        "mcptrio.cli",
        "bundle",
        "everything",
        "--platform",
        HOST_TAG,
        "--out",
        str(bundle),
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    folder = tmp_path / "installed"
    manifest = installed(bundle, folder)
    assert (folder / "server" / "lib-linux").is_dir() and not (folder / "server" / "lib").exists()
    assert manifest["compatibility"]["platforms"] == ["linux"]
    argv, env = client_command(manifest, folder, {}, bare_python)
    text, error = await call(argv, env, tmp_path, "greet", {"name": "wheels"})
    assert not error and text == "Hello, wheels!"
