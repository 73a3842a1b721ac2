"""Three plugins that each add one middleware doing nothing: the benchmark's cost of a pipeline."""

from __future__ import annotations

from typing import Any

import mcptrio


def _noop_plugin(name: str) -> mcptrio.Registry:
    plugin = mcptrio.Registry(name)

    @plugin.use
    async def noop(request: mcptrio.Request, call_next: Any) -> dict[str, Any]:
        return await call_next(request)

    return plugin


noop1 = _noop_plugin("bench_noop1")
noop2 = _noop_plugin("bench_noop2")
noop3 = _noop_plugin("bench_noop3")
