"""``[plugins.NAME]`` options through a plugin's ``@plugin.configure`` hook: typed getters that take a
file's TOML values and a flag's strings alike, one-line refusals naming the key, unknown keys refused."""

from __future__ import annotations

from pathlib import Path

import pytest

import mcptrio
from mcptrio.plugins import configured


def greeter() -> mcptrio.Registry:
    plugin = mcptrio.Registry("greeter")

    @plugin.configure
    def configure(options: mcptrio.PluginOptions) -> mcptrio.Registry:
        greeting = options.text("greeting", what="the greeting")
        times = options.whole("times", 1)
        loud = options.flag("loud", False)
        served = mcptrio.Registry("greeter")

        @served.tool
        def greet() -> str:
            text = " ".join([greeting or ""] * times)
            return text.upper() if loud else text

        return served

    return plugin


def test_file_values_and_flag_strings_alike() -> None:
    from_file = configured(greeter(), "greeter", mcptrio.PluginOptions("greeter", {"greeting": "hi", "times": 2}))
    from_flags = configured(greeter(), "greeter", mcptrio.PluginOptions("greeter", {"greeting": "hi", "times": "2"}))
    assert set(from_file.tools) == set(from_flags.tools) == {"greet"}


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({}, "plugins.greeter.greeting is required: the greeting (set it in [plugins.greeter] or with "
         "--plugin-option greeter.greeting=VALUE)"),
        ({"greeting": 3}, "plugins.greeter.greeting must be the greeting, got 3"),
        ({"greeting": "hi", "times": "x"}, "plugins.greeter.times must be a positive whole number, got 'x'"),
        ({"greeting": "hi", "loud": "maybe"}, "plugins.greeter.loud must be true or false, got 'maybe'"),
        ({"greeting": "hi", "colour": "red"}, "unknown plugin option(s): plugins.greeter.colour"),
    ],
)  # fmt: skip
def test_refused_in_one_line(values: dict[str, object], message: str) -> None:
    with pytest.raises(mcptrio.OptionError) as refused:
        configured(greeter(), "greeter", mcptrio.PluginOptions("greeter", values))
    assert str(refused.value) == message


def test_no_hook_takes_no_options_and_paths_are_from_the_file() -> None:
    with pytest.raises(mcptrio.OptionError, match=r"\[plugins.plain\]: the plugin 'plain' takes no options"):
        configured(mcptrio.Registry("plain"), "plain", mcptrio.PluginOptions("plain", {"x": 1}))
    options = mcptrio.PluginOptions(
        "p", {"doc": "api.json", "abs": "/a.json"}, {"doc": Path("/etc/x"), "abs": Path("/e")}
    )
    assert options.path("doc") == Path("/etc/x/api.json") and options.path("abs") == Path("/a.json")
