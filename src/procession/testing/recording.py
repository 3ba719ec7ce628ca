"""``RecordingProcessor``: a processor that records every hook call, for trace-based tests."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from procession.processors.base import HOOKS

__all__ = ["HookCall", "RecordingProcessor", "Trace"]


@dataclass(slots=True)
class HookCall:
    """One recorded hook call: which processor, which hook, and the arguments it received."""

    processor_id: str
    hook: str
    args: dict[str, Any]

    def __getitem__(self, name: str) -> Any:
        return self.args[name]


@dataclass(slots=True)
class Trace:
    """A shared, ordered record of hook calls across several processors."""

    calls: list[HookCall] = field(default_factory=list)

    def hooks(self, processor_id: str | None = None) -> list[str]:
        """The hook names called, in order (for one processor, or all as ``id.hook``)."""
        if processor_id is None:
            return [f"{c.processor_id}.{c.hook}" for c in self.calls]
        return [c.hook for c in self.calls if c.processor_id == processor_id]

    def of(self, hook: str, processor_id: str | None = None) -> list[HookCall]:
        """The calls of one hook (optionally of one processor)."""
        return [
            c
            for c in self.calls
            if c.hook == hook and (processor_id is None or c.processor_id == processor_id)
        ]


Behaviour = Callable[..., Any]


class RecordingProcessor:
    """A processor implementing the given hooks; each call is recorded in ``trace``.

    Args:
        id: The processor id.
        hooks: Hook names to implement as plain recorders (``"all"`` for all nine).
        trace: A shared :class:`Trace` (a new one by default).
        process_data_parts: Passed through (D9).
        behaviours: ``{hook_name: function}``; the function receives every argument of the
            hook as keywords and its return value is the hook's; it also implements the hook.
        **hook_behaviours: The same, as keywords (``process_input=...``).

    Stream hooks return the part unchanged unless a behaviour says otherwise.
    """

    def __init__(
        self,
        id: str,
        hooks: list[str] | str = (),  # type: ignore[assignment]
        *,
        trace: Trace | None = None,
        process_data_parts: bool = False,
        on_violation: Callable[[Any], Any] | None = None,
        behaviours: dict[str, Behaviour] | None = None,
        **hook_behaviours: Behaviour,
    ) -> None:
        self.id = id
        self.trace = trace if trace is not None else Trace()
        self.process_data_parts = process_data_parts
        self.processor_index: int | None = None
        self.violations: list[Any] = []
        self._on_violation = on_violation
        behaviours = {**(behaviours or {}), **hook_behaviours}
        names = list(HOOKS) if hooks == "all" else list(hooks)
        for name in list(names) + list(behaviours):
            if name not in HOOKS:
                raise ValueError(f"RecordingProcessor: unknown hook {name!r}")
        for name in set(names) | set(behaviours):
            setattr(self, name, self._recorder(name, behaviours.get(name)))

    def on_violation(self, violation: Any) -> Any:
        """Record the violation, then call the user's callback if any."""
        self.violations.append(violation)
        if self._on_violation is not None:
            return self._on_violation(violation)
        return None

    def _recorder(self, hook: str, behaviour: Behaviour | None) -> Callable[..., Any]:
        processor_id = self.id
        calls = self.trace.calls

        async def record(**kwargs: Any) -> Any:
            snapshot = dict(kwargs)
            for key in ("messages", "steps", "tool_calls", "system_messages", "chunks"):
                if isinstance(snapshot.get(key), list):
                    snapshot[key] = list(snapshot[key])
            if "stream_parts" in snapshot:
                snapshot["stream_parts"] = len(snapshot["stream_parts"])
            calls.append(HookCall(processor_id, hook, snapshot))
            if behaviour is not None:
                result = behaviour(**kwargs)
                if inspect.isawaitable(result):
                    result = await result
                return result
            if hook == "process_output_stream":
                return kwargs["part"]
            return None

        return record

    def __repr__(self) -> str:
        return f"<RecordingProcessor id={self.id!r}>"
