"""The whole suite's order: the long tests first.

The suite runs in two processes (pytest-xdist), each taking the next test as it finishes one.  A
test of minutes that came last in the order would run alone while the other process sat idle;
started first, it runs beside everything else.  A test is marked ``long`` when it takes about ten
seconds or more (the slowest 30 are listed at the end of every full run), ``long(SECONDS)`` with
its rough time where that is much more: the longest go first.
"""

from __future__ import annotations

import pytest


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # (stable: the order within each group is the collected one, the same in every process, as
    # pytest-xdist requires)
    items.sort(key=_longest_first)


def _longest_first(item: pytest.Item) -> float:
    marker = item.get_closest_marker("long")
    if marker is None:
        return 0
    return -(marker.args[0] if marker.args else 10)
