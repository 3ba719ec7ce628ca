"""A2A 1.0 through the pinned ``a2a-sdk`` client (issue 26), against the real server on
127.0.0.1: the card it resolves, tasks sent and streamed, the processors applying as on every
other route, ``contextId`` as the memory thread, tool approvals as ``input-required``, tasks
owned by the caller's resource."""

from __future__ import annotations

import httpx
import pytest
from a2a.client import A2AClientError
from a2a.types.a2a_pb2 import (
    CancelTaskRequest,
    GetExtendedAgentCardRequest,
    GetTaskRequest,
    ListTasksRequest,
)
from a2a.utils.errors import InvalidParamsError, TaskNotCancelableError, TaskNotFoundError
from google.protobuf import json_format

from tests.server_clients.a2a_sdk import (
    a2a_client,
    card_path,
    data_message,
    events,
    kinds,
    last_status,
    states,
    status_text,
    streamed_text,
    text_message,
)
from tests.server_clients.clients import alice, bearer, token, unique
from tests.server_clients.servers import Served
from tests.server_clients.shared import APOLOGY, RUDE

pytestmark = pytest.mark.asyncio

CARD = "4111 1111 1111 1111"


async def test_the_sdk_resolves_the_card_and_calls_the_agent_at_its_url(
    open_server: Served,
) -> None:
    async with a2a_client(open_server, "weather") as client:
        card = await client.get_extended_agent_card(GetExtendedAgentCardRequest())
    assert card.name == "weather"
    assert card.capabilities.streaming is True
    urls = {(i.protocol_version, i.url) for i in card.supported_interfaces}
    assert ("1.0", f"{open_server.url}/api/a2a/weather") in urls
    assert [skill.id for skill in card.skills] == ["get_weather"]  # skills from its tools


async def test_the_card_never_holds_the_instructions(open_server: Served) -> None:
    async with httpx.AsyncClient() as http:
        for headers in ({}, {"A2A-Version": "1.0"}):
            response = await http.get(open_server.url + card_path("support"), headers=headers)
            assert response.status_code == 200
            assert "You help customers" not in response.text
            assert response.json()["name"] == "Support"


async def test_send_message_answers_the_completed_task(open_server: Served) -> None:
    async with a2a_client(open_server, "echo", streaming=False) as client:
        (event,) = await events(client, text_message("hello there"))
    task = event.task
    assert json_format.MessageToDict(task.status)["state"] == "TASK_STATE_COMPLETED"
    assert [p.text for p in task.artifacts[0].parts] == ["You said: hello there"]
    assert task.history[0].parts[0].text == "hello there"


async def test_streaming_redacts_a_card_number_split_across_deltas(open_server: Served) -> None:
    async with a2a_client(open_server, "support") as client:
        seen = await events(client, text_message(f"my card is {CARD} ok"))
    assert kinds(seen)[0] == "task"
    assert "artifact_update" in kinds(seen)
    assert states(seen)[:2] == ["TASK_STATE_SUBMITTED", "TASK_STATE_WORKING"]
    assert states(seen)[-1] == "TASK_STATE_COMPLETED"
    assert streamed_text(seen) == "You said: my card is [REDACTED] ok"
    assert "4111" not in str(seen[1:])  # the first event is the task with the user's message
    pieces = [e.artifact_update for e in seen if e.HasField("artifact_update")]
    assert [p.append for p in pieces] == [False] + [True] * (len(pieces) - 1)
    assert [p.last_chunk for p in pieces][-1] is True


async def test_a_retried_answer_is_never_streamed(open_server: Served) -> None:  # D31
    async with a2a_client(open_server, "support") as client:
        seen = await events(client, text_message("a rude question"))
    assert streamed_text(seen) == APOLOGY
    assert RUDE not in str(seen)


async def test_a_tripwire_rejects_the_task_with_its_reason(open_server: Served) -> None:
    async with a2a_client(open_server, "support") as client:
        seen = await events(client, text_message("my password is hunter2"))
    assert states(seen)[-1] == "TASK_STATE_REJECTED"
    assert "password" in status_text(last_status(seen))
    assert streamed_text(seen) == ""


async def test_the_context_is_the_memory_thread(open_server: Served) -> None:
    context = unique("ctx")
    async with a2a_client(open_server, "support", streaming=False) as client:
        for text in ("first turn", "second turn"):
            (event,) = await events(client, text_message(text, context_id=context))
            assert event.task.context_id == context
    async with httpx.AsyncClient() as http:
        url = f"{open_server.url}/api/memory/threads/{context}/messages"
        stored = (await http.get(url, params={"agentId": "support"})).json()["messages"]
    said = [m["content"]["parts"][0]["text"] for m in stored if m["role"] == "user"]
    assert said == ["first turn", "second turn"]


async def test_a_tool_approval_is_input_required_until_the_next_message(
    open_server: Served,
) -> None:
    async with a2a_client(open_server, "refunds") as client:
        asked = await events(client, text_message("refund me"))
        assert states(asked)[-1] == "TASK_STATE_INPUT_REQUIRED"
        status = last_status(asked)
        (call,) = [
            json_format.MessageToDict(p)["data"] for p in status.message.parts if p.HasField("data")
        ]
        assert call["toolName"] == "refund"
        assert call["args"] == {"amount": 9}
        task_id = asked[0].task.id
        done = await events(client, data_message({"approved": True}, task_id=task_id))
    assert states(done)[-1] == "TASK_STATE_COMPLETED"
    assert streamed_text(done) == "Outcome: refunded 9"


async def test_a_declined_call_tells_the_model(open_server: Served) -> None:
    async with a2a_client(open_server, "refunds", streaming=False) as client:
        (asked,) = await events(client, text_message("refund me"))
        assert json_format.MessageToDict(asked.task.status)["state"] == "TASK_STATE_INPUT_REQUIRED"
        decline = {"approved": False, "reason": "over the limit"}
        (done,) = await events(client, data_message(decline, task_id=asked.task.id))
    assert done.task.artifacts[0].parts[0].text == (
        "Outcome: The tool call was declined: over the limit"
    )


async def test_a_text_answer_to_an_approval_is_refused_clearly(open_server: Served) -> None:
    async with a2a_client(open_server, "refunds", streaming=False) as client:
        (asked,) = await events(client, text_message("refund me"))
        with pytest.raises(InvalidParamsError, match="approved"):
            await events(client, text_message("yes please", task_id=asked.task.id))
        await client.cancel_task(CancelTaskRequest(id=asked.task.id))


async def test_a_task_can_be_canceled_once(open_server: Served) -> None:
    async with a2a_client(open_server, "slow", streaming=False, polling=True) as client:
        (started,) = await events(client, text_message("take your time"))
        task_id = started.task.id
        canceled = await client.cancel_task(CancelTaskRequest(id=task_id))
        assert json_format.MessageToDict(canceled.status)["state"] == "TASK_STATE_CANCELED"
        again = await client.get_task(GetTaskRequest(id=task_id))
        assert json_format.MessageToDict(again.status)["state"] == "TASK_STATE_CANCELED"
        with pytest.raises(TaskNotCancelableError):
            await client.cancel_task(CancelTaskRequest(id=task_id))


async def test_tasks_belong_to_the_credential_s_resource(auth_server: Served) -> None:
    async with a2a_client(auth_server, "echo", headers=alice(), streaming=False) as mine:
        (event,) = await events(mine, text_message("hi"))
        task_id = event.task.id
        found = await mine.get_task(GetTaskRequest(id=task_id))
        assert found.id == task_id
        listed = await mine.list_tasks(ListTasksRequest(context_id=event.task.context_id))
        assert [t.id for t in listed.tasks] == [task_id]
    bob = bearer(token("bob"))
    async with a2a_client(auth_server, "echo", headers=bob, streaming=False) as theirs:
        with pytest.raises(TaskNotFoundError):
            await theirs.get_task(GetTaskRequest(id=task_id))
        with pytest.raises(TaskNotFoundError):
            await theirs.cancel_task(CancelTaskRequest(id=task_id))
        listed = await theirs.list_tasks(ListTasksRequest())
        assert task_id not in [t.id for t in listed.tasks]


async def test_another_resource_s_context_is_refused(auth_server: Served) -> None:
    context = unique("ctx-of-alice")
    async with a2a_client(auth_server, "support", headers=alice(), streaming=False) as mine:
        await events(mine, text_message("mine", context_id=context))
    bob = bearer(token("bob"))
    async with a2a_client(auth_server, "support", headers=bob, streaming=False) as theirs:
        with pytest.raises(InvalidParamsError, match="contextId"):
            await events(theirs, text_message("let me in", context_id=context))


async def test_the_card_needs_a_credential_when_auth_is_on(auth_server: Served) -> None:
    with pytest.raises(A2AClientError):
        async with a2a_client(auth_server, "echo"):
            pass
    async with a2a_client(auth_server, "echo", headers=alice()) as client:
        card = await client.get_extended_agent_card(GetExtendedAgentCardRequest())
    assert set(card.security_schemes) == {"bearer", "apiKey"}
    assert card.security_schemes["bearer"].http_auth_security_scheme.scheme == "bearer"


async def test_a_line_separator_in_the_answer_reaches_the_sdk_whole(open_server: Served) -> None:
    # httpx (so a2a-sdk) splits event-stream lines at U+2028/U+2029 as str.splitlines does
    async with a2a_client(open_server, "echo") as client:
        seen = await events(client, text_message("one\u2028two\u2029three"))
    assert streamed_text(seen) == "You said: one\u2028two\u2029three"
