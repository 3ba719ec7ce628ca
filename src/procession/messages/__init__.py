"""Stored messages, their parts, the JSON codec, validation and the MessageList."""

from procession.messages.codec import (
    message_from_dict,
    message_to_dict,
    messages_from_json,
    messages_to_json,
    part_from_dict,
    part_to_dict,
)
from procession.messages.formats import Prompt, PromptMessage, to_model_messages, to_prompt
from procession.messages.message import Message, MessageContent, Role, SystemMessage, get_text
from procession.messages.message_list import MessageList, MessageListView, MessageSource, Mutation
from procession.messages.parts import (
    DataPart,
    ErrorPart,
    FilePart,
    Part,
    ReasoningPart,
    SourceDocumentPart,
    SourcePart,
    StepStartPart,
    TextPart,
    ToolInvocation,
    ToolInvocationPart,
    ToolInvocationState,
    UnknownPart,
)
from procession.messages.validation import validate_messages

__all__ = [
    "DataPart",
    "ErrorPart",
    "FilePart",
    "Message",
    "MessageContent",
    "MessageList",
    "MessageListView",
    "MessageSource",
    "Mutation",
    "Part",
    "Prompt",
    "PromptMessage",
    "ReasoningPart",
    "Role",
    "SourceDocumentPart",
    "SourcePart",
    "StepStartPart",
    "SystemMessage",
    "TextPart",
    "ToolInvocation",
    "ToolInvocationPart",
    "ToolInvocationState",
    "UnknownPart",
    "get_text",
    "message_from_dict",
    "message_to_dict",
    "messages_from_json",
    "messages_to_json",
    "part_from_dict",
    "part_to_dict",
    "to_model_messages",
    "to_prompt",
    "validate_messages",
]
