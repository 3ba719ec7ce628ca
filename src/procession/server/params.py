"""Query parameters: declared once, validated per request and described in the OpenAPI
document from the same declaration."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from procession.server.errors import HTTPError

__all__ = [
    "MAX_JSON_DEPTH",
    "MAX_RUN_ID_LENGTH",
    "Param",
    "check_json_depth",
    "check_run_id",
    "control_character",
    "parse_query",
    "run_id_problem",
]

MAX_RUN_ID_LENGTH = 256
"""The longest run id a request may give."""

MAX_JSON_DEPTH = 64
"""How deeply a request's JSON (a body, ``?metadata=``) may nest."""


def control_character(value: str) -> int | None:
    """The index of the first control character of ``value`` (C0, DEL, C1), or ``None``."""
    for index, char in enumerate(value):
        code = ord(char)
        if code < 0x20 or 0x7F <= code < 0xA0:
            return index
    return None


def run_id_problem(value: str) -> str | None:
    """What is wrong with a run id a request gives, or ``None``: the one check of run ids,
    for the body's ``runId`` and the reconnect route's path alike."""
    if not value:
        return "must not be empty"
    if len(value) > MAX_RUN_ID_LENGTH:
        return f"must be at most {MAX_RUN_ID_LENGTH} characters"
    index = control_character(value)
    if index is not None:
        return f"must not hold control characters ({value[index]!r} at {index})"
    return None


def check_run_id(value: str, field: str = "runId") -> str:
    """``value`` when it is a usable run id; ``HTTPError(422)`` naming ``field`` otherwise."""
    problem = run_id_problem(value)
    if problem is not None:
        raise HTTPError.invalid(field, problem)
    return value


def check_json_depth(value: Any, field: str, limit: int = MAX_JSON_DEPTH) -> Any:
    """``value`` when its arrays and objects nest at most ``limit`` deep; else
    ``HTTPError(422)`` naming ``field`` (deeper JSON exhausts recursion further on)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        children = item.values() if isinstance(item, dict) else item
        if not isinstance(item, dict | list):
            continue
        if depth > limit:
            raise HTTPError.invalid(field, f"nests deeper than {limit} levels")
        stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
    return value


@dataclass(frozen=True, slots=True)
class Param:
    """One query parameter: a string (optionally one of ``enum``) or a bounded integer."""

    name: str
    kind: str = "string"
    description: str = ""
    enum: tuple[str, ...] | None = None
    minimum: int | None = None
    maximum: int | None = None
    default: Any = None
    false_means_all: bool = False
    """An integer parameter that also takes ``false`` (Mastra's ``perPage=false``: no limit),
    parsed as ``None``."""

    def schema(self) -> dict[str, Any]:
        """The parameter's JSON schema."""
        if self.false_means_all:
            number = Param(self.name, self.kind, minimum=self.minimum, maximum=self.maximum)
            return {"anyOf": [number.schema(), {"const": "false"}], "default": self.default}
        out: dict[str, Any] = {"type": self.kind}
        if self.kind == "string":
            out["minLength"] = 1
        if self.enum is not None:
            out["enum"] = list(self.enum)
        if self.minimum is not None:
            out["minimum"] = self.minimum
        if self.maximum is not None:
            out["maximum"] = self.maximum
        if self.default is not None:
            out["default"] = self.default
        return out

    def parse(self, raw: str) -> Any:
        """The value of ``raw``; ``HTTPError(422)`` naming the parameter when it is wrong."""
        if self.kind == "integer":
            if self.false_means_all and raw == "false":
                return None
            if not raw.isascii() or not raw.isdigit() or len(raw) > 9:
                raise HTTPError.invalid(self.name, f"must be an integer, got {raw!r}")
            value = int(raw)
            if self.minimum is not None and value < self.minimum:
                raise HTTPError.invalid(self.name, f"must be at least {self.minimum}")
            if self.maximum is not None and value > self.maximum:
                raise HTTPError.invalid(self.name, f"must be at most {self.maximum}")
            return value
        if not raw:
            raise HTTPError.invalid(self.name, "must not be empty")
        index = control_character(raw)
        if index is not None:
            raise HTTPError.invalid(self.name, f"must not hold control characters (at {index})")
        if self.enum is not None and raw not in self.enum:
            raise HTTPError.invalid(self.name, f"must be one of {', '.join(self.enum)}")
        return raw


def parse_query(params: Sequence[Param], query: Mapping[str, str]) -> dict[str, Any]:
    """The declared parameters of ``query`` (defaults for missing ones); others are ignored,
    as Mastra's server ignores them (``requestContext`` and friends)."""
    return {p.name: p.parse(query[p.name]) if p.name in query else p.default for p in params}
