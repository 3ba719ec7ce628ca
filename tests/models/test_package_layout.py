"""The provider adapters' layout (issue 22): ``models/anthropic/`` and ``models/google/`` are
packages in the shape of ``models/openai/``, and every import path the docs show still works."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

import procession.models
from procession.models import registered_providers
from procession.models.providers import BUILTIN_PROVIDERS

MODELS = Path(procession.models.__file__).parent

PUBLIC = {
    "procession.models.anthropic": {
        "AnthropicBedrockModel",
        "AnthropicModel",
        "AnthropicVertexModel",
        "bedrock_model_from_id",
        "model_from_id",
        "vertex_model_from_id",
    },
    "procession.models.google": {
        "DEFAULT_BASE_URL",
        "GoogleModel",
        "GoogleVertexModel",
        "finish_reason",
        "model_from_id",
        "vertex_model_from_id",
    },
}
"""What docs/api/providers.md and docs/providers-anthropic-google.md import from each."""


@pytest.mark.parametrize("package", sorted(PUBLIC))
def test_each_adapter_is_a_package_exporting_the_documented_names(package: str) -> None:
    module = importlib.import_module(package)
    assert Path(module.__file__ or "").name == "__init__.py"
    assert set(module.__all__) == PUBLIC[package]
    for name in module.__all__:
        value = getattr(module, name)
        home = getattr(value, "__module__", package)
        assert home == package or home.startswith(f"{package}._"), (name, home)


def test_no_flat_adapter_module_is_left_beside_the_packages() -> None:
    flat = sorted(
        path.name
        for path in MODELS.glob("*.py")
        if path.name.startswith(("_anthropic", "_google", "anthropic", "google"))
    )
    assert flat == []


def test_the_adapter_packages_hold_only_private_modules() -> None:
    for package in ("anthropic", "google"):
        names = sorted(p.name for p in (MODELS / package).glob("*.py"))
        assert names[0] == "__init__.py"
        assert all(n.startswith("_") for n in names), names


@pytest.mark.parametrize(
    ("provider", "target"),
    [
        ("anthropic", "procession.models.anthropic:model_from_id"),
        ("anthropic-bedrock", "procession.models.anthropic:bedrock_model_from_id"),
        ("anthropic-vertex", "procession.models.anthropic:vertex_model_from_id"),
        ("google", "procession.models.google:model_from_id"),
        ("google-vertex", "procession.models.google:vertex_model_from_id"),
    ],
)
def test_the_router_ids_name_the_packages_factories(provider: str, target: str) -> None:
    assert BUILTIN_PROVIDERS[provider] == target
    assert provider in registered_providers()
    module, function = target.split(":")
    assert callable(getattr(importlib.import_module(module), function))
