"""The OpenAPI document, fuzzed with schemathesis against a real server on 127.0.0.1.

Every operation is called with generated requests, valid (positive) and invalid (negative),
with and without credentials: no response may be a 5xx, and every response must match the
document (status code, content type, headers, body schema). Example counts are pinned; longer
fuzzing runs belong in ``bench/``.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
import schemathesis
from hypothesis import HealthCheck, assume, given, settings
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from procession import Memory
from procession.memory import SQLiteStorage
from procession.server import Auth, ServerLimits, create_app
from procession.server.a2a import A2A_ROUTES
from procession.server.chunk_log import ChunkLog
from procession.server.openai_compat import OPENAI_ROUTES
from procession.server.routes import RECONNECT, ROUTES, RouteSpec
from procession.server.scaling import Scaling
from procession.server.studio import STUDIO_ROUTES
from procession.tracing import trace_store
from tests.memory.crash_harness import drop_schema, find_dsn

from .conftest import scripted_agent, serve_in_thread

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]
KEY = "fuzz-key-0123456789abcdef"
EXAMPLES = {GenerationMode.POSITIVE: 15, GenerationMode.NEGATIVE: 8}
SERVED = ROUTES + A2A_ROUTES + OPENAI_ROUTES + STUDIO_ROUTES  # Studio's JSON routes too


@pytest.fixture(scope="module", params=["open", "auth"])
def served(request: Any, tmp_path_factory: Any) -> Iterator[tuple[str, Any, dict[str, str]]]:
    path: Path = tmp_path_factory.mktemp("fuzz") / "memory.db"
    memory = Memory(SQLiteStorage(str(path)), working_memory=True)
    agents = [
        scripted_agent("support", "Hello there", memory=memory),
        scripted_agent("stateless", "Hi"),
    ]
    auth = Auth(api_keys={KEY: "fuzzer"}) if request.param == "auth" else None
    traces = trace_store(path.with_name("traces.db"))
    app = create_app(
        agents,
        memory=memory,
        auth=auth,
        limits=ServerLimits(max_body_bytes=65536),
        traces=traces,
    )
    headers = {"X-API-Key": KEY} if auth is not None else {}
    with serve_in_thread(app) as url:
        document = requests.get(f"{url}/api/openapi.json", headers=headers, timeout=10).json()
        yield url, schemathesis.openapi.from_dict(document), headers
    traces.shutdown()


@pytest.fixture(scope="module")
def resumable(tmp_path_factory: Any) -> Iterator[tuple[str, Any, dict[str, str]]]:
    """A server with resumable streams (a chunk log on PostgreSQL): its reconnect routes."""
    dsn = find_dsn()
    if dsn is None:
        pytest.skip("no PostgreSQL server: set PROCESSION_TEST_POSTGRES_DSN")
    schema = f"fuzz_{uuid.uuid4().hex[:10]}"
    path: Path = tmp_path_factory.mktemp("fuzz") / "memory.db"
    memory = Memory(SQLiteStorage(str(path)))
    scaling = Scaling(chunk_log=ChunkLog(dsn, schema=schema))
    app = create_app([scripted_agent("support", "Hello there", memory=memory)], scaling=scaling)
    try:
        with serve_in_thread(app) as url:
            document = requests.get(f"{url}/api/openapi.json", timeout=10).json()
            yield url, schemathesis.openapi.from_dict(document), {}
    finally:
        asyncio.run(drop_schema(dsn, schema))


def _operations(routes: tuple[RouteSpec, ...] = SERVED) -> list[str]:
    return [f"{r.method} {r.path}" for r in routes]


def _cases(routes: tuple[RouteSpec, ...] = SERVED) -> list[tuple[str, GenerationMode]]:
    """Every operation in positive mode; in negative mode those with something to get wrong."""
    out = []
    for route in routes:
        label = f"{route.method} {route.path}"
        out.append((label, GenerationMode.POSITIVE))
        # A route whose only input is a free string in its path has nothing to get wrong.
        if route.body is not None or route.query(ServerLimits()) or "{agentId}" in route.path:
            out.append((label, GenerationMode.NEGATIVE))
    return out


@pytest.mark.parametrize(("label", "mode"), _cases(), ids=lambda v: getattr(v, "value", v))
def test_every_operation_answers_as_documented(
    served: tuple[str, Any, dict[str, str]], label: str, mode: GenerationMode
) -> None:
    _fuzz(served, label, mode)


@pytest.mark.parametrize(("label", "mode"), _cases(RECONNECT), ids=lambda v: getattr(v, "value", v))
def test_the_reconnect_routes_answer_as_documented(
    resumable: tuple[str, Any, dict[str, str]], label: str, mode: GenerationMode
) -> None:
    _fuzz(resumable, label, mode)


def test_resumable_streams_document_their_reconnect_routes(
    resumable: tuple[str, Any, dict[str, str]],
) -> None:
    url, _, _ = resumable
    document = requests.get(f"{url}/api/openapi.json", timeout=10).json()
    operations = {f"{m.upper()} {p}" for p, item in document["paths"].items() for m in item}
    assert operations == set(_operations(SERVED + RECONNECT))
    chat = document["paths"]["/chat/{agentId}/{chatId}/stream"]["get"]
    assert {"200", "204"} <= set(chat["responses"])
    stream = document["paths"]["/api/agents/{agentId}/stream/{runId}"]["get"]
    assert [p["name"] for p in stream["parameters"]] == ["agentId", "runId", "after", "resourceId"]


def _fuzz(served: tuple[str, Any, dict[str, str]], label: str, mode: GenerationMode) -> None:
    url, schema, headers = served
    method, path = label.split(" ", 1)
    operation = schema[path][method]
    session = requests.Session()

    @given(case=operation.as_strategy(generation_mode=mode))
    @settings(
        max_examples=EXAMPLES[mode],
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    def check(case: Any) -> None:
        # A structuredOutput schema asks the model for an answer the scripted model cannot give:
        # the run then fails on the model's side (500, as documented), not on the request's.
        assume(not isinstance(case.body, dict) or "structuredOutput" not in case.body)
        response = case.call(base_url=url, session=session, headers=headers, timeout=10)
        case.validate_response(response, checks=CHECKS)

    check()


def test_the_document_describes_every_route(served: tuple[str, Any, dict[str, str]]) -> None:
    url, _, headers = served
    document = requests.get(f"{url}/api/openapi.json", headers=headers, timeout=10).json()
    assert document["openapi"] == "3.1.0"
    operations = {f"{m.upper()} {p}" for p, item in document["paths"].items() for m in item}
    assert operations == set(_operations())
    generate = document["paths"]["/api/agents/{agentId}/generate"]["post"]
    assert generate["parameters"][0]["schema"]["enum"] == ["support", "stateless"]
    assert {"413", "422", "404"} <= set(generate["responses"])
    body = document["components"]["schemas"]["ExecutionBody"]
    assert "messages" in body["required"]
