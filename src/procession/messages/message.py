"""The stored message (Mastra's ``MastraDBMessage``) and system messages in their core form."""

from __future__ import annotations

from dataclasses import field
from datetime import UTC, datetime
from os import urandom
from typing import Any, Literal, TypeAlias

from procession._records import record
from procession.errors import MessageError
from procession.messages._tracking import tracked
from procession.messages.parts import Part, TextPart

__all__ = [
    "Message",
    "MessageContent",
    "Role",
    "SystemMessage",
    "get_text",
    "new_id",
]

Role: TypeAlias = Literal["user", "assistant", "system", "signal"]
"""A stored message's role."""
ROLES: frozenset[str] = frozenset(("user", "assistant", "system", "signal"))


def new_id(prefix: str = "msg") -> str:
    """Return a new id: ``prefix``, ``_`` and 128 random bits from the OS (32 hex digits).

    Nobody can predict the next id (a per-process counter could be, and a caller that
    stored messages under another caller's next ids made that caller's turns fail).
    """
    return f"{prefix}_{urandom(16).hex()}"


def _now() -> datetime:
    return datetime.now(UTC)


@tracked(kw_only=True)
class MessageContent:
    """A stored message's content (format 2). ``parts`` is the source of truth."""

    parts: list[Part]
    format: Literal[2] = 2
    content: str | None = None
    """The legacy flattened text of the message, kept for old readers."""
    tool_invocations: list[dict[str, Any]] | None = None
    """The legacy AI SDK v4 ``toolInvocations`` mirror, kept as stored."""
    reasoning: str | None = None
    experimental_attachments: list[dict[str, Any]] | None = None
    annotations: list[Any] | None = None
    metadata: dict[str, Any] | None = None
    provider_metadata: dict[str, dict[str, Any]] | None = None
    extra: dict[str, Any] | None = None
    """Keys of the stored form that procession does not model, kept for round trips."""


@tracked(kw_only=True)
class Message:
    """One stored message: what memory saves and what processors read and edit.

    Messages are mutable (D24): edit ``message.content.parts`` in place inside a hook and the
    change is seen downstream and persisted.
    """

    id: str
    role: Role
    content: MessageContent
    created_at: datetime = field(default_factory=_now)
    thread_id: str | None = None
    resource_id: str | None = None
    type: str | None = None
    extra: dict[str, Any] | None = None

    @property
    def text(self) -> str:
        """The message's text; see :func:`get_text`."""
        return get_text(self)

    @classmethod
    def user(cls, text: str, *, id: str | None = None) -> Message:
        """A user message holding one text part (``MessageError`` for a non-string)."""
        return cls(id=_new_id(id), role="user", content=_text_content(text))

    @classmethod
    def assistant(cls, text: str, *, id: str | None = None) -> Message:
        """An assistant message holding one text part (``MessageError`` for a non-string)."""
        return cls(id=_new_id(id), role="assistant", content=_text_content(text))


def _new_id(value: object) -> str:
    if value is None:
        return new_id()
    if not isinstance(value, str) or not value:
        raise MessageError("id", "must be a non-empty string or None", value)
    return value


def _text_content(text: object) -> MessageContent:
    if not isinstance(text, str):
        raise MessageError("text", "must be a string", text)
    return MessageContent(parts=[TextPart(text=text)])


@record(slots=True)
class SystemMessage:
    """A system message in its core form: ``{"role": "system", "content": "..."}``."""

    content: str
    provider_options: dict[str, Any] | None = None
    role: Literal["system"] = "system"

    def to_dict(self) -> dict[str, Any]:
        """The core (AI SDK) form."""
        out: dict[str, Any] = {"role": "system", "content": self.content}
        if self.provider_options is not None:
            out["providerOptions"] = self.provider_options
        return out


def get_text(message: Message) -> str:
    """The text of a message, as the seed's ``getText`` reads it.

    Text parts come first, joined in order; the legacy flattened ``content.content`` string is
    the fallback when there is no text in the parts.
    """
    text = "".join(part.text for part in message.content.parts if isinstance(part, TextPart))
    if not text and isinstance(message.content.content, str):
        return message.content.content
    return text
