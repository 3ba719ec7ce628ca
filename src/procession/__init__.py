"""procession: Mastra's processor pipeline for Python agents.

Nine processor hooks around an LLM agentic loop inspect, rewrite, drop, block or retry what
flows through an agent, on the live stream. See ``docs/lifecycle.md``.
"""

from typing import TYPE_CHECKING, Any

from procession.agent import Agent, AgentStream
from procession.chunks import Chunk, Usage, finish_chunk
from procession.context import ContextKey, RequestContext, TracingContext
from procession.errors import (
    APICallError,
    ConfigurationError,
    MessageError,
    ModelError,
    ProcessionError,
    ProcessorError,
    StructuredOutputError,
    ToolError,
    TripWire,
    UnknownModelError,
)
from procession.messages import (
    DataPart,
    ErrorPart,
    FilePart,
    Message,
    MessageContent,
    MessageList,
    MessageListView,
    MessageSource,
    Mutation,
    Part,
    Prompt,
    PromptMessage,
    ReasoningPart,
    Role,
    SourceDocumentPart,
    SourcePart,
    StepStartPart,
    SystemMessage,
    TextPart,
    ToolInvocation,
    ToolInvocationPart,
    ToolInvocationState,
    UnknownPart,
    get_text,
    message_from_dict,
    message_to_dict,
    messages_from_json,
    messages_to_json,
    part_from_dict,
    part_to_dict,
    to_model_messages,
    to_prompt,
    validate_messages,
)
from procession.models import (
    LanguageModel,
    ModelCallOptions,
    ModelSettings,
    ResponseFormat,
    StreamResult,
    ToolChoice,
    ToolDefinition,
    register_model,
    register_provider,
    resolve_model,
)
from procession.processors import (
    ErrorProcessor,
    InputProcessor,
    OutputProcessor,
    PrefillErrorHandler,
    ProcessAPIErrorResult,
    ProcessInputStepResult,
    ProcessLLMRequestResult,
    Processor,
    ProcessorMessageResult,
    ProcessorViolation,
    StreamRedactor,
    Writer,
    notify_violation,
)
from procession.results import AgentResult, StepResult, ToolCallInfo, ToolResultInfo
from procession.signals import AbortSignal
from procession.tools import Tool, ToolContext, ToolWriter, tool

if TYPE_CHECKING:
    from procession.memory import Embedder, Memory, SemanticRecallConfig, WorkingMemoryConfig

__version__ = "0.1.0.dev0"

_LAZY = {"Embedder", "Memory", "SemanticRecallConfig", "WorkingMemoryConfig"}
"""Names from procession.memory, loaded on first use to keep ``import procession`` fast."""


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import procession.memory

        return getattr(procession.memory, name)
    raise AttributeError(f"module 'procession' has no attribute {name!r}")


__all__ = [
    "APICallError",
    "AbortSignal",
    "Agent",
    "AgentResult",
    "AgentStream",
    "Chunk",
    "ConfigurationError",
    "ContextKey",
    "DataPart",
    "Embedder",
    "ErrorPart",
    "ErrorProcessor",
    "FilePart",
    "InputProcessor",
    "LanguageModel",
    "Memory",
    "Message",
    "MessageContent",
    "MessageError",
    "MessageList",
    "MessageListView",
    "MessageSource",
    "ModelCallOptions",
    "ModelError",
    "ModelSettings",
    "Mutation",
    "OutputProcessor",
    "Part",
    "PrefillErrorHandler",
    "ProcessAPIErrorResult",
    "ProcessInputStepResult",
    "ProcessLLMRequestResult",
    "ProcessionError",
    "Processor",
    "ProcessorError",
    "ProcessorMessageResult",
    "ProcessorViolation",
    "Prompt",
    "PromptMessage",
    "ReasoningPart",
    "RequestContext",
    "ResponseFormat",
    "Role",
    "SemanticRecallConfig",
    "SourceDocumentPart",
    "SourcePart",
    "StepResult",
    "StepStartPart",
    "StreamRedactor",
    "StreamResult",
    "StructuredOutputError",
    "SystemMessage",
    "TextPart",
    "Tool",
    "ToolCallInfo",
    "ToolChoice",
    "ToolContext",
    "ToolDefinition",
    "ToolError",
    "ToolInvocation",
    "ToolInvocationPart",
    "ToolInvocationState",
    "ToolResultInfo",
    "ToolWriter",
    "TracingContext",
    "TripWire",
    "UnknownModelError",
    "UnknownPart",
    "Usage",
    "WorkingMemoryConfig",
    "Writer",
    "__version__",
    "finish_chunk",
    "get_text",
    "message_from_dict",
    "message_to_dict",
    "messages_from_json",
    "messages_to_json",
    "notify_violation",
    "part_from_dict",
    "part_to_dict",
    "register_model",
    "register_provider",
    "resolve_model",
    "to_model_messages",
    "to_prompt",
    "tool",
    "validate_messages",
]
