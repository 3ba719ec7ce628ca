"""What ``run`` and ``chat`` share: the agent, its model, memory ids, and one turn at a time."""

from __future__ import annotations

import argparse
import getpass
import time
import uuid
from dataclasses import dataclass
from typing import Any

from rich.console import Console
from rich.text import Text

from procession.agent import Agent
from procession.cli.errors import CLIError, Failure, describe_failure
from procession.cli.loading import load_agent
from procession.cli.models import ModelChoice, choose_model
from procession.cli.render import StreamPrinter
from procession.results import AgentResult

__all__ = ["Session", "Turn", "default_resource", "open_session", "print_error"]


def print_error(err: Console, message: str) -> None:
    """The one line a failure prints."""
    err.print(Text.assemble(("error: ", "bold red"), message), soft_wrap=True)


def default_resource() -> str:
    """The memory resource when ``--resource`` is not given: the user's login name."""
    try:
        return getpass.getuser()
    except Exception:  # no user name in this environment (some containers)
        return "cli"


@dataclass(frozen=True, slots=True)
class Turn:
    """One finished turn: the run's result, and its failure described for a person."""

    result: AgentResult
    failure: Failure | None


@dataclass(slots=True)
class Session:
    """An agent ready to take turns with its chosen model and memory ids."""

    agent: Agent
    choice: ModelChoice
    printer: StreamPrinter
    system: str | None = None
    thread_id: str | None = None
    resource_id: str | None = None
    new_thread: bool = False

    async def turn(self, messages: Any, *, prefix: Text | None = None) -> Turn:
        """Stream one run of the agent to the printer."""
        bounded = self.choice.bounded
        if bounded is not None:
            bounded.attempts = 0
        started = time.monotonic()
        stream = self.agent.stream(
            messages,
            model=self.choice.model,
            system=self.system,
            thread_id=self.thread_id,
            resource_id=self.resource_id,
        )
        result = await self.printer.print_stream(stream, prefix=prefix)
        if result.error is None:
            return Turn(result, None)
        failure = describe_failure(
            result.error,
            model_label=self.choice.label,
            key_variable=self.choice.key_variable,
            elapsed=time.monotonic() - started,
            attempts=bounded.attempts if bounded is not None else None,
            endpoint=bounded.endpoint if bounded is not None else None,
        )
        return Turn(result, failure)

    async def aclose(self) -> None:
        """Close what the session opened (model clients resolved from ids)."""
        await self.choice.aclose()


async def open_session(
    args: argparse.Namespace, printer: StreamPrinter, *, agent: Agent | None = None
) -> Session:
    """Load ``--agent`` (or a plain agent), choose and check the model, settle memory ids.

    Raises :class:`CLIError` for every mistake, before any model call.
    """
    target = args.agent
    if agent is None and target:
        agent = load_agent(target)
    memory = agent is not None and agent.memory is not None
    if not memory and (args.thread or args.resource):
        owner = target or "a plain model"
        raise CLIError(f"--thread and --resource need an agent with memory; {owner} has none")
    choice = await choose_model(
        args.model,
        agent,
        connect_timeout=args.connect_timeout,
        read_timeout=args.read_timeout,
    )
    if agent is None:
        agent = Agent(id="procession", name=choice.label)
    session = Session(agent, choice, printer, system=args.system)
    if memory:
        session.thread_id = args.thread or f"cli-{uuid.uuid4().hex}"
        session.resource_id = args.resource or default_resource()
        session.new_thread = not args.thread
    return session
