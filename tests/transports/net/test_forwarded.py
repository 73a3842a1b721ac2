"""Behind a reverse proxy: X-Forwarded-For names the client only when the peer is a trusted proxy."""

import pytest
import trio

import mcptrio
from mcptrio.transports.http import HttpConfig
from mcptrio.transports.net.front_door import client_address, parse_networks

from ..http.client import final_of, http_server, modern_tool, new_client, text_of, ws_server

PROXIES = parse_networks(["127.0.0.1", "10.0.0.0/8"])


@pytest.mark.parametrize(
    ("peer", "header", "expected"),
    [
        ("192.0.2.1", b"203.0.113.7", "192.0.2.1"),  # not a proxy of ours: the header is anyone's
        ("127.0.0.1", None, "127.0.0.1"),  # a proxy that says nothing
        ("127.0.0.1", b"203.0.113.7", "203.0.113.7"),
        ("127.0.0.1", b"198.51.100.1, 203.0.113.7", "203.0.113.7"),  # right-most: what our proxy saw
        ("127.0.0.1", b"203.0.113.7, 10.1.2.3", "203.0.113.7"),  # through two proxies of ours
        ("127.0.0.1", b"10.9.9.9, 10.1.2.3", "10.9.9.9"),  # all ours: the first
        ("127.0.0.1", b"203.0.113.7, not-an-address", "127.0.0.1"),  # malformed: believe none of it
        ("127.0.0.1", b"2001:db8::1", "2001:db8::1"),
    ],
)
def test_client_address(peer, header, expected):
    assert client_address(peer, header, PROXIES) == expected


def test_no_trusted_proxies_means_the_peer():
    assert client_address("127.0.0.1", b"203.0.113.7", ()) == "127.0.0.1"


def test_a_bad_network_is_refused_by_name():
    with pytest.raises(ValueError, match="not an IP address or network: '10.0.0.300'"):
        HttpConfig(trusted_proxies=["10.0.0.300"])


def _who_app() -> mcptrio.App:
    plugin = mcptrio.Registry("who")

    @plugin.tool()
    async def who(ctx: mcptrio.Context) -> str:
        return str(ctx.client_address)

    app = mcptrio.App("who")
    app.include(plugin)
    return app


@pytest.mark.parametrize(("trusted", "expected"), [((), "127.0.0.1"), (("127.0.0.1",), "203.0.113.7")])
async def test_over_http(trusted, expected):
    config = HttpConfig(trusted_proxies=trusted)
    async with http_server(_who_app(), config=config) as url, new_client() as client:
        body, headers = modern_tool("who")
        with trio.fail_after(10):
            response = await client.post(url, json=body, headers={**headers, "x-forwarded-for": "203.0.113.7"})
    assert text_of(final_of(response)) == expected


@pytest.mark.parametrize(("trusted", "expected"), [((), "127.0.0.1"), (("127.0.0.0/8",), "203.0.113.7")])
async def test_over_websocket(trusted, expected):
    config = HttpConfig(trusted_proxies=trusted)
    async with ws_server(_who_app(), config=config) as url:
        async with mcptrio.client.connect(url, headers={"x-forwarded-for": "203.0.113.7"}) as client:
            with trio.fail_after(10):
                result = await client.call_tool("who")
    assert result.content[0].text == expected


def test_the_cli_refuses_a_bad_proxy_in_one_line(capsys):
    from mcptrio.cli import main

    with pytest.raises(SystemExit) as exit:
        main(["serve", "--plugins", "everything", "--transport", "http", "--trusted-proxy", "10.0.0.300"])
    assert exit.value.code == 2
    err = capsys.readouterr().err
    assert err.strip() == "mcptrio: error: --trusted-proxy: not an IP address or network: '10.0.0.300'"
