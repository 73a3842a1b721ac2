"""Task records in the shared state (``--state redis://…``): any worker answers ``tasks/get``.

- ``{p}:t:{id}``      the record (JSON), expiring with the task's TTL
- ``{p}:tl:{id}``     the lease: the name of the runner running it, renewed while it runs; a
                      worker that dies stops renewing, and the task is then failed, not re-run
- ``{p}:tx``          every task by expiry (what the reaper looks at)
- ``{p}:to:{owner}``  an owner's tasks by creation (``tasks/list``; the owner name is hashed)

A record is created with its lease in one transaction, so no other worker can ever see a new
task without the lease of the runner that is starting it.
"""

from __future__ import annotations

import hashlib
import math
from typing import TYPE_CHECKING, Any

import orjson
from coredis.tokens import PureToken

from .records import TaskRecord

if TYPE_CHECKING:
    from ...state.redis import RedisState

LEASE_SECONDS = 10.0  # a runner renews its leases every third of this

_RELEASE = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0"
_RENEW = (
    "local n = 0 for i, key in ipairs(KEYS) do if redis.call('GET', key) == ARGV[1] then "
    "redis.call('PEXPIRE', key, ARGV[2]) n = n + 1 end end return n"
)
_CLAIM = (
    "local held = redis.call('GET', KEYS[1]) if held and held ~= ARGV[1] then return 0 end "
    "redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) return 1"
)


class RedisTaskStore:
    def __init__(self, shared: RedisState, runner: str, lease_seconds: float = LEASE_SECONDS) -> None:
        self.shared = shared
        self.client = shared.client
        self.runner = runner
        self.lease_ms = int(lease_seconds * 1000)

    def _key(self, *parts: str) -> str:
        return self.shared.key(*parts)

    def _owner_key(self, owner: str) -> str:
        return self._key("to", hashlib.sha256(owner.encode()).hexdigest()[:32])

    async def create(self, record: TaskRecord) -> None:
        key = self._key("t", record.task_id)
        expires = record.expires_at()

        def build(pipe: Any) -> list[Any]:
            out = [
                pipe.set(
                    key,
                    orjson.dumps(record.to_dict()),
                    condition=PureToken.NX,
                    pxat=int(expires * 1000) if math.isfinite(expires) else None,
                ),
                pipe.set(self._key("tl", record.task_id), self.runner, px=self.lease_ms),
                pipe.zadd(self._key("tx"), {record.task_id: expires if math.isfinite(expires) else 2**52}),
                pipe.zadd(self._owner_key(record.owner), {record.task_id: record.created_at}),
            ]
            return out

        created, *_ = await self.shared.pipelined(build, transaction=True)
        if not created:
            raise KeyError(f"task {record.task_id} exists")

    async def get(self, task_id: str) -> TaskRecord | None:
        data = await self.shared.execute(self.client.get(self._key("t", task_id)))
        return TaskRecord.from_dict(orjson.loads(data)) if data else None

    async def save(self, record: TaskRecord) -> None:
        # XX: a reaped task stays gone; KEEPTTL: it still expires with its TTL.
        await self.shared.execute(
            self.client.set(
                self._key("t", record.task_id), orjson.dumps(record.to_dict()), condition=PureToken.XX, keepttl=True
            )
        )

    async def delete(self, task_id: str) -> None:
        await self.shared.pipelined(
            lambda pipe: [
                pipe.delete([self._key("t", task_id), self._key("tl", task_id)]),
                pipe.zrem(self._key("tx"), [task_id]),
            ]
        )

    async def owned_by(self, owner: str) -> list[TaskRecord]:
        index = self._owner_key(owner)
        ids = await self.shared.execute(self.client.zrange(index, 0, -1))
        if not ids:
            return []
        values = await self.shared.execute(self.client.mget([self._key("t", i.decode()) for i in ids]))
        gone = [task_id for task_id, value in zip(ids, values) if value is None]
        if gone:
            await self.shared.execute(self.client.zrem(index, gone))
        records = [TaskRecord.from_dict(orjson.loads(value)) for value in values if value is not None]
        return [r for r in records if r.owner == owner]

    async def expired(self, now: float) -> list[str]:
        ids = await self.shared.execute(self.client.zrangebyscore(self._key("tx"), float("-inf"), now))
        return [i.decode() for i in ids if isinstance(i, bytes)]  # (members only: no scores were asked for)

    async def claim(self, task_id: str, runner: str, seconds: float) -> bool:
        lease = self.lease_ms if not math.isfinite(seconds) else int(seconds * 1000)
        return bool(await self.shared.execute(self.client.eval(_CLAIM, [self._key("tl", task_id)], [runner, lease])))

    async def release(self, task_id: str, runner: str) -> None:
        await self.shared.execute(self.client.eval(_RELEASE, [self._key("tl", task_id)], [runner]))

    async def renew(self, task_ids: list[str], runner: str) -> None:
        """Keep the leases of the tasks this runner is running."""
        if task_ids:
            keys = [self._key("tl", task_id) for task_id in task_ids]
            await self.shared.execute(self.client.eval(_RENEW, keys, [runner, self.lease_ms]))

    async def holder(self, task_id: str) -> str | None:
        """The runner holding the task's lease, or None (finished, or its worker is gone)."""
        value = await self.shared.execute(self.client.get(self._key("tl", task_id)))
        return value.decode() if value else None
