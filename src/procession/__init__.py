"""procession: Mastra's processor pipeline for Python agents.

Nine processor hooks around an LLM agentic loop inspect, rewrite, drop, block or retry what
flows through an agent, on the live stream. See ``docs/lifecycle.md``.
"""

from typing import TYPE_CHECKING, Any

from procession import guardrails
from procession._version import __version__
from procession.agent import Agent, AgentStream
from procession.approvals import ApprovalBroker, ApprovalRequest, Decision, LocalApprovals
from procession.chunks import Chunk, Usage, finish_chunk
from procession.context import ContextKey, RequestContext, TracingContext
from procession.errors import (
    APICallError,
    ConfigurationError,
    CorruptRecordError,
    InvalidRecordError,
    MCPConnectionError,
    MessageError,
    MessageThreadError,
    ModelError,
    ModelSetupError,
    ProcessionError,
    ProcessorError,
    StorageError,
    StructuredOutputError,
    ThreadBusyError,
    ThreadLockLostError,
    ThreadOwnershipError,
    ToolError,
    TripWire,
    UnknownModelError,
)
from procession.journal import Journal, ToolOutcome
from procession.live_text import Retracted
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
from procession.options import RunOptions
from procession.processors import (
    Abort,
    ErrorProcessor,
    InputProcessor,
    OutputProcessor,
    ProcessAPIError,
    ProcessAPIErrorResult,
    ProcessInput,
    ProcessInputStep,
    ProcessInputStepResult,
    ProcessLLMRequest,
    ProcessLLMRequestResult,
    ProcessLLMResponse,
    Processor,
    ProcessorMessageResult,
    ProcessorViolation,
    ProcessOutputResult,
    ProcessOutputStep,
    ProcessOutputStream,
    ProcessToolResult,
    Writer,
    notify_violation,
)
from procession.results import AgentResult, StepResult, ToolCallInfo, ToolResultInfo
from procession.signals import AbortSignal
from procession.sync_stream import SyncAgentStream
from procession.tools import (
    Tool,
    ToolContext,
    ToolDescriptionWarning,
    ToolWriter,
    agent_tool,
    tool,
)

if TYPE_CHECKING:
    from procession.guardrails import *  # noqa: F403 (the guardrail names, for the type checker)
    from procession.mcp import MCPClient, mcp_tools
    from procession.memory import Embedder, Memory, SemanticRecallConfig, WorkingMemoryConfig
    from procession.server import CORS, APIKey, Auth, JWTAuth, ServerLimits, create_app

_LAZY = {"Embedder", "Memory", "SemanticRecallConfig", "WorkingMemoryConfig"}
"""Names from procession.memory, loaded on first use to keep ``import procession`` fast."""
_LAZY_SERVER = frozenset(("APIKey", "Auth", "CORS", "JWTAuth", "ServerLimits", "create_app"))
"""The HTTP server's names (the ``server`` extra), loaded on first use."""
_LAZY_MCP = frozenset(("MCPClient", "mcp_tools"))
"""The MCP client's names (``procession.mcp``: pathlib, URL parsing), loaded on first use."""


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import procession.memory

        return getattr(procession.memory, name)
    if name in guardrails.NAMES:
        return getattr(guardrails, name)
    if name in _LAZY_SERVER:
        import procession.server

        return getattr(procession.server, name)
    if name in _LAZY_MCP:
        import procession.mcp

        return getattr(procession.mcp, name)
    raise AttributeError(f"module 'procession' has no attribute {name!r}")


__all__ = [
    "APICallError",
    "APIKey",
    "Abort",
    "AbortSignal",
    "Agent",
    "AgentResult",
    "AgentStream",
    "ApprovalBroker",
    "ApprovalRequest",
    "Auth",
    "CORS",
    "Chunk",
    "ConfigurationError",
    "ContextKey",
    "CorruptRecordError",
    "DataPart",
    "Decision",
    "Embedder",
    "ErrorPart",
    "ErrorProcessor",
    "FilePart",
    "InputProcessor",
    "InvalidRecordError",
    "JWTAuth",
    "Journal",
    "LanguageModel",
    "LocalApprovals",
    "MCPClient",
    "MCPConnectionError",
    "Memory",
    "Message",
    "MessageContent",
    "MessageError",
    "MessageList",
    "MessageListView",
    "MessageSource",
    "MessageThreadError",
    "ModelCallOptions",
    "ModelError",
    "ModelSettings",
    "ModelSetupError",
    "Mutation",
    "OutputProcessor",
    "Part",
    "ProcessAPIError",
    "ProcessAPIErrorResult",
    "ProcessInput",
    "ProcessInputStep",
    "ProcessInputStepResult",
    "ProcessLLMRequest",
    "ProcessLLMRequestResult",
    "ProcessLLMResponse",
    "ProcessOutputResult",
    "ProcessOutputStep",
    "ProcessOutputStream",
    "ProcessToolResult",
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
    "Retracted",
    "Role",
    "RunOptions",
    "SemanticRecallConfig",
    "ServerLimits",
    "SourceDocumentPart",
    "SourcePart",
    "StepResult",
    "StepStartPart",
    "StorageError",
    "StreamResult",
    "StructuredOutputError",
    "SyncAgentStream",
    "SystemMessage",
    "TextPart",
    "ThreadBusyError",
    "ThreadLockLostError",
    "ThreadOwnershipError",
    "Tool",
    "ToolCallInfo",
    "ToolChoice",
    "ToolContext",
    "ToolDefinition",
    "ToolDescriptionWarning",
    "ToolError",
    "ToolInvocation",
    "ToolInvocationPart",
    "ToolInvocationState",
    "ToolOutcome",
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
    "agent_tool",
    "create_app",
    "finish_chunk",
    "get_text",
    "mcp_tools",
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
__all__ += guardrails.__all__  # the guardrail library's names, from its one table
__all__.sort()
