"""bench/stdio_threads.py --smoke: the thread-backed stdio path and the FdStream path are each
measured (no speed asserted)."""

from .bench_smoke import smoke_run


def test_the_smoke_run_measures_both_paths(tmp_path):
    stdout, figures = smoke_run("stdio_threads.py", tmp_path / "stdio.json")
    assert set(figures) == {"FdStream", "threads"}
    assert all(value > 0 for found in figures.values() for value in found.values())
    assert "| threads |" in stdout
