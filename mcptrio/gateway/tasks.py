"""An upstream's tasks (the 2026-07-28 tasks extension), handed to the caller as they are.

A call whose caller declares the extension is forwarded with it; a ``CreateTaskResult`` the
upstream answers goes back to the caller with the task's id prefixed by the upstream's name
(``NAME+id``), and the caller's ``tasks/get``, ``tasks/update`` and ``tasks/cancel`` for such an id
go to that upstream with its own id.  A caller that does not speak the extension gets the task's
result, followed to its end by the gateway.
"""

from __future__ import annotations

from typing import Any, TypeVar

from ..app.tasks.methods import EXTENSION

__all__ = ["EXTENSION", "METHODS", "served", "upstream_of"]

METHODS = ("tasks/get", "tasks/update", "tasks/cancel", "tasks/result")
SEPARATOR = "+"

L = TypeVar("L")


def served(name: str, result: dict[str, Any]) -> dict[str, Any]:
    """``result`` with the ids of the tasks in it as the caller knows them."""
    for holder in (result, result.get("task")):
        if isinstance(holder, dict) and isinstance(holder.get("taskId"), str):
            holder["taskId"] = f"{name}{SEPARATOR}{holder['taskId']}"
    return result


def upstream_of(params: dict[str, Any], links: dict[str, L]) -> tuple[L, dict[str, Any]] | None:
    """The link whose task ``params`` names, and the params with the upstream's own id; None for
    a task that is not an upstream's."""
    task_id = params.get("taskId")
    if not isinstance(task_id, str) or SEPARATOR not in task_id:
        return None
    name, _, own = task_id.partition(SEPARATOR)
    link = links.get(name)
    return None if link is None else (link, {**params, "taskId": own})
