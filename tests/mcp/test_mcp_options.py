"""``MCPClient`` options are checked when it is built (D35), and the result mapping's edges."""

from __future__ import annotations

import io
import math
from typing import Any

import pytest

from procession import ConfigurationError, ToolError
from procession.mcp import MCPClient
from procession.mcp._results import tool_result

STDIO = {"stdio": ["python", "server.py"]}
URL = {"url": "http://127.0.0.1:8000/mcp"}


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({}, "exactly one of stdio="),
        ({**STDIO, **URL}, "exactly one of stdio="),
        ({"stdio": "python server.py"}, "stdio: expected the command and its arguments"),
        ({"stdio": []}, "stdio: expected the command"),
        ({"stdio": ["python", 3]}, "stdio: expected the command"),
        ({"stdio": ["python", ""]}, "stdio: expected the command"),
        ({"url": "ftp://host/mcp"}, "url: expected an http:// or https:// URL string"),
        ({"url": b"http://host"}, "url: expected an http"),
        ({**URL, "env": {"A": "1"}}, "env= and cwd= apply to stdio= servers only"),
        ({**URL, "cwd": "/tmp"}, "env= and cwd= apply to stdio= servers only"),
        ({**STDIO, "headers": {"A": "1"}}, "headers= and auth= apply to url= servers only"),
        ({**STDIO, "env": {"A": 1}}, "env: expected a mapping of strings to strings"),
        ({**URL, "headers": ["A"]}, "headers: expected a mapping"),
        ({**STDIO, "cwd": 3}, "cwd: expected a path, got 3"),
        ({**STDIO, "name": ""}, "name: expected a non-empty string"),
        ({**STDIO, "prefix": "my tools"}, "prefix: expected letters, digits"),
        ({**STDIO, "prefix": ""}, "prefix: expected letters"),
        ({**STDIO, "include": "add"}, "include: expected a collection of tool names"),
        ({**STDIO, "exclude": [1]}, "exclude: expected a collection of tool names"),
        ({**STDIO, "timeout": True}, "timeout: expected a positive number of seconds or None"),
        ({**STDIO, "timeout": 0}, "timeout: expected a positive number"),
        ({**STDIO, "timeout": -1.0}, "timeout: expected a positive number"),
        ({**STDIO, "timeout": math.inf}, "timeout: expected a positive number"),
        ({**STDIO, "timeout": "5"}, "timeout: expected a positive number"),
        ({**STDIO, "connect_timeout": None}, "connect_timeout: expected a positive number of s"),
        ({**STDIO, "reconnect": 1}, "reconnect: expected True or False, got 1"),
        ({**STDIO, "stderr": "log.txt"}, "stderr: expected a text file with a file descriptor"),
    ],
)
def test_a_wrong_option_is_a_configuration_error_naming_it(
    options: dict[str, Any], message: str
) -> None:  # D35
    with pytest.raises(ConfigurationError, match=message.replace("(", r"\(")):
        MCPClient(**options)


@pytest.mark.parametrize(
    ("options", "name"),
    [
        ({"stdio": ["python", "-u", "servers/files.py", "--root", "/tmp"]}, "files.py"),
        ({"stdio": ["npx", "-y", "@modelcontextprotocol/server-memory"]}, "server-memory"),
        ({"stdio": ["my-server"]}, "my-server"),
        ({"url": "https://tools.example.test:8443/mcp"}, "tools.example.test:8443"),
        ({"stdio": ["my-server"], "name": "notes"}, "notes"),
    ],
)
def test_the_default_name_says_which_server(options: dict[str, Any], name: str) -> None:
    client = MCPClient(**options)
    assert client.name == name
    assert not client.connected
    assert repr(client).startswith(f"MCPClient({name!r}, ")


def test_prefix_include_and_exclude_choose_and_name_the_tools() -> None:
    options = MCPClient(
        stdio=["s"], prefix="fs", include=["read", "write", "delete"], exclude={"delete"}
    ).options
    assert [n for n in ["read", "write", "delete", "stat"] if options.wanted(n)] == [
        "read",
        "write",
    ]
    assert options.tool_name("read") == "fs_read"
    assert MCPClient(stdio=["s"]).options.tool_name("read") == "read"


def test_good_options_are_kept() -> None:
    sink = io.StringIO()
    sink.fileno = lambda: 2  # type: ignore[method-assign]
    options = MCPClient(
        stdio=("python", "s.py"), env={"A": "1"}, stderr=sink, timeout=None, connect_timeout=2
    ).options
    assert options.command == ("python", "s.py")
    assert options.env == {"A": "1"}
    assert options.stderr is sink
    assert options.timeout is None
    assert options.connect_timeout == 2.0


def test_structured_content_wins_over_the_text_copy_of_it() -> None:
    result = {"content": [{"type": "text", "text": '{"a": 1}'}], "structuredContent": {"a": 1}}
    assert tool_result(result, "t") == {"a": 1}


def test_an_error_without_text_names_the_tool() -> None:
    with pytest.raises(ToolError, match="MCP tool 'sync' reported an error"):
        tool_result({"content": [{"type": "image", "data": ""}], "isError": True}, "sync")
    lines = [{"type": "text", "text": "line one"}, {"type": "text", "text": "line two"}]
    with pytest.raises(ToolError, match=r"^line one\nline two$"):
        tool_result({"content": lines, "isError": True}, "t")


def test_blocks_lose_their_client_hints_and_unknown_blocks_pass_through() -> None:
    result = {
        "content": [
            {"type": "audio", "data": "AAAA", "mimeType": "audio/wav", "annotations": {"x": 1}},
            {"type": "future-block", "value": 3, "_meta": {"x": 1}},
        ]
    }
    assert tool_result(result, "t") == [
        {"type": "audio", "data": "AAAA", "mimeType": "audio/wav"},
        {"type": "future-block", "value": 3},
    ]


def test_several_text_blocks_stay_separate_strings() -> None:
    result = {"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}
    assert tool_result(result, "t") == ["a", "b"]
