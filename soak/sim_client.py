"""The simulated client: every kind of traffic, and the weights by which it picks its next scenario."""

from __future__ import annotations

import random

from server_process import Server
from tally import Tally
from traffic_disconnects import DisconnectTraffic
from traffic_malformed import MalformedTraffic
from traffic_modern import ModernTraffic


class SimClient(DisconnectTraffic, MalformedTraffic, ModernTraffic):
    """Runs randomly chosen scenarios until the deadline or ``max_iterations``."""

    def __init__(
        self, number: int, server: Server, tally: Tally, rng: random.Random, sessions: set[str], max_message_size: int
    ) -> None:
        super().__init__(number, server, tally, rng, sessions, max_message_size)
        self.scenarios = [(self.legacy_session, 4), (self.modern_calls, 4), (self.disconnects, 2), (self.malformed, 2)]
