"""Tasks: long-running tool calls the client polls for (2026-07-28 extension and 2025-11-25 experimental).

``App(tasks=TaskRunner(max_running=..., ttl_ms=..., store=...))`` bounds and stores them; the
store is ``MemoryTaskStore`` unless another ``TaskStore`` is given (``--state`` gives Redis's).
"""

from .runner import TaskRunner
from .store import MemoryTaskStore, TaskStore

__all__ = ["MemoryTaskStore", "TaskRunner", "TaskStore"]
