"""Which runtime the embedded model loads: ``auto`` (llama.cpp where installed, else
numpy), an explicit ``runtime=``, or ``$PROCESSION_LOCAL_RUNTIME``; unknown names fail
clearly. No model is loaded here."""

from __future__ import annotations

import importlib.util
from importlib.machinery import ModuleSpec
from pathlib import Path

import pytest

from procession.errors import ConfigurationError
from procession.models._local_runtime import RUNTIME_VARIABLE, choose_runtime, open_engine
from procession.models.local import LocalModel

real_find_spec = importlib.util.find_spec


def pretend(monkeypatch: pytest.MonkeyPatch, *, llama: bool, numpy: bool = True) -> None:
    hidden = ({"llama_cpp"} if not llama else set()) | ({"jinja2"} if not numpy else set())

    def find_spec(name: str, package: str | None = None) -> ModuleSpec | None:
        if name in hidden:
            return None
        if name == "llama_cpp" and llama:
            return real_find_spec(name, package) or ModuleSpec("llama_cpp", None)
        return real_find_spec(name, package)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)


@pytest.mark.parametrize(("llama", "expected"), [(True, "llama.cpp"), (False, "numpy")])
def test_auto_takes_llama_cpp_where_installed_else_numpy(
    monkeypatch: pytest.MonkeyPatch, llama: bool, expected: str
) -> None:
    monkeypatch.delenv(RUNTIME_VARIABLE, raising=False)
    pretend(monkeypatch, llama=llama)
    assert choose_runtime(None) == expected
    assert choose_runtime("auto") == expected
    assert LocalModel().active_runtime() == expected


def test_an_explicit_choice_wins_over_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    pretend(monkeypatch, llama=True)
    monkeypatch.setenv(RUNTIME_VARIABLE, "numpy")
    assert LocalModel().active_runtime() == "numpy"
    assert LocalModel(runtime="llama.cpp").active_runtime() == "llama.cpp"
    assert LocalModel(runtime="llama").active_runtime() == "llama.cpp"  # the extra's name
    monkeypatch.setenv(RUNTIME_VARIABLE, "  ")
    assert LocalModel().active_runtime() == "llama.cpp"  # blank: auto


def test_unknown_runtimes_name_the_choices(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(
        ConfigurationError,
        match=r"unknown runtime runtime='torch'; choose one of auto, numpy, llama\.cpp",
    ):
        LocalModel(runtime="torch").active_runtime()
    monkeypatch.setenv(RUNTIME_VARIABLE, "cuda")
    with pytest.raises(ConfigurationError, match=r"\$PROCESSION_LOCAL_RUNTIME='cuda'"):
        LocalModel().active_runtime()


def test_a_missing_numpy_runtime_names_its_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    pretend(monkeypatch, llama=False, numpy=False)
    with pytest.raises(
        ConfigurationError, match=r"needs jinja2, which is not installed.*procession\[local\]"
    ):
        open_engine("numpy", Path("x.gguf"), 64, 1)
