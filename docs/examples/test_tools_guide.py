"""The ``python`` examples of ``docs/tools.md`` run as written.

Blocks fenced as ``py`` are sketches (a remote server, an unnamed model) and are not run. The
MCP example runs against ``weather_server.py`` beside this file, with ``python`` meaning this
interpreter, and a scripted model registered under the example's model id.
"""

from __future__ import annotations

import os
import re
import warnings
from pathlib import Path
from typing import Any

import pytest

from procession import register_model
from procession.testing import Reply, ScriptedModel, ToolCallScript

GUIDE = Path(__file__).resolve().parents[1] / "tools.md"
BLOCKS = re.findall(r"```python\n(.*?)```", GUIDE.read_text(), re.S)


def run(code: str) -> dict[str, Any]:
    """Execute one block as a module of its own; return its namespace."""
    namespace: dict[str, Any] = {"__name__": "tools_guide"}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a tool without a description would warn
        exec(compile(code, str(GUIDE), "exec"), namespace)
    return namespace


def test_the_guide_has_the_examples_this_file_runs() -> None:
    assert len(BLOCKS) == 5


def test_a_typed_function_with_a_docstring(capsys: pytest.CaptureFixture[str]) -> None:
    namespace = run(BLOCKS[0])
    assert capsys.readouterr().out == (
        "Find a customer's orders.\n\nNewest first.\nThe customer's email address.\n"
    )
    schema = namespace["search_orders"].input_schema
    assert schema["properties"]["status"]["pattern"] == "^(open|shipped)$"
    assert schema["properties"]["limit"]["description"] == "At most this many orders."


@pytest.mark.asyncio
async def test_the_context_writer_example() -> None:
    from procession import RequestContext, ToolContext, ToolWriter

    written: list[Any] = []

    async def emit(chunk: Any, message_id: str | None) -> None:
        written.append(chunk)

    export = run(BLOCKS[1])["export"]
    context = ToolContext("call-1", "export", ToolWriter(emit), RequestContext())
    assert await export.execute({"table": "orders"}, context) == "/exports/orders.csv"
    assert written == [{"type": "data-export", "data": {"table": "orders", "done": 0.5}}]
    assert list(export.input_schema["properties"]) == ["table"]


@pytest.mark.asyncio
async def test_a_pydantic_model_tool() -> None:
    from procession import RequestContext, ToolContext, ToolError, ToolWriter

    async def emit(chunk: Any, message_id: str | None) -> None:
        return None

    refund = run(BLOCKS[2])["refund"]
    context = ToolContext("call-1", "refund", ToolWriter(emit), RequestContext())
    assert refund.input_schema["properties"]["amount"]["exclusiveMinimum"] == 0
    assert await refund.execute({"order_id": "A-1", "amount": 5}, context) == (
        "refunded 5.0 on A-1"
    )
    with pytest.raises(ToolError, match="greater than 0"):
        await refund.execute({"order_id": "A-1", "amount": -5}, context)


def test_the_mcp_example(capsys: pytest.CaptureFixture[str], monkeypatch: Any) -> None:
    monkeypatch.chdir(Path(__file__).parent)
    assert "sys.executable" in BLOCKS[3]  # not whichever `python` is first on PATH
    namespace = run(BLOCKS[3])
    assert capsys.readouterr().out == (
        "{'city': 'Lyon', 'sky': 'sunny', 'station': '[hidden]'}\nSunny in Lyon tomorrow.\n"
    )
    assert "WX-4411" not in repr(namespace["model"].calls[1].prompt)
    assert os.path.exists("weather_server.py")


@pytest.mark.asyncio
async def test_the_approval_example() -> None:
    call = Reply(tool_calls=[ToolCallScript("refund", {"order_id": "A-1", "amount": 5}, "c1")])
    register_model("openai/gpt-5-mini", ScriptedModel([call, Reply(text=["Refunded."])]))
    try:
        namespace = run(BLOCKS[4])
        approvals, agent = namespace["approvals"], namespace["agent"]
        assert namespace["refund"].requires_approval
        stream = agent.stream("Refund A-1")
        async for chunk in stream:
            if chunk.type == "tool-call-approval":
                approvals.approve(chunk.run_id, chunk.payload["toolCallId"])
        result = await stream.result()
    finally:
        register_model("openai/gpt-5-mini", None)
    assert result.tool_results[0].result == "refunded 5 on A-1"
    assert result.text == "Refunded."
