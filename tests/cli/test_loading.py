"""Finding the agent: FILE.py:ATTR, MODULE:ATTR, a file or module with one Agent."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from procession import Agent
from procession.cli.errors import CLIError
from procession.cli.loading import load_agent, split_target

ONE = "from procession import Agent\nsupport = Agent(id='support')\n"
TWO = "from procession import Agent\nfirst = Agent(id='first')\nsecond = Agent(id='second')\n"


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A current directory for module lookups; modules loaded from it are forgotten after."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    before = set(sys.modules)
    yield tmp_path
    for name in set(sys.modules) - before:
        del sys.modules[name]


@pytest.mark.parametrize(
    ("target", "expected"),
    [
        ("app.py:agent", ("app.py", "agent")),
        ("pkg.mod:agents.main", ("pkg.mod", "agents.main")),
        ("app.py", ("app.py", None)),
        ("app", ("app", None)),
        ("C:\\work\\app.py", ("C:\\work\\app.py", None)),
        ("C:\\work\\app.py:agent", ("C:\\work\\app.py", "agent")),
    ],
)
def test_split_target(target: str, expected: tuple[str, str | None]) -> None:
    assert split_target(target) == expected


def test_a_file_and_attribute(workdir: Path) -> None:
    (workdir / "app.py").write_text(ONE)
    assert load_agent("app.py:support").id == "support"
    assert load_agent(f"{workdir / 'app.py'}:support").id == "support"


def test_a_module_in_the_current_directory(workdir: Path) -> None:
    (workdir / "assistants.py").write_text(ONE)
    assert load_agent("assistants:support").id == "support"


def test_a_package_module_and_a_dotted_attribute(workdir: Path) -> None:
    package = workdir / "shop"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "bots.py").write_text(
        "from types import SimpleNamespace\nfrom procession import Agent\n"
        "agents = SimpleNamespace(main=Agent(id='main'))\n"
    )
    assert load_agent("shop.bots:agents.main").id == "main"


def test_a_file_imports_its_neighbours(workdir: Path) -> None:
    sub = workdir / "src"
    sub.mkdir()
    (sub / "helpers.py").write_text("NAME = 'from-a-neighbour'\n")
    (sub / "app.py").write_text(
        "from helpers import NAME\nfrom procession import Agent\nagent = Agent(id=NAME)\n"
    )
    assert load_agent("src/app.py:agent").id == "from-a-neighbour"


@pytest.mark.parametrize("target", ["app.py", "app"])
def test_the_only_agent_needs_no_attribute(workdir: Path, target: str) -> None:
    (workdir / "app.py").write_text(ONE + "helper = 42\n")
    agent = load_agent(target)
    assert isinstance(agent, Agent)
    assert agent.id == "support"


def test_several_agents_need_an_attribute(workdir: Path) -> None:
    (workdir / "app.py").write_text(TWO)
    with pytest.raises(CLIError) as caught:
        load_agent("app.py")
    assert caught.value.message == (
        "app.py defines 2 agents (first, second); pick one with app.py:first"
    )


def test_no_agent_at_all(workdir: Path) -> None:
    (workdir / "app.py").write_text("x = 1\n")
    with pytest.raises(CLIError, match=r"^app.py defines no Agent; name one with app.py:ATTR$"):
        load_agent("app.py")


def test_a_missing_attribute_is_named_with_the_agents_there(workdir: Path) -> None:
    (workdir / "app.py").write_text(TWO)
    with pytest.raises(CLIError) as caught:
        load_agent("app.py:nope")
    assert caught.value.message == (
        "app.py:nope: 'nope' is missing from app.py (agents there: first, second)"
    )


def test_a_missing_nested_attribute(workdir: Path) -> None:
    (workdir / "app.py").write_text("import types\nns = types.SimpleNamespace()\n")
    with pytest.raises(CLIError) as caught:
        load_agent("app:ns.agent")
    assert caught.value.message == "app:ns.agent: 'agent' is missing from app.ns"


def test_something_that_is_not_an_agent(workdir: Path) -> None:
    (workdir / "app.py").write_text("agent = 'support'\n")
    with pytest.raises(CLIError) as caught:
        load_agent("app.py:agent")
    assert caught.value.message == "app.py:agent is a str, not an Agent"


def test_a_syntax_error_names_file_and_line(workdir: Path) -> None:
    (workdir / "app.py").write_text("x = 1\ndef broken(:\n")
    with pytest.raises(CLIError) as caught:
        load_agent("app.py:agent")
    assert caught.value.message.startswith("app.py has a syntax error: ")
    assert caught.value.message.endswith("app.py, line 2)")


def test_a_missing_dependency_of_the_module_is_not_a_missing_module(workdir: Path) -> None:
    (workdir / "app.py").write_text("import not_installed_anywhere\n")
    with pytest.raises(CLIError) as caught:
        load_agent("app:agent")
    assert caught.value.message.startswith(
        "importing app failed: ModuleNotFoundError: No module named 'not_installed_anywhere'"
    )


def test_a_bad_module_name(workdir: Path) -> None:
    with pytest.raises(CLIError, match="'my-app' is neither a Python file nor a module name"):
        load_agent("my-app:agent")


def test_a_file_named_like_a_loaded_module_does_not_replace_it(workdir: Path) -> None:
    (workdir / "json.py").write_text(ONE)
    import json

    assert load_agent("json.py").id == "support"
    assert sys.modules["json"] is json
