"""The pytest plugin mcptrio ships (entry point ``pytest11``): a connected client per test.

    @pytest.mark.mcp_plugins("notes")            # or an ``mcp_app`` fixture of your own
    async def test_add(mcp_client):               # runs once per era: legacy and modern
        result = await mcp_client.call_tool("add_note", {"title": "t", "text": "x"})
        assert not result.is_error

    @pytest.mark.mcp_transports("memory", "stdio", "http")   # and once per transport asked for
    @pytest.mark.mcp_eras("modern")                          # only this era

``mcp_client`` is an ``mcptrio.client.Client`` (typed results).  The app under test is the
``mcp_app`` fixture: by default built from the ``mcp_plugins`` marker or the ``mcptrio_plugins``
ini option (installed plugin names).  ``stdio`` runs ``mcptrio serve --plugins …`` in a
subprocess, so it needs plugin names; ``http`` serves the app on a free loopback port.
Override ``mcp_callbacks`` to answer elicitation, sampling or roots requests.  Tests run under
pytest-trio (``trio_mode = true``).
"""

from __future__ import annotations

import functools
import sys
from collections.abc import AsyncIterator
from typing import Any, cast

import pytest
import trio

ERAS = ("legacy", "modern")
TRANSPORTS = ("memory", "stdio", "http")


def pytest_addoption(parser: Any) -> None:
    parser.addini("mcptrio_plugins", "installed mcptrio plugins the mcp_app fixture serves", type="args", default=[])


def pytest_configure(config: Any) -> None:
    config.addinivalue_line("markers", "mcp_plugins(*names): the installed plugins mcp_app serves")
    config.addinivalue_line("markers", "mcp_eras(*eras): run mcp_client tests in these eras (default both)")
    config.addinivalue_line("markers", "mcp_transports(*names): memory (default), stdio, http")


def _marked(metafunc: Any, name: str, default: tuple[str, ...], allowed: tuple[str, ...]) -> tuple[str, ...]:
    marker = metafunc.definition.get_closest_marker(name)
    values = tuple(marker.args) if marker is not None and marker.args else default
    unknown = [v for v in values if v not in allowed]
    if unknown:
        raise pytest.UsageError(f"@pytest.mark.{name}: unknown {unknown} (choose from {', '.join(allowed)})")
    return values


TRIO_MODE_MISSING = (
    "mcptrio's mcp_client is for async tests that pytest-trio runs: add `trio_mode = true` under "
    "[tool.pytest.ini_options] in pyproject.toml (and install pytest-trio), or mark the test @pytest.mark.trio"
)


def _run_by_trio(metafunc: Any) -> bool:
    """Will pytest-trio run this test (``trio_mode``, or its ``trio`` mark)?"""
    if metafunc.definition.get_closest_marker("trio") is not None:
        return True
    try:
        return bool(metafunc.config.getini("trio_mode"))
    except ValueError:  # pytest-trio is not installed: it declares the option
        return False


def pytest_generate_tests(metafunc: Any) -> None:
    if "mcp_client" not in metafunc.fixturenames:
        return
    if not _run_by_trio(metafunc):
        raise pytest.UsageError(TRIO_MODE_MISSING)
    eras = _marked(metafunc, "mcp_eras", ERAS, ERAS)
    transports = _marked(metafunc, "mcp_transports", ("memory",), TRANSPORTS)
    combos = [(era, transport) for transport in transports for era in eras]
    metafunc.parametrize("mcp_setup", combos, ids=[f"{e}-{t}" for e, t in combos], indirect=True)


@pytest.fixture
def mcp_setup(request: Any) -> tuple[str, str]:
    """(era, transport) of this run of an ``mcp_client`` test."""
    return cast("tuple[str, str]", request.param)


def _plugin_names(request: Any) -> list[str]:
    marker = request.node.get_closest_marker("mcp_plugins")
    if marker is not None and marker.args:
        return list(marker.args)
    return list(request.config.getini("mcptrio_plugins"))


@pytest.fixture
def mcp_app(request: Any) -> Any:
    """The App under test: the plugins named by ``mcp_plugins`` / ``mcptrio_plugins``.
    Define a fixture of this name to test an App you build yourself."""
    names = _plugin_names(request)
    if not names:
        raise pytest.UsageError(
            "mcp_client has nothing to serve: define an mcp_app fixture, or name installed "
            "plugins with @pytest.mark.mcp_plugins(...) or the mcptrio_plugins ini option"
        )
    from ..plugins import build_app

    return build_app(names)


@pytest.fixture
def mcp_callbacks() -> dict[str, Any]:
    """``elicitation``, ``sampling``, ``roots`` callbacks for ``mcptrio.client.connect`` (none by default)."""
    return {}


@pytest.fixture
async def mcp_client(
    request: Any, mcp_setup: tuple[str, str], mcp_app: Any, mcp_callbacks: dict[str, Any]
) -> AsyncIterator[Any]:
    """A client connected to the app under test, in this run's era and over its transport."""
    from ..client import connect

    era, transport = mcp_setup
    if transport == "memory":
        async with connect(mcp_app, era=era, **mcp_callbacks) as client:
            yield client
    elif transport == "stdio":
        names = _plugin_names(request)
        if not names:
            raise pytest.UsageError(
                "mcp_transports('stdio') serves installed plugins in a subprocess: name them "
                "with @pytest.mark.mcp_plugins(...) or the mcptrio_plugins ini option"
            )
        command = [sys.executable, "-m", "mcptrio", "serve", "--plugins", ",".join(names)]
        async with connect(command, era=era, **mcp_callbacks) as client:
            yield client
    else:
        from ..transports.http import serve_http

        stop = trio.Event()
        async with trio.open_nursery() as nursery:
            url = await nursery.start(
                functools.partial(serve_http, mcp_app, host="127.0.0.1", port=0, shutdown_trigger=stop.wait)
            )
            async with connect(url, era=era, **mcp_callbacks) as client:
                yield client
            stop.set()
