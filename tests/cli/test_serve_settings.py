"""``mcptrio serve``'s settings, declared once: the flags, the file's checks, the defaults and the
reference page all come from ``ServeSettings``; ``resolve`` gives flags over file over defaults."""

from __future__ import annotations

import argparse
import inspect
from pathlib import Path

import pytest

from mcptrio.cli import make_parser
from mcptrio.cli.serve_settings import SECTIONS, ServeSettings, declared, misplaced, resolve
from mcptrio.cli.settings_page import REGENERATE, reference_page
from mcptrio.cli.usage import UsageError

ROOT = Path(__file__).resolve().parent.parent.parent
PAGE = ROOT / "docs" / "reference" / "serve-settings.md"


def settings(*flags: str, toml: str | None = None, tmp_path: Path | None = None) -> ServeSettings:
    argv = ["serve", *flags]
    if toml is not None:
        assert tmp_path is not None
        (tmp_path / "serve.toml").write_text("[serve]\n" + toml)
        argv += ["--config", str(tmp_path / "serve.toml")]
    return resolve(make_parser("serve").parse_args(argv))


def serve_parser() -> argparse.ArgumentParser:
    commands = next(a for a in make_parser("serve")._actions if isinstance(a, argparse._SubParsersAction))
    return commands.choices["serve"]


def test_the_reference_page_is_the_declaration() -> None:
    assert PAGE.read_text() == reference_page(declared(), SECTIONS), (
        f"{PAGE.relative_to(ROOT)} differs from mcptrio/cli/serve_settings.py: regenerate it with `{REGENERATE}`"
    )


def test_the_page_has_a_row_per_setting_and_a_section_per_declared_section() -> None:
    page = PAGE.read_text()
    for setting in declared():
        if setting.in_file:
            assert f"| `{setting.key}` |" in page, setting.key
        for flag in setting.flags if not setting.hidden else ():
            assert f"`{flag}" in page, flag
    assert [line[3:] for line in page.splitlines() if line.startswith("## ")] == list(SECTIONS)
    assert {setting.section for setting in declared()} == set(SECTIONS)


def test_every_flag_of_serve_is_a_declared_setting() -> None:
    declared_flags = {flag for setting in declared() for flag in setting.flags} - {"TARGET"}  # (the first word)
    parser_flags = {flag for action in serve_parser()._actions for flag in action.option_strings} - {"-h", "--help"}
    assert parser_flags - declared_flags == {"--no-access-log"}  # (made by --access-log's yes/no kind)
    assert declared_flags <= parser_flags


def test_without_flags_or_file_every_setting_is_its_default() -> None:
    resolved = settings()
    for setting in declared():
        value = getattr(resolved, setting.key)
        if setting.key == "limits":
            assert value == type(value)()
        elif setting.key == "access_log":
            assert value is False  # (on stdio, the default transport)
        else:
            assert value == setting.default, setting.key


def test_the_cli_defaults_are_the_library_defaults() -> None:
    """One fact each: the declaration's defaults agree with HttpConfig's, SessionLimits' and App's."""
    from mcptrio import App, SessionLimits
    from mcptrio.transports.http import HttpConfig

    defaults = {setting.key: setting.default for setting in declared()}
    for key in (
        "path",
        "response_mode",
        "legacy_sse",
        "orphan_timeout",
        "max_requests",
        "max_streams",
        "max_streams_per_client",
        "allowed_origins",
        "trusted_proxies",
    ):
        assert defaults[key] == getattr(HttpConfig(), key), key
    parameters = inspect.signature(App).parameters
    for key in ("instructions", "telemetry", "rate_limit", "max_tool_calls", "tool_call_wait", "auth"):
        assert defaults[key] == parameters[key].default, key
    drain = next(setting for setting in declared() if setting.key == "drain_timeout")
    assert f"`{SessionLimits().shutdown_grace:g}`" in drain.shown_default()


def test_a_flag_wins_over_the_file_and_the_file_over_the_default(tmp_path: Path) -> None:
    toml = 'port = 9000\nhost = "0.0.0.0"\nlog_level = "WARNING"\n'
    resolved = settings("--port", "9100", toml=toml, tmp_path=tmp_path)
    assert (resolved.port, resolved.host, resolved.log_level, resolved.path) == (9100, "0.0.0.0", "warning", "/mcp")


def test_repeatable_flags_add_to_the_file(tmp_path: Path) -> None:
    toml = 'allowed_hosts = ["a.example"]\nprefixes = { alpha = "a", beta = "b" }\nplugins = "alpha, beta"\n'
    resolved = settings("--allowed-host", "b.example", "--prefix", "beta=bb", toml=toml, tmp_path=tmp_path)
    assert resolved.allowed_hosts == ("a.example", "b.example")
    assert resolved.prefixes == {"alpha": "a", "beta": "bb"}
    assert resolved.plugins == ("alpha", "beta")
    assert settings("--plugins", "gamma", toml=toml, tmp_path=tmp_path).plugins == ("gamma",)  # replaces


def test_settings_that_depend_on_others(tmp_path: Path) -> None:
    resolved = settings(
        "--drain-timeout",
        "2",
        "--rate-limit",
        "10/s",
        "--rate-burst",
        "3",
        "--transport",
        "http",
        toml="[serve.limits]\nshutdown_grace = 9\nmax_in_flight = 7\n",
        tmp_path=tmp_path,
    )
    assert (resolved.limits.shutdown_grace, resolved.limits.max_in_flight) == (2.0, 7)  # the drain wins
    assert resolved.rate_limit is not None and (resolved.rate_limit.rate, resolved.rate_limit.burst) == (10.0, 3)
    assert resolved.access_log is True  # on for http
    assert settings("--transport", "http", "--no-access-log").access_log is False
    with pytest.raises(UsageError, match=r"^rate_burst needs a rate limit \(--rate-limit 20/s\)$"):
        settings("--rate-burst", "3")


def test_a_setting_on_a_transport_it_is_not_for() -> None:
    assert misplaced(settings("--transport", "ws", "--stateless-only")) == (
        "--workers and --stateless-only are for --transport http"
    )
    assert misplaced(settings("--state", "redis://127.0.0.1:6379/0")).startswith("--state is for http and ws")
    assert misplaced(settings("--transport", "ws", "--legacy-sse")) is None  # (ignored there, as it always was)


@pytest.mark.parametrize(
    ("toml", "says"),
    [
        ("workers = 0", "workers must be a whole number of at least 1, got 0"),
        ("tool_call_wait = -1", "tool_call_wait must be 0 or more seconds, got -1"),
        ("drain_timeout = -1.5", "drain timeout must be 0 or more seconds, got -1.5"),
        ('log_format = "xml"', "log format must be one of text, json, got 'xml'"),
        ("max_tool_calls = true", "serve.max_tool_calls must be a whole number, got True"),
        ("telemetry = 1", "serve.telemetry must be true or false, got 1"),
        ('trusted_proxies = ["10.0.0.300"]', "--trusted-proxy: not an IP address or network: '10.0.0.300'"),
        ("reload = true", "unknown key(s): serve.reload"),
    ],
)
def test_each_kind_says_what_is_wrong_in_one_line(toml: str, says: str, tmp_path: Path) -> None:
    with pytest.raises(UsageError) as refused:
        settings(toml=toml, tmp_path=tmp_path)
    assert str(refused.value).endswith(says)
    assert "\n" not in str(refused.value)


def test_the_settings_are_read_only_and_complete() -> None:
    resolved = settings("--transport", "http", "--port", "0")
    with pytest.raises(AttributeError, match="read-only"):
        resolved.port = 1
    changed = resolved.replace(port=8080)
    assert (changed.port, changed.transport, resolved.port) == (8080, "http", 0)
    with pytest.raises(TypeError, match=r"\['colour'\]"):
        resolved.replace(colour="blue")
    assert isinstance(resolved.limits, type(settings().limits)) and isinstance(resolved.plugins, tuple)


def test_the_target_is_the_first_word_or_the_files_from_its_folder(tmp_path: Path) -> None:
    assert settings("app.py:make").target == "app.py:make"
    assert settings(toml='target = "src/app.py:make"\n', tmp_path=tmp_path).target == f"{tmp_path}/src/app.py:make"
    assert settings(toml='target = "pkg.module"\n', tmp_path=tmp_path).target == "pkg.module"
    assert settings("other.py", toml='target = "app.py"\n', tmp_path=tmp_path).target == "other.py"
