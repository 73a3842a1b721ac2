"""Where task records live: an interface, and the in-memory store that is the default.

A store holds records only; it never runs anything.  Its operations are async so that a store
in Redis (redis_store.py) fits the same shape: ``create`` returns once the record is durable (the
extension requires that before ``CreateTaskResult`` is sent), ``save`` writes a record back, and
``claim``/``release`` are the lease a runner holds on the tasks it runs, so another process can
tell a live task from an orphan.
"""

from __future__ import annotations

from typing import Protocol

from .records import TaskRecord


class TaskStore(Protocol):
    async def create(self, record: TaskRecord) -> None: ...

    async def get(self, task_id: str) -> TaskRecord | None: ...

    async def save(self, record: TaskRecord) -> None: ...

    async def delete(self, task_id: str) -> None: ...

    async def owned_by(self, owner: str) -> list[TaskRecord]: ...

    async def expired(self, now: float) -> list[str]: ...

    async def claim(self, task_id: str, runner: str, seconds: float) -> bool: ...

    async def release(self, task_id: str, runner: str) -> None: ...


class MemoryTaskStore:
    """Records in a dict: one process, nothing survives a restart."""

    def __init__(self) -> None:
        self._records: dict[str, TaskRecord] = {}
        self._leases: dict[str, str] = {}

    def __len__(self) -> int:
        return len(self._records)

    async def create(self, record: TaskRecord) -> None:
        if record.task_id in self._records:
            raise KeyError(f"task {record.task_id} exists")
        self._records[record.task_id] = record

    async def get(self, task_id: str) -> TaskRecord | None:
        return self._records.get(task_id)

    async def save(self, record: TaskRecord) -> None:
        if record.task_id in self._records:  # (a reaped task stays gone)
            self._records[record.task_id] = record

    async def delete(self, task_id: str) -> None:
        self._records.pop(task_id, None)
        self._leases.pop(task_id, None)

    async def owned_by(self, owner: str) -> list[TaskRecord]:
        return sorted((r for r in self._records.values() if r.owner == owner), key=lambda r: r.created_at)

    async def expired(self, now: float) -> list[str]:
        return [task_id for task_id, r in self._records.items() if r.expires_at() <= now]

    async def claim(self, task_id: str, runner: str, seconds: float) -> bool:
        holder = self._leases.get(task_id)
        if holder is not None and holder != runner:
            return False
        self._leases[task_id] = runner
        return True

    async def release(self, task_id: str, runner: str) -> None:
        if self._leases.get(task_id) == runner:
            del self._leases[task_id]
