"""The local model's pure-Python half (prompt rendering, output planning, stop sequences), the
default-model choice, and import laziness. None of this needs llama-cpp-python."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest

from procession.errors import APICallError, UnknownModelError
from procession.messages.formats import Prompt
from procession.models import resolve_model
from procession.models._local_chat import (
    OutputPlan,
    StopScanner,
    parse_tool_call,
    plan_output,
    render_tool_output,
    to_chat_messages,
)
from procession.models.base import ModelCallOptions, ToolDefinition
from procession.models.default import default_model
from procession.models.local import LocalModel, model_from_id

WEATHER: ToolDefinition = {
    "type": "function",
    "name": "weather",
    "description": "Weather in a city.",
    "inputSchema": {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
    },
}
TIME: ToolDefinition = {
    "type": "function",
    "name": "time",
    "description": "The time now.",
    "inputSchema": {},
}


def _user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": text}]}


def test_system_messages_merge_into_one_leading_system_message() -> None:
    prompt: Prompt = [
        {"role": "system", "content": "Be brief."},
        _user("Hi"),
        {"role": "system", "content": "Answer in French."},
    ]
    messages = to_chat_messages(prompt, ["Reply with only JSON."])
    assert messages == [
        {"role": "system", "content": "Be brief.\n\nAnswer in French."},
        {"role": "user", "content": "Hi\n\nReply with only JSON."},
    ]


def test_instructions_after_a_tool_result_or_assistant_turn_open_a_user_turn() -> None:
    prompt: Prompt = [_user("Hi"), {"role": "assistant", "content": "Hello"}]
    assert to_chat_messages(prompt, ["Reply with JSON."])[-1] == {
        "role": "user",
        "content": "Reply with JSON.",
    }


def test_no_system_message_when_there_is_none() -> None:
    assert to_chat_messages([_user("Hi")]) == [{"role": "user", "content": "Hi"}]


def test_tool_calls_and_results_become_text_the_model_can_read() -> None:
    prompt: Prompt = [
        _user("Weather in Paris?"),
        {
            "role": "assistant",
            "content": [
                {"type": "reasoning", "text": "hidden"},
                {"type": "text", "text": "Let me look."},
                {
                    "type": "tool-call",
                    "toolCallId": "c1",
                    "toolName": "weather",
                    "input": {"city": "Paris"},
                },
            ],
        },
        {
            "role": "tool",
            "content": [
                {
                    "type": "tool-result",
                    "toolCallId": "c1",
                    "toolName": "weather",
                    "output": {"type": "json", "value": {"temp": 21}},
                }
            ],
        },
        _user("And so?"),
    ]
    assert to_chat_messages(prompt) == [
        {"role": "user", "content": "Weather in Paris?"},
        {"role": "assistant", "content": "Let me look."},
        {"role": "user", "content": 'Result of tool weather: {"temp": 21}\n\nAnd so?'},
    ]


@pytest.mark.parametrize(
    ("output", "text"),
    [
        ({"type": "text", "value": "sunny"}, "sunny"),
        ({"type": "json", "value": [1, "a"]}, '[1, "a"]'),
        ({"type": "error-text", "value": "boom"}, "Error: boom"),
        ({"type": "error-json", "value": {"code": 1}}, 'Error: {"code": 1}'),
        ({"type": "content", "value": [{"type": "text", "text": "x"}]}, "x"),
        ("raw", '"raw"'),
    ],
)
def test_render_tool_output(output: object, text: str) -> None:
    assert render_tool_output(output) == text


def test_unknown_role_is_a_non_retryable_api_error() -> None:
    with pytest.raises(APICallError, match="unknown role 'robot'") as info:
        to_chat_messages([{"role": "robot", "content": "x"}])
    assert info.value.is_retryable is False


def test_plan_text_warns_about_unforced_tools() -> None:
    plan = plan_output(ModelCallOptions(prompt=[], tools=[WEATHER]))
    assert plan.mode == "text"
    assert plan.schema is None
    assert "tool_choice forces" in plan.warnings[0]["message"]
    assert plan_output(ModelCallOptions(prompt=[], tools=[WEATHER], tool_choice={"type": "none"}))
    assert not plan_output(ModelCallOptions(prompt=[])).warnings


def test_plan_forced_tool_constrains_to_its_input_schema() -> None:
    options = ModelCallOptions(
        prompt=[], tools=[TIME, WEATHER], tool_choice={"type": "tool", "toolName": "weather"}
    )
    plan = plan_output(options)
    assert plan.mode == "tool"
    assert plan.schema == WEATHER["inputSchema"]
    assert [t["name"] for t in plan.tools] == ["weather"]
    assert "weather" in plan.instructions[0]
    assert parse_tool_call(plan, '{"city": "Oslo"}') == ("weather", {"city": "Oslo"})


def test_plan_required_with_one_tool_uses_an_object_schema_for_an_empty_one() -> None:
    plan = plan_output(ModelCallOptions(prompt=[], tools=[TIME], tool_choice={"type": "required"}))
    assert plan.mode == "tool"
    assert plan.schema == {"type": "object"}


def test_plan_required_with_several_tools_asks_for_name_and_arguments() -> None:
    plan = plan_output(
        ModelCallOptions(prompt=[], tools=[TIME, WEATHER], tool_choice={"type": "required"})
    )
    assert plan.mode == "tools"
    assert plan.schema is not None
    assert [v["properties"]["name"] for v in plan.schema["anyOf"]] == [
        {"const": "time"},
        {"const": "weather"},
    ]
    assert parse_tool_call(plan, '{"name": "time", "arguments": {}}') == ("time", {})
    with pytest.raises(ValueError, match="not offered"):
        parse_tool_call(plan, '{"name": "other", "arguments": {}}')
    with pytest.raises(ValueError, match="must be a JSON object"):
        parse_tool_call(plan, '{"name": "time", "arguments": 3}')


def test_plan_forced_tool_errors() -> None:
    with pytest.raises(APICallError, match="not among the offered tools"):
        plan_output(
            ModelCallOptions(prompt=[], tools=[TIME], tool_choice={"type": "tool", "toolName": "x"})
        )
    with pytest.raises(APICallError, match="no tools were offered"):
        plan_output(ModelCallOptions(prompt=[], tool_choice={"type": "required"}))


def test_plan_structured_output() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "integer"}}}
    plan = plan_output(
        ModelCallOptions(prompt=[], response_format={"type": "json", "schema": schema})
    )
    assert plan.mode == "json"
    assert plan.schema == schema
    assert '"integer"' in plan.instructions[0]
    bare = plan_output(ModelCallOptions(prompt=[], response_format={"type": "json"}))
    assert bare.schema == {}
    assert plan_output(ModelCallOptions(prompt=[], response_format={"type": "text"})).mode == (
        "text"
    )


def test_parse_tool_call_rejects_invalid_json() -> None:
    plan = OutputPlan(mode="tool", tools=[WEATHER])
    with pytest.raises(ValueError, match="Unterminated string"):
        parse_tool_call(plan, '{"city": "Os')
    with pytest.raises(ValueError, match="must be a JSON object"):
        parse_tool_call(plan, "[1]")


def test_stop_scanner_cuts_at_the_first_stop_sequence_across_pieces() -> None:
    scanner = StopScanner(["END", "\n\n"])
    assert scanner.feed("one two E") == ("one two ", False)
    assert scanner.feed("N") == ("", False)
    assert scanner.feed("X") == ("ENX", False)
    assert scanner.feed(" three\n") == (" three", False)
    assert scanner.feed("\nfour") == ("", True)


def test_stop_scanner_flushes_held_back_text_and_passes_through_without_stops() -> None:
    scanner = StopScanner(["END"])
    assert scanner.feed("the EN") == ("the ", False)
    assert scanner.flush() == "EN"
    assert StopScanner([""]).feed("END") == ("END", False)


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({}, "local/smollm2"),
        ({"OPENAI_API_KEY": ""}, "local/smollm2"),
        ({"GOOGLE_API_KEY": "g"}, "google/gemini-2.5-flash"),
        ({"ANTHROPIC_API_KEY": "a", "GOOGLE_API_KEY": "g"}, "anthropic/claude-haiku-4-5"),
        ({"OPENAI_API_KEY": "o", "ANTHROPIC_API_KEY": "a"}, "openai/gpt-5-mini"),
    ],
)
def test_default_model(environ: dict[str, str], expected: str) -> None:
    assert default_model(environ) == expected


def test_default_model_reads_the_process_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GOOGLE_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    assert default_model() == "local/smollm2"
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    assert default_model() == "anthropic/claude-haiku-4-5"


def test_router_shares_one_local_model_and_rejects_unknown_ids() -> None:
    model = resolve_model("local/smollm2")
    assert isinstance(model, LocalModel)
    assert model is resolve_model("local/smollm2") is model_from_id("smollm2")
    assert (model.provider, model.model_id, model.specification_version) == (
        "local",
        "smollm2",
        "v2",
    )
    assert model.supports_structured_output is True
    with pytest.raises(UnknownModelError, match="local/smollm2"):
        resolve_model("local/llama-70b")


def test_importing_procession_and_resolving_the_local_model_do_not_import_llama_cpp() -> None:
    code = (
        "import sys, procession\n"
        "from procession.models import resolve_model\n"
        "resolve_model('local/smollm2')\n"
        "print('llama_cpp' in sys.modules)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "False"
