"""The A2A wire formats: JSON-RPC errors, incoming messages, and tasks and events in the two
dialects a served agent speaks.

A2A 1.0 (what ``a2a-sdk`` 1.x and ``@a2a-js/sdk`` send, ``A2A-Version: 1.0``) is the
protocol buffers' JSON: parts without a ``kind`` (``{"text": ...}``, ``{"data": ...}``),
``ROLE_USER``/``ROLE_AGENT``, ``TASK_STATE_*`` states, and stream events wrapped by their
kind (``{"statusUpdate": ...}``). A2A 0.3 (Mastra's server and ``@mastra/client-js``'s
``getA2A``) tags every object with ``kind`` (``"task"``, ``"message"``, ``"status-update"``,
``"artifact-update"``), uses ``user``/``agent`` and lower-case states, and marks the last
status event ``final``. Tasks are kept in one neutral form (:class:`Said`, states by their
0.3 names) and encoded per request by a :class:`Dialect`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "DIALECTS",
    "INTERRUPTED",
    "TERMINAL",
    "V03",
    "V10",
    "Dialect",
    "RpcError",
    "Said",
    "Status",
    "TaskView",
    "parse_message",
]

TERMINAL = frozenset({"completed", "failed", "canceled", "rejected"})
"""States a task never leaves."""
INTERRUPTED = frozenset({"input-required", "auth-required"})
"""States a task waits in for the client's next message."""

_MAX_ID = 256


class RpcError(Exception):
    """A JSON-RPC error: ``code`` (the A2A codes of ``a2a-sdk``'s table) and a message."""

    PARSE = -32700
    INVALID_REQUEST = -32600
    METHOD_NOT_FOUND = -32601
    INVALID_PARAMS = -32602
    INTERNAL = -32603
    TASK_NOT_FOUND = -32001
    TASK_NOT_CANCELABLE = -32002
    PUSH_NOT_SUPPORTED = -32003
    UNSUPPORTED = -32004
    CONTENT_TYPE = -32005
    EXTENDED_CARD = -32007
    VERSION = -32009

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    @classmethod
    def invalid(cls, where: str, problem: str) -> RpcError:
        """Invalid params, naming the field."""
        return cls(cls.INVALID_PARAMS, f"Invalid params: {where}: {problem}")

    def response(self, request_id: Any) -> dict[str, Any]:
        """The JSON-RPC error response."""
        error = {"code": self.code, "message": self.message}
        return {"jsonrpc": "2.0", "id": request_id, "error": error}


@dataclass(slots=True)
class Said:
    """One message of a task's history: who said it and its parts (``{"text": ...}`` or
    ``{"data": ...}``)."""

    role: str
    message_id: str
    parts: list[dict[str, Any]]
    context_id: str = ""
    task_id: str = ""

    @property
    def text(self) -> str:
        """The text parts, joined."""
        return "".join(p["text"] for p in self.parts if "text" in p)


def _string(value: Any, where: str, *, required: bool = False) -> str | None:
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value or len(value) > _MAX_ID or not value.isprintable():
        raise RpcError.invalid(where, f"expected a printable string of 1 to {_MAX_ID} characters")
    return value


def _part(raw: Any, where: str) -> dict[str, Any]:
    if not isinstance(raw, Mapping):
        raise RpcError.invalid(where, "expected a part object")
    kind = raw.get("kind")
    if isinstance(raw.get("text"), str) and kind in (None, "text"):
        return {"text": raw["text"]}
    if "data" in raw and kind in (None, "data"):
        return {"data": raw["data"]}
    if kind == "file" or any(k in raw for k in ("file", "url", "raw")):
        raise RpcError(RpcError.CONTENT_TYPE, f"{where}: file parts are not supported")
    raise RpcError.invalid(where, "expected a text part or a data part")


def parse_message(params: Any) -> Said:
    """The user's message of ``SendMessage``/``message/send`` params (either dialect)."""
    if not isinstance(params, Mapping):
        raise RpcError.invalid("params", "expected an object")
    raw = params.get("message")
    if not isinstance(raw, Mapping):
        raise RpcError.invalid("params.message", "expected a message object")
    if raw.get("role") not in ("user", "ROLE_USER"):
        raise RpcError.invalid("params.message.role", "expected the user's role")
    parts = raw.get("parts")
    if not isinstance(parts, list) or not parts:
        raise RpcError.invalid("params.message.parts", "expected a non-empty list")
    message_id = _string(raw.get("messageId"), "params.message.messageId", required=True)
    return Said(
        "user",
        message_id or "",
        [_part(p, f"params.message.parts[{i}]") for i, p in enumerate(parts)],
        context_id=_string(raw.get("contextId"), "params.message.contextId") or "",
        task_id=_string(raw.get("taskId"), "params.message.taskId") or "",
    )


@dataclass(slots=True)
class Status:
    """A task's status: its state, the agent's message about it and when it was set."""

    state: str
    message: Said | None
    timestamp: str


@dataclass(slots=True)
class TaskView:
    """What a dialect encodes of a task."""

    id: str
    context_id: str
    status: Status
    history: list[Said]
    artifact_id: str
    text: str
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Dialect:
    """One A2A version's encoding of tasks, messages and stream events."""

    version: str
    kinds: bool
    """0.3: objects carry ``kind``; 1.0: they do not."""

    def state(self, state: str) -> str:
        """A state's name on the wire."""
        return state if self.kinds else "TASK_STATE_" + state.upper().replace("-", "_")

    def part(self, part: dict[str, Any]) -> dict[str, Any]:
        """A part on the wire."""
        if not self.kinds:
            return part
        return {"kind": "text", **part} if "text" in part else {"kind": "data", **part}

    def message(self, said: Said) -> dict[str, Any]:
        """A message on the wire."""
        role = said.role if self.kinds else f"ROLE_{said.role.upper()}"
        out: dict[str, Any] = {"messageId": said.message_id, "role": role}
        out["parts"] = [self.part(p) for p in said.parts]
        if said.context_id:
            out["contextId"] = said.context_id
        if said.task_id:
            out["taskId"] = said.task_id
        if self.kinds:
            out["kind"] = "message"
        return out

    def status(self, status: Status) -> dict[str, Any]:
        """A task status on the wire."""
        out: dict[str, Any] = {"state": self.state(status.state), "timestamp": status.timestamp}
        if status.message is not None:
            out["message"] = self.message(status.message)
        return out

    def artifact(self, artifact_id: str, text: str) -> dict[str, Any]:
        """The response artifact holding ``text``."""
        part = self.part({"text": text})
        return {"artifactId": artifact_id, "name": "response", "parts": [part]}

    def task(self, task: TaskView, history_length: int | None = None) -> dict[str, Any]:
        """A task on the wire, with its last ``history_length`` messages (all by default)."""
        history = task.history if history_length is None else task.history[-history_length:]
        if history_length == 0:
            history = []
        out: dict[str, Any] = {
            "id": task.id,
            "contextId": task.context_id,
            "status": self.status(task.status),
            "history": [self.message(m) for m in history],
        }
        if task.text:
            out["artifacts"] = [self.artifact(task.artifact_id, task.text)]
        if task.metadata:
            out["metadata"] = task.metadata
        if self.kinds:
            out["kind"] = "task"
        return out

    def send_result(self, task: TaskView, history_length: int | None) -> dict[str, Any]:
        """The result of ``SendMessage`` (``{"task": ...}``) or ``message/send`` (the task)."""
        encoded = self.task(task, history_length)
        return encoded if self.kinds else {"task": encoded}

    def task_event(self, task: TaskView) -> dict[str, Any]:
        """A stream's snapshot of the task."""
        encoded = self.task(task)
        return encoded if self.kinds else {"task": encoded}

    def status_event(self, task: TaskView, status: Status) -> dict[str, Any]:
        """A status-update stream event (0.3 marks the one that ends the stream ``final``)."""
        event: dict[str, Any] = {
            "taskId": task.id,
            "contextId": task.context_id,
            "status": self.status(status),
        }
        if not self.kinds:
            return {"statusUpdate": event}
        final = status.state in TERMINAL or status.state in INTERRUPTED
        return {"kind": "status-update", **event, "final": final}

    def artifact_event(
        self, task: TaskView, text: str, *, append: bool, last: bool
    ) -> dict[str, Any]:
        """An artifact-update stream event carrying a piece of the response's text."""
        event: dict[str, Any] = {
            "taskId": task.id,
            "contextId": task.context_id,
            "artifact": self.artifact(task.artifact_id, text),
            "append": append,
            "lastChunk": last,
        }
        return {"kind": "artifact-update", **event} if self.kinds else {"artifactUpdate": event}


V10 = Dialect("1.0", kinds=False)
"""A2A 1.0, as ``a2a-sdk`` 1.x speaks it."""
V03 = Dialect("0.3", kinds=True)
"""A2A 0.3, as Mastra's server and client speak it."""
DIALECTS = {"1.0": V10, "0.3": V03}
"""The dialects by ``major.minor`` version."""
