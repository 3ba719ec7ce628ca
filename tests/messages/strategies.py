"""Hypothesis strategies for stored messages: every part type, arbitrary JSON, extras."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from hypothesis import strategies as st

from procession.messages import (
    DataPart,
    ErrorPart,
    FilePart,
    Message,
    MessageContent,
    Part,
    ReasoningPart,
    SourceDocumentPart,
    SourcePart,
    StepStartPart,
    TextPart,
    ToolInvocation,
    ToolInvocationPart,
    UnknownPart,
)
from procession.messages.parts import TOOL_INVOCATION_STATES

__all__ = ["json_values", "messages", "short_text"]

KNOWN_TYPES = frozenset(
    (
        "text",
        "reasoning",
        "tool-invocation",
        "source",
        "source-document",
        "file",
        "step-start",
        "error",
    )
)

short_text = st.text(max_size=8)
json_scalars: st.SearchStrategy[Any] = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False, allow_infinity=False),
    short_text,
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(short_text, inner, max_size=3),
    max_leaves=8,
)
json_objects = st.dictionaries(short_text, json_values, max_size=3)
# Extra keys include names the codec models, which must never leak into the output.
extra_keys = short_text | st.sampled_from(
    ["type", "text", "createdAt", "providerMetadata", "threadId", "id", "state", "args", "parts"]
)
extras = st.none() | st.dictionaries(extra_keys, json_values, min_size=1, max_size=3)
provider_metadata = st.none() | st.dictionaries(short_text, json_objects, max_size=2)
created_ats = st.none() | st.integers(min_value=0, max_value=2**45)
common = {"provider_metadata": provider_metadata, "created_at": created_ats, "extra": extras}

details = st.lists(
    st.fixed_dictionaries({"type": st.just("text"), "text": short_text})
    | st.fixed_dictionaries({"type": st.just("redacted"), "data": short_text}),
    max_size=2,
)
invocations = st.builds(
    ToolInvocation,
    state=st.sampled_from(sorted(TOOL_INVOCATION_STATES)),
    tool_call_id=short_text,
    tool_name=short_text,
    args=json_values,
    result=json_values,
    is_error=st.none() | st.booleans(),
    error_text=st.none() | short_text,
    raw_input=json_values,
    approval=st.none() | json_objects,
    step=st.none() | st.integers(min_value=0, max_value=50),
    extra=extras,
)
unknown_types = short_text.filter(lambda t: t not in KNOWN_TYPES and not t.startswith("data-"))


@st.composite
def unknown_parts(draw: st.DrawFn) -> UnknownPart:
    """An opaque part of a type procession does not model, with arbitrary fields."""
    part_type = draw(unknown_types)
    return UnknownPart(type=part_type, raw={**draw(json_objects), "type": part_type})


parts: st.SearchStrategy[Part] = st.one_of(
    st.builds(TextPart, text=short_text, **common),
    st.builds(ReasoningPart, reasoning=short_text, details=details, **common),
    st.builds(
        ToolInvocationPart,
        tool_invocation=invocations,
        provider_executed=st.none() | st.booleans(),
        title=st.none() | short_text,
        preliminary=st.none() | st.booleans(),
        **common,
    ),
    st.builds(
        SourcePart,
        source=st.builds(lambda extra, i: {**extra, "id": i}, json_objects, short_text),
        **common,
    ),
    st.builds(
        SourceDocumentPart,
        source_id=short_text,
        media_type=short_text,
        title=short_text,
        filename=st.none() | short_text,
        **common,
    ),
    st.builds(FilePart, mime_type=short_text, data=short_text, **common),
    st.builds(StepStartPart, model=st.none() | short_text, **common),
    st.builds(ErrorPart, error=json_objects, **common),
    st.builds(
        DataPart,
        type=short_text.map(lambda s: f"data-{s}"),
        data=json_values,
        id=st.none() | short_text,
        **common,
    ),
    unknown_parts(),
)
contents = st.builds(
    MessageContent,
    parts=st.lists(parts, max_size=4),
    content=st.none() | short_text,
    tool_invocations=st.none() | st.lists(json_objects, max_size=2),
    reasoning=st.none() | short_text,
    experimental_attachments=st.none() | st.lists(json_objects, max_size=2),
    annotations=st.none() | st.lists(json_values, max_size=2),
    metadata=st.none() | json_objects,
    provider_metadata=provider_metadata,
    extra=extras,
)
messages = st.builds(
    Message,
    id=st.text(min_size=1, max_size=8),
    role=st.sampled_from(["user", "assistant", "system", "signal"]),
    content=contents,
    created_at=st.datetimes(
        min_value=datetime(1970, 1, 1), max_value=datetime(2200, 1, 1), timezones=st.just(UTC)
    ),
    thread_id=st.none() | short_text,
    resource_id=st.none() | short_text,
    type=st.none() | short_text,
    extra=extras,
)
