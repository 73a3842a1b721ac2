"""State that outlives one process (DESIGN.md): legacy session records, their event logs, the
``requestState`` sealing keys, the fan-out of changes and cancellations between workers, and
(through ``app.tasks``) task records.

One process keeps all of it in memory, as it always did: no backend object at all.  With
``--state redis://…`` a ``RedisState`` backs it, so any worker on any host can serve any request.
"""

from typing import TYPE_CHECKING

from ..lazy_names import lazy_names
from .errors import StateUnavailable

if TYPE_CHECKING:  # the names __getattr__ provides, as a type checker sees them
    from .url import StateUrl, parse_state_url

__all__ = ["StateUnavailable", "StateUrl", "parse_state_url"]


# The URL's parser is imported when first named: a server that shares nothing starts without it.
__getattr__ = lazy_names(__name__, {".url": ("StateUrl", "parse_state_url")})
