"""Exception groups as Trio's nurseries make them, taken apart for a one-line error."""

from __future__ import annotations

from typing import Any


def leaves(group: BaseExceptionGroup[Any]) -> list[BaseException]:
    """The exceptions inside ``group``, however deeply the nurseries nested it."""
    out: list[BaseException] = []
    for exc in group.exceptions:
        out.extend(leaves(exc) if isinstance(exc, BaseExceptionGroup) else [exc])
    return out


def first(group: BaseExceptionGroup[Any]) -> Any:
    """The first exception inside ``group`` (what an ``except*`` clause matched)."""
    return leaves(group)[0]
