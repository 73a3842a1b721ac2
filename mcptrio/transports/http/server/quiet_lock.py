"""A FIFO lock that is free when nobody holds it: no schedule point on the uncontended path.

``trio.Lock`` checkpoints on every acquire, a trip through the scheduler that costs about as
much as the work an HTTP answer does under it (three acquires per answer were ~10% of a POST).
This one only parks when the lock is held, and hands it straight to the first waiter on release.
It is not a cancellation point when free: callers must not rely on it to be one.
"""

from __future__ import annotations

from types import TracebackType

from trio.lowlevel import ParkingLot


class QuietLock:
    __slots__ = ("_held", "_waiters")

    def __init__(self) -> None:
        self._held = False
        self._waiters: ParkingLot | None = None  # made by the first contender: most locks never see one

    def locked(self) -> bool:
        return self._held

    async def __aenter__(self) -> None:
        if self._held:
            if self._waiters is None:
                self._waiters = ParkingLot()
            await self._waiters.park()  # woken by release() as the new holder (or cancelled: not the holder)
        else:
            self._held = True

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._waiters:
            self._waiters.unpark()  # ownership passes on; _held stays True
        else:
            self._held = False
