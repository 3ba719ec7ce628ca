"""The embedded model's two runtimes behind one interface, and the choice between them.

``numpy`` runs the GGUF in-process with numpy (``procession.models._numpy_llm``: the
``local`` extra, quick to install); ``llama.cpp`` runs it with ``llama-cpp-python`` (the
``llama`` extra, compiled from source at install time, and several times faster). ``auto``
(the default) takes llama.cpp wherever it is installed, else numpy
(docs/decisions/0370-numpy-runtime-for-the-embedded-model.md). Nothing here imports numpy or
``llama_cpp`` until a model loads.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal, Protocol

from procession.errors import ConfigurationError
from procession.models._local_chat import ChatMessage
from procession.models._local_settings import CHATML, Sampling

__all__ = [
    "Engine",
    "LlamaEngine",
    "NUMPY_MODULES",
    "RUNTIMES",
    "RUNTIME_VARIABLE",
    "Runtime",
    "choose_runtime",
    "missing_numpy_modules",
    "open_engine",
]

Runtime = Literal["auto", "numpy", "llama.cpp"]
RUNTIMES: tuple[str, ...] = ("auto", "numpy", "llama.cpp")
RUNTIME_VARIABLE = "PROCESSION_LOCAL_RUNTIME"
"""The environment variable that picks the runtime when ``LocalModel(runtime=...)`` is not
given: ``auto``, ``numpy`` or ``llama.cpp``."""
NUMPY_MODULES = ("numpy", "jinja2")
"""What the numpy runtime imports (the ``local`` extra)."""


class Engine(Protocol):
    """A loaded model on one runtime (one generation at a time: the caller serialises)."""

    runtime: str

    def render(self, messages: list[ChatMessage]) -> list[int]:
        """The prompt tokens of chat messages, through the model's chat template."""

    def is_end(self, token: int) -> bool:
        """Whether ``token`` ends generation."""

    def piece(self, token: int) -> bytes:
        """The bytes a generated token adds to the text."""

    def constraint(self, schema: dict[str, Any] | None) -> Any:
        """The prepared constraint for a JSON schema (``None``: free text)."""

    def generate(
        self, tokens: list[int], *, sampling: Sampling, seed: int, constraint: Any, reuse: bool
    ) -> Iterator[int]:
        """Tokens after the prompt ``tokens``, until the caller closes the iterator (an end
        token is yielded before it stops by itself)."""

    def close(self) -> None:
        """Free the model."""


def missing_numpy_modules() -> list[str]:
    """The numpy runtime's modules that are not installed."""
    return [name for name in NUMPY_MODULES if importlib.util.find_spec(name) is None]


def choose_runtime(requested: str | None) -> str:
    """The runtime to load: ``requested`` (or ``$PROCESSION_LOCAL_RUNTIME``, or ``auto``),
    with ``auto`` resolved to ``llama.cpp`` where ``llama_cpp`` is importable, else
    ``numpy``. :class:`ConfigurationError` for an unknown name."""
    name = requested or os.environ.get(RUNTIME_VARIABLE, "").strip() or "auto"
    if name == "llama":
        name = "llama.cpp"
    if name not in RUNTIMES:
        where = "runtime=" if requested else f"${RUNTIME_VARIABLE}="
        raise ConfigurationError(
            f"local model: unknown runtime {where}{name!r}; choose one of {', '.join(RUNTIMES)}"
        )
    if name == "auto":
        return "llama.cpp" if importlib.util.find_spec("llama_cpp") is not None else "numpy"
    return name


def open_engine(runtime: str, path: Path, n_ctx: int, n_threads: int | None) -> Engine:
    """Load ``path`` on ``runtime`` (``numpy`` or ``llama.cpp``); blocking."""
    if runtime == "numpy":
        missing = missing_numpy_modules()
        if missing:
            raise ConfigurationError(
                f"local model: the numpy runtime needs {', '.join(missing)}, which "
                f"{'is' if len(missing) == 1 else 'are'} not installed; install it with "
                "pip install 'procession[local]'"
            )
        from procession.models._numpy_llm.runtime import NumpyEngine

        return NumpyEngine(path, n_ctx, n_threads)
    return LlamaEngine(path, n_ctx, n_threads)


class LlamaEngine:
    """The model on ``llama-cpp-python``; constraints are GBNF grammars from the schema."""

    runtime = "llama.cpp"

    def __init__(self, path: Path, n_ctx: int, n_threads: int | None) -> None:
        try:
            import llama_cpp
            from llama_cpp.llama_chat_format import Jinja2ChatFormatter
        except ImportError as exc:
            raise ConfigurationError(
                "local model: runtime 'llama.cpp' needs llama-cpp-python, which is not "
                "installed; install it with pip install 'procession[llama]' (it compiles "
                "llama.cpp, a few minutes)"
            ) from exc
        self._llama_cpp = llama_cpp
        llama = self.llama = llama_cpp.Llama(
            model_path=str(path),
            n_ctx=n_ctx,
            n_threads=n_threads,
            n_threads_batch=n_threads,
            verbose=False,
        )
        self._eos = llama.token_eos()
        eos_text = llama.detokenize([self._eos], special=True).decode("utf-8", "replace")
        bos = llama.token_bos()
        bos_text = (
            llama.detokenize([bos], special=True).decode("utf-8", "replace") if bos >= 0 else ""
        )
        template = llama.metadata.get("tokenizer.chat_template") or CHATML
        self._format = Jinja2ChatFormatter(
            template=template, eos_token=eos_text, bos_token=bos_text
        )
        self._vocab = llama._model.vocab

    def render(self, messages: list[ChatMessage]) -> list[int]:
        """See :class:`Engine`."""
        result = self._format(messages=messages)  # type: ignore[arg-type]
        tokens: list[int] = self.llama.tokenize(
            result.prompt.encode("utf-8"), add_bos=not result.added_special, special=True
        )
        return tokens

    def is_end(self, token: int) -> bool:
        """See :class:`Engine`."""
        return token == self._eos or bool(self._llama_cpp.llama_vocab_is_eog(self._vocab, token))

    def piece(self, token: int) -> bytes:
        """See :class:`Engine`."""
        piece: bytes = self.llama.detokenize([token])
        return piece

    def constraint(self, schema: dict[str, Any] | None) -> Any:
        """GBNF for a JSON schema; the generic JSON grammar when the schema is empty or not
        convertible."""
        if schema is None:
            return None
        import json

        from llama_cpp import llama_grammar

        if schema:
            try:
                return str(llama_grammar.json_schema_to_gbnf(json.dumps(schema)))
            except Exception:  # unsupported schema feature: fall back to any JSON object
                pass
        return llama_grammar.JSON_GBNF

    def generate(
        self, tokens: list[int], *, sampling: Sampling, seed: int, constraint: Any, reuse: bool
    ) -> Iterator[int]:
        """See :class:`Engine`."""
        from llama_cpp.llama_grammar import LlamaGrammar

        llama = self.llama
        llama.set_seed(seed)
        if not reuse:
            llama.reset()  # type: ignore[no-untyped-call]  # evaluate the whole prompt afresh
        grammar = None if constraint is None else LlamaGrammar.from_string(constraint)
        generated: Iterator[int] = llama.generate(
            tokens,
            grammar=grammar,
            temp=sampling.temp,
            top_p=sampling.top_p,
            top_k=sampling.top_k,
            min_p=sampling.min_p,
            repeat_penalty=sampling.repeat_penalty,
            presence_penalty=sampling.presence_penalty,
            frequency_penalty=sampling.frequency_penalty,
        )
        return generated

    def close(self) -> None:
        """See :class:`Engine`."""
        self.llama.close()
