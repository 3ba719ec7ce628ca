"""Finding the agent a command runs: ``FILE.py:ATTR``, ``MODULE:ATTR``, or just the file or
module when it defines exactly one :class:`~procession.Agent`.

A module name is looked up in the current directory first (as ``python -m`` does), then among
installed packages; a file's own directory is importable while it loads (as ``python FILE``
does), so it can import its neighbours. ``ATTR`` may be dotted (``app:agents.support``).
Every mistake is a :class:`~procession.cli.errors.CLIError` naming what is missing.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
import traceback
from pathlib import Path
from types import ModuleType

from procession.agent import Agent
from procession.cli.errors import CLIError, one_line

__all__ = ["load_agent", "load_agents", "split_target"]


def split_target(target: str) -> tuple[str, str | None]:
    """``"app.py:agent"`` -> ``("app.py", "agent")``; ``"app.py"`` -> ``("app.py", None)``.

    The last ``:`` separates the attribute, unless what follows it is a path (a Windows drive
    letter such as ``C:\\app.py`` has its colon first).
    """
    location, sep, attribute = target.rpartition(":")
    if not sep or Path(target).exists() or "/" in attribute or "\\" in attribute:
        location, attribute = target, ""
    if not location:
        raise CLIError(f"{target!r}: expected FILE.py:ATTR, MODULE:ATTR, FILE.py or MODULE")
    return location, attribute or None


def load_agent(target: str) -> Agent:
    """The :class:`~procession.Agent` that ``target`` names (see the module docstring)."""
    location, attribute = split_target(target)
    module = _import(location)
    if attribute is None:
        return _only_agent(module, location)
    value: object = module
    for index, name in enumerate(attribute.split(".")):
        if not hasattr(value, name):
            where = ".".join([location, *attribute.split(".")[:index]])
            agents = _agent_names(module)
            hint = f" (agents there: {', '.join(agents)})" if agents and index == 0 else ""
            raise CLIError(f"{target}: {name!r} is missing from {where}{hint}")
        value = getattr(value, name)
    if not isinstance(value, Agent):
        raise CLIError(f"{target} is {_a(type(value).__name__)}, not an Agent")
    return value


def load_agents(target: str) -> list[Agent]:
    """Every :class:`~procession.Agent` ``target`` names: all of a file's or module's agents,
    or ``FILE:ATTR`` naming an agent or a list or dict of agents (``procession serve``)."""
    location, attribute = split_target(target)
    module = _import(location)
    if attribute is None:
        agents = [getattr(module, name) for name in _agent_names(module)]
        if not agents:
            raise CLIError(f"{location} defines no Agent")
        return list({id(a): a for a in agents}.values())
    value: object = module
    for name in attribute.split("."):
        if not hasattr(value, name):
            raise CLIError(f"{target}: {name!r} is missing")
        value = getattr(value, name)
    items = list(value.values()) if isinstance(value, dict) else value
    if isinstance(items, Agent):
        return [items]
    if isinstance(items, list | tuple) and items and all(isinstance(a, Agent) for a in items):
        return list(items)
    raise CLIError(f"{target} is {_a(type(value).__name__)}, not an Agent or a list of Agents")


def _import(location: str) -> ModuleType:
    if location.endswith(".py") or os.sep in location or "/" in location:
        return _import_file(Path(location))
    if not all(part.isidentifier() for part in location.split(".")):
        raise CLIError(f"{location!r} is neither a Python file nor a module name")
    cwd = os.getcwd()
    if cwd not in sys.path and "" not in sys.path:
        sys.path.insert(0, cwd)
    try:
        return importlib.import_module(location)
    except ModuleNotFoundError as exc:
        if exc.name == location or location.startswith(f"{exc.name}."):
            raise CLIError(
                f"no module named {location!r} in the current directory or installed packages"
            ) from None
        raise _import_failed(location, exc) from None
    except Exception as exc:
        raise _import_failed(location, exc) from None


def _import_file(path: Path) -> ModuleType:
    if not path.is_file():
        raise CLIError(f"no such file: {str(path)!r}")
    resolved = path.resolve()
    name = resolved.stem
    if not name.isidentifier() or name in sys.modules:  # never shadow a loaded module
        name = f"procession_cli_target_{abs(hash(str(resolved)))}"
    spec = importlib.util.spec_from_file_location(name, resolved)
    if spec is None or spec.loader is None:
        raise CLIError(f"{str(path)!r} cannot be loaded as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses, pickling and typing look modules up here
    if str(resolved.parent) not in sys.path:  # as `python FILE` does, for its neighbours
        sys.path.insert(0, str(resolved.parent))
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        sys.modules.pop(name, None)
        raise _import_failed(str(path), exc) from None
    return module


def _import_failed(location: str, exc: Exception) -> CLIError:
    """``importing app.py failed: NameError: name 'x' is not defined (app.py, line 3)``."""
    if isinstance(exc, SyntaxError):
        where = f" ({exc.filename}, line {exc.lineno})" if exc.lineno else ""
        return CLIError(f"{location} has a syntax error: {exc.msg}{where}")
    frames = traceback.extract_tb(exc.__traceback__)
    last = next((f for f in reversed(frames) if "importlib" not in f.filename), None)
    where = f" ({last.filename}, line {last.lineno})" if last else ""
    return CLIError(one_line(f"importing {location} failed: {type(exc).__name__}: {exc}{where}"))


def _agent_names(module: ModuleType) -> list[str]:
    return sorted(name for name, value in vars(module).items() if isinstance(value, Agent))


def _only_agent(module: ModuleType, location: str) -> Agent:
    names = _agent_names(module)
    if len(names) == 1:
        agent: Agent = getattr(module, names[0])
        return agent
    if not names:
        raise CLIError(f"{location} defines no Agent; name one with {location}:ATTR")
    raise CLIError(
        f"{location} defines {len(names)} agents ({', '.join(names)}); "
        f"pick one with {location}:{names[0]}"
    )


def _a(noun: str) -> str:
    return f"an {noun}" if noun[:1].lower() in "aeiou" else f"a {noun}"
