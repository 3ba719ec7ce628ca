"""What an agent needs from a memory: processors around its lanes and one commit per run.

``Agent(memory=...)`` accepts any object with this shape (:class:`AgentMemory`); the built-in
:class:`~procession.memory.Memory` is one. The runtime places the memory's input processors
first and its output processors last in their lanes, also when a call replaces a lane (D20),
and skips any of them whose id the configured lane already holds. Before the lanes run it
awaits the memory's optional ``prepare(request_context, messages)``, whose errors (a thread of
another resource, an input message stored in another thread, a value no backend can store,
D34) end the run as they are rather than as a processor failure; ``messages`` are the run's
input messages (the built-in memory also accepts a call without them). After a run completes
— every ``process_output_result`` ran, no tripwire, no error — it calls ``commit`` once, so
the store holds exactly what survived every processor (D13).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from procession.context import RequestContext
    from procession.messages.message_list import MessageList
    from procession.results import AgentResult

__all__ = ["AgentMemory", "CompletedRun"]


class CompletedRun(Protocol):
    """What ``AgentMemory.commit`` may read of a completed run."""

    @property
    def message_list(self) -> MessageList: ...

    @property
    def request_context(self) -> RequestContext: ...

    @property
    def result(self) -> AgentResult: ...

    @property
    def states(self) -> dict[str, dict[str, Any]]: ...


@runtime_checkable
class AgentMemory(Protocol):
    """The memory interface an Agent uses."""

    def input_processors(self, request_context: RequestContext) -> list[Any]:
        """Processors placed first in the input lane (e.g. history, working memory, recall)."""
        ...

    def output_processors(self, request_context: RequestContext) -> list[Any]:
        """Processors placed last in the output lane."""
        ...

    async def commit(self, run: CompletedRun) -> None:
        """Persist a completed run, in one transaction (D13)."""
        ...
