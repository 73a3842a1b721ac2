"""The Redis backend of the shared state, on coredis (Trio-native through anyio).

Keys, under one prefix (``mcptrio`` by default):

- ``{p}:s:{session}``  hash: a legacy session's record; expires after the idle timeout, each use
  renews it (one pipelined round trip: HGETALL + PEXPIRE).
- ``{p}:e:{session}``  stream: the session's SSE events (fields s=stream, n=seq, d=data, f=final,
  w=worker), capped by count and age, for ``Last-Event-ID`` on any worker.
- ``{p}:fanout``       stream: the messages of fanout.py (changes, cancellations, client answers)
  for every worker.  A stream, not pub/sub, so a worker whose link to Redis broke reads on from where it was.
- ``{p}:heard``        hash: each worker's last fan-out entry acted on (``heard_everywhere``).
- ``{p}:seal``         hash: the ``requestState`` sealing keys (current, previous).
- ``{p}:w:{worker}``   a live worker's heartbeat (expires 3 s after its last beat).

Writes that are not idempotent run with no retry (coredis' default would re-send them after a
broken connection); events are appended by one task per process, in order, pipelined.
"""

from __future__ import annotations

import contextlib
import logging
import math
import os
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, TypeVar

import coredis
import coredis.exceptions
import orjson
import trio
from coredis.retry import NoRetryPolicy
from coredis.tokens import PureToken

from ..groups import leaves
from .errors import StateUnavailable
from .fanout import FanoutMessage, KeysRotated, decode, encode
from .url import StateUrl

log = logging.getLogger("mcptrio.state")

HEARTBEAT = 1.0  # seconds between a worker's beats
HEARTBEAT_TTL_MS = 3000
FANOUT_LENGTH = 10_000
KEY_REFRESH = 60.0  # seconds between reads of the sealing keys (a rotation also says so at once)
TELL_WAIT = 0.05  # seconds a worker's own fan-out waits for Redis to take a change for the others (tell_first)
HEARD_POLL = 0.005  # seconds between two looks at whether the other workers have acted on an entry
Event = tuple[int, bytes, bool]  # (seq, data, final) of one stream
StreamId = str | bytes  # a Redis stream entry's id ("1700000000000-0"), as coredis gives it
# KEYS: the streams; ARGV: cap, TTL in ms, then per event: key index, s, n, d, f, w, r.
_APPEND = """
for i = 3, #ARGV, 7 do
  redis.call('XADD', KEYS[tonumber(ARGV[i])], 'MAXLEN', '~', ARGV[1], '*', 's', ARGV[i + 1], 'n', ARGV[i + 2],
             'd', ARGV[i + 3], 'f', ARGV[i + 4], 'w', ARGV[i + 5], 'r', ARGV[i + 6])
end
for _, key in ipairs(KEYS) do redis.call('PEXPIRE', key, ARGV[2]) end
return 1
"""
_FAILURES = (coredis.exceptions.ConnectionError, TimeoutError, OSError)
T = TypeVar("T")


class RedisState:
    """One process's handle on the shared state; ``run`` it in a nursery for the life of the server."""

    def __init__(
        self,
        client: coredis.Redis[bytes],
        url: StateUrl,
        *,
        prefix: str = "mcptrio",
        event_log_size: int = 256,
        event_log_age: float = 3600.0,
    ) -> None:
        self.client = client
        self.url = url
        self.prefix = prefix
        self.worker = secrets.token_hex(6)  # this process, in event and call ids
        self.event_log_size = event_log_size
        self.event_log_age = event_log_age
        self.available = True
        self.sealing_keys: list[bytes] = []
        self._subscribers: list[Callable[[FanoutMessage], None]] = []
        self._appends, self._to_append = trio.open_memory_channel[tuple[str, list[Any]]](100_000)
        self._appended = trio.Condition()

    # -- life ------------------------------------------------------------------------------

    async def start(self) -> None:
        """Check the link and load the sealing keys (the server's start fails if this does)."""
        try:
            await self.client.ping()
            await self.load_keys(create=True)
        except _FAILURES as exc:
            raise StateUnavailable(f"cannot reach the state store at {self.url}: {_reason(exc)}") from None
        except coredis.exceptions.AuthenticationError as exc:
            raise StateUnavailable(f"the state store at {self.url} refused the credentials: {exc}") from None

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        async with trio.open_nursery() as nursery:
            fanout_from = await self._fanout_tail()
            await self._heard(fanout_from)  # (from now on this worker is waited for: heard_everywhere)
            nursery.start_soon(self._heartbeat)
            nursery.start_soon(self._append_events)
            nursery.start_soon(self._read_fanout, fanout_from)
            task_status.started()

    # -- commands, for this module and the stores built on it (app.tasks) ---------------------

    def key(self, *parts: str) -> str:
        """A key under this state's prefix: ``key("t", "1")`` is ``mcptrio:t:1``."""
        return ":".join((self.prefix, *parts))

    async def execute(self, command: Awaitable[T]) -> T:
        """Await one command (or script, or pipeline) of ``client``; a broken link is StateUnavailable
        (retryable)."""
        try:
            result = await command
        except _FAILURES as exc:
            self._lost(exc)
            raise StateUnavailable(f"the state store is unreachable: {_reason(exc)}") from None
        self._back()
        return result

    async def pipelined(self, build: Callable[[Any], list[Any]], *, transaction: bool = False) -> list[Any]:
        """Several commands in one round trip: ``build(pipe)`` queues them on a pipeline and
        returns what it queued; their results, in order (a MULTI/EXEC block with ``transaction``)."""

        async def run() -> list[Any]:
            async with self.client.pipeline(transaction=transaction) as pipe:
                requests = build(pipe)
            return [await request for request in requests]

        return await self.execute(run())

    def _lost(self, exc: BaseException) -> None:
        if self.available:
            log.error("lost the state store at %s: %s", self.url, _reason(exc))
        self.available = False

    def _back(self) -> None:
        if not self.available:
            log.warning("the state store at %s is back", self.url)
        self.available = True

    async def _heartbeat(self) -> None:
        key = self.key("w", self.worker)
        while True:
            try:
                await self.execute(self.client.set(key, b"1", px=HEARTBEAT_TTL_MS))
            except StateUnavailable:
                pass
            await trio.sleep(HEARTBEAT)

    async def worker_alive(self, worker: str) -> bool:
        return worker == self.worker or bool(await self.execute(self.client.exists([self.key("w", worker)])))

    # -- sealing keys ------------------------------------------------------------------------

    async def load_keys(self, *, create: bool = False) -> list[bytes]:
        key = self.key("seal")
        if create:
            await self.execute(self.client.hsetnx(key, "current", os.urandom(32)))
        current, previous = await self.execute(self.client.hmget(key, ["current", "previous"]))
        self.sealing_keys = [k for k in (current, previous) if k]
        return self.sealing_keys

    async def rotate_keys(self) -> None:
        """A new current key; the old one still opens state sealed before (until the next rotation)."""
        script = (
            "local c = redis.call('HGET', KEYS[1], 'current') "
            "if c then redis.call('HSET', KEYS[1], 'previous', c) end "
            "redis.call('HSET', KEYS[1], 'current', ARGV[1]) return 1"
        )
        await self.execute(self.client.eval(script, [self.key("seal")], [os.urandom(32)]))
        await self.publish(KeysRotated())
        await self.load_keys()

    # -- legacy sessions ---------------------------------------------------------------------

    async def save_session(self, session_id: str, fields: dict[str, Any], ttl: float) -> None:
        key = self.key("s", session_id)
        await self.pipelined(
            lambda pipe: [
                pipe.hset(key, {name: _encode(value) for name, value in fields.items()}),
                pipe.pexpire(key, _ms(ttl)),
            ],
            transaction=True,
        )

    async def load_session(self, session_id: str, ttl: float) -> dict[str, Any] | None:
        """The record (renewed for ``ttl`` more seconds), or None: it ended, expired or never was."""
        key = self.key("s", session_id)
        record, _ = await self.pipelined(lambda pipe: [pipe.hgetall(key), pipe.pexpire(key, _ms(ttl))])
        if not record:
            return None
        return {name.decode(): orjson.loads(value) for name, value in record.items()}

    async def update_session(self, session_id: str, fields: dict[str, Any]) -> None:
        key = self.key("s", session_id)
        script = "if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('HSET', KEYS[1], unpack(ARGV)) end return 1"
        args: list[Any] = []
        for name, value in fields.items():
            args += [name, _encode(value)]
        await self.execute(self.client.eval(script, [key], args))

    async def delete_session(self, session_id: str) -> bool:
        """End it everywhere; False if it was already gone."""
        return bool(await self.execute(self.client.delete([self.key("s", session_id), self.key("e", session_id)])))

    # -- event logs --------------------------------------------------------------------------

    def append_event(
        self, session_id: str, stream: int, seq: int, data: bytes, final: bool, request: Any = None
    ) -> None:
        """Queue one event for the session's Redis stream (in order, by one task; never waits).
        ``request``: the id of the request the stream answers (for an error if its worker dies)."""
        fields = {
            "s": str(stream),
            "n": str(seq),
            "d": data,
            "f": b"1" if final else b"0",
            "w": self.worker,
            "r": orjson.dumps(request),
        }
        try:
            self._appends.send_nowait((self.key("e", session_id), [fields]))
        except trio.WouldBlock:
            log.error("event log queue full: an event of session %s… was not stored", session_id[:6])

    async def _append_events(self) -> None:
        """One task appends every event, in order, as many as are queued in one script call (a
        command costs coredis far more than its arguments do: batching is what makes it cheap)."""
        append = self.client.register_script(_APPEND)
        while True:
            batch = [await self._to_append.receive()]
            while len(batch) < 512:
                try:
                    batch.append(self._to_append.receive_nowait())
                except trio.WouldBlock:
                    break
            keys: dict[str, int] = {}
            args: list[Any] = [self.event_log_size, _ms(self.event_log_age)]
            for key, entries in batch:
                index = keys.setdefault(key, len(keys) + 1)
                for fields in entries:
                    args += [index, fields["s"], fields["n"], fields["d"], fields["f"], fields["w"], fields["r"]]
            while True:
                try:
                    await self.execute(append(keys=list(keys), args=args))
                    break
                except StateUnavailable:
                    await trio.sleep(0.2)  # kept and tried again (readers skip an event they already have)
            async with self._appended:
                self._appended.notify_all()

    async def flushed(self) -> None:
        """Wait until every event queued so far is in Redis (tests, and a worker's drain)."""
        while self._to_append.statistics().current_buffer_used:
            async with self._appended:
                await self._appended.wait()

    async def events_after(
        self, session_id: str, stream: int, seq: int
    ) -> tuple[list[Event], StreamId, tuple[str, Any] | None]:
        """Events of ``stream`` after ``seq``; the id to tail from; who wrote the stream, as
        (worker, request id), or None when the log has no event of it."""
        entries = await self.execute(self.client.xrange(self.key("e", session_id), "-", "+"))
        events, writer = _events_of(entries, stream, seq)
        last = entries[-1].identifier if entries else b"0-0"
        return events, last, writer

    async def tail(
        self, session_id: str, stream: int, seq: int, after: StreamId, block: float
    ) -> tuple[list[Event], StreamId]:
        """Wait up to ``block`` seconds for events of ``stream`` after ``seq`` written after ``after``."""
        key = self.key("e", session_id)
        found = await self.execute(self.client.xread({key: after}, count=512, block=max(1, int(block * 1000))))
        entries = (found or {}).get(key.encode(), ())
        events, _ = _events_of(entries, stream, seq)
        return events, entries[-1].identifier if entries else after

    # -- fan-out -----------------------------------------------------------------------------

    def subscribe(self, callback: Callable[[FanoutMessage], None]) -> None:
        """Call ``callback`` with every message the other workers publish, in order."""
        self._subscribers.append(callback)

    async def publish(self, message: FanoutMessage) -> StreamId | None:
        """To every other worker's subscribers; the fan-out entry it is (for ``heard_everywhere``)."""
        return await self.execute(
            self.client.xadd(
                self.key("fanout"),
                {"m": encode(message, self.worker)},
                trim_strategy=PureToken.MAXLEN,
                threshold=str(FANOUT_LENGTH),
                trim_operator=PureToken.APPROXIMATELY,
            )
        )

    async def tell(self, message: FanoutMessage, what: str) -> None:
        """``publish``, at most once: with the link down ``what`` is lost, and logged."""
        try:
            await self.publish(message)
        except StateUnavailable as exc:
            log.warning("%s did not reach the other workers: %s", what, exc)

    async def tell_first(self, message: FanoutMessage, what: str, here: Callable[[], None]) -> None:
        """``tell`` the other workers, then call ``here`` (this worker's own fan-out of the change):
        the other workers fan out while this one does, not after it.

        ``here`` waits for Redis to take the message at most ``TELL_WAIT`` (a slow or lost link
        delays this worker's streams no more), and is called even if the caller is cancelled
        meanwhile: a change made here is always told here."""
        told = trio.Event()

        async def telling() -> None:
            try:
                await self.tell(message, what)
            finally:
                told.set()

        async with trio.open_nursery() as nursery:
            nursery.start_soon(telling)
            with trio.CancelScope(deadline=trio.current_time() + TELL_WAIT, shield=True):
                await told.wait()
            here()

    async def heard_everywhere(self, entry: StreamId, wait: float) -> bool:
        """Whether every other live worker has acted on fan-out ``entry`` (its subscribers called),
        waiting for that up to ``wait`` seconds: what a worker ends and tells the others, no worker
        serves once this is True, however busy it was when told."""
        deadline = trio.current_time() + wait
        target = _order(entry)
        alive: dict[str, bool] = {}
        while True:
            heard = await self.execute(self.client.hgetall(self.key("heard")))
            behind = [w.decode() for w, at in heard.items() if w.decode() != self.worker and _order(at) < target]
            for worker in behind:
                if worker not in alive:
                    alive[worker] = await self.worker_alive(worker)
                    if not alive[worker]:  # (a worker gone: nothing of it is left to wait for)
                        await self.execute(self.client.hdel(self.key("heard"), [worker]))
            if not any(alive[worker] for worker in behind):
                return True
            if trio.current_time() >= deadline:
                return False
            await trio.sleep(HEARD_POLL)

    async def _heard(self, entry: StreamId) -> None:
        await self.execute(self.client.hset(self.key("heard"), {self.worker: entry}))

    async def _fanout_tail(self) -> StreamId:
        newest = await self.execute(self.client.xrevrange(self.key("fanout"), "+", "-", count=1))
        return newest[0].identifier if newest else b"0-0"

    async def _read_fanout(self, after: StreamId) -> None:
        key = self.key("fanout")
        refresh_at = trio.current_time() + KEY_REFRESH
        while True:
            try:
                found = await self.execute(self.client.xread({key: after}, count=256, block=1000))
                if trio.current_time() > refresh_at:
                    refresh_at = trio.current_time() + KEY_REFRESH
                    await self.load_keys()
            except StateUnavailable:
                await trio.sleep(0.5)  # the link is down: try again (from where we were)
                continue
            entries = (found or {}).get(key.encode(), ())
            for entry in entries:
                after = entry.identifier
                await self._deliver(entry.field_values.get(b"m", b""))
            if entries:
                with contextlib.suppress(StateUnavailable):  # (said again after the next batch)
                    await self._heard(after)

    async def _deliver(self, data: str | bytes) -> None:
        received = decode(data)
        if received is None:
            return
        sender, message = received
        if isinstance(message, KeysRotated):
            await self._refresh_keys()  # (this worker's own rotation too)
        if sender == self.worker:
            return
        for callback in self._subscribers:
            try:
                callback(message)
            except Exception:
                log.exception("a fan-out message failed to apply")

    async def _refresh_keys(self) -> None:
        try:
            await self.load_keys()
        except StateUnavailable:
            pass


def _events_of(entries: Any, stream: int, seq: int) -> tuple[list[Event], tuple[str, Any] | None]:
    out: list[Event] = []
    writer = None
    wanted = str(stream).encode()
    last = seq
    for entry in entries:
        fields = entry.field_values
        if fields.get(b"s") != wanted:
            continue
        n = int(fields[b"n"])
        writer = (fields[b"w"].decode(), orjson.loads(fields.get(b"r", b"null")))
        if n > last:  # in order, none twice (a retried append may have stored one twice)
            out.append((n, fields[b"d"], fields[b"f"] == b"1"))
            last = n
    return out, writer


def _order(entry: StreamId) -> tuple[int, int]:
    """A stream entry's id as it sorts: (milliseconds, sequence)."""
    text = entry.decode() if isinstance(entry, bytes) else entry
    milliseconds, _, sequence = text.partition("-")
    return int(milliseconds), int(sequence or 0)


def _encode(value: Any) -> bytes:
    return orjson.dumps(value)


def _ms(seconds: float) -> int:
    return max(1, int(seconds * 1000)) if math.isfinite(seconds) else 2**40


def _reason(exc: BaseException) -> str:
    return str(exc) or type(exc).__name__


@contextlib.asynccontextmanager
async def open_redis_state(
    url: StateUrl, *, prefix: str = "mcptrio", event_log_size: int = 256, event_log_age: float = 3600.0
) -> AsyncIterator[RedisState]:
    """A started RedisState whose tasks run for the block; StateUnavailable if Redis can't be reached."""
    client: coredis.Redis[bytes] = coredis.Redis.from_url(
        url.url, retry_policy=NoRetryPolicy(), connect_timeout=2.0, stream_timeout=10.0
    )
    try:
        async with client:
            state = RedisState(client, url, prefix=prefix, event_log_size=event_log_size, event_log_age=event_log_age)
            await state.start()
            async with trio.open_nursery() as nursery:
                await nursery.start(state.run)
                yield state
                nursery.cancel_scope.cancel()
    except _FAILURES as exc:
        raise StateUnavailable(f"cannot reach the state store at {url}: {_reason(exc)}") from None
    except BaseExceptionGroup as group:  # coredis' task group wraps what ends the block: unwrap one
        found = leaves(group)
        if len(found) == 1:
            raise found[0] from None
        raise
