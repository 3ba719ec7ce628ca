"""ToolSearch: the model searches a catalogue (BM25), loads tools, and keeps them per thread."""

from __future__ import annotations

import pytest

from procession import (
    Agent,
    BM25Index,
    ConfigurationError,
    InMemoryLoadedToolStore,
    RequestContext,
    Tool,
    ToolSearch,
    tool,
)
from procession.guardrails._text.bm25 import tokenize
from procession.testing import Reply, ScriptedModel, ToolCallScript

calls: list[str] = []


@tool
def get_weather(city: str) -> str:
    """Current weather and temperature for a city."""
    calls.append(city)
    return f"18C and sunny in {city}"


@tool
def convert_currency(amount: float, to: str) -> float:
    """Convert an amount of money between currencies at today's exchange rate."""
    return amount * 2


@tool
def book_flight(origin: str, destination: str) -> str:
    """Book a flight ticket between two airports."""
    return "booked"


@tool
def tianqi(city: str) -> str:
    """查詢城市的天氣預報。"""
    return "晴"


def _filler(index: int) -> Tool:
    def helper(x: str) -> str:
        return x

    helper.__doc__ = f"Internal helper number {index} for spreadsheets and invoices."
    helper.__name__ = f"helper_{index}"
    return tool(helper)


CATALOG = [get_weather, convert_currency, book_flight, tianqi, *(_filler(i) for i in range(20))]


def _offered(model: ScriptedModel, call: int) -> list[str]:
    return sorted(t["name"] for t in model.calls[call].tools)


def test_tokens_split_identifiers_and_cjk() -> None:
    assert tokenize("getWeatherForecast") == ["get", "weather", "forecast"]
    assert tokenize("book_flight-v2.now") == ["book", "flight", "v2", "now"]
    assert tokenize("查詢天氣") == ["查", "詢", "天", "氣", "查詢", "詢天", "天氣"]


def test_bm25_ranks_the_relevant_document_first() -> None:
    index = BM25Index(
        {
            "weather": "weather forecast temperature",
            "money": "currency exchange money",
            "mixed": "weather money money money",
        }
    )
    assert [key for key, _ in index.search("weather forecast")][:1] == ["weather"]
    assert index.search("nothing matches") == []
    assert [key for key, _ in index.search("money", top_k=1)] == ["mixed"]


@pytest.mark.asyncio
async def test_the_model_searches_loads_and_calls_a_tool() -> None:
    calls.clear()
    search = ToolSearch(CATALOG)
    model = ScriptedModel(
        [
            Reply(tool_calls=[ToolCallScript("search_tools", {"query": "weather in a city"})]),
            Reply(tool_calls=[ToolCallScript("load_tool", {"toolName": "get_weather"})]),
            Reply(tool_calls=[ToolCallScript("get_weather", {"city": "Oslo"})]),
            "It is 18C in Oslo.",
        ]
    )
    agent = Agent(id="a", model=model, input_processors=[search], max_steps=6)
    result = await agent.generate("weather in Oslo?", thread_id="th-1", resource_id="r")
    assert result.text == "It is 18C in Oslo."
    assert _offered(model, 0) == ["load_tool", "search_tools"]
    found = result.steps[0].tool_results[0].result
    assert found["results"][0]["name"] == "get_weather"
    assert len(found["results"]) <= 5
    assert "load_tool" in found["message"]
    loaded = result.steps[1].tool_results[0].result
    assert loaded == {
        "success": True,
        "message": 'Tool "get_weather" loaded successfully. It will be available on your '
        "next turn.",
        "toolName": "get_weather",
    }
    assert "get_weather" in _offered(model, 2)
    assert calls == ["Oslo"]
    again = ScriptedModel(["hi"])
    await Agent(id="a", model=again, input_processors=[search]).generate(
        "hello", thread_id="th-1", resource_id="r"
    )
    assert "get_weather" in _offered(again, 0)  # the thread keeps what it loaded
    other = ScriptedModel(["hi"])
    await Agent(id="a", model=other, input_processors=[search]).generate(
        "hello", thread_id="th-2", resource_id="r"
    )
    assert "get_weather" not in _offered(other, 0)


@pytest.mark.asyncio
async def test_auto_load_and_unknown_names() -> None:
    store = InMemoryLoadedToolStore()
    search = ToolSearch(CATALOG, auto_load=True, top_k=2, store=store)
    context = RequestContext(thread_id="t")
    hits = (await search.search("exchange rate currency", context))["results"]
    assert hits[0]["name"] == "convert_currency"
    assert len(hits) <= 2
    assert "convert_currency" in await store.get("t")
    answer = await search.load("launch_rocket", context)
    assert answer["success"] is False
    assert "search_tools" in answer["message"]
    chinese = (await search.search("天氣", context))["results"]
    assert chinese[0]["name"] == "tianqi"


@pytest.mark.asyncio
async def test_filter_and_injected_catalog() -> None:
    def no_money(item: Tool, context: RequestContext) -> bool:
        return not (item.name == "convert_currency" and context.get("plan") == "free")

    search = ToolSearch([get_weather, convert_currency], filter=no_money, inject_catalog=True)
    free = RequestContext({"plan": "free"}, thread_id="t")
    assert (await search.search("currency", free))["results"] == []
    assert (await search.load("convert_currency", free))["success"] is False
    model = ScriptedModel(["ok"])
    agent = Agent(id="a", model=model, instructions="Be helpful.", input_processors=[search])
    await agent.generate("hi", request_context=RequestContext({"plan": "free"}))
    system = [m["content"] for m in model.calls[0].prompt if m["role"] == "system"]
    assert system[0] == "Be helpful."
    assert "get_weather" in system[-1]
    assert "convert_currency" not in system[-1]


def test_options_are_checked() -> None:
    with pytest.raises(ConfigurationError, match="tools"):
        ToolSearch([])
    with pytest.raises(ConfigurationError, match="top_k"):
        ToolSearch(CATALOG, top_k=0)
    with pytest.raises(ConfigurationError, match="store"):
        ToolSearch(CATALOG, store=object())  # type: ignore[arg-type]

    def search_tools(query: str) -> str:
        """Clashes with the meta-tool."""
        return query

    with pytest.raises(ConfigurationError, match="meta-tools"):
        ToolSearch([search_tools])


@pytest.mark.asyncio
async def test_a_model_prompted_the_mastra_way_loads_several_tools() -> None:
    # issue 23: Mastra's toolNames argument, its answer shape and its guidance message
    search = ToolSearch(CATALOG)
    model = ScriptedModel(
        [
            Reply(
                tool_calls=[
                    ToolCallScript(
                        "load_tool", {"toolNames": ["get_weather", "book_flight", "nope"]}
                    )
                ]
            ),
            Reply(tool_calls=[ToolCallScript("load_tool", {"toolNames": ["get_weather"]})]),
            Reply(tool_calls=[ToolCallScript("load_tool", {})]),
            "done",
        ]
    )
    agent = Agent(id="a", model=model, input_processors=[search], max_steps=6)
    result = await agent.generate("go", thread_id="th-mastra", resource_id="r")
    first = result.steps[0].tool_results[0].result
    assert first == {
        "success": False,
        "message": "Loaded: get_weather, book_flight — available on your next turn"
        " | Not found: nope",
        "loadedCount": 2,
        "loaded": ["get_weather", "book_flight"],
        "notFound": ["nope"],
    }
    second = result.steps[1].tool_results[0].result
    assert second["alreadyLoaded"] == ["get_weather"]
    assert second["success"] is True
    assert result.steps[2].tool_results[0].result["success"] is False
    system = [m["content"] for m in model.calls[0].prompt if m["role"] == "system"]
    assert any("call load_tool with a toolName or toolNames array" in text for text in system)
    assert {"book_flight", "get_weather"} <= set(_offered(model, 1))


@pytest.mark.asyncio
async def test_the_old_name_argument_still_loads_and_misspellings_get_suggestions() -> None:
    search = ToolSearch(CATALOG)
    context = RequestContext(thread_id="t-old")
    load = search.meta_tools["load_tool"]
    assert "name" in load.input_schema["properties"]
    assert (await search.load("weather", context))["message"] == (
        'Tool "weather" not found. Did you mean: get_weather?'
    )
    again = await search.load(["get_weather"], context)
    assert again["loaded"] == ["get_weather"]


@pytest.mark.asyncio
async def test_auto_load_offers_no_load_tool_and_says_so() -> None:
    search = ToolSearch(CATALOG, auto_load=True)
    model = ScriptedModel(
        [Reply(tool_calls=[ToolCallScript("search_tools", {"query": "flight ticket"})]), "ok"]
    )
    agent = Agent(id="a", model=model, input_processors=[search], max_steps=4)
    result = await agent.generate("fly", thread_id="th-auto", resource_id="r")
    assert _offered(model, 0) == ["search_tools"]
    answer = result.steps[0].tool_results[0].result
    assert answer["message"].startswith("Found and loaded")
    assert "book_flight" in _offered(model, 1)
    system = [m["content"] for m in model.calls[0].prompt if m["role"] == "system"]
    assert any("there is no separate load step" in text for text in system)


def test_the_name_boost_and_long_descriptions_are_mastras() -> None:
    def long_one(x: str) -> str:
        return x

    long_one.__doc__ = "Weather " + "word " * 60
    search = ToolSearch([get_weather, tool(long_one)])
    hits = search.rank("weather", RequestContext())
    assert hits[0]["name"] == "get_weather"  # the name contains a query word: +2
    assert len(hits[1]["description"]) == 150
    assert hits[1]["description"].endswith("...")


@pytest.mark.asyncio
async def test_a_model_still_using_name_loads_its_tool() -> None:
    # the argument before issue 23 stays an alias of toolName
    search = ToolSearch(CATALOG)
    model = ScriptedModel(
        [Reply(tool_calls=[ToolCallScript("load_tool", {"name": "book_flight"})]), "ok"]
    )
    agent = Agent(id="a", model=model, input_processors=[search], max_steps=4)
    result = await agent.generate("fly", thread_id="th-alias", resource_id="r")
    assert result.steps[0].tool_results[0].result["success"] is True
    assert "book_flight" in _offered(model, 1)
