"""``procession run``: the real command in a subprocess, on scripted models."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.helpers import app_file, clean_env, run_cli, run_on_terminal

ECHO_APP = """
from procession import Agent
from procession.testing import FunctionModel


def answer(options):
    system = [m["content"] for m in options.prompt if m["role"] == "system"]
    user = [m["content"] for m in options.prompt if m["role"] == "user"]
    text = user[-1][0]["text"] if isinstance(user[-1], list) else user[-1]
    return f"system={system!r} prompt={text!r}"


agent = Agent(id="echo", instructions="Be brief.", model=FunctionModel(answer))
"""

RETRY_APP = """
from procession import Agent, Processor
from procession.testing import Reply, ScriptedModel


class Picky(Processor):
    id = "picky"

    def process_output_step(self, *, text, abort, retry_count, **_):
        if retry_count == 0:
            abort("say it better", retry=True)


agent = Agent(
    id="picky-agent",
    model=ScriptedModel([Reply(text=["first ", "draft"]), Reply(text=["final ", "answer"])]),
    output_processors=[Picky()],
    max_processor_retries=1,
)
"""

BLOCKING_APP = """
from procession import Agent, Processor
from procession.testing import ScriptedModel


class NoSecrets(Processor):
    id = "no-secrets"

    def process_input(self, *, messages, abort, **_):
        if any("password" in m.text for m in messages):
            abort("Blocked content detected in input")


agent = Agent(id="guarded", model=ScriptedModel([]), input_processors=[NoSecrets()])
"""


def test_run_prints_the_answer_of_an_agent_in_a_file(tmp_path: Path) -> None:
    app_file(tmp_path, ECHO_APP)
    done = run_cli("run", "hello there", "--agent", "app.py:agent", cwd=tmp_path)
    assert done.status == 0, done.stderr
    assert done.stdout == "system=['Be brief.'] prompt='hello there'\n"
    assert done.stderr == ""


def test_system_adds_a_system_prompt(tmp_path: Path) -> None:
    app_file(tmp_path, ECHO_APP)
    done = run_cli("run", "hi", "-a", "app", "--system", "Answer in French.", cwd=tmp_path)
    assert done.status == 0, done.stderr
    assert "system=['Be brief.', 'Answer in French.']" in done.stdout


def test_piped_input_is_the_prompt(tmp_path: Path) -> None:
    app_file(tmp_path, ECHO_APP)
    done = run_cli("run", "--agent", "app.py", cwd=tmp_path, stdin="hi from a pipe\n")
    assert done.status == 0, done.stderr
    assert "prompt='hi from a pipe'" in done.stdout


def test_piped_input_comes_before_the_argument(tmp_path: Path) -> None:
    app_file(tmp_path, ECHO_APP)
    done = run_cli("run", "summarise this", "-a", "app:agent", cwd=tmp_path, stdin="notes\n")
    assert done.status == 0, done.stderr
    assert "prompt='notes\\n\\nsummarise this'" in done.stdout


def test_no_prompt_at_all_is_one_clear_line(tmp_path: Path) -> None:
    app_file(tmp_path, ECHO_APP)
    done = run_cli("run", "--agent", "app.py", cwd=tmp_path, stdin="  \n")
    assert done.status == 2
    assert done.stdout == ""
    assert done.stderr.strip() == (
        'error: no prompt: pass one (procession run "...") or pipe one (echo ... | procession run)'
    )


def test_a_rejected_attempt_never_reaches_piped_output(tmp_path: Path) -> None:
    # D31, D2: plain output holds each step until it is accepted
    app_file(tmp_path, RETRY_APP)
    done = run_cli("run", "hi", "--agent", "app.py:agent", cwd=tmp_path)
    assert done.status == 0, done.stderr
    assert done.stdout == "final answer\n"
    assert "first draft" not in done.stdout + done.stderr
    assert "retry requested by picky: say it better" in done.stderr
    assert "(the rejected attempt is not shown)" in done.stderr


def test_a_rejected_attempt_is_struck_on_a_terminal(tmp_path: Path) -> None:
    # D31: live mode keeps the rejected text on screen, struck through (SGR 9)
    app_file(tmp_path, RETRY_APP)
    done = run_on_terminal("run", "hi", "--agent", "app.py:agent", cwd=tmp_path)
    assert done.status == 0, done.stdout
    struck = done.stdout.split("\x1b[2;9m", 1)
    assert len(struck) == 2, done.stdout
    assert struck[1].startswith("first draft")
    assert "retry requested by picky" in struck[1]
    final = struck[1].split("say it better", 1)[1]
    assert "final answer" in final
    assert "\x1b[2;9mfinal" not in final


def test_a_tripwire_exits_3_with_the_reason_on_stderr(tmp_path: Path) -> None:
    app_file(tmp_path, BLOCKING_APP)
    done = run_cli("run", "what is my password?", "--agent", "app.py", cwd=tmp_path)
    assert done.status == 3
    assert done.stdout == ""
    assert "tripwire (no-secrets): Blocked content detected in input" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_failed_run_exits_1_with_one_line(tmp_path: Path) -> None:
    app_file(
        tmp_path,
        "from procession import Agent\n"
        "from procession.testing import Reply, ScriptedModel\n"
        "from procession.errors import APICallError\n"
        "agent = Agent(id='x', model=ScriptedModel("
        "[Reply(error=APICallError('model is overloaded', status_code=400))]))\n",
    )
    done = run_cli("run", "hi", "--agent", "app.py", cwd=tmp_path)
    assert done.status == 1
    assert done.stderr.splitlines() == [
        "error: scripted/scripted-model failed 400: model is overloaded"
    ]


@pytest.mark.parametrize("flag", ["-v", "-vv"])
def test_verbose_shows_the_procession_loggers(tmp_path: Path, flag: str) -> None:
    app_file(
        tmp_path,
        "import logging\n"
        "from procession import Agent\n"
        "from procession.testing import FunctionModel\n"
        "log = logging.getLogger('procession.models')\n"
        "def answer(options):\n"
        "    log.info('retrying in 0.5 s after a 529')\n"
        "    log.debug('request body sent')\n"
        "    return 'ok'\n"
        "agent = Agent(id='x', model=FunctionModel(answer))\n",
    )
    quiet = run_cli("run", "hi", "--agent", "app.py", cwd=tmp_path)
    assert quiet.stderr == ""
    loud = run_cli(flag, "run", "hi", "--agent", "app.py", cwd=tmp_path)
    assert "INFO procession.models: retrying in 0.5 s after a 529" in loud.stderr
    assert ("DEBUG procession.models: request body sent" in loud.stderr) == (flag == "-vv")
    after = run_cli("run", "hi", "--agent", "app.py", flag, cwd=tmp_path)  # either place
    assert "INFO procession.models" in after.stderr
    assert loud.stdout == quiet.stdout == "ok\n"


def test_version() -> None:
    done = run_cli("--version", cwd=Path.cwd(), env=clean_env())
    assert done.status == 0
    assert done.stdout.strip().startswith("procession 0.")
