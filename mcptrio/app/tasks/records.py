"""A task's durable state, and how each protocol revision shows it.

The record is what a store keeps (and, with shared state, what another process reads to answer
``tasks/get``): plain data, no handles.  The live parts of a running task (its cancel scope,
the handler waiting for input) stay with the runner that owns it.
"""

from __future__ import annotations

import datetime
from typing import Any

import attrs

WORKING, INPUT_REQUIRED, COMPLETED, FAILED, CANCELLED = "working", "input_required", "completed", "failed", "cancelled"
TERMINAL = frozenset({COMPLETED, FAILED, CANCELLED})

RELATED_TASK = "io.modelcontextprotocol/related-task"  # 2025-11-25 _meta key


def iso(epoch: float) -> str:
    """ISO 8601 in UTC with milliseconds, e.g. ``2026-11-25T10:30:00.000Z``."""
    moment = datetime.datetime.fromtimestamp(epoch, datetime.UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


@attrs.define(eq=False)
class TaskRecord:
    """One task: who owns it, where it stands, and its outcome once it has one."""

    task_id: str
    owner: str  # the principal's binding, and in 2025-11-25 the session (tasks/methods.owner_of)
    era: str  # "modern" (the extension) or "legacy" (2025-11-25 experimental tasks)
    method: str
    name: str | None  # the tool's name
    created_at: float  # seconds since the epoch
    updated_at: float
    ttl_ms: int | None
    poll_interval_ms: int
    status: str = WORKING
    status_message: str | None = None
    result: dict[str, Any] | None = None  # a completed task's result
    error: dict[str, Any] | None = None  # a failed task's JSON-RPC error
    input_requests: dict[str, dict[str, Any]] = attrs.field(factory=dict)  # outstanding, by key
    issued_keys: set[str] = attrs.field(factory=set)  # every input key ever issued (never reused)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able data (a shared store keeps this, and workers pass it around)."""
        data = attrs.asdict(self, recurse=False)
        data["issued_keys"] = sorted(self.issued_keys)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TaskRecord:
        return cls(**{**data, "issued_keys": set(data.get("issued_keys") or ())})

    @property
    def terminal(self) -> bool:
        return self.status in TERMINAL

    def expires_at(self) -> float:
        return float("inf") if self.ttl_ms is None else self.created_at + self.ttl_ms / 1000

    def modern(self, *, detailed: bool = True) -> dict[str, Any]:
        """The extension's ``Task`` (``DetailedTask`` when ``detailed``: with the status's payload)."""
        task: dict[str, Any] = {
            "taskId": self.task_id,
            "status": self.status,
            "createdAt": iso(self.created_at),
            "lastUpdatedAt": iso(self.updated_at),
            "ttlMs": self.ttl_ms,
            "pollIntervalMs": self.poll_interval_ms,
        }
        if self.status_message is not None:
            task["statusMessage"] = self.status_message
        if detailed:
            if self.status == INPUT_REQUIRED:
                task["inputRequests"] = dict(self.input_requests)
            elif self.status == COMPLETED and self.result is not None:
                task["result"] = self.result
            elif self.status == FAILED and self.error is not None:
                task["error"] = self.error
        return task

    def legacy(self) -> dict[str, Any]:
        """The 2025-11-25 ``Task``."""
        task: dict[str, Any] = {
            "taskId": self.task_id,
            "status": self.status,
            "createdAt": iso(self.created_at),
            "lastUpdatedAt": iso(self.updated_at),
            "ttl": self.ttl_ms,
            "pollInterval": self.poll_interval_ms,
        }
        if self.status_message is not None:
            task["statusMessage"] = self.status_message
        return task
