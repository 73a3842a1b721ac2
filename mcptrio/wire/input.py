"""Client input in 2026-07-28: a result that asks for it, and the requests and answers it carries.

InputRequest is told apart by ``method``; InputResponse has no tag, so by shape: ``action`` is an
ElicitResult, ``roots`` a ListRootsResult, anything else a CreateMessageResult.
"""

from typing import Any

import attrs

from .common import ResultMeta
from .elicitation import ElicitRequest, ElicitResult
from .roots import ListRootsRequest, ListRootsResult
from .sampling import CreateMessageRequest, CreateMessageResult

InputRequest = CreateMessageRequest | ListRootsRequest | ElicitRequest
InputRequests = dict[str, InputRequest]
"""Requests for client input, each under a key the server chose."""
InputResponse = CreateMessageResult | ListRootsResult | ElicitResult
InputResponses = dict[str, InputResponse]
"""The client's answers, under the keys of the InputRequests they answer."""


@attrs.frozen(kw_only=True)
class InputRequiredResult:
    """The server needs client input first; the client retries with the answers and the state."""

    result_type: str = "input_required"
    input_requests: InputRequests | None = None
    request_state: str | None = None
    meta: ResultMeta | None = None
    extra: dict[str, Any] = attrs.Factory(dict)
