"""MessageList: the live conversation of one run, tagged by source, with system messages apart.

Sources (Mastra's): ``input`` (this call's new messages), ``response`` (produced during the
run), ``memory`` (remembered history) and ``context`` (prompted, never stored). System messages
live outside the message array, in an untagged bucket and named tagged buckets (D17).

Views: ``message_list.get.all`` / ``.input`` / ``.response`` / ``.remembered`` / ``.context``,
each with ``db()`` (stored messages), ``ui()`` (AI SDK UI messages) and ``core()`` (model
messages); ``get.all.prompt()`` builds the provider prompt.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Literal, TypeAlias

from procession._records import record
from procession.errors import MessageError
from procession.messages.formats import Prompt, to_model_messages, to_prompt, to_ui_messages
from procession.messages.inputs import ToolResultInput, coerce_messages, coerce_system
from procession.messages.message import Message, SystemMessage
from procession.messages.parts import (
    TOOL_INVOCATION_STATES,
    ToolInvocation,
    ToolInvocationPart,
    ToolInvocationState,
)

__all__ = ["MessageList", "MessageListView", "MessageSource", "Mutation"]

MessageSource: TypeAlias = Literal["input", "response", "memory", "context"]
"""Where a message in a ``MessageList`` came from: this call's input, the model's response,
remembered history, or context the caller added."""
SOURCES: frozenset[str] = frozenset(("input", "response", "memory", "context"))
TAG_ORDER = ("memory", "user-provided")
"""Tags whose system messages come first among the tagged ones, in this order."""


class _Unset:
    __slots__ = ()

    def __repr__(self) -> str:
        return "<unset>"


_UNSET: Any = _Unset()
"""``result`` not given (``None`` is a result a tool may return)."""


@record(slots=True, frozen=True)
class Mutation:
    """One recorded change to a MessageList (for tracing)."""

    kind: Literal["add", "add_system", "remove", "update_tool_invocation", "replace"]
    ids: tuple[str, ...] = ()
    source: str | None = None
    tag: str | None = None
    text: str | None = None


@record(slots=True, frozen=True)
class _Checkpoint:
    """The ids and part counts a MessageList had at a checkpoint."""

    ids: frozenset[str]
    part_counts: dict[str, int]


class MessageListView:
    """One filtered view of a MessageList (``all``, ``input``, ``response``, ...)."""

    __slots__ = ("_list", "_source")

    def __init__(self, message_list: MessageList, source: str | None) -> None:
        self._list = message_list
        self._source = source

    def db(self) -> list[Message]:
        """The stored messages of this view, in order (a new list of the live objects)."""
        source = self._source
        if source is None:
            return list(self._list._messages)
        sources = self._list._sources
        return [m for m in self._list._messages if sources.get(m.id) == source]

    def ui(self) -> list[dict[str, Any]]:
        """The AI SDK v5 UI-message form of this view."""
        return to_ui_messages(self.db())

    def core(self) -> list[dict[str, Any]]:
        """The AI SDK v5 model-message (core) form of this view, without system messages."""
        return to_model_messages(self.db())

    def prompt(self) -> Prompt:
        """The provider prompt: every system message, then this view's messages."""
        return to_prompt(self._list.get_all_system_messages(), self.db())


class _Views:
    """``message_list.get``: the views, made on access so a MessageList holds no reference
    cycle (a run's garbage is then freed by reference counting, not by the collector)."""

    __slots__ = ("_list",)

    def __init__(self, message_list: MessageList) -> None:
        self._list = message_list

    @property
    def all(self) -> MessageListView:
        """Every message."""
        return MessageListView(self._list, None)

    @property
    def input(self) -> MessageListView:
        """This call's input messages."""
        return MessageListView(self._list, "input")

    @property
    def response(self) -> MessageListView:
        """The messages the run produced."""
        return MessageListView(self._list, "response")

    @property
    def remembered(self) -> MessageListView:
        """History loaded from memory."""
        return MessageListView(self._list, "memory")

    @property
    def context(self) -> MessageListView:
        """Context messages: prompted, never stored."""
        return MessageListView(self._list, "context")


class MessageList:
    """The live conversation of one run.

    Invariants: ids are unique; every message has exactly one source; a tool result is always
    stored on the tool call it answers. A call that raises leaves the list unchanged.
    """

    __slots__ = (
        "_messages",
        "_recording",
        "_sources",
        "_system",
        "_tagged",
        "resource_id",
        "thread_id",
    )

    def __init__(
        self,
        messages: object = None,
        *,
        source: MessageSource = "input",
        thread_id: str | None = None,
        resource_id: str | None = None,
    ) -> None:
        self._messages: list[Message] = []
        self._sources: dict[str, str] = {}
        self._system: list[SystemMessage] = []
        # Memory context comes before caller-provided system text in the prompt (D17).
        self._tagged: dict[str, list[SystemMessage]] = {tag: [] for tag in TAG_ORDER}
        self._recording: list[Mutation] | None = None
        self.thread_id = _optional_str("thread_id", thread_id)
        self.resource_id = _optional_str("resource_id", resource_id)
        if messages is not None:
            self.add(messages, source)

    @property
    def get(self) -> _Views:
        """The views: ``get.all``, ``get.input``, ``get.response``, ``get.remembered`` and
        ``get.context``, each with ``db()``, ``ui()``, ``core()`` and ``prompt()``."""
        return _Views(self)

    def __len__(self) -> int:
        return len(self._messages)

    def __repr__(self) -> str:
        return f"<MessageList {len(self._messages)} messages, {len(self._system)} system>"

    # -- adding and removing ----------------------------------------------------------------

    def add(self, messages: object, source: MessageSource = "input") -> MessageList:
        """Add one message or a list: strings (user text), ``Message`` objects, or dicts in the
        stored, core (``{role, content}``) or UI (``{role, parts}``) form.

        A message whose id is already present replaces it. System messages go to the untagged
        system bucket (and are dropped when the source is ``memory``). A core-form ``tool``
        message is stored on the tool call it answers; an unknown tool call id is an error.
        Remembered (``memory``) messages are placed before the rest of the conversation.
        """
        if source not in SOURCES:
            raise MessageError("source", f"must be one of {', '.join(sorted(SOURCES))}", source)
        items = coerce_messages(messages)
        self._check_tool_results(items)
        added: list[str] = []
        remembered = -1  # where the next remembered message goes, once known
        for item in items:
            if isinstance(item, SystemMessage):
                if source != "memory":
                    self.add_system(item)
            elif isinstance(item, ToolResultInput):
                self._apply_tool_result(item)
            elif source == "memory":
                remembered = self._remember(item, remembered)
                added.append(item.id)
            else:
                self._insert(item, source)
                added.append(item.id)
        if self._recording is not None and added:
            self._recording.append(Mutation("add", tuple(added), source))
        return self

    def _remember(self, message: Message, at: int) -> int:
        """Insert a remembered message after the remembered ones; ``at`` is where they end
        (``-1``: not known yet, so a batch finds it once, not once per message). Returns where
        the next one goes."""
        if self.thread_id is not None and message.thread_id is None:
            message.thread_id = self.thread_id
        if self.resource_id is not None and message.resource_id is None:
            message.resource_id = self.resource_id
        sources = self._sources
        if message.id in sources:
            return at  # remembered history never overrides what the caller sent
        messages = self._messages
        if at < 0:
            at = 0
            while at < len(messages) and sources.get(messages[at].id) == "memory":
                at += 1
        messages.insert(at, message)
        sources[message.id] = "memory"
        return at + 1

    def _insert(self, message: Message, source: str) -> None:
        """Add or replace a message that is not remembered (see :meth:`_remember`)."""
        if self.thread_id is not None and message.thread_id is None:
            message.thread_id = self.thread_id
        if self.resource_id is not None and message.resource_id is None:
            message.resource_id = self.resource_id
        messages = self._messages
        if message.id in self._sources:
            for index, existing in enumerate(messages):
                if existing.id == message.id:
                    messages[index] = message
                    break
        else:
            messages.append(message)
        self._sources[message.id] = source

    def _find_call(self, tool_call_id: str) -> ToolInvocationPart | None:
        for message in reversed(self._messages):
            if message.role != "assistant":
                continue
            for part in message.content.parts:
                if (
                    isinstance(part, ToolInvocationPart)
                    and part.tool_invocation.tool_call_id == tool_call_id
                ):
                    return part
        return None

    def _check_tool_results(
        self,
        items: Sequence[object],
        removed: frozenset[str] | set[str] = frozenset(),
        *,
        ordered: bool = True,
    ) -> None:
        """Check that every tool result in ``items`` answers a tool call it will be stored on.

        Calls count when they sit on an assistant message that will still be in the list once
        ``items`` are applied: stored messages not in ``removed`` and not replaced by another
        object with the same id, and assistant messages of ``items`` (only those before the
        result when ``ordered``, as :meth:`add` applies items in order).
        """
        if not any(isinstance(item, ToolResultInput) for item in items):
            return
        final = {item.id: item for item in items if isinstance(item, Message)}
        known: set[str] = set()
        for message in self._messages:
            if message.id in removed or final.get(message.id, message) is not message:
                continue
            known.update(_call_ids(message))
        if not ordered:
            for message in final.values():
                known.update(_call_ids(message))
        for item in items:
            if isinstance(item, Message):
                if ordered and final[item.id] is item:
                    known.update(_call_ids(item))
            elif isinstance(item, ToolResultInput) and item.tool_call_id not in known:
                raise MessageError(
                    f"{item.path}.toolCallId",
                    "answers no tool call in this list",
                    item.tool_call_id,
                )

    def _apply_tool_result(self, item: ToolResultInput) -> None:
        part = self._find_call(item.tool_call_id)
        assert part is not None  # checked by _check_tool_results
        inv = part.tool_invocation
        if item.error_text is not None:
            inv.state, inv.error_text = "output-error", item.error_text
        else:
            inv.state, inv.result = "result", item.result

    def add_system(self, message: object, tag: str | None = None) -> MessageList:
        """Add a run-scoped system message, untagged or under ``tag`` (D17).

        Accepts a string, a :class:`SystemMessage`, a core-form dict or a list of them. A
        message whose text is already in the same bucket is not added twice. System messages
        are never persisted.
        """
        tag = _tag(tag)
        values = message if isinstance(message, list) else [message]
        converted = [coerce_system(v, f"system[{i}]") for i, v in enumerate(values)]
        bucket = self._system if tag is None else self._tagged.setdefault(tag, [])
        for system in converted:
            if any(existing.content == system.content for existing in bucket):
                continue
            bucket.append(system)
            if self._recording is not None:
                self._recording.append(Mutation("add_system", tag=tag, text=system.content))
        return self

    def get_system_messages(self, tag: str | None = None) -> list[SystemMessage]:
        """The untagged system messages, or those under ``tag``."""
        tag = _tag(tag)
        if tag is None:
            return list(self._system)
        return list(self._tagged.get(tag, ()))

    def get_all_system_messages(self) -> list[SystemMessage]:
        """Every system message in prompt order: untagged first, then each tag as added."""
        out = list(self._system)
        for bucket in self._tagged.values():
            out.extend(bucket)
        return out

    def clear_system_messages(self, tag: str | None = None) -> None:
        """Remove the untagged system messages, or those under ``tag``."""
        tag = _tag(tag)
        if tag is None:
            self._system.clear()
        else:
            self._tagged.get(tag, []).clear()

    def replace_all_system_messages(self, messages: Iterable[object]) -> None:
        """Replace every system message, tagged ones included, with ``messages`` (untagged).

        ``messages`` is a list of system messages, or one (a string, dict or SystemMessage).
        """
        if isinstance(messages, str | dict | SystemMessage | Message):
            messages = [messages]
        elif not isinstance(messages, Iterable):
            raise MessageError("messages", "must be a system message or a list of them", messages)
        converted = [coerce_system(m, f"system[{i}]") for i, m in enumerate(messages)]
        self._system = converted
        self._tagged = {tag: [] for tag in TAG_ORDER}

    def remove_by_ids(self, ids: Iterable[str]) -> list[Message]:
        """Remove the messages with these ids (or this one id); returns the removed messages.

        Ids not in the list are ignored. Anything but an id or an iterable of ids raises
        ``MessageError`` and removes nothing.
        """
        wanted = _ids(ids)
        if not wanted:
            return []
        removed = [m for m in self._messages if m.id in wanted]
        if removed:
            self._messages = [m for m in self._messages if m.id not in wanted]
            for message in removed:
                del self._sources[message.id]
            if self._recording is not None:
                self._recording.append(Mutation("remove", tuple(m.id for m in removed)))
        return removed

    def update_tool_invocation(
        self,
        part: ToolInvocationPart | ToolInvocation | dict[str, Any] | str,
        /,
        *,
        result: Any = _UNSET,
        error_text: str | None = None,
        state: ToolInvocationState | None = None,
    ) -> bool:
        """Replace a stored tool call's state and result, found by its tool call id.

        The Pythonic form names the call and what changes::

            message_list.update_tool_invocation(tool_call_id, result={"ssn": "[REDACTED]"})
            message_list.update_tool_invocation(tool_call_id, error_text="lookup failed")

        ``result`` sets state ``"result"`` and ``error_text`` state ``"output-error"``, unless
        ``state`` says otherwise. Also accepted: a :class:`ToolInvocationPart`, a
        :class:`ToolInvocation`, or Mastra's dict form ``{"type": "tool-invocation",
        "toolInvocation": {...}}``. The stored call keeps its original ``args`` (what the model
        asked for stays on record); its message moves to the ``response`` source so it is
        saved. Returns ``False`` when no stored call has that id.
        """
        if isinstance(part, str):
            update = _keyword_update(part, result, error_text, state)
        elif result is not _UNSET or error_text is not None or state is not None:
            raise MessageError(
                "update_tool_invocation",
                "takes a tool call id with keywords, or a part alone, not both",
                part,
            )
        else:
            update = _coerce_tool_part(part)
        tool_call_id = update.tool_invocation.tool_call_id
        for message in reversed(self._messages):
            if message.role != "assistant":
                continue
            for stored in message.content.parts:
                if (
                    isinstance(stored, ToolInvocationPart)
                    and stored.tool_invocation.tool_call_id == tool_call_id
                ):
                    _merge_invocation(stored, update)
                    self._sources[message.id] = "response"
                    if self._recording is not None:
                        self._recording.append(
                            Mutation("update_tool_invocation", (message.id,), "response")
                        )
                    return True
        return False

    def check_ids(self) -> None:
        """Raise ``MessageError`` when a message's id was changed in place after it was added.

        The list finds messages by id, so an id is fixed once the message is here (D30): a
        hook that renames a message fails, naming the message by its position.
        """
        sources = self._sources
        seen: set[object] = set()
        for index, message in enumerate(self._messages):
            message_id = message.id
            if message_id not in sources or message_id in seen:
                raise MessageError(
                    f"message[{index}].id",
                    "was changed in place; a message keeps the id it was added with",
                    message_id,
                )
            seen.add(message_id)

    # -- sources ----------------------------------------------------------------------------

    def get_source(self, message: Message | str) -> MessageSource | None:
        """The source of a message (or id) in this list, or ``None`` if it is not here."""
        if isinstance(message, str):
            message_id = message
        elif isinstance(message, Message):
            message_id = message.id
        else:
            raise MessageError("message", "must be a Message or a message id (a string)", message)
        return self._sources.get(message_id)  # type: ignore[return-value]

    def get_latest_user_content(self) -> str | None:
        """The text of the newest user message, if any."""
        for message in reversed(self._messages):
            if message.role == "user":
                return message.text
        return None

    # -- replace-set reconciliation (hooks returning arrays) --------------------------------

    def apply_replace_set(
        self,
        scope: Sequence[Message],
        returned: object,
        default_source: MessageSource,
    ) -> None:
        """Make ``returned`` the complete set of messages for ``scope`` (the seed's rule).

        Messages of ``scope`` missing from ``returned`` are removed; returned messages already
        present keep their source (and replace the stored object if it is another one); new
        ones get ``default_source``. Returned system messages join the untagged system bucket.
        The order of ``returned`` is kept within the places ``scope`` occupied.
        """
        if default_source not in SOURCES:
            raise MessageError(
                "default_source", f"must be one of {', '.join(sorted(SOURCES))}", default_source
            )
        if not isinstance(returned, list):
            raise MessageError("returned", "must be a list of messages", returned)
        if not isinstance(scope, list | tuple) or not all(isinstance(m, Message) for m in scope):
            raise MessageError("scope", "must be a list of the Message objects replaced", scope)
        items = coerce_messages(returned, "returned")
        scope_ids = {m.id for m in scope}
        kept = [item for item in items if isinstance(item, Message)]
        kept_ids = {m.id for m in kept}
        if len(kept_ids) != len(kept):
            raise MessageError("returned", "holds the same message id twice")
        removed = [i for i in scope_ids if i not in kept_ids]
        self._check_tool_results(items, set(removed), ordered=False)
        for item in items:
            if isinstance(item, SystemMessage):
                self.add_system(item)
        sources = self._sources
        new_sources = {m.id: sources.get(m.id, default_source) for m in kept}
        replacement = iter(kept)
        rebuilt: list[Message] = []
        for message in self._messages:
            if message.id in scope_ids or message.id in kept_ids:
                nxt = next(replacement, None)
                if nxt is not None:
                    rebuilt.append(nxt)
            else:
                rebuilt.append(message)
        rebuilt.extend(replacement)
        for message_id in removed:
            sources.pop(message_id, None)
        sources.update(new_sources)
        self._messages = rebuilt
        for message in kept:
            self._insert_ids(message)
        # Results are stored once the returned messages are in place, so a result answering a
        # call in a returned message lands on that message.
        for item in items:
            if isinstance(item, ToolResultInput):
                self._apply_tool_result(item)
        if self._recording is not None:
            self._recording.append(Mutation("replace", tuple(m.id for m in kept)))

    def _insert_ids(self, message: Message) -> None:
        if self.thread_id is not None and message.thread_id is None:
            message.thread_id = self.thread_id
        if self.resource_id is not None and message.resource_id is None:
            message.resource_id = self.resource_id

    # -- recording and step checkpoints -----------------------------------------------------

    def start_recording(self) -> None:
        """Start recording mutations (for tracing)."""
        self._recording = []

    def stop_recording(self) -> list[Mutation]:
        """Stop recording; returns what was recorded."""
        recorded, self._recording = self._recording or [], None
        return recorded

    def checkpoint(self) -> object:
        """An opaque marker of the list's response output, for :meth:`rollback`."""
        sources = self._sources
        return _Checkpoint(
            ids=frozenset(sources),
            part_counts={
                m.id: len(m.content.parts)
                for m in self._messages
                if sources.get(m.id) == "response"
            },
        )

    def rollback(self, checkpoint: object) -> list[Message]:
        """Remove response output added since ``checkpoint`` (a rejected step, D1).

        Response messages added since then are removed and parts appended to earlier
        response messages are dropped. Edits to input and remembered messages stay.
        Returns the removed messages.
        """
        if not isinstance(checkpoint, _Checkpoint):
            raise MessageError("checkpoint", "must come from MessageList.checkpoint()", checkpoint)
        sources = self._sources
        drop = [
            m.id
            for m in self._messages
            if m.id not in checkpoint.ids and sources.get(m.id) == "response"
        ]
        for message in self._messages:
            count = checkpoint.part_counts.get(message.id)
            if count is not None and len(message.content.parts) > count:
                del message.content.parts[count:]
        return self.remove_by_ids(drop)


def _optional_str(name: str, value: object) -> str | None:
    if value is not None and not isinstance(value, str):
        raise MessageError(name, "must be a string or None", value)
    return value


def _tag(tag: object) -> str | None:
    if tag is not None and (not isinstance(tag, str) or not tag):
        raise MessageError("tag", "must be a non-empty string or None", tag)
    return tag


def _ids(ids: object) -> set[str]:
    """The ids ``remove_by_ids`` was given: one id, or an iterable of ids."""
    if isinstance(ids, str):
        return {ids}
    if isinstance(ids, bytes | dict | Message) or not isinstance(ids, Iterable):
        raise MessageError("ids", "must be a message id or an iterable of message ids", ids)
    wanted = list(ids)
    for index, value in enumerate(wanted):
        if not isinstance(value, str):
            raise MessageError(f"ids[{index}]", "must be a message id (a string)", value)
    return set(wanted)


def _call_ids(message: Message) -> list[str]:
    if message.role != "assistant":
        return []
    return [
        part.tool_invocation.tool_call_id
        for part in message.content.parts
        if isinstance(part, ToolInvocationPart)
    ]


def _keyword_update(
    tool_call_id: str, result: Any, error_text: str | None, state: str | None
) -> ToolInvocationPart:
    """The update the keyword form describes, as a part (checked like any other)."""
    if state is None:
        if result is not _UNSET:
            state = "result"
        elif error_text is not None:
            state = "output-error"
        else:
            raise MessageError(
                "update_tool_invocation",
                "needs result=..., error_text=... or state=... with the tool call id",
                tool_call_id,
            )
    if error_text is not None and not isinstance(error_text, str):
        raise MessageError("update_tool_invocation(error_text=...)", "must be a string", error_text)
    invocation = ToolInvocation(
        state=state,  # type: ignore[arg-type]  # checked below with every other form
        tool_call_id=tool_call_id,
        tool_name="",
        args={},
        result=None if result is _UNSET else result,
        is_error=True if error_text is not None else None,
        error_text=error_text,
    )
    return _coerce_tool_part(ToolInvocationPart(tool_invocation=invocation))


def _coerce_tool_part(part: object) -> ToolInvocationPart:
    if isinstance(part, ToolInvocation):
        part = ToolInvocationPart(tool_invocation=part)
    if isinstance(part, ToolInvocationPart):
        inv = part.tool_invocation
        if not isinstance(inv, ToolInvocation):
            raise MessageError("part.toolInvocation", "must be a ToolInvocation", inv)
        if inv.state not in TOOL_INVOCATION_STATES:
            states = ", ".join(sorted(TOOL_INVOCATION_STATES))
            raise MessageError("part.toolInvocation.state", f"must be one of {states}", inv.state)
        if not isinstance(inv.tool_call_id, str):
            raise MessageError(
                "part.toolInvocation.toolCallId", "must be a string", inv.tool_call_id
            )
        return part
    if isinstance(part, dict):
        from procession.messages.codec import part_from_dict

        decoded = part_from_dict(part, "part")
        if isinstance(decoded, ToolInvocationPart):
            return decoded
    raise MessageError("part", "must be a tool-invocation part {type, toolInvocation: {...}}", part)


def _merge_invocation(stored: ToolInvocationPart, update: ToolInvocationPart) -> None:
    # Edited in place (D24): whoever holds the stored invocation sees the new result.
    invocation, new = stored.tool_invocation, update.tool_invocation
    invocation.state = new.state
    invocation.result = new.result
    invocation.is_error = new.is_error
    invocation.error_text = new.error_text
    if new.approval is not None:
        invocation.approval = new.approval
    if update.provider_metadata:
        merged = dict(stored.provider_metadata or {})
        for provider, values in update.provider_metadata.items():
            merged[provider] = {**merged.get(provider, {}), **values}
        stored.provider_metadata = merged
    if update.provider_executed is not None:
        stored.provider_executed = update.provider_executed
