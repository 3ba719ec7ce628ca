"""Structured output: a pydantic model or a JSON schema the final answer must match.

With a model that supports native JSON-schema output, the schema goes in the call's
``response_format``; otherwise the model is instructed (a step-scoped system message) and the
answer is validated here. While the answer streams, ``object`` chunks carry the partial object;
``result.object`` holds the validated value. Output that does not validate is retried with
feedback when the processor-retry budget allows, and is a :class:`StructuredOutputError`
otherwise.
"""

from __future__ import annotations

import json
from typing import Any

from procession._records import record
from procession.errors import ConfigurationError, StructuredOutputError
from procession.models.base import ResponseFormat

__all__ = [
    "ObjectStream",
    "StructuredOutput",
    "is_value",
    "parse_partial_json",
    "structured_output_spec",
]

_NOTHING: Any = object()


@record(frozen=True, slots=True)
class StructuredOutput:
    """A resolved structured-output request.

    Attributes:
        schema: The JSON schema of the answer.
        model: The pydantic model to validate with, when one was given.
        name: A name for the schema (the model's class name, or ``"response"``).
    """

    schema: dict[str, Any]
    model: Any = None
    name: str = "response"

    def instruction(self) -> str:
        """The system text that asks a model without native JSON mode for the answer."""
        return (
            "Answer with a single JSON value that matches this JSON schema, and nothing else "
            f"(no prose, no code fences):\n{json.dumps(self.schema, separators=(',', ':'))}"
        )

    def response_format(self) -> ResponseFormat:
        """The ``response_format`` for models with native JSON-schema output."""
        return ResponseFormat(type="json", schema=self.schema, name=self.name)

    def validate(self, text: str) -> Any:
        """Parse and validate the final answer; raise :class:`StructuredOutputError`."""
        try:
            value = json.loads(_strip_fences(text))
        except json.JSONDecodeError as error:
            raise StructuredOutputError(
                f"structured output: the answer is not valid JSON ({error.msg} at position "
                f"{error.pos}): {text[:200]!r}"
            ) from None
        if self.model is not None:
            from pydantic import ValidationError

            try:
                return self.model.model_validate(value)
            except ValidationError as error:
                raise StructuredOutputError(
                    f"structured output does not match {self.name}: {error}"
                ) from None
        problems = _check(value, self.schema, "$")
        if problems:
            raise StructuredOutputError(
                "structured output does not match the schema: " + "; ".join(problems[:5])
            )
        return value


def structured_output_spec(value: Any) -> StructuredOutput | None:
    """Resolve the ``structured_output=`` option: a pydantic model class, a JSON schema dict,
    a :class:`StructuredOutput`, or ``None``."""
    if value is None or isinstance(value, StructuredOutput):
        return value
    if isinstance(value, dict):
        if not value:
            raise ConfigurationError("structured_output: the JSON schema is empty")
        return StructuredOutput(schema=value, name=str(value.get("title", "response")))
    model_json_schema = getattr(value, "model_json_schema", None)
    if isinstance(value, type) and callable(model_json_schema):
        return StructuredOutput(schema=model_json_schema(), model=value, name=value.__name__)
    raise ConfigurationError(
        f"structured_output: expected a pydantic model class or a JSON schema, got {value!r}"
    )


def _strip_fences(text: str) -> str:
    stripped = text.strip()
    if stripped.startswith("```"):
        stripped = stripped.split("\n", 1)[1] if "\n" in stripped else ""
        if stripped.rstrip().endswith("```"):
            stripped = stripped.rstrip()[:-3]
    return stripped.strip()


_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,),
    "array": (list,),
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "null": (type(None),),
}


def _check(value: Any, schema: dict[str, Any], path: str) -> list[str]:
    """A small JSON-schema check: type, enum, const, required, properties, items."""
    problems: list[str] = []
    expected = schema.get("type")
    if expected is not None:
        names = expected if isinstance(expected, list) else [expected]
        ok = any(
            isinstance(value, _JSON_TYPES.get(name, (object,)))
            and not (name in ("integer", "number") and isinstance(value, bool))
            for name in names
        )
        if not ok:
            return [f"{path} must be {' or '.join(names)}, got {type(value).__name__}"]
    if "enum" in schema and value not in schema["enum"]:
        problems.append(f"{path} must be one of {schema['enum']!r}")
    if "const" in schema and value != schema["const"]:
        problems.append(f"{path} must be {schema['const']!r}")
    if isinstance(value, dict):
        problems.extend(
            f"{path}.{name} is required" for name in schema.get("required", ()) if name not in value
        )
        for name, sub in schema.get("properties", {}).items():
            if name in value and isinstance(sub, dict):
                problems.extend(_check(value[name], sub, f"{path}.{name}"))
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        for index, item in enumerate(value):
            problems.extend(_check(item, schema["items"], f"{path}[{index}]"))
    return problems


def parse_partial_json(text: str) -> Any:
    """The value a JSON prefix is heading to, closing open strings and brackets.

    Returns a sentinel that is not a JSON value when nothing useful can be parsed yet.
    """
    text = _strip_fences(text) if text.lstrip().startswith("```") else text
    closers: list[str] = []
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "{[":
            closers.append("}" if char == "{" else "]")
        elif char in "}]" and closers:
            closers.pop()
    candidate = text + ('"' if in_string else "")
    for _ in range(3):
        try:
            return json.loads(candidate.rstrip().rstrip(",") + "".join(reversed(closers)))
        except json.JSONDecodeError:
            cut = max(candidate.rfind(","), candidate.rfind(":"))
            if cut <= 0:
                break
            candidate = candidate[:cut]
            if candidate.rstrip().endswith(":"):
                candidate = candidate[: candidate.rstrip().rfind(",")] if "," in candidate else ""
    return _NOTHING


def is_value(value: Any) -> bool:
    """Whether :func:`parse_partial_json` found a value."""
    return value is not _NOTHING


class ObjectStream:
    """Turns streamed answer text into partial objects, each new one once."""

    __slots__ = ("_last", "_text")

    def __init__(self) -> None:
        self._text: list[str] = []
        self._last: Any = _NOTHING

    def feed(self, text: str) -> Any:
        """Add a text delta; returns the new partial object, or the no-value sentinel."""
        self._text.append(text)
        value = parse_partial_json("".join(self._text))
        if value is _NOTHING or value == self._last:
            return _NOTHING
        self._last = value
        return value
