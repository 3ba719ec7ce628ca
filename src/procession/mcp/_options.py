"""The options of an :class:`~procession.mcp.MCPClient`, checked when it is built (D35)."""

from __future__ import annotations

import math
import os
import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO
from urllib.parse import urlsplit

from procession.errors import ConfigurationError

__all__ = ["ServerOptions", "check_call", "server_options"]

_PREFIX = re.compile(r"^[A-Za-z0-9_-]+$")


@dataclass(frozen=True, slots=True)
class ServerOptions:
    """How to reach one MCP server and how to present its tools (see ``MCPClient``)."""

    name: str
    command: tuple[str, ...] | None
    url: str | None
    env: Mapping[str, str] | None
    cwd: str | None
    headers: Mapping[str, str] | None
    auth: Any
    stderr: TextIO | None
    prefix: str | None
    include: frozenset[str] | None
    exclude: frozenset[str]
    timeout: float | None
    connect_timeout: float
    reconnect: bool

    def tool_name(self, remote: str) -> str:
        """The name the model sees for the server's tool ``remote``."""
        return f"{self.prefix}_{remote}" if self.prefix else remote

    def wanted(self, remote: str) -> bool:
        """Whether the server's tool ``remote`` is offered to the model."""
        if remote in self.exclude:
            return False
        return self.include is None or remote in self.include


def server_options(**given: Any) -> ServerOptions:
    """Check every option; a wrong one is a :class:`ConfigurationError` naming it."""
    command, url = _transport(given["stdio"], given["url"])
    if command is None and (given["env"] is not None or given["cwd"] is not None):
        raise ConfigurationError("MCPClient: env= and cwd= apply to stdio= servers only")
    if url is None and (given["headers"] is not None or given["auth"] is not None):
        raise ConfigurationError("MCPClient: headers= and auth= apply to url= servers only")
    name = given["name"]
    if name is None:
        name = _command_name(command) if command else (urlsplit(url or "").netloc or "mcp")
    elif not isinstance(name, str) or not name:
        raise ConfigurationError(f"MCPClient name: expected a non-empty string, got {name!r}")
    return ServerOptions(
        name=name,
        command=command,
        url=url,
        env=_string_map("env", given["env"]),
        cwd=_cwd(given["cwd"]),
        headers=_string_map("headers", given["headers"]),
        auth=given["auth"],
        stderr=_stderr(given["stderr"]),
        prefix=_prefix(given["prefix"]),
        include=_names("include", given["include"], optional=True),
        exclude=_names("exclude", given["exclude"], optional=False) or frozenset(),
        timeout=_seconds("timeout", given["timeout"], optional=True),
        connect_timeout=_seconds("connect_timeout", given["connect_timeout"], optional=False)
        or 0.0,
        reconnect=_flag("reconnect", given["reconnect"]),
    )


def _command_name(command: tuple[str, ...]) -> str:
    """``server.py`` for ``python server.py --flag``; the command itself when it has no
    argument other than options."""
    words = [word for word in command[1:] if not word.startswith("-")] or [command[0]]
    return Path(words[0]).name or command[0]


def check_call(name: object, arguments: object, timeout: object) -> float | None:
    """Check ``MCPClient.call_tool``'s arguments; return the timeout in seconds."""
    if not isinstance(name, str) or not name:
        raise ConfigurationError(f"MCPClient.call_tool name: expected a tool name, got {name!r}")
    if arguments is not None and not isinstance(arguments, Mapping):
        raise ConfigurationError(
            f"MCPClient.call_tool arguments: expected a mapping, got {arguments!r}"
        )
    return _seconds("call_tool timeout", timeout, optional=True)


def _transport(stdio: object, url: object) -> tuple[tuple[str, ...] | None, str | None]:
    if (stdio is None) == (url is None):
        raise ConfigurationError(
            "MCPClient: pass exactly one of stdio=[command, *args] and url='http://...', "
            f"got stdio={stdio!r}, url={url!r}"
        )
    if stdio is not None:
        if (
            isinstance(stdio, str | bytes)
            or not isinstance(stdio, Sequence)
            or not stdio
            or not all(isinstance(part, str) and part for part in stdio)
        ):
            raise ConfigurationError(
                "MCPClient stdio: expected the command and its arguments as a non-empty list "
                f"of non-empty strings, such as ['python', 'server.py'], got {stdio!r}"
            )
        return tuple(stdio), None
    if not isinstance(url, str) or urlsplit(url).scheme not in ("http", "https"):
        raise ConfigurationError(
            f"MCPClient url: expected an http:// or https:// URL string, got {url!r}"
        )
    return None, url


def _string_map(argument: str, value: object) -> Mapping[str, str] | None:
    if value is None:
        return None
    if not isinstance(value, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    ):
        raise ConfigurationError(
            f"MCPClient {argument}: expected a mapping of strings to strings, got {value!r}"
        )
    return dict(value)


def _cwd(value: object) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str | os.PathLike):
        raise ConfigurationError(f"MCPClient cwd: expected a path, got {value!r}")
    return os.fspath(value)


def _stderr(value: object) -> TextIO | None:
    if value is None:
        return None
    if not callable(getattr(value, "fileno", None)) or not callable(getattr(value, "write", None)):
        raise ConfigurationError(
            "MCPClient stderr: expected a text file with a file descriptor (such as sys.stderr), "
            f"got {value!r}"
        )
    return value  # type: ignore[return-value]


def _prefix(value: object) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not _PREFIX.match(value):
        raise ConfigurationError(
            "MCPClient prefix: expected letters, digits, '_' or '-' (tool names must stay "
            f"valid for every provider), got {value!r}"
        )
    return value


def _names(argument: str, value: object, *, optional: bool) -> frozenset[str] | None:
    if value is None:
        return None if optional else frozenset()
    if (
        isinstance(value, str | bytes)
        or not isinstance(value, Collection)
        or not all(isinstance(n, str) for n in value)
    ):
        raise ConfigurationError(
            f"MCPClient {argument}: expected a collection of tool names, got {value!r}"
        )
    return frozenset(value)


def _seconds(argument: str, value: object, *, optional: bool) -> float | None:
    if value is None and optional:
        return None
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not math.isfinite(value)
        or value <= 0
    ):
        expected = "a positive number of seconds" + (" or None" if optional else "")
        raise ConfigurationError(f"MCPClient {argument}: expected {expected}, got {value!r}")
    return float(value)


def _flag(argument: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise ConfigurationError(f"MCPClient {argument}: expected True or False, got {value!r}")
    return value
