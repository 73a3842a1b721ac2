"""bench/openapi.py --smoke: every figure of the openapi benchmark is measured (no speed is asserted):
a tool's call against the same request sent with httpx, and GitHub's REST description loaded whole."""

from .bench_smoke import smoke_run


def test_the_smoke_run_measures_every_figure(tmp_path):
    stdout, figures = smoke_run("openapi.py", tmp_path / "openapi.json")
    for name in ("httpx, direct", "tool call, in process"):
        assert figures[name]["p50, ms"] > 0 and figures[name]["p99, ms"] >= figures[name]["p50, ms"]
        assert figures[name]["CPU per call, ms"] > 0
    assert set(figures["added by the tool"]) == {"p50, ms", "p99, ms", "CPU per call, ms"}
    github = figures["GitHub REST description"]
    assert github["tools"] == 1223 and github["skipped"] == 0 and github["load, s"] > 0
    assert "| tool call, in process |" in stdout and "1223 tools, 0 skipped" in stdout
