"""What an agent needs from a memory: processors around its lanes and one commit per run.

``Agent(memory=...)`` accepts any object with this shape (:class:`AgentMemory`); the built-in
:class:`~procession.memory.Memory` is one. The runtime places the memory's input processors
first and its output processors last in their lanes, also when a call replaces a lane (D20),
and skips any of them whose id the configured lane already holds. Before the lanes run it
awaits the memory's optional ``prepare(request_context, messages)``, whose errors (a thread of
another resource, an input message stored in another thread, a value no backend can store,
D34) end the run as they are rather than as a processor failure; ``messages`` are the run's
input messages (the built-in memory also accepts a call without them). After a run completes
— every ``process_output_result`` ran, no tripwire, no error — persistence is the loop's last
stage: it calls ``commit`` once with the :class:`Turn`, so the store holds exactly what
survived every processor (D13).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from procession.context import RequestContext
    from procession.messages.message import Message

__all__ = ["AgentMemory", "Turn"]


@dataclass(frozen=True, slots=True)
class Turn:
    """A completed run, as the loop hands it to memory (D13).

    Attributes:
        run_id: The run's id.
        agent_id: The agent's id.
        request_context: The run's request context (``thread_id``, ``resource_id``, ...).
        messages: The run's input and response messages, in the run's order, as they stand
            after every hook (rejected attempts were rolled back; remembered, context and
            system messages are not among them).
        response: The response messages among them.
        output_processors: The run's resolved output lane, so a memory can tell which of its
            own processors took part (a processor of the agent's with the same id replaces one).
    """

    run_id: str
    agent_id: str
    request_context: RequestContext
    messages: list[Message]
    response: list[Message]
    output_processors: tuple[Any, ...] = ()


@runtime_checkable
class AgentMemory(Protocol):
    """The memory interface an Agent uses."""

    def input_processors(self, request_context: RequestContext) -> list[Any]:
        """Processors placed first in the input lane (e.g. history, working memory, recall)."""
        ...

    def output_processors(self, request_context: RequestContext) -> list[Any]:
        """Processors placed last in the output lane."""
        ...

    async def commit(self, turn: Turn) -> None:
        """Persist a completed run, in one transaction (D13)."""
        ...
