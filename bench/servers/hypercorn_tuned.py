"""EXPERIMENT, not how mcptrio ships: hypercorn 0.18's Trio worker without two per-request costs,
to measure how much of the HTTP floor is hypercorn's and what removing it would give.

    python hypercorn_tuned.py bare --port N                       # bare_asgi.py on the tuned server
    python hypercorn_tuned.py mcptrio serve --plugins bench ...   # the mcptrio CLI on the tuned server

The two costs, both visible in a profile of bare_asgi.py under stock hypercorn:

1. **The keep-alive timer is a task restarted twice per request.**  ``TCPServer.protocol_send``
   handles ``Updated(idle=False)`` at each request by cancelling the idle-timeout task and
   ``Updated(idle=True)`` after each response by starting a new one with ``nursery.start``
   (a lock, a spawn, a cancellation, several trips through the scheduler).  Here the timer is
   armed once per connection and not re-armed: that is the cost a timer that moves one
   CancelScope deadline would remove (a deadline move is ~2 µs; see DESIGN.md).  It also means
   this experiment closes idle connections only at the first deadline: fine for a benchmark,
   not for serving.
2. **The response head is its own write.**  ``http.response.start`` becomes an h11 ``Response``
   that is sent at once, then the body is a second ``send_all`` (a lock, a shielded scope, a
   ``sendto``).  Here the head waits for the first body chunk and both go in one write, as
   uvicorn does.

Everything else — h11, the task per request, the memory channel per request — is stock.
"""

from __future__ import annotations

import sys

import h11
from hypercorn.events import RawData
from hypercorn.protocol import h11 as hypercorn_h11
from hypercorn.trio import worker_context

_send_h11_event = hypercorn_h11.H11Protocol._send_h11_event


async def _coalescing_send(self: hypercorn_h11.H11Protocol, event: object) -> None:
    if isinstance(event, h11.Response):
        self._mcptrio_head = self.connection.send(event)  # type: ignore[attr-defined]
        return
    head = getattr(self, "_mcptrio_head", None)
    if head is None:
        await _send_h11_event(self, event)
        return
    self._mcptrio_head = None  # type: ignore[attr-defined]
    await self.send(RawData(data=head + (self.connection.send(event) or b"")))


_restart = worker_context.TrioSingleTask.restart


async def _arm_once(self: worker_context.TrioSingleTask, task_group: object, action: object) -> None:
    if getattr(self, "_mcptrio_armed", False):
        return
    self._mcptrio_armed = True  # type: ignore[attr-defined]
    await _restart(self, task_group, action)  # type: ignore[arg-type]


async def _keep(self: worker_context.TrioSingleTask) -> None:
    return None


def tune() -> None:
    hypercorn_h11.H11Protocol._send_h11_event = _coalescing_send  # type: ignore[method-assign]
    worker_context.TrioSingleTask.restart = _arm_once  # type: ignore[method-assign]
    worker_context.TrioSingleTask.stop = _keep  # type: ignore[method-assign]


def main() -> int:
    tune()
    which, args = sys.argv[1], sys.argv[2:]
    if which == "bare":
        import bare_asgi

        sys.argv = [sys.argv[0], "--server", "hypercorn", *args]
        bare_asgi.main()
        return 0
    from mcptrio.cli import main as mcptrio_main

    return mcptrio_main(args)


if __name__ == "__main__":
    sys.exit(main())
