"""bench/tool_search.py --smoke: every figure of the tool search benchmark is measured (no speed is
asserted), and each search finds tools."""

from .bench_smoke import smoke_run


def test_the_smoke_run_measures_every_figure(tmp_path):
    stdout, figures = smoke_run("tool_search.py", tmp_path / "tool_search.json")
    assert set(figures) == {"no visibility configured", "a rule hiding half"}
    for figure in figures.values():
        assert set(figure) == {"index build, ms", "p50, ms", "p99, ms", "hits per search"}
        assert all(value > 0 for value in figure.values())
        assert figure["p50, ms"] <= figure["p99, ms"]
    assert "| search_tools over 500 tools, in process |" in stdout
