import pytest

from mcptrio import App

from .apps import build_app


@pytest.fixture
def app() -> App:
    return build_app()
