"""The JSON-schema prefix checker: what it accepts, where it allows a space, and its
fallback. The strings follow the GBNF that llama-cpp-python's ``json_schema_to_gbnf`` writes
for each schema, so both runtimes constrain generation alike."""

from __future__ import annotations

from typing import Any

import pytest

from procession.models._numpy_llm.grammar import Matcher, compile_schema

DEMO_TOOL = {
    "properties": {"order_id": {"title": "Order Id", "type": "string"}},
    "required": ["order_id"],
    "type": "object",
}
TWO_TOOLS = {
    "anyOf": [
        {
            "type": "object",
            "properties": {
                "name": {"const": "weather"},
                "arguments": {
                    "type": "object",
                    "properties": {"city": {"type": "string", "maxLength": 3}},
                    "required": ["city"],
                },
            },
            "required": ["name", "arguments"],
        },
        {
            "type": "object",
            "properties": {
                "name": {"const": "add"},
                "arguments": {
                    "type": "object",
                    "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                    "required": ["a", "b"],
                },
            },
            "required": ["name", "arguments"],
        },
    ]
}
OPTIONAL = {
    "type": "object",
    "properties": {
        "a": {"type": "boolean"},
        "b": {"type": "number"},
        "c": {"type": "array", "items": {"enum": ["x", "y"]}, "maxItems": 2},
    },
}


def verdict(schema: dict[str, Any], text: str) -> str:
    matcher = Matcher(compile_schema(schema))
    state = matcher.feed(matcher.start, text)
    if not state:
        return "invalid"
    return "complete" if matcher.can_end(state) else "prefix"


@pytest.mark.parametrize(
    ("schema", "text", "expected"),
    [
        (DEMO_TOOL, '{"order_id": "A-1001"}', "complete"),
        (DEMO_TOOL, '{ "order_id" : "A-1001" } ', "complete"),  # one optional space each
        (DEMO_TOOL, '{"order_id":"x"}  ', "invalid"),  # not two
        (DEMO_TOOL, '{\n"order_id": "x"}', "invalid"),  # nor a newline
        (DEMO_TOOL, '{"order_id"', "prefix"),
        (DEMO_TOOL, "{}", "invalid"),  # required
        (DEMO_TOOL, '{"x": 1}', "invalid"),  # no other key
        (DEMO_TOOL, ' {"order_id": "x"}', "invalid"),  # nothing before the value
        (TWO_TOOLS, '{"name": "add", "arguments": {"a": 1, "b": -20}}', "complete"),
        (TWO_TOOLS, '{"name": "weather", "arguments": {"city": "Par"}}', "complete"),
        (TWO_TOOLS, '{"name": "weather", "arguments": {"city": "Pari"}}', "invalid"),  # maxLength
        (TWO_TOOLS, '{"name": "add", "arguments": {"a": 1.5', "invalid"),  # integer
        (TWO_TOOLS, '{"name": "sub"', "invalid"),
        (OPTIONAL, "{}", "complete"),
        (OPTIONAL, '{"b": 1.5e3}', "complete"),
        (OPTIONAL, '{"b": 01}', "invalid"),
        (OPTIONAL, '{"a": true, "c": ["x","y"]}', "complete"),
        (OPTIONAL, '{"c": ["x","y","x"]}', "invalid"),  # maxItems
        (OPTIONAL, '{"c":["x"], "a": true}', "invalid"),  # the properties' order
        (OPTIONAL, '{"c": ["x" ]}', "invalid"),  # an enum value takes no space after it
        ({"type": "object"}, '{"any": [1, {"k": null}], "s": "a\\"b"}', "complete"),
        ({}, '{\n\t"a": 1}', "complete"),  # {}: llama-cpp-python's generic JSON grammar
        ({}, "[1]", "invalid"),  # ... whose root is an object
        ({"type": "string", "pattern": "^a+$"}, '{"a": 1}', "complete"),  # unsupported: any
    ],
)
def test_prefixes_are_judged_like_the_llama_cpp_grammar(
    schema: dict[str, Any], text: str, expected: str
) -> None:
    assert verdict(schema, text) == expected


def test_local_refs_resolve() -> None:
    schema = {
        "$defs": {"Point": {"type": "object", "properties": {"x": {"type": "integer"}}}},
        "type": "object",
        "properties": {"p": {"$ref": "#/$defs/Point"}},
        "required": ["p"],
    }
    assert verdict(schema, '{"p": {"x": 3}}') == "complete"
    assert verdict(schema, '{"p": {"x": "3"}}') == "invalid"


def test_a_multibyte_character_may_arrive_in_pieces_only_inside_a_string() -> None:
    matcher = Matcher(compile_schema(DEMO_TOOL))
    inside = matcher.feed(matcher.start, '{"order_id": "')
    first, second = "é".encode()[:1], "é".encode()[1:]
    state, pending = matcher.feed_bytes(inside, b"", first)
    assert state
    assert pending == first
    state, pending = matcher.feed_bytes(state, pending, second + b'"}')
    assert matcher.can_end(state)
    assert pending == b""
    outside = matcher.feed(matcher.start, "{")
    assert matcher.feed_bytes(outside, b"", first) == (frozenset(), b"")


def test_nothing_may_follow_a_finished_value() -> None:
    matcher = Matcher(compile_schema(DEMO_TOOL))
    state = matcher.feed(matcher.start, '{"order_id": "A"} ')
    assert matcher.must_end(state)
    assert not matcher.must_end(matcher.feed(matcher.start, '{"order_id": "A"}'))  # a space may
