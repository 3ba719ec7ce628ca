"""Resolving processor lanes for one call (D20, D25, D28)."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Any, TypeAlias

from procession.context import RequestContext
from procession.errors import ConfigurationError
from procession.processors.base import LANE_HOOKS

__all__ = ["LaneSpec", "check_lane", "resolve_lane"]

LaneSpec: TypeAlias = Sequence[Any] | Callable[[RequestContext], Any] | None
"""A list of processors, or a factory ``(request_context) -> list`` (sync or async)."""


def check_lane(lane: str, processors: object) -> list[Any]:
    """Validate one lane's processors; a processor with none of the lane's hooks is an error."""
    if not isinstance(processors, list | tuple):
        raise ConfigurationError(
            f"{lane}_processors: expected a list of processors, got {processors!r}"
        )
    hooks = LANE_HOOKS[lane]
    for index, processor in enumerate(processors):
        processor_id = getattr(processor, "id", None)
        if not isinstance(processor_id, str) or not processor_id:
            raise ConfigurationError(
                f"{lane}_processors[{index}]: a processor needs a non-empty string id "
                f"(got {processor!r})"
            )
        if not any(callable(getattr(processor, hook, None)) for hook in hooks):
            raise ConfigurationError(
                f"{lane}_processors[{index}]: processor {processor_id!r} implements none of the "
                f"{lane} lane's hooks ({', '.join(hooks)})"
            )
    return list(processors)


async def resolve_lane(lane: str, spec: LaneSpec, request_context: RequestContext) -> list[Any]:
    """The processors of one lane for this call: call a factory, then validate."""
    if spec is None:
        return []
    if callable(spec) and not isinstance(spec, list | tuple):
        value = spec(request_context)
        if inspect.isawaitable(value):
            value = await value
        return check_lane(lane, value)
    return check_lane(lane, spec)
