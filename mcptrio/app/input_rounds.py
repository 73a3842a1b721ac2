"""2026-07-28 multi round-trip in the app: the answers a retry brings, and how a round ends.

A handler that asks the client for input it does not have yet ends the round with an
``InputRequiredResult`` whose ``requestState`` seals the answers gathered so far
(``protocol/request_state.py``: bound to the method, the params, an expiry and the principal).
The client's retry brings that state back with the new answers; the handler runs again from the
start and finds them all.  The runtime passes ``requestState`` through untouched.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Protocol

from ..protocol import errors
from ..protocol.request_state import seal, unseal

if TYPE_CHECKING:
    from ..protocol.events import IncomingRequest
    from .errors import InputRequired

NO_ANSWERS: Mapping[str, Any] = MappingProxyType({})


class Keys(Protocol):
    @property
    def state_keys(self) -> Sequence[bytes]:
        """The sealing keys in use, the current one first (``App.state_keys``)."""


def gathered(app: Keys, request: IncomingRequest) -> Mapping[str, Any]:
    """The answers a 2026-07-28 request carries: unsealed (with ``app``'s keys) from its
    ``requestState``, and its ``inputResponses``; refused (``McpError``) when the state fails
    verification or has lapsed."""
    params = request.params
    fresh = params.get("inputResponses")
    if fresh is None and "requestState" not in params:
        return NO_ANSWERS
    responses: dict[str, Any] = {}
    if "requestState" in params:
        state = params["requestState"]
        responses.update(unseal(app.state_keys, state, request.method, params, time.time(), _owner(request)))
    if fresh is not None:
        if not isinstance(fresh, dict) or not all(isinstance(v, dict) for v in fresh.values()):
            raise errors.invalid_params('"inputResponses" must be an object of result objects')
        responses.update(fresh)
    return responses


def input_required(
    key: bytes, ttl: float, request: IncomingRequest, responses: Mapping[str, Any], needed: InputRequired
) -> dict[str, Any]:
    """The ``InputRequiredResult`` that ends this round: what is asked, and the sealed answers so far
    (valid for ``ttl`` seconds)."""
    state = seal(key, request.method, request.params, dict(responses), time.time() + ttl, _owner(request))
    return {"resultType": "input_required", "inputRequests": needed.requests, "requestState": state}


def _owner(request: IncomingRequest) -> str:
    """What a request's state is bound to: its principal's binding (with authorization), else ""."""
    return getattr(request.principal, "binding", "") if request.principal is not None else ""
