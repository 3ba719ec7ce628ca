"""Tool schemas from docstrings (Google, NumPy, Sphinx), and the missing-description warning."""

from __future__ import annotations

import logging
import warnings
from typing import Annotated, Any

import pytest
from pydantic import BaseModel, Field

from procession import ConfigurationError, Tool, ToolContext, ToolDescriptionWarning, tool
from procession.tools import toolset


def google(order_id: str, verbose: bool = False) -> str:
    """Look up an order.

    The order comes from the warehouse system.

    Args:
        order_id (str): The order's id,
            such as A-1001.
        verbose: Say more.

    Returns:
        The order's status.
    """
    return order_id


def numpy(order_id: str, verbose: bool = False) -> str:
    """Look up an order.

    The order comes from the warehouse system.

    Parameters
    ----------
    order_id : str
        The order's id,
        such as A-1001.
    verbose : bool, optional
        Say more.

    Returns
    -------
    str
        The order's status.
    """
    return order_id


def sphinx(order_id: str, verbose: bool = False) -> str:
    """Look up an order.

    The order comes from the warehouse system.

    :param order_id: The order's id,
        such as A-1001.
    :param bool verbose: Say more.
    :returns: The order's status.
    """
    return order_id


@pytest.mark.parametrize("function", [google, numpy, sphinx], ids=["google", "numpy", "sphinx"])
def test_each_style_gives_the_prose_as_description_and_parameters_to_the_schema(
    function: Any,
) -> None:
    built = tool(function)
    assert built.description == "Look up an order.\n\nThe order comes from the warehouse system."
    properties = built.input_schema["properties"]
    assert properties["order_id"]["description"] == "The order's id, such as A-1001."
    assert properties["verbose"]["description"] == "Say more."
    assert built.input_schema["required"] == ["order_id"]


def test_a_description_in_the_annotation_wins_over_the_docstring() -> None:
    @tool
    def search(query: Annotated[str, Field(description="Words to find.")], limit: int = 5) -> str:
        """Search the catalogue.

        Args:
            query: Ignored: the annotation says it better.
            limit: At most this many results.
        """
        return query

    properties = search.input_schema["properties"]
    assert properties["query"]["description"] == "Words to find."
    assert properties["limit"]["description"] == "At most this many results."


def test_an_explicit_description_replaces_the_prose_but_parameters_still_come_from_it() -> None:
    built = tool(description="Find an order by id.")(google)
    assert built.description == "Find an order by id."
    assert built.input_schema["properties"]["verbose"]["description"] == "Say more."


def test_a_summary_over_two_lines_stays_whole() -> None:
    @tool
    def ping(host: str) -> str:
        """Ping a host
        and report the round trip.

        Args:
            host: Name or address.
        """
        return host

    assert ping.description == "Ping a host\nand report the round trip."
    assert ping.input_schema["properties"]["host"]["description"] == "Name or address."


def test_a_docstring_that_is_only_a_section_still_describes_parameters() -> None:
    with pytest.warns(ToolDescriptionWarning, match="'only_args' has no description"):

        @tool
        def only_args(x: int) -> int:
            """
            Args:
                x: The number.
            """
            return x

    assert only_args.description == ""
    assert only_args.input_schema["properties"]["x"]["description"] == "The number."


def test_a_docstring_without_sections_is_the_description_and_describes_nothing() -> None:
    @tool
    def plain(x: int) -> int:
        """Double a number. Nothing else to say."""
        return 2 * x

    assert plain.description == "Double a number. Nothing else to say."
    assert "description" not in plain.input_schema["properties"]["x"]


def test_a_tool_without_docstring_warns_and_logs_naming_the_tool(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING, logger="procession.tools")
    with pytest.warns(ToolDescriptionWarning) as caught:

        @tool
        def undocumented(x: int) -> int:
            return x

    assert len(caught) == 1
    assert "tool 'undocumented' has no description" in str(caught[0].message)
    assert caught[0].filename == __file__  # points at the code that built the tool
    assert [r.getMessage() for r in caplog.records] == [str(caught[0].message)]
    assert undocumented.description == ""


def test_a_plain_function_given_to_an_agent_warns_at_the_callers_line() -> None:
    def bare(x: int) -> int:
        return x

    with pytest.warns(ToolDescriptionWarning, match="'renamed' has no description") as caught:
        toolset({"renamed": bare})
    assert caught[0].filename == __file__


def test_an_agent_given_an_undocumented_function_warns_at_the_agents_line() -> None:
    from procession import Agent
    from procession.testing import ScriptedModel

    def bare(x: int) -> int:
        return x

    with pytest.warns(ToolDescriptionWarning, match="'bare' has no description") as caught:
        Agent(id="a", model=ScriptedModel([]), tools=[bare])
    assert caught[0].filename == __file__


def test_an_explicit_description_or_a_docstring_does_not_warn() -> None:
    def bare(x: int) -> int:
        return x

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert tool(description="Echo x.")(bare).description == "Echo x."
        assert tool(description="")(bare).description == ""  # said on purpose
        tool(google)


def test_documenting_a_parameter_the_function_lacks_warns() -> None:
    with pytest.warns(ToolDescriptionWarning, match="documents 'colour', which is not a param"):

        @tool
        def paint(color: str) -> str:
            """Paint the wall.

            Args:
                colour: The colour.
            """
            return color

    assert "description" not in paint.input_schema["properties"]["color"]


class Query(BaseModel):
    """A search."""

    text: str = Field(description="What to look for.")


def test_a_pydantic_model_tool_keeps_its_field_descriptions() -> None:
    @tool
    def find(query: Query) -> str:
        """Find things.

        Args:
            query: The query.
        """
        return query.text

    assert find.description == "Find things."
    assert find.input_schema["properties"]["text"]["description"] == "What to look for."


def test_the_context_parameter_is_documented_without_warning_or_schema() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")

        @tool
        def where(city: str, context: ToolContext) -> str:
            """Say where.

            Args:
                city: The city.
                context: The tool context.
            """
            return city

    assert list(where.input_schema["properties"]) == ["city"]


@pytest.mark.parametrize(
    ("options", "named"),
    [
        ({"name": ""}, "tool name"),
        ({"name": 3}, "tool name"),
        ({"description": 3}, "tool description"),
    ],
)
def test_bad_tool_options_are_configuration_errors(options: dict[str, Any], named: str) -> None:
    with pytest.raises(ConfigurationError, match=named):
        tool(**options)(google)


def test_something_not_callable_is_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError, match="expected a function, got 42"):
        tool(42)  # type: ignore[call-overload]


@pytest.mark.asyncio
async def test_a_tool_without_args_model_receives_the_arguments_object() -> None:
    seen: list[Any] = []

    def run(arguments: dict[str, Any]) -> str:
        seen.append(arguments)
        return "ok"

    raw = Tool(
        name="raw",
        description="Raw arguments.",
        input_schema={"type": "object", "properties": {"x": {"type": "integer"}}},
        function=run,
        pass_model=True,
    )
    context = _context()
    assert await raw.execute({"x": 1, "extra": [2]}, context) == "ok"
    assert seen == [{"x": 1, "extra": [2]}]
    keywords = Tool(
        name="kw", description="Keyword arguments.", input_schema={}, function=lambda **kw: kw
    )
    assert await keywords.execute({"a": 1}, context) == {"a": 1}


def test_a_renamed_tool_keeps_everything_else() -> None:
    built = tool(google)
    renamed = toolset({"lookup": built})["lookup"]
    assert renamed.name == "lookup"
    assert renamed.input_schema == built.input_schema
    assert renamed.args_model is built.args_model
    assert built.name == "google"


def _context() -> ToolContext:
    from procession import RequestContext, ToolWriter

    async def emit(chunk: Any, message_id: str | None) -> None:
        return None

    return ToolContext(
        tool_call_id="call-1",
        tool_name="raw",
        writer=ToolWriter(emit),
        request_context=RequestContext(),
    )
