"""bench/visibility.py --smoke: every figure of the who-sees-what benchmark is measured (no speed
is asserted), and each list variant lists the tools its caller may see."""

from .bench_smoke import smoke_run


def test_the_smoke_run_measures_every_figure(tmp_path):
    stdout, figures = smoke_run("visibility.py", tmp_path / "visibility.json")
    listed = {name: f["tools listed"] for name, f in figures.items() if "tools listed" in f}
    assert listed == {
        "show (unfiltered)": 5000,
        "filter, narrow token (2,500 shown)": 2501,
        "filter, wide token (5,000 shown)": 5000,
        "a rule, no auth (2,500 shown)": 2501,
        "no auth, no rule": 5000,
    }
    assert all(f["calls/s"] > 0 for name, f in figures.items() if name.startswith("echo"))
    in_process = [f for name, f in figures.items() if name.startswith("in process")]
    assert len(in_process) == 3 and all(value > 0 for f in in_process for value in f.values())
    assert "| in process, CPU per request" in stdout
