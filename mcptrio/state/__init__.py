"""State that outlives one process (DESIGN.md): legacy session records, their event logs, the
``requestState`` sealing keys, the fan-out of changes and cancellations between workers, and
(through ``app.tasks``) task records.

One process keeps all of it in memory, as it always did: no backend object at all.  With
``--state redis://…`` a ``RedisState`` backs it, so any worker on any host can serve any request.
"""

from .errors import StateUnavailable
from .url import StateUrl, parse_state_url

__all__ = ["StateUnavailable", "StateUrl", "parse_state_url"]
