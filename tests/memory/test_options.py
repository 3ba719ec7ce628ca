"""Every constructor argument and call option of ``procession.memory`` is checked (D35).

A wrong type or an out-of-range value raises ``ConfigurationError`` naming the argument, the
value and what is expected; a ``bool`` is not an int, and only a ``bool`` is a flag.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from procession.errors import ConfigurationError
from procession.memory import (
    HashEmbedder,
    Memory,
    MessageHistory,
    MiniLMEmbedder,
    SemanticRecall,
    SemanticRecallConfig,
    SQLiteStorage,
    Storage,
    WorkingMemory,
    WorkingMemoryConfig,
)
from procession.memory.postgres import PostgresStorage

STORE = SQLiteStorage(":memory:")  # never opened: constructors only keep it


def _any(value: object) -> Any:
    """A value the type checker would refuse, passed through ``Any`` to the runtime check."""
    return value


# (case, a call with one bad argument, the argument it must name, the value it must show)
CONSTRUCTORS: list[tuple[str, Callable[[], object], str, str]] = [
    ("read_only str", lambda: Memory(STORE, read_only=_any("no")), "read_only", "'no'"),
    ("read_only int", lambda: Memory(STORE, read_only=_any(0)), "read_only", "0"),
    ("last str", lambda: Memory(STORE, last_messages=_any("10")), "last_messages", "'10'"),
    ("last bool", lambda: Memory(STORE, last_messages=_any(True)), "last_messages", "True"),
    ("last negative", lambda: Memory(STORE, last_messages=-1), "last_messages", "-1"),
    ("wm str", lambda: Memory(STORE, working_memory=_any("yes")), "working_memory", "'yes'"),
    ("recall int", lambda: Memory(STORE, semantic_recall=_any(1)), "semantic_recall", "1"),
    ("storage", lambda: Memory(_any("chat.db")), "storage", "'chat.db'"),
    ("wm scope", lambda: WorkingMemoryConfig(scope=_any("user")), "scope", "'user'"),
    ("wm template", lambda: WorkingMemoryConfig(template=_any(3)), "template", "3"),
    ("wm schema", lambda: WorkingMemoryConfig(schema=_any("x")), "schema", "'x'"),
    ("top_k str", lambda: SemanticRecallConfig(top_k=_any("4")), "top_k", "'4'"),
    ("top_k bool", lambda: SemanticRecallConfig(top_k=_any(True)), "top_k", "True"),
    ("top_k zero", lambda: SemanticRecallConfig(top_k=0), "top_k", "0"),
    ("range bool", lambda: SemanticRecallConfig(message_range=_any(True)), "message_range", "True"),
    ("range neg", lambda: SemanticRecallConfig(message_range=(1, -1)), "message_range", "(1, -1)"),
    (
        "range 3",
        lambda: SemanticRecallConfig(message_range=_any((1, 2, 3))),
        "message_range",
        "(1, 2, 3)",
    ),
    ("range str", lambda: SemanticRecallConfig(message_range=_any("2")), "message_range", "'2'"),
    ("threshold str", lambda: SemanticRecallConfig(threshold=_any("0.5")), "threshold", "'0.5'"),
    ("threshold bool", lambda: SemanticRecallConfig(threshold=_any(True)), "threshold", "True"),
    ("threshold big", lambda: SemanticRecallConfig(threshold=1.5), "threshold", "1.5"),
    ("threshold nan", lambda: SemanticRecallConfig(threshold=float("nan")), "threshold", "nan"),
    ("recall scope", lambda: SemanticRecallConfig(scope=_any(None)), "scope", "None"),
    ("embedder", lambda: SemanticRecallConfig(embedder=_any("minilm")), "embedder", "'minilm'"),
    ("sqlite path", lambda: SQLiteStorage(_any(None)), "path", "None"),
    ("sqlite empty", lambda: SQLiteStorage(""), "path", "''"),
    ("busy bool", lambda: SQLiteStorage(":memory:", busy_timeout=_any(True)), "busy_timeout", ""),
    ("busy neg", lambda: SQLiteStorage(":memory:", busy_timeout=-1), "busy_timeout", "-1"),
    ("busy str", lambda: SQLiteStorage(":memory:", busy_timeout=_any("5")), "busy_timeout", "'5'"),
    ("pg dsn", lambda: PostgresStorage(_any(None)), "dsn", "None"),
    ("pg min", lambda: PostgresStorage("postgresql://h", min_size=-1), "min_size", "-1"),
    ("pg max", lambda: PostgresStorage("postgresql://h", max_size=0), "max_size", "0"),
    (
        "pg max<min",
        lambda: PostgresStorage("postgresql://h", min_size=5, max_size=2),
        "max_size",
        "2",
    ),
    ("pg max bool", lambda: PostgresStorage("postgresql://h", max_size=_any(True)), "max_size", ""),
    ("pg schema", lambda: PostgresStorage("postgresql://h", schema="Public"), "schema", "'Public'"),
    ("hash dims", lambda: HashEmbedder(_any(True)), "dimensions", "True"),
    ("hash small", lambda: HashEmbedder(1), "dimensions", "1"),
    ("minilm length", lambda: MiniLMEmbedder(max_length=1000), "max_length", "1000"),
    ("minilm batch", lambda: MiniLMEmbedder(batch_size=0), "batch_size", "0"),
    ("minilm dir", lambda: MiniLMEmbedder(_any(3)), "model_dir", "3"),
    (
        "history last",
        lambda: MessageHistory(STORE, last_messages=_any(2.5)),
        "last_messages",
        "2.5",
    ),
    ("history store", lambda: MessageHistory(_any(None)), "storage", "None"),
    (
        "working flag",
        lambda: WorkingMemory(STORE, WorkingMemoryConfig(), read_only=_any("no")),
        "read_only",
        "'no'",
    ),
    ("working config", lambda: WorkingMemory(STORE, _any({})), "config", "{}"),
    (
        "recall embedder",
        lambda: SemanticRecall(STORE, SemanticRecallConfig(), _any(None)),
        "embedder",
        "None",
    ),
    ("recall config", lambda: SemanticRecall(STORE, _any(None), HashEmbedder()), "config", ""),
]


@pytest.mark.parametrize(
    ("case", "make", "name", "shown"), CONSTRUCTORS, ids=[c[0] for c in CONSTRUCTORS]
)
def test_a_bad_constructor_argument_is_named_with_its_value(  # D35
    case: str, make: Callable[[], object], name: str, shown: str
) -> None:
    with pytest.raises(ConfigurationError) as caught:
        make()
    text = str(caught.value)
    assert f": {name} must " in text, text
    if shown:
        assert f"got {shown}" in text, text


def test_good_values_pass_and_are_kept() -> None:
    config = SemanticRecallConfig(top_k=2, message_range=(0, 3), threshold=-0.25)
    assert (config.top_k, config.range, config.threshold) == (2, (0, 3), -0.25)
    assert SemanticRecallConfig(message_range=2).range == (2, 2)
    memory = Memory(STORE, last_messages=0, read_only=True)
    assert (memory.read_only, memory.history.last_messages) == (True, 0)
    assert SQLiteStorage(Path("x.db"), busy_timeout=0).path == "x.db"


# (case, a storage call with one bad option, the option it must name)
CALLS: list[tuple[str, Callable[[Storage], Awaitable[object]], str]] = [
    ("last str", lambda s: s.list_messages("t", resource_id="r", last=_any("3")), "last"),
    ("last bool", lambda s: s.list_messages("t", resource_id="r", last=_any(True)), "last"),
    ("last negative", lambda s: s.list_messages("t", resource_id="r", last=-1), "last"),
    ("before int", lambda s: s.list_messages("t", resource_id="r", before=_any(5)), "before"),
    ("limit", lambda s: s.list_threads("r", limit=-2), "limit"),
    ("offset", lambda s: s.list_threads("r", offset=_any(None)), "offset"),
    (
        "around before",
        lambda s: s.list_messages_around("t", ["m"], resource_id="r", before=-1),
        "before",
    ),
    (
        "around after",
        lambda s: s.list_messages_around("t", ["m"], resource_id="r", after=_any("1")),
        "after",
    ),
    ("top_k", lambda s: s.query_vectors([1.0], resource_id="r", top_k=0), "top_k"),
    (
        "threshold",
        lambda s: s.query_vectors([1.0], resource_id="r", threshold=_any("0.3")),
        "threshold",
    ),
]


@pytest.mark.asyncio
@pytest.mark.parametrize(("case", "call", "name"), CALLS, ids=[c[0] for c in CALLS])
async def test_a_bad_storage_option_is_named_on_every_backend(  # D35
    backend: Storage, case: str, call: Callable[[Storage], Awaitable[object]], name: str
) -> None:
    with pytest.raises(ConfigurationError, match=rf": {name} must be"):
        await call(backend)
