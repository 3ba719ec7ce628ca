"""Run the redactors on the evaluation corpora through a real Agent and count leaks.

Each item is streamed by a :class:`~procession.testing.ScriptedModel` in random chunkings:
as text deltas, as a tool call's streamed arguments (then the tool call), or as a structured
answer (a JSON object). The agent has memory on SQLite. After the run every channel is read:
the client's chunks, ``result.text``, the steps, the response messages, the stored messages,
the tool calls' arguments and the structured object.

A leak is a secret's probe found in a channel: digits only for numeric values (digits are
joined across separators, never across letters or mask characters), whitespace removed and
case folded otherwise; a card leaks when more than its first six and last four digits show
(seven consecutive digits of it, or all of them).
"""

from __future__ import annotations

import asyncio
import dataclasses
import gzip
import json
import random
import re
import sqlite3
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from procession import Agent, Memory, PIIDetector, RegexFilter, StreamRedactor, tool
from procession.chunks import Chunk
from procession.guardrails._redaction.redacting import RedactingProcessor
from procession.memory import SQLiteStorage
from procession.testing import Reply, ScriptedModel, ToolCallScript

DATA = Path(__file__).resolve().parent / "data"

REDACTORS: dict[str, Callable[[], RedactingProcessor]] = {
    "StreamRedactor": StreamRedactor,
    "RegexFilter": lambda: RegexFilter(presets=["pii", "secrets", "urls"], strategy="redact"),
    "PIIDetector": PIIDetector,
}

KEYS = {"provider-key", "private-key", "jwt", "bearer", "env-assignment", "url-credential"}
# What each redactor says it covers (docs/guardrails/redaction.md), as format groups.
CLAIMS: dict[str, set[str]] = {
    "StreamRedactor": {"card", "email", "ssn"} | KEYS,
    "RegexFilter": {"card", "email", "ssn", "phone"} | KEYS,
    "PIIDetector": {"card", "email", "ssn", "phone", "iban", "national-id", "crypto-wallet"} | KEYS,
}

MASK_BREAK = re.compile(r"[^\W\d]|[*#\[\]]")
NON_DIGIT = re.compile(r"\D")


def load(split: str, corpus: str, data: Path = DATA) -> list[dict[str, Any]]:
    """Items of ``{corpus}-{split}.jsonl.gz``."""
    path = data / f"{corpus}-{split}.jsonl.gz"
    if not path.exists():
        raise FileNotFoundError(f"guardrail_eval: no corpus file {path}")
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def digit_segments(text: str) -> list[str]:
    """Digit runs joined across separators, broken at letters and mask characters."""
    return [NON_DIGIT.sub("", part) for part in MASK_BREAK.split(text)]


def leaked(secret: dict[str, Any], text: str, segments: list[str] | None = None) -> bool:
    """Whether ``text`` (one channel) reveals the secret."""
    if secret["numeric"] or secret["card"]:
        segments = digit_segments(text) if segments is None else segments
        if secret["card"]:
            digits = secret["probes"][0]
            windows = {digits[i : i + 7] for i in range(len(digits) - 6)}
            return any(w in seg for seg in segments if len(seg) >= 7 for w in windows)
        return any(p and p in seg for seg in segments for p in secret["probes"])
    folded = "".join(text.split()).casefold()
    return any(p in folded for p in secret["probes"])


def chunkings(text: str, rng: random.Random) -> list[str]:
    """A random chunking: pieces of 1-12 characters, sometimes single characters."""
    out: list[str] = []
    position = 0
    single = rng.random() < 0.15
    while position < len(text):
        size = 1 if single else rng.randint(1, 12)
        out.append(text[position : position + size])
        position += size
    return out or [""]


def make_lookup(results: dict[str, str]) -> Any:
    """The evaluation's tool: returns ``results["value"]`` ("noted" unless an echo item set
    one: a card the model then repeats)."""

    @tool
    def lookup(query: str) -> str:
        """Look something up."""
        del query
        return results.get("value", "noted")

    return lookup


SCHEMA = {"type": "object", "properties": {"note": {"type": "string"}}, "required": ["note"]}


def script(item: dict[str, Any], rng: random.Random) -> tuple[list[Reply], Any]:
    """The model's replies for one item and channel, and the structured-output option."""
    text = item["text"]
    if item.get("channel") == "tool-args":
        args = {"query": text}
        encoded = json.dumps(args, ensure_ascii=False)
        deltas = [
            Chunk("tool-call-input-streaming-start", {"toolCallId": "c1", "toolName": "lookup"}),
            *(
                Chunk("tool-call-delta", {"toolCallId": "c1", "argsTextDelta": piece})
                for piece in chunkings(encoded, rng)
            ),
            Chunk("tool-call-input-streaming-end", {"toolCallId": "c1"}),
        ]
        first = Reply(extra_chunks=tuple(deltas), tool_calls=[ToolCallScript("lookup", args, "c1")])
        return [first, Reply(text=["Done."])], None
    if item.get("channel") == "echo":
        first = Reply(tool_calls=[ToolCallScript("lookup", {"query": "card on file"}, "c1")])
        return [first, Reply(text=chunkings(text, rng))], None
    if item.get("channel") == "structured":
        encoded = json.dumps({"note": text}, ensure_ascii=False)
        return [Reply(text=chunkings(encoded, rng))], SCHEMA
    return [Reply(text=chunkings(text, rng))], None


def dump(value: Any) -> str:
    """Any result part as text (dataclasses and messages included)."""

    def default(obj: Any) -> Any:
        if hasattr(obj, "to_dict"):
            return obj.to_dict()
        if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
            return {
                f.name: getattr(obj, f.name)
                for f in dataclasses.fields(obj)
                if f.name not in ("request", "response")
            }
        return str(obj)

    return json.dumps(value, ensure_ascii=False, default=default)


class Runner:
    """One redactor's agent with memory on a SQLite file; runs items, reads channels."""

    def __init__(self, redactor: str, workdir: Path) -> None:
        self.redactor = redactor
        self.db = workdir / f"{redactor}.db"
        self.storage = SQLiteStorage(str(self.db))
        self.memory = Memory(self.storage, last_messages=1)
        self.count = 0
        self.results: dict[str, str] = {}
        self.lookup = make_lookup(self.results)

    async def run(self, item: dict[str, Any], rng: random.Random) -> dict[str, str]:
        """Run one item; the text of each channel."""
        replies, structured = script(item, rng)
        self.results["value"] = item.get("tool_result", "noted")
        agent = Agent(
            id="eval",
            instructions="You are a helpful assistant.",
            model=ScriptedModel(replies),
            tools=[self.lookup],
            output_processors=[REDACTORS[self.redactor]()],
            memory=self.memory,
        )
        self.count += 1
        thread = f"t{self.count}"
        options: dict[str, Any] = {"thread_id": thread, "resource_id": "eval"}
        if structured is not None:
            options["structured_output"] = structured
        stream = agent.stream("Please go on.", **options)
        client_text: list[str] = []
        client_other: list[str] = []
        async for chunk in stream:
            if chunk.type == "text-delta":
                client_text.append(chunk.payload.get("text", ""))
            elif chunk.type not in ("text-start", "text-end", "finish", "step-finish"):
                client_other.append(dump(chunk.payload))
        result = await stream.result()
        stored = self.stored(thread)
        return {
            "client": "".join(client_text) + "\n" + "\n".join(client_other),
            "client_text": "".join(client_text),
            "result.text": result.text,
            "steps": dump(result.steps),
            "messages": dump(result.messages),
            "store": stored,
            "tool-args": dump([c.args for c in result.tool_calls]),
            "structured": dump(result.object),
            "error": repr(result.error) if result.error else "",
        }

    def stored(self, thread: str) -> str:
        """The stored message bodies of a thread, read from the SQLite file itself."""
        with sqlite3.connect(self.db) as conn:
            rows = conn.execute("SELECT body FROM messages WHERE thread_id = ?", (thread,))
            return "\n".join(json.loads(json.dumps(r[0])) for r in rows)


def seeded(item_id: str, chunking: int) -> random.Random:
    """The chunking's random source: the same for every redactor."""
    return random.Random(f"{item_id}:{chunking}")


def evaluate_batch(args: tuple[str, list[dict[str, Any]], int]) -> list[dict[str, Any]]:
    """Run a batch of items through one redactor (a worker process's job)."""
    redactor, items, count = args
    with tempfile.TemporaryDirectory() as tmp:
        runner = Runner(redactor, Path(tmp))
        return asyncio.run(run_items(runner, items, count))


async def run_items(
    runner: Runner, items: list[dict[str, Any]], count: int
) -> list[dict[str, Any]]:
    """Every item in ``count`` chunkings: leak channels for secrets, alteration for text."""
    out: list[dict[str, Any]] = []
    for item in items:
        for k in range(count):
            channels = await runner.run(item, seeded(item["id"], k))
            out.append(score(item, channels))
    return out


def score(item: dict[str, Any], channels: dict[str, str]) -> dict[str, Any]:
    """One run's outcome: channels that leaked (secrets) or whether the text was altered."""
    if "secrets" in item:
        leaks: set[str] = set()
        for name, text in channels.items():
            if name in ("client_text", "error"):
                continue
            segments = digit_segments(text)
            if any(leaked(s, text, segments) for s in item["secrets"]):
                leaks.add(name)
        return {
            "id": item["id"],
            "format": item["format"],
            "group": item["group"],
            "context": item["context"],
            "leaks": sorted(leaks),
            "error": channels["error"],
        }
    altered = channels["client_text"] != item["text"] or channels["result.text"] != item["text"]
    return {
        "id": item["id"],
        "category": item["category"],
        "lang": item.get("lang", "und"),
        "format": item.get("format", item.get("source", "")),
        "altered": altered,
        "error": channels["error"],
    }


def batches(items: list[dict[str, Any]], size: int) -> Iterator[list[dict[str, Any]]]:
    """``items`` in slices of ``size``."""
    for start in range(0, len(items), size):
        yield items[start : start + size]


def throughput(redactor: str, text: str, chunk: int = 16) -> float:
    """MB/s of ``text`` streamed through the processor's output-stream hook in chunks."""
    processor: Any = REDACTORS[redactor]()
    state: dict[str, Any] = {}
    hook = processor.process_output_stream

    def abort(*_: Any, **__: Any) -> None:
        raise RuntimeError("abort")

    parts = [
        Chunk("text-delta", {"id": "t", "text": text[i : i + chunk]})
        for i in range(0, len(text), chunk)
    ]
    parts.append(Chunk("text-end", {"id": "t"}))
    started = time.process_time()
    for part in parts:
        hook(part=part, state=state, abort=abort)
    seconds = time.process_time() - started
    return len(text.encode("utf-8")) / 1e6 / max(seconds, 1e-9)
