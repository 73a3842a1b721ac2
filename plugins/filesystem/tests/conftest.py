"""Fixtures: a workspace root with files, a directory outside it holding a secret, and both eras."""

from __future__ import annotations

import pytest
from filesystem_support import PNG, SECRET, WAV


@pytest.fixture(autouse=True)
def _no_env_roots(monkeypatch):
    monkeypatch.delenv("MCPTRIO_FS_ROOTS", raising=False)


@pytest.fixture(params=["legacy", "modern"])
def era(request):
    return request.param


@pytest.fixture
def outside(tmp_path):
    """A directory next to the workspace that no test may reach."""
    path = tmp_path / "outside"
    (path / "sub").mkdir(parents=True)
    (path / "secret.txt").write_text(SECRET + "\n")
    (path / "sub" / "deep.txt").write_text(SECRET + " deep\n")
    return path


@pytest.fixture
def workspace(tmp_path):
    """The allowed root."""
    path = tmp_path / "workspace"
    (path / "sub" / "nested").mkdir(parents=True)
    (path / "notes.txt").write_text("one\ntwo\nthree\nfour\nfive\n")
    (path / "sub" / "inner.txt").write_text("inner\n")
    (path / "sub" / "nested" / "deep.txt").write_text("deep\n")
    (path / "sub" / "code.py").write_text("print('hi')\n")
    (path / "image.png").write_bytes(PNG)
    (path / "sound.wav").write_bytes(WAV)
    (path / "data.bin").write_bytes(b"\x00\x01\x02binary\xff")
    return path
