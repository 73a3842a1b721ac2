import pytest

from .redis_server import redis_server


@pytest.fixture
def redis():
    """A real redis-server of this test's own (started and stopped around it)."""
    with redis_server() as server:
        yield server


@pytest.fixture
def durable_redis():
    """Like ``redis``, with an append-only file, so a restart keeps what was written."""
    with redis_server(durable=True) as server:
        yield server
