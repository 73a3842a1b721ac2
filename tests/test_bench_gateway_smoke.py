"""bench/gateway.py --smoke: every figure of the gateway benchmark is measured (no speed is
asserted): direct, through the gateway with a stdio and an HTTP upstream (and FastMCP's proxy where
it is installed), and the CPU other processes used meanwhile."""

import pytest

from .bench_smoke import smoke_run


@pytest.mark.long
def test_the_smoke_run_measures_every_figure(tmp_path):
    stdout, figures = smoke_run("gateway.py", tmp_path / "gateway.json")
    load = figures.pop("load")  # (the CPU other processes used meanwhile: how loaded the machine was)
    assert load["foreign_cpu_s"] >= 0 and load["wall_s"] > 0
    assert "other processes used" in stdout
    assert {"direct", "gateway, stdio upstream", "gateway, HTTP upstream"} <= set(figures)
    for variant, found in figures.items():
        assert found["p50 µs"] > 0 and found["calls/s, 10 clients"] > 0 and found["calls/s, 100 callers"] > 0, variant
        assert found["server CPU µs per call, 1 client"] > 0, variant  # (every process serving it, upstream too)
    assert figures["direct"]["added p50 µs"] == 0
    assert "| gateway, stdio upstream |" in stdout
