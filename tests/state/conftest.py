import pytest

from .redis_server import redis_server


@pytest.fixture
def redis():
    """A real redis-server of this test's own (started and stopped around it)."""
    with redis_server() as server:
        yield server
