"""The synchronous clients: ``openai.OpenAI`` and LangChain's ``ChatOpenAI`` over it, against
a server in a thread of its own (issue 26)."""

from __future__ import annotations

import openai
from langchain_core.messages import AIMessageChunk, HumanMessage, SystemMessage
from langchain_openai import ChatOpenAI
from pydantic import BaseModel, SecretStr

from procession import StreamRedactor
from procession.chunks import Usage
from procession.server import Auth, create_app
from procession.testing import Reply
from tests.server.conftest import scripted_agent, serve_in_thread

KEY = "sk-alice-0123456789abcdef"


def test_the_synchronous_client_answers_and_streams() -> None:
    app = create_app(scripted_agent("support", Reply(text=["One ", "two."])))
    with serve_in_thread(app) as url:
        client = openai.OpenAI(base_url=f"{url}/v1", api_key="unused", max_retries=0)
        whole = client.chat.completions.create(
            model="support", messages=[{"role": "user", "content": "count"}]
        )
        with client.chat.completions.create(
            model="support", messages=[{"role": "user", "content": "count"}], stream=True
        ) as stream:
            streamed = "".join(c.choices[0].delta.content or "" for c in stream)
        client.close()
    assert whole.choices[0].message.content == streamed == "One two."


def test_langchain_chat_openai_invokes_and_streams() -> None:
    usage = Usage(input_tokens=21, output_tokens=4, total_tokens=25)
    reply = Reply(text=["Mail ada@example.com", " now."], usage=usage)
    agent = scripted_agent("support", reply, output_processors=[StreamRedactor()])
    app = create_app(agent, auth=Auth(api_keys={KEY: "alice"}))
    with serve_in_thread(app) as url:
        llm = ChatOpenAI(
            model="support",
            base_url=f"{url}/v1",
            api_key=SecretStr(KEY),
            max_retries=0,
            stream_usage=True,
        )
        answer = llm.invoke([SystemMessage("Be kind."), HumanMessage("Who do I mail?")])
        pieces = list(llm.stream("Who do I mail?"))
    assert isinstance(answer.content, str)
    assert "example.com" not in answer.content
    assert answer.content.endswith(" now.")
    assert answer.response_metadata["finish_reason"] == "stop"
    assert answer.usage_metadata is not None
    assert answer.usage_metadata["input_tokens"] == 21
    streamed = "".join(str(p.content) for p in pieces)
    assert streamed == answer.content
    assert all(isinstance(p, AIMessageChunk) for p in pieces)
    total = pieces[0]
    for piece in pieces[1:]:
        total += piece
    assert total.usage_metadata is not None
    assert total.usage_metadata["output_tokens"] == 4
    prompt = agent.model.calls[0].prompt  # type: ignore[union-attr]
    assert any("Be kind." in str(m["content"]) for m in prompt if m["role"] == "system")


class Order(BaseModel):
    order_id: str
    status: str


def test_langchain_structured_output_through_the_json_schema_format() -> None:
    reply = Reply(text=['{"order_id": "A-1", "status": "shipped"}'])
    app = create_app(scripted_agent("support", reply))
    with serve_in_thread(app) as url:
        llm = ChatOpenAI(model="support", base_url=f"{url}/v1", api_key=SecretStr("x"))
        order = llm.with_structured_output(Order, method="json_schema").invoke("A-1?")
    assert order == Order(order_id="A-1", status="shipped")
