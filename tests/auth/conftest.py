import pytest

from .authserver import AuthServer


@pytest.fixture(scope="module")
def auth_server():
    """A real authorization server (oidc-provider) for the module's tests."""
    with AuthServer() as server:
        yield server
