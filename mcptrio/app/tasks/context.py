"""The ``Context`` a handler gets when it runs as a task: the same calls, other plumbing.

* Asking the client (``elicit``, ``sample``, ``list_roots``): in 2026-07-28 the request becomes
  the task's ``inputRequests`` (status ``input_required``) and the handler waits until
  ``tasks/update`` brings every answer; in a 2025-11-25 session it is sent to the client at
  once, tagged with the related task, while the task shows ``input_required``.  Answers
  gathered by multi round-trip before the task existed are returned as they were.
* Progress and log messages: not sent for 2026-07-28 tasks (the extension has no place for
  them); tagged with the related task in 2025-11-25.
* ``start_task()`` returns at once: this is the task.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import attrs

from ..context import Context
from .records import RELATED_TASK, WORKING

if TYPE_CHECKING:
    from .runner import LiveTask, TaskRunner


class TaskContext(Context):
    """A ``Context`` for a handler running in task ``live``."""

    def __init__(self, base: Context, live: LiveTask, runner: TaskRunner, deadline: float) -> None:
        # The request's own route ends with its answer (the CreateTaskResult): a task's messages
        # to a 2025-11-25 client go where messages for no request go (the session's stream).
        request = attrs.evolve(base.incoming, route=None, batch=None, progress_token=base.incoming.progress_token)
        super().__init__(base.session, request, deadline, dict(base.input_responses), base.app)
        self._live = live
        self._runner = runner
        self._key_map: dict[str, str] = {}  # the handler's key -> the key on the wire, unique in the task

    @property
    def task_id(self) -> str:
        return self._live.record.task_id

    async def start_task(self) -> None:
        return None  # already one

    async def set_status_message(self, message: str) -> None:
        """Shown to the client with the task's status (``statusMessage``)."""
        self._live.record.status_message = message
        await self._runner.state_changed(self._live)

    async def progress(self, progress: float, total: float | None = None, message: str | None = None) -> None:
        if self.era == "legacy":
            await super().progress(progress, total, message)
        elif message is not None:
            await self.set_status_message(message)

    async def log(self, level: str, data: Any, logger: str | None = None) -> None:
        if self.era == "legacy":
            await super().log(level, data, logger)

    async def ask_many(self, requests: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
        for request in requests.values():
            self._check_capability(request["method"], request["params"])
        answers = {k: self._input_responses[k] for k in requests if k in self._input_responses}
        wanted = {k: r for k, r in requests.items() if k not in answers}
        if not wanted:
            return answers
        if self.era == "legacy":
            return {**answers, **await self._ask_session(wanted)}
        on_wire: dict[str, dict[str, Any]] = {}
        for key, request in wanted.items():
            wire = self._runner.fresh_key(self._live, key)
            self._key_map[key] = wire
            on_wire[wire] = request
        got = await self._runner.ask(self._live, on_wire)
        return {**answers, **{key: got[self._key_map[key]] for key in wanted}}

    async def _ask_session(self, requests: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
        """2025-11-25: straight to the client, tagged with the task, shown as ``input_required``."""
        record = self._live.record
        record.status = "input_required"
        await self._runner.state_changed(self._live)
        meta = {RELATED_TASK: {"taskId": record.task_id}}
        try:
            return {
                key: await self._session.call_client(r["method"], {**r["params"], "_meta": meta}, None)
                for key, r in requests.items()
            }
        finally:
            if record.status == "input_required":
                record.status = WORKING
                await self._runner.state_changed(self._live)
