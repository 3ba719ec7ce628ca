"""What ``import procession`` loads and builds (issue 25, "Start-up"; decision records 0354, 0380,
0381).

The root imports what a run needs; the optional parts (MCP, tracing's records and SDK, the
server, memory, the guardrail engines, pydantic, HTTP clients) load on first use. Each check runs
a fresh interpreter and reads ``sys.modules``: it counts modules, it never times anything (the
time is ``bench/bench_import.py``'s).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

HEAVY = (
    "procession.mcp",
    "procession.memory.memory",
    "procession.memory.sqlite",
    "procession.pricing",
    "procession.server",
    "procession.tracing.records",
    "procession.tracing.setup",
    "procession.guardrails.redact",
    "procession.guardrails.pii",
    "procession.guardrails.injection",
    "procession.guardrails.moderation",
    "pydantic",
    "docstring_parser",
    "mcp",
    "httpx",
    "anyio",
    "opentelemetry",
    "starlette",
    "fastapi",
    "sqlite3",
    "aiosqlite",
    "asyncpg",
    "numpy",
    "pathlib",
    "urllib.parse",
    "typing_extensions",
)
"""Modules ``import procession`` must not load (optional parts, loaded on first use)."""


def loaded_after(code: str, env: dict[str, str] | None = None) -> set[str]:
    """The modules a fresh interpreter holds after running ``code``."""
    probe = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    command = [sys.executable, "-c", probe]
    out = subprocess.run(command, capture_output=True, text=True, check=True, env=env)
    return set(json.loads(out.stdout.splitlines()[-1]))


def test_import_procession_leaves_the_optional_parts_unloaded() -> None:
    loaded = loaded_after("import procession")
    assert "procession.agent" in loaded  # the probe did import the package
    assert sorted(name for name in HEAVY if name in loaded) == []


@pytest.mark.parametrize(
    ("name", "module"),
    [
        ("MCPClient", "procession.mcp"),
        ("mcp_tools", "procession.mcp"),
        ("Memory", "procession.memory.memory"),
        ("StreamRedactor", "procession.guardrails.redact"),
    ],
)
def test_a_lazy_root_name_loads_its_module_on_first_use(name: str, module: str) -> None:
    loaded = loaded_after(f"import procession\nobj = procession.{name}\nassert obj.__name__")
    assert module in loaded


def test_tracing_records_load_on_first_use() -> None:
    loaded = loaded_after("import procession.tracing")
    assert "procession.tracing.records" not in loaded
    loaded = loaded_after(
        "from procession.tracing import HookCall, attributes\n"
        "assert HookCall.__name__ == 'HookCall' and attributes.__name__.endswith('attributes')"
    )
    assert "procession.tracing.records" in loaded


NOT_YET_RECORDS = frozenset({"procession.memory.base.Turn"})
"""Dataclasses ``import procession`` makes with ``@dataclass`` still (memory's, issue 25's memory
work is under way there)."""


def test_the_dataclasses_import_procession_makes_compile_only_their_init() -> None:
    # 0380: a record's other methods are shared functions of procession._records; a method
    # @dataclass compiled has the file name "<string>"
    probe = (
        "import dataclasses, sys\n"
        "import procession\n"
        "for name, module in list(sys.modules.items()):\n"
        "    if not name.startswith('procession'):\n"
        "        continue\n"
        "    for value in list(vars(module).values()):\n"
        "        if not (isinstance(value, type) and dataclasses.is_dataclass(value)\n"
        "                and value.__module__ == name):\n"
        "            continue\n"
        "        for method in ('__repr__', '__eq__', '__hash__', '__setattr__'):\n"
        "            fn = vars(value).get(method)\n"
        "            fn = getattr(fn, '__wrapped__', fn)\n"
        "            code = getattr(fn, '__code__', None)\n"
        "            compiled = code is not None and code.co_filename == '<string>'\n"
        "            print(name + '.' + value.__qualname__, method, compiled)"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    rows = [line.split() for line in out.stdout.splitlines()]
    assert ["procession.messages.parts.TextPart", "__repr__", "False"] in rows
    compiled = sorted({name for name, _, flag in rows if flag == "True"})
    assert compiled == sorted(NOT_YET_RECORDS)


def test_every_init_import_procession_makes_is_precompiled_and_every_entry_is_used() -> None:
    # 0382: no record compiles its __init__ on start; a stale entry means the generator was
    # not rerun (PYTHONPATH=src python scripts/gen_record_inits.py)
    probe = (
        "import json, procession\n"
        "from procession import _records\n"
        "from procession._record_inits import CODE\n"
        "print(json.dumps([_records.COMPILED, sorted(set(CODE) - set(_records.SOURCES))]))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    compiled, unused = json.loads(out.stdout.splitlines()[-1])
    assert compiled == []
    assert unused == []


RUN = (
    "import procession\n"
    "from procession.testing import ScriptedModel\n"
    "agent = procession.Agent(id='a', model=ScriptedModel(['hi']))\n"
    "assert agent.generate_sync('yo').text == 'hi'"
)


def test_a_run_without_a_tracer_provider_leaves_opentelemetry_unloaded() -> None:
    # nothing imported the OpenTelemetry API, so nothing can have set a provider
    assert "opentelemetry" not in loaded_after(RUN)


def test_a_run_loads_opentelemetry_where_a_provider_may_be_set() -> None:
    assert "opentelemetry.trace" in loaded_after(f"import opentelemetry.trace\n{RUN}")
    env = {**os.environ, "OTEL_PYTHON_TRACER_PROVIDER": "sdk_tracer_provider"}
    assert "opentelemetry.trace" in loaded_after(RUN, env=env)


def test_the_storage_contract_kit_loads_on_first_use() -> None:
    assert "procession.testing.storage_contract" not in loaded_after(RUN)
    loaded = loaded_after("from procession.testing import check_storage\nassert check_storage")
    assert "procession.testing.storage_contract" in loaded
