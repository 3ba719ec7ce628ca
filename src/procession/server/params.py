"""Query parameters: declared once, validated per request and described in the OpenAPI
document from the same declaration."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from procession.server.errors import HTTPError

__all__ = ["Param", "parse_query"]


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
        if self.enum is not None and raw not in self.enum:
            raise HTTPError.invalid(self.name, f"must be one of {', '.join(self.enum)}")
        return raw


def parse_query(params: Sequence[Param], query: Mapping[str, str]) -> dict[str, Any]:
    """The declared parameters of ``query`` (defaults for missing ones); others are ignored,
    as Mastra's server ignores them (``requestContext`` and friends)."""
    return {p.name: p.parse(query[p.name]) if p.name in query else p.default for p in params}
