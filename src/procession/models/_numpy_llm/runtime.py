"""The numpy runtime's generation loop: one loaded GGUF, its tokenizer, template and cache."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Any

import numpy as np

from procession.models._local_chat import ChatMessage
from procession.models._local_settings import CHATML, Sampling
from procession.models._numpy_llm.forward import Transformer
from procession.models._numpy_llm.grammar import Matcher, State, compile_schema
from procession.models._numpy_llm.sampling import choose
from procession.models._numpy_llm.vocab import Vocab, chat_renderer
from procession.models._numpy_llm.weights import read_weights

__all__ = ["NumpyEngine"]

_MATCHERS = 16  # compiled schemas kept per model


class _Constraint:
    """One call's grammar state: what has been generated, and which tokens may follow."""

    __slots__ = ("_engine", "_matcher", "pending", "state")

    def __init__(self, engine: NumpyEngine, matcher: Matcher) -> None:
        self._engine = engine
        self._matcher = matcher
        self.state: State = matcher.start
        self.pending = b""

    def allows(self, token: int) -> bool:
        """Whether ``token`` keeps the output a valid prefix (an end token: a whole one)."""
        if token in self._engine.vocab.ends:
            return Matcher.can_end(self.state)
        text = self._engine.vocab.texts[token]
        if text is not None and not self.pending:
            return bool(text) and bool(self._matcher.feed(self.state, text))
        raw = self._engine.grammar_bytes[token]
        return bool(raw) and bool(self._matcher.feed_bytes(self.state, self.pending, raw)[0])

    def accept(self, token: int) -> None:
        """Advance past a chosen token."""
        raw = self._engine.grammar_bytes[token]
        self.state, self.pending = self._matcher.feed_bytes(self.state, self.pending, raw)

    @property
    def finished(self) -> bool:
        """Whether nothing but the end may follow."""
        return Matcher.must_end(self.state)


class NumpyEngine:
    """A GGUF model run with numpy (see :mod:`procession.models._numpy_llm`).

    Args:
        path: The GGUF file.
        n_ctx: The context window, in tokens.
        n_threads: BLAS threads while generating (``None``: one, the fastest on a shared
            machine; see docs/local-model.md).
    """

    runtime = "numpy"

    def __init__(self, path: Path, n_ctx: int, n_threads: int | None) -> None:
        weights = read_weights(path)
        self.vocab = Vocab(weights.metadata)
        # what a grammar sees of each token: its text, control tokens spelled out
        self.grammar_bytes = [
            t.encode() if t is not None else p
            for t, p in zip(self.vocab.texts, self.vocab.pieces, strict=True)
        ]
        template = weights.metadata.get("tokenizer.chat_template") or CHATML
        self._render = chat_renderer(str(template), self.vocab)
        self.model = Transformer(weights, n_ctx)
        self.threads = n_threads or 1
        self._cached: list[int] = []
        self._matchers: dict[str, Matcher] = {}
        self._matchers_lock = threading.Lock()
        self._limits = _thread_limiter()

    def render(self, messages: list[ChatMessage]) -> list[int]:
        """See :class:`~procession.models._local_runtime.Engine`."""
        return self.vocab.encode(self._render(messages))

    def is_end(self, token: int) -> bool:
        """See :class:`~procession.models._local_runtime.Engine`."""
        return token in self.vocab.ends

    def piece(self, token: int) -> bytes:
        """See :class:`~procession.models._local_runtime.Engine`."""
        return self.vocab.pieces[token]

    def constraint(self, schema: dict[str, Any] | None) -> Matcher | None:
        """The prefix checker of a JSON schema (compiled once per schema and model)."""
        if schema is None:
            return None
        key = json.dumps(schema, sort_keys=True, default=str)
        with self._matchers_lock:
            matcher = self._matchers.get(key)
            if matcher is None:
                if len(self._matchers) >= _MATCHERS:
                    self._matchers.pop(next(iter(self._matchers)))
                matcher = self._matchers[key] = Matcher(compile_schema(schema))
            return matcher

    def _prefill(self, tokens: list[int], reuse: bool) -> np.ndarray[Any, Any]:
        start = 0
        if reuse:
            for a, b in zip(self._cached, tokens, strict=False):
                if a != b:
                    break
                start += 1
            start = min(start, len(tokens) - 1)  # evaluate at least the last prompt token
        self.model.truncate(start)
        self._cached = list(tokens[:start])
        logits = self.model.forward(tokens[start:])
        self._cached = list(tokens)
        return logits

    def generate(
        self, tokens: list[int], *, sampling: Sampling, seed: int, constraint: Any, reuse: bool
    ) -> Iterator[int]:
        """See :class:`~procession.models._local_runtime.Engine`."""
        with self._limits(self.threads):
            logits = self._prefill(tokens, reuse)
            rng = np.random.default_rng(seed)
            guide = None if constraint is None else _Constraint(self, constraint)
            recent: list[int] = []
            end = self.vocab.eos
            while True:
                if guide is not None and guide.finished:
                    yield end
                    return
                allows = None if guide is None else guide.allows
                token = choose(logits, sampling, recent=recent, rng=rng, allows=allows)
                if token is None or token in self.vocab.ends:
                    yield end if token is None else token
                    return
                if guide is not None:
                    guide.accept(token)
                recent.append(token)
                yield token
                if self.model.length >= self.model.n_ctx:
                    return
                logits = self.model.forward([token])
                self._cached.append(token)

    def close(self) -> None:
        """Nothing to free but memory."""


def _thread_limiter() -> Any:
    """``limit(n)``: a context limiting BLAS to ``n`` threads (``threadpoolctl``, when
    installed; otherwise BLAS keeps its own count)."""
    try:
        from threadpoolctl import ThreadpoolController  # type: ignore[import-untyped]
    except ImportError:

        def unlimited(n: int) -> AbstractContextManager[None]:
            return nullcontext()

        return unlimited
    controller = ThreadpoolController()

    def limit(n: int) -> AbstractContextManager[Any]:
        context: AbstractContextManager[Any] = controller.limit(limits=n, user_api="blas")
        return context

    return limit
