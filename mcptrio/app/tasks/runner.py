"""The task runner: task workers in a nursery of the server's own, not of the request.

A task outlives the request that created it and the connection it came on: its worker runs in
a nursery the runner opens in a Trio system task on first use (so it lasts as long as the Trio
run, whatever transport or test started it), each in its own cancel scope, with the tool's
deadline if it declares one.  ``nursery.start_soon`` gives the worker a copy of the creating
request's context, so its span and baggage follow it.

The runner owns the live side of its tasks (cancel scopes, handlers waiting for input); the
store owns the records.  Every change goes through ``_changed``: saved, then told to whoever
listens (``notifications/tasks`` streams, legacy sessions).
"""

from __future__ import annotations

import logging
import math
import secrets
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import attrs
import trio

from ...protocol import errors
from ...protocol.errors import McpError
from ...state import StateUnavailable
from .records import CANCELLED, COMPLETED, FAILED, INPUT_REQUIRED, WORKING, TaskRecord
from .store import MemoryTaskStore, TaskStore

if TYPE_CHECKING:
    from ...state.fanout import FanoutMessage
    from ...state.redis import RedisState

log = logging.getLogger("mcptrio.tasks")

LEASE_RENEWAL = 3.0  # seconds between renewals of a shared store's leases (they last 10 s)

Work = Callable[["LiveTask"], Awaitable[dict[str, Any]]]
Listener = Callable[[TaskRecord], None]


@attrs.define(eq=False)
class LiveTask:
    """A running task's handles: its scope, the answers it waits for, and its end."""

    record: TaskRecord
    scope: trio.CancelScope
    answers: dict[str, dict[str, Any]] = attrs.field(factory=dict)  # wire key -> the client's result
    answered: trio.Event = attrs.field(factory=trio.Event)  # set (and replaced) when answers arrive
    done: trio.Event = attrs.field(factory=trio.Event)
    cancel_requested: bool = False


class TaskRunner:
    """Creates, runs, cancels and reaps tasks; answers what the task methods ask of it."""

    def __init__(
        self,
        store: TaskStore | None = None,
        *,
        max_running: int = 10_000,
        ttl_ms: int | None = 3_600_000,
        poll_interval_ms: int = 1000,
        reap_interval: float = 60.0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        """``clock``: seconds since the epoch (tests pass one that follows Trio's MockClock)."""
        if max_running < 1:
            raise ValueError(f"max_running must be at least 1, got {max_running!r}")
        self.store: TaskStore = store if store is not None else MemoryTaskStore()
        self.max_running = max_running
        self.ttl_ms = ttl_ms
        self.poll_interval_ms = poll_interval_ms
        self.reap_interval = reap_interval
        self.clock = clock
        self.name = secrets.token_hex(8)  # this runner, as the holder of its tasks' leases
        self.live: dict[str, LiveTask] = {}
        self.listeners: list[Listener] = []
        self._nursery: trio.Nursery | None = None
        self._root: object = None  # the Trio run the nursery belongs to
        self._creating = 0
        self.shared: RedisState | None = None  # tasks shared with other processes (share())

    # -- several processes -------------------------------------------------------------------

    def share(self, shared: RedisState) -> None:
        """Keep records in the shared state; cancellations and answers for a task running in
        another process go there through the fan-out; a task whose process died is failed."""
        from .redis_store import RedisTaskStore  # (coredis is an optional dependency)

        if isinstance(self.store, MemoryTaskStore) and not len(self.store):
            self.store = RedisTaskStore(shared, self.name)
        self.shared = shared
        shared.subscribe(self._on_fanout)

    def _on_fanout(self, message: FanoutMessage) -> None:
        """Another worker asks to cancel or answer a task that runs here."""
        from ...state.fanout import TaskCancelRequested, TaskInputDelivered

        if not isinstance(message, (TaskCancelRequested, TaskInputDelivered)):
            return
        live = self.live.get(message.task_id)
        if live is None:
            return
        if isinstance(message, TaskCancelRequested):
            live.cancel_requested = True
            live.scope.cancel()
        elif self._nursery is not None:
            self._nursery.start_soon(self.update, live.record, message.responses)

    async def _relay(self, message: Callable[[Any], FanoutMessage]) -> None:
        """To the process running the task, if it may be another (``message``: as ``App._changed_everywhere``'s)."""
        if self.shared is not None:
            from ...state import fanout

            await self.shared.tell(message(fanout), "a task message")

    async def _keep_leases(self) -> None:
        """Renew the leases of the tasks running here (a shared store's), while they run."""
        renew = getattr(self.store, "renew", None)
        while renew is not None:
            await trio.sleep(LEASE_RENEWAL)
            try:
                await renew(list(self.live), self.name)
            except StateUnavailable as exc:
                log.warning("task leases not renewed: %s", exc)

    async def _orphaned(self, record: TaskRecord) -> TaskRecord:
        """A task not running here: if no process holds its lease any more, the one that ran it
        is gone; it is failed (never silently run again)."""
        holder = getattr(self.store, "holder", None)
        if holder is None or record.terminal or record.task_id in self.live or await holder(record.task_id):
            return record
        # No lease.  A runner saves a task's terminal record before it lets the lease go, so the
        # record read before that check may just be stale: read it again, and fail only a task
        # still unfinished (else a poll racing the task's end turned "completed" into "failed").
        current = await self.store.get(record.task_id)
        if current is None or current.terminal:
            return current or record
        record = current
        record.status = FAILED
        record.status_message = "the worker running this task stopped before it finished; it was not re-run"
        record.error = errors.internal_error(record.status_message).to_dict()
        record.input_requests = {}
        await self._changed(record)
        return record

    # -- creating ---------------------------------------------------------------------------

    async def create(
        self,
        *,
        owner: str,
        era: str,
        method: str,
        name: str | None,
        work: Work,
        ttl_ms: int | None = None,
        timeout: float | None = None,
    ) -> TaskRecord:
        """Record a task durably, start ``work`` on it, and return the record (status ``working``)."""
        if len(self.live) + self._creating >= self.max_running:
            raise errors.unavailable(f"server busy: {self.max_running} tasks running; retry later")
        now = self.clock()
        ttl = self.ttl_ms if ttl_ms is None else min(ttl_ms, self.ttl_ms or ttl_ms)
        record = TaskRecord(
            task_id=secrets.token_urlsafe(24),
            owner=owner,
            era=era,
            method=method,
            name=name,
            created_at=now,
            updated_at=now,
            ttl_ms=ttl,
            poll_interval_ms=self.poll_interval_ms,
        )
        self._creating += 1  # (the awaits below must not let others past the bound meanwhile)
        try:
            await self.store.create(record)
            await self.store.claim(record.task_id, self.name, math.inf)  # (a shared store: renewed)
            nursery = await self._home()
        finally:
            self._creating -= 1
        deadline = trio.current_time() + timeout if timeout is not None else math.inf
        live = LiveTask(record, trio.CancelScope(deadline=deadline))
        self.live[record.task_id] = live
        nursery.start_soon(self._run, live, work, name=f"task {record.task_id[:8]} {name}")
        return record

    async def _home(self) -> trio.Nursery:
        """The nursery of this Trio run's tasks, opened in a system task on first use."""
        root = trio.lowlevel.current_root_task()
        if self._nursery is None or self._root is not root:
            self._root = root
            self._nursery = None
            self.live = {}  # (a task of an earlier Trio run ended with it)
            ready: trio.Event = trio.Event()
            trio.lowlevel.spawn_system_task(self._host, ready)
            await ready.wait()
        assert self._nursery is not None
        return self._nursery

    async def _host(self, ready: trio.Event) -> None:
        try:
            async with trio.open_nursery() as nursery:
                self._nursery = nursery
                ready.set()
                nursery.start_soon(self._reap_forever)
                if self.shared is not None:
                    nursery.start_soon(self._keep_leases)
                await trio.sleep_forever()
        except BaseException as exc:  # the run is ending (Cancelled), or a bug: never take the run down
            _, other = (
                exc.split(trio.Cancelled)
                if isinstance(exc, BaseExceptionGroup)
                else (None, None if isinstance(exc, trio.Cancelled) else exc)
            )
            if other is not None:
                log.error("the task runner failed", exc_info=other)
        finally:
            self._nursery = None

    async def _run(self, live: LiveTask, work: Work) -> None:
        record = live.record
        outcome: tuple[str, Any] = (CANCELLED, None)
        try:
            with live.scope:
                result = await work(live)
                outcome = (COMPLETED, result)
            if live.scope.cancelled_caught and not live.cancel_requested:
                outcome = (FAILED, errors.internal_error("the task ran out of time").to_dict())
        except McpError as err:
            outcome = (FAILED, err.to_dict())
        except Exception:
            log.exception("task %s (%s) failed", record.task_id, record.name)
            outcome = (FAILED, errors.internal_error().to_dict())
        finally:
            self.live.pop(record.task_id, None)
            with trio.CancelScope(shield=True):
                await self._finish(live, *outcome)
                await self.store.release(record.task_id, self.name)
            live.done.set()

    async def _finish(self, live: LiveTask, status: str, value: Any) -> None:
        record = live.record
        if record.terminal:  # (a legacy cancel settled it already)
            return
        if live.cancel_requested:
            status, value = CANCELLED, None
        record.status = status
        record.input_requests = {}
        if status == COMPLETED:
            record.result = value
            if record.era == "legacy" and isinstance(value, dict) and value.get("isError") is True:
                record.status = FAILED  # 2025-11-25: an isError tool result fails the task
                record.status_message = "the tool reported an error"
        elif status == FAILED:
            record.error = value
            record.status_message = value.get("message") if isinstance(value, dict) else None
        elif status == CANCELLED:
            record.status_message = "the task was cancelled"
        await self._changed(record)

    # -- what a running task asks ------------------------------------------------------------

    async def ask(self, live: LiveTask, requests: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
        """Put ``requests`` (by wire key) to the client as ``inputRequests`` and wait for every answer."""
        record = live.record
        for key, request in requests.items():
            record.input_requests[key] = request
            record.issued_keys.add(key)
        record.status = INPUT_REQUIRED
        await self._changed(record)
        while not all(key in live.answers for key in requests):
            await live.answered.wait()
        for key in requests:
            record.input_requests.pop(key, None)
        if not record.input_requests:
            record.status = WORKING
        await self._changed(record)
        return {key: live.answers.pop(key) for key in requests}

    def fresh_key(self, live: LiveTask, wanted: str) -> str:
        """``wanted``, or a variant of it never issued before in this task (keys are never reused)."""
        key, n = wanted, 1
        while key in live.record.issued_keys:
            n += 1
            key = f"{wanted}~{n}"
        return key

    async def state_changed(self, live: LiveTask) -> None:
        """The handler changed ``live.record`` (a status message, say): save and tell."""
        await self._changed(live.record)

    # -- what the task methods ask -------------------------------------------------------------

    async def find(self, task_id: Any, owner: str) -> TaskRecord:
        """The task ``task_id`` of ``owner``; anyone else's, an unknown or an expired id: -32602, alike."""
        record = await self.store.get(task_id) if isinstance(task_id, str) else None
        if record is None or record.owner != owner or record.expires_at() <= self.clock():
            raise errors.invalid_params("unknown task id (it never existed, has expired, or is not yours)")
        if self.shared is not None:
            record = await self._orphaned(record)
        return record

    async def update(self, record: TaskRecord, responses: Any) -> None:
        """Deliver ``inputResponses``; keys not outstanding are ignored."""
        if not isinstance(responses, dict) or not all(isinstance(v, dict) for v in responses.values()):
            raise errors.invalid_params('"inputResponses" must be an object of result objects')
        live = self.live.get(record.task_id)
        if live is None:
            if not record.terminal:  # running in another process, perhaps
                await self._relay(lambda fanout: fanout.TaskInputDelivered(record.task_id, responses))
            return
        fresh = {k: v for k, v in responses.items() if k in live.record.input_requests and k not in live.answers}
        if fresh:
            live.answers.update(fresh)
            for key in fresh:  # answered: no longer outstanding, even before the handler wakes
                live.record.input_requests.pop(key, None)
            if not live.record.input_requests:
                live.record.status = WORKING
            await self._changed(live.record)
            live.answered.set()
            live.answered = trio.Event()

    async def cancel(self, record: TaskRecord, *, settle: bool = False) -> None:
        """Ask the task to stop (cooperative); ``settle``: mark it cancelled now (2025-11-25)."""
        live = self.live.get(record.task_id)
        if live is not None:
            live.cancel_requested = True
            live.scope.cancel()
        elif not record.terminal:
            await self._relay(lambda fanout: fanout.TaskCancelRequested(record.task_id))
        if settle and not record.terminal:
            record.status = CANCELLED
            record.status_message = "the task was cancelled"
            record.input_requests = {}
            await self._changed(record)

    def cancel_owned(self, suffix: str) -> None:
        """Cancel the running tasks whose owner ends with ``suffix`` (a 2025-11-25 session that
        ended: nobody can reach its tasks any more)."""
        for live in list(self.live.values()):
            if live.record.owner.endswith(suffix):
                live.cancel_requested = True
                live.scope.cancel()

    async def wait_done(self, record: TaskRecord) -> TaskRecord:
        """Block until the task is terminal (``tasks/result``, 2025-11-25); the record then."""
        live = self.live.get(record.task_id)
        if live is not None and not record.terminal:
            await live.done.wait()
        elif self.shared is not None:  # running in another process: follow its record
            while not record.terminal:
                await trio.sleep(min(1.0, record.poll_interval_ms / 1000))
                record = await self._orphaned(await self.store.get(record.task_id) or _gone(record))
        return await self.store.get(record.task_id) or record

    # -- upkeep ---------------------------------------------------------------------------------

    async def _changed(self, record: TaskRecord) -> None:
        record.updated_at = max(self.clock(), record.updated_at)
        await self.store.save(record)

        def here() -> None:
            for listener in self.listeners:
                try:
                    listener(record)
                except Exception:
                    log.exception("a task listener failed")

        if self.shared is None:
            here()
        else:  # (other processes' listeners too)
            from ...state.fanout import TaskChanged

            await self.shared.tell_first(TaskChanged(record.to_dict()), "a task message", here)

    async def reap(self) -> int:
        """Forget expired tasks (cancelling any still running); how many went."""
        expired = await self.store.expired(self.clock())
        for task_id in expired:
            live = self.live.get(task_id)
            if live is not None:
                live.cancel_requested = True
                live.scope.cancel()
            await self.store.delete(task_id)
        return len(expired)

    async def _reap_forever(self) -> None:
        while True:
            await trio.sleep(self.reap_interval)
            try:
                await self.reap()
            except Exception:
                log.exception("reaping expired tasks failed")


def _gone(record: TaskRecord) -> TaskRecord:
    """A record reaped meanwhile (expired): it ends as it stood, cancelled if it was running."""
    if not record.terminal:
        record.status = CANCELLED
        record.status_message = "the task expired"
    return record
