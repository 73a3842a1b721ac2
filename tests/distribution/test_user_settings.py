"""``plugin.user_setting``: declared once, checked as it is declared, carried by ``include``, and read
when serving: a setting's environment variable fills its plugin option unless the option is given,
and a bundle's placeholder the client left unfilled is no value."""

import json
from pathlib import Path

import pytest

import mcptrio
from mcptrio.plugins import PluginError, build_app, configured

DOCUMENT = {
    "openapi": "3.1.0",
    "info": {"title": "Greetings", "version": "1"},
    "servers": [{"url": "https://api.example.com"}],
    "paths": {"/greeting": {"get": {"operationId": "get_greeting", "responses": {"200": {"description": "ok"}}}}},
}


def test_a_setting_is_checked_as_it_is_declared() -> None:
    plugin = mcptrio.Registry("p")
    plugin.user_setting("key", env="P_KEY", title="Key", description="d", sensitive=True)
    with pytest.raises(ValueError, match="already declared"):
        plugin.user_setting("key", env="P_OTHER", title="t", description="d")
    with pytest.raises(ValueError, match="letters, digits and _"):
        plugin.user_setting("two words", env="P_TWO", title="t", description="d")
    with pytest.raises(ValueError, match="letters, digits and _"):
        plugin.user_setting("ok", env="P-DASH", title="t", description="d")
    with pytest.raises(ValueError, match="one of string, number"):
        plugin.user_setting("ok", env="P_OK", title="t", description="d", kind="color")  # type: ignore[arg-type]
    app = mcptrio.App("a")
    app.include(plugin)
    assert [(s.key, s.env, s.sensitive) for s in app.user_settings] == [("key", "P_KEY", True)]


def test_a_settings_variable_fills_its_option_unless_given(monkeypatch: pytest.MonkeyPatch) -> None:
    plugin = mcptrio.Registry("greeter")
    plugin.user_setting("greeting", env="GREETER_GREETING", option="greeting", title="Greeting", description="d")
    seen: list[str | None] = []

    @plugin.configure
    def configure(options: mcptrio.PluginOptions) -> None:
        seen.append(options.text("greeting", "hello"))

    configured(plugin, "greeter", None)
    monkeypatch.setenv("GREETER_GREETING", "good morning")
    configured(plugin, "greeter", None)
    configured(plugin, "greeter", mcptrio.PluginOptions("greeter", {"greeting": "given"}))
    monkeypatch.setenv("GREETER_GREETING", "${user_config.greeting}")  # (a bundle's placeholder left unfilled)
    configured(plugin, "greeter", None)
    assert seen == ["hello", "good morning", "given", "hello"]


def test_the_openapi_plugin_takes_its_document_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    document = tmp_path / "greetings.json"
    document.write_text(json.dumps(DOCUMENT), encoding="utf-8")
    with pytest.raises(PluginError, match="plugins.openapi.spec is required"):
        build_app(["openapi"])
    monkeypatch.setenv("MCPTRIO_OPENAPI_SPEC", str(document))
    assert list(build_app(["openapi"]).tools) == ["get_greeting"]
