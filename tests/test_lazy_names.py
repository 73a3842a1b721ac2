"""Every name a package exports is there, including those imported only on first use."""

import importlib

import pytest

PACKAGES = ["mcptrio", "mcptrio.app", "mcptrio.auth", "mcptrio.state", "mcptrio.transports.http"]


@pytest.mark.parametrize("package", PACKAGES)
def test_every_exported_name_resolves(package: str) -> None:
    module = importlib.import_module(package)
    for name in module.__all__:
        assert getattr(module, name) is not None, f"{package}.{name}"


@pytest.mark.parametrize("package", PACKAGES)
def test_an_unknown_name_is_an_attribute_error_naming_the_package(package: str) -> None:
    module = importlib.import_module(package)
    with pytest.raises(AttributeError, match=f"module '{package}' has no attribute 'no_such_name'"):
        module.no_such_name  # noqa: B018


def test_a_module_is_exported_as_itself() -> None:
    import mcptrio

    assert mcptrio.content is importlib.import_module("mcptrio.app.content")
