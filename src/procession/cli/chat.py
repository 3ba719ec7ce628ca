"""``procession chat FILE_OR_MODULE:ATTRIBUTE``: chat with an agent defined in Python."""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path
from typing import Any

from procession.agent import Agent
from procession.cli.render import console, render_stream
from procession.errors import ConfigurationError

__all__ = ["load_agent", "run_chat"]


def load_agent(target: str) -> Agent:
    """Load ``path/to/app.py:agent`` or ``package.module:agent``."""
    location, sep, attribute = target.rpartition(":")
    if not sep or not location or not attribute:
        raise ConfigurationError(f"chat: expected FILE_OR_MODULE:ATTRIBUTE, got {target!r}")
    if location.endswith(".py") or Path(location).exists():
        path = Path(location).resolve()
        if not path.is_file():
            raise ConfigurationError(f"chat: no such file {str(path)!r}")
        spec = importlib.util.spec_from_file_location(path.stem, path)
        if spec is None or spec.loader is None:
            raise ConfigurationError(f"chat: cannot load {str(path)!r}")
        module = importlib.util.module_from_spec(spec)
        sys.modules[path.stem] = module
        spec.loader.exec_module(module)
    else:
        module = importlib.import_module(location)
    agent = getattr(module, attribute, None)
    if not isinstance(agent, Agent):
        raise ConfigurationError(
            f"chat: {attribute!r} in {location!r} is {type(agent).__name__}, not an Agent"
        )
    return agent


async def run_chat(
    target: str, model: str | None = None, *, lines: Any = None, out: Any = None
) -> int:
    """Read user lines (stdin by default), stream the agent's answers; ``/quit`` ends."""
    out = out or console()
    agent = load_agent(target)
    history: list[Any] = []
    out.print(f"[bold]chatting with {agent.name}[/] — /quit to leave")
    source = iter(lines) if lines is not None else None
    while True:
        try:
            text = next(source) if source is not None else out.input("[bold green]you>[/] ")
        except (EOFError, StopIteration):
            break
        if text.strip() in ("/quit", "/exit"):
            break
        if not text.strip():
            continue
        history.append({"role": "user", "content": text})
        out.print("[bold blue]agent>[/] ", end="")
        result = await render_stream(out, agent.stream(list(history), model=model))
        if result.tripwire is None and result.error is None:
            history.extend(result.messages)
        else:
            history.pop()  # a blocked or failed turn is not part of the conversation
    return 0
