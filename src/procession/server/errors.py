"""HTTP errors: one exception, one JSON shape, and the status of each procession error.

Every error response is JSON, ``{"error": message}``, plus ``issues`` (``[{field, message}]``)
when the request was malformed: the shape of Mastra's server, so ``MastraClientError.body``
reads the same. A thread of another resource is ``404`` exactly like a missing one, so a
caller learns nothing about other resources.
"""

from __future__ import annotations

from typing import Any

from procession.errors import (
    ConfigurationError,
    InvalidRecordError,
    MessageError,
    MessageThreadError,
    ModelSetupError,
    ThreadBusyError,
    ThreadLockLostError,
    ThreadOwnershipError,
    UnknownModelError,
)

__all__ = ["HTTPError", "Issue", "error_body", "status_of"]

Issue = dict[str, str]
"""One problem of a malformed request: ``{"field": "messages[0].role", "message": "..."}``."""


class HTTPError(Exception):
    """An error answered with ``status`` and a JSON body.

    Attributes:
        status: The HTTP status code.
        message: The ``error`` text of the body.
        issues: The fields that were wrong, for a malformed request (422).
        headers: Extra response headers (``WWW-Authenticate`` for 401).
    """

    def __init__(
        self,
        status: int,
        message: str,
        *,
        issues: list[Issue] | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.issues = issues
        self.headers = headers

    @classmethod
    def invalid(cls, field: str, message: str) -> HTTPError:
        """A 422 naming one field."""
        return cls(422, f"Invalid request: {field}: {message}", issues=[issue(field, message)])

    def body(self) -> dict[str, Any]:
        """The JSON body."""
        return error_body(self.message, self.issues)


def issue(field: str, message: str) -> Issue:
    """One ``{field, message}`` entry."""
    return {"field": field, "message": message}


def error_body(message: str, issues: list[Issue] | None = None) -> dict[str, Any]:
    """``{"error": message}``, with ``issues`` when given."""
    out: dict[str, Any] = {"error": message}
    if issues is not None:
        out["issues"] = issues
    return out


def status_of(error: BaseException, *, field: str = "body") -> HTTPError:
    """The HTTP error for a procession error raised while serving a request.

    Mistakes in the request are 4xx: a malformed message or option 422 (naming the field), a
    thread of another resource 404, a message id stored in another thread or for another
    resource 409 (naming the id, not its owner), a busy thread or a turn that lost its thread
    lock 409. An agent whose model cannot be built here (a provider key not set) is the
    server's configuration error, 500. Anything else
    (a provider, a processor, a tool failing) is 500 with the error's name and message.
    """
    if isinstance(error, ThreadOwnershipError):
        if error.kind != "thread":  # an id the caller chose is another resource's (D34)
            return HTTPError(
                409,
                f"{error.kind.capitalize()} id {error.thread_id!r} is already used by another "
                f"resource: choose another id",
            )
        return HTTPError(404, "Thread not found")
    if isinstance(error, MessageThreadError | ThreadBusyError | ThreadLockLostError):
        return HTTPError(409, str(error))
    if isinstance(error, InvalidRecordError | MessageError):
        where = getattr(error, "path", "") or field
        problem = str(getattr(error, "problem", "") or error)
        return HTTPError(422, f"Invalid request: {error}", issues=[issue(where, problem)])
    if isinstance(error, ModelSetupError | UnknownModelError):  # the agent's, not the caller's
        return HTTPError(500, f"Server configuration error: {error}")
    if isinstance(error, ConfigurationError):
        return HTTPError(422, f"Invalid request: {error}", issues=[issue(field, str(error))])
    return HTTPError(500, f"{type(error).__name__}: {error}")
