"""Working memory: the system text the model sees, and the ``update_working_memory`` tool.

Template mode keeps Markdown text; schema mode keeps a JSON object, validated against a
pydantic model or a JSON schema on every update.
"""

from __future__ import annotations

import json
from typing import Any

from procession.errors import ConfigurationError, StructuredOutputError, ToolError
from procession.memory.config import DEFAULT_TEMPLATE, WorkingMemoryConfig
from procession.tools._tool import Tool

__all__ = ["TOOL_NAME", "WorkingMemoryFormat"]

TOOL_NAME = "update_working_memory"

_INSTRUCTIONS = """You have a working memory: notes about the user and the conversation that \
you keep for later{where}. Whenever you learn something worth remembering, or something in \
it changes, call the {tool} tool with the complete new content (it replaces the old \
content{fields}). Keep the structure below. Do not mention the working memory to the user."""

_READ_ONLY = """This is your working memory: notes about the user and the conversation kept \
from earlier{where}. It is read-only in this conversation."""


class WorkingMemoryFormat:
    """How one working-memory configuration reads, validates and shows its data."""

    def __init__(self, config: WorkingMemoryConfig) -> None:
        self.config = config
        schema = config.schema
        model: Any = schema if isinstance(schema, type) else None
        self.model = model
        self.json_schema: dict[str, Any] | None = None
        if model is not None:
            self.json_schema = model.model_json_schema()
        elif isinstance(schema, dict):
            self.json_schema = schema
        self.template = config.template if config.template is not None else DEFAULT_TEMPLATE
        self._tool: Tool | None = None

    @property
    def is_json(self) -> bool:
        """Whether the data is a JSON object (schema mode)."""
        return self.json_schema is not None

    def encode(self, value: Any) -> str:
        """The stored text of a new value; an invalid one raises ``ConfigurationError``."""
        if not self.is_json:
            if not isinstance(value, str):
                raise ConfigurationError(
                    f"working memory is Markdown text here (got {type(value).__name__})"
                )
            return value
        try:
            return self._validated_json(value)
        except StructuredOutputError as error:
            raise ConfigurationError(str(error)) from None

    def _validated_json(self, value: Any) -> str:
        from procession.structured import StructuredOutput

        if self.model is not None and isinstance(value, self.model):
            return str(value.model_dump_json())
        if isinstance(value, str):
            text = value
        else:
            try:
                text = json.dumps(value, ensure_ascii=False)
            except (TypeError, ValueError) as error:
                raise StructuredOutputError(f"working memory is not JSON: {error}") from None
        assert self.json_schema is not None
        spec = StructuredOutput(schema=self.json_schema, model=self.model, name="working memory")
        checked = spec.validate(text)
        if self.model is not None:
            return str(checked.model_dump_json())
        return json.dumps(checked, ensure_ascii=False)

    def system_text(self, data: str | None, *, read_only: bool) -> str:
        """The system message: instructions, then the template or schema, then the data."""
        where = " across this user's conversations" if self.config.scope == "resource" else ""
        if read_only:
            head = _READ_ONLY.format(where=where)
        else:
            fields = ", so include every field you want to keep" if self.is_json else ""
            head = _INSTRUCTIONS.format(where=where, tool=TOOL_NAME, fields=fields)
        if self.is_json:
            shape = (
                "<working_memory_schema>\n"
                f"{json.dumps(self.json_schema, separators=(',', ':'))}\n"
                "</working_memory_schema>"
            )
            current = data if data else "{}"
        else:
            shape = (
                f"<working_memory_template>\n{self.template.strip()}\n</working_memory_template>"
            )
            current = data if data else self.template.strip()
        return f"{head}\n\n{shape}\n\n<working_memory_data>\n{current}\n</working_memory_data>"

    def tool(self) -> Tool:
        """The ``update_working_memory`` tool: it validates an update; ``Memory.commit`` stores
        the last one whose call survived the run. Built once per configuration (its argument
        model and schema depend on nothing else) and shared by every run."""
        if self._tool is None:
            self._tool = self._build_tool()
        return self._tool

    def _build_tool(self) -> Tool:
        from pydantic import Field, create_model

        fmt = self

        async def update_working_memory(memory: Any) -> dict[str, Any]:
            try:
                fmt.encode(memory)
            except (StructuredOutputError, ConfigurationError) as error:
                raise ToolError(f"working memory not updated: {error}") from None
            return {"success": True}

        if self.model is not None:
            annotation: Any = self.model
            description = "The complete working memory, as an object of the schema."
        elif self.is_json:
            annotation = dict[str, Any]
            description = "The complete working memory, as a JSON object of the schema."
        else:
            annotation = str
            description = "The complete working memory, as Markdown following the template."
        args_model = create_model(
            f"{TOOL_NAME}_args", memory=(annotation, Field(description=description))
        )
        schema = args_model.model_json_schema()
        schema.pop("title", None)
        if self.model is None and self.json_schema is not None:
            schema["properties"]["memory"] = {**self.json_schema, "description": description}
        return Tool(
            name=TOOL_NAME,
            description=(
                "Replace your working memory with new content. Call it whenever you learn "
                "something about the user or the conversation worth keeping."
            ),
            input_schema=schema,
            function=update_working_memory,
            args_model=args_model,
            is_async=True,
        )
