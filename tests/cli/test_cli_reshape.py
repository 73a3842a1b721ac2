"""``[serve.reshape.TOOL]`` in a ``--config`` file as a user runs it: the reshaped tool listed and
called over stdio (a fixed value and an environment variable filling hidden arguments), and each
mistake a one-line error naming the tool."""

import os

import pytest

from mcptrio.testing import open_process_client

from .test_cli import MCPTRIO, one_line_error, run

TARGET = """
import typing

import mcptrio

plugin = mcptrio.Registry("weather")

@plugin.tool(description="The forecast")
async def forecast(city: str, tenant: str, region: str, units: typing.Literal["c", "f", "k"] = "c") -> str:
    return f"{tenant}/{region}: {city} in {units}"
"""

RESHAPE = """
[serve.reshape.forecast]
rename = "acme_forecast"
description = "The forecast, for ACME"
hide = { tenant = { value = "acme" }, region = { env = "WEATHER_REGION" } }
narrow = { units = { enum = ["c", "f"] } }
"""


def config(tmp_path, reshape: str = RESHAPE):
    target = tmp_path / "weather.py"
    target.write_text(TARGET)
    path = tmp_path / "serve.toml"
    path.write_text(f'[serve]\ntarget = "{target}"\n{reshape}')
    return path


async def test_the_file_reshapes_a_tool_served_over_stdio(tmp_path):
    env = {**os.environ, "WEATHER_REGION": "north"}
    async with open_process_client([*MCPTRIO, "serve", "--config", str(config(tmp_path))], env=env) as client:
        (tool,) = (await client.request("tools/list"))["tools"]
        assert tool["name"] == "acme_forecast" and tool["description"] == "The forecast, for ACME"
        assert tool["inputSchema"]["required"] == ["city"]
        assert tool["inputSchema"]["properties"]["units"]["enum"] == ["c", "f"]
        called = await client.call_tool("acme_forecast", {"city": "Oslo", "units": "f"})
        assert called["content"][0]["text"] == "acme/north: Oslo in f"
        refused = await client.call_tool("acme_forecast", {"city": "Oslo", "units": "k"})
        assert refused["isError"]
    assert client.end.process.returncode == 0


@pytest.mark.parametrize(
    ("reshape", "says"),
    [
        ('[serve.reshape.nowcast]\ntitle = "x"\n', "reshaping tool 'nowcast': there is no such tool"),
        (
            "[serve.reshape.forecast]\nhide = { country = { value = 'no' } }\n",
            "reshaping tool 'forecast': hide: no argument 'country' (it has 'city', 'tenant', 'region', 'units')",
        ),
        (
            "[serve.reshape.forecast]\nhide = { region = { env = 'WEATHER_REGION' } }\n",
            "reshaping tool 'forecast': hide 'region': the environment variable WEATHER_REGION is not set",
        ),
        (
            "[serve.reshape.forecast]\nnarrow = { units = { enum = ['r'] } }\n",
            "reshaping tool 'forecast': narrow 'units': 'r' is not one of the values the argument accepts",
        ),
        (
            "[serve.reshape.forecast]\nhide = { tenant = 'acme' }\n",
            'serve.reshape.forecast.hide.tenant must be one of {value = ...}, {env = "VAR"}, {claim = "name"}',
        ),
        ("[serve.reshape.forecast]\nretitle = 'x'\n", "unknown key(s): serve.reshape.forecast.retitle"),
    ],
)
def test_mistakes_are_one_line_errors(tmp_path, monkeypatch, reshape, says):
    monkeypatch.delenv("WEATHER_REGION", raising=False)
    line = one_line_error(run(["serve", "--config", str(config(tmp_path, reshape))], tmp_path))
    assert line.endswith(says), line
