"""The server's settings: request limits and CORS, checked when they are built (D35)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from procession._checks import check_flag, check_int, wrong

__all__ = ["CORS", "DEFAULT_MAX_BODY_BYTES", "DEFAULT_RESOURCE", "ServerLimits"]

DEFAULT_MAX_BODY_BYTES = 1_048_576
"""Request bodies larger than this (1 MiB) get 413 unless :class:`ServerLimits` says otherwise."""

DEFAULT_RESOURCE = "local"
"""The resource of a request that names none and carries no credential."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ServerLimits:
    """ServerLimits on what one request may ask of the server.

    Attributes:
        max_body_bytes: The largest request body accepted; a larger one gets 413 with a JSON
            error, before it is read in full (default 1 MiB).
        max_page_size: The largest ``perPage`` a memory listing accepts (default 1000).
        body_timeout: Seconds a request body may take to arrive once the app reads it;
            408 after (default 30).
        keep_alive: Seconds of silence on an event stream before the server sends the SSE
            comment ``: keep-alive`` (default 15; ``0`` sends none): proxies keep the
            connection while a model thinks, a step is held or an approval waits.
    """

    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    max_page_size: int = 1000
    body_timeout: float = 30.0
    keep_alive: float = 15.0

    def __post_init__(self) -> None:
        check_int("ServerLimits.max_body_bytes", self.max_body_bytes, minimum=1)
        check_int("ServerLimits.max_page_size", self.max_page_size, minimum=1)
        timeout = self.body_timeout
        if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0:
            raise wrong("ServerLimits.body_timeout", timeout, "a positive number of seconds")
        beat = self.keep_alive
        if isinstance(beat, bool) or not isinstance(beat, int | float) or not 0 <= beat < 1e6:
            raise wrong("ServerLimits.keep_alive", beat, "a number of seconds, 0 for none")


@dataclass(frozen=True, slots=True, kw_only=True)
class CORS:
    """Cross-origin settings, for a browser page served from another origin.

    Attributes:
        allow_origins: Origins allowed to call the server, such as
            ``["http://localhost:3000"]``; ``["*"]`` allows any (not with credentials).
        allow_credentials: Let browsers send cookies and ``Authorization`` headers.
        allow_headers: Request headers a browser may send besides the simple ones
            (``Authorization``, ``Content-Type`` and ``X-API-Key`` by default).
        max_age: How long (seconds) a browser may cache a preflight answer.
    """

    allow_origins: Sequence[str]
    allow_credentials: bool = False
    allow_headers: Sequence[str] = field(
        default=("authorization", "content-type", "x-api-key", "x-mastra-client-type")
    )
    max_age: int = 600

    def __post_init__(self) -> None:
        for name in ("allow_origins", "allow_headers"):
            value = getattr(self, name)
            if isinstance(value, str) or not isinstance(value, Sequence):
                raise wrong(f"CORS.{name}", value, "a list of strings")
            if not all(isinstance(item, str) and item for item in value):
                raise wrong(f"CORS.{name}", value, "a list of non-empty strings")
        if not self.allow_origins:
            raise wrong("CORS.allow_origins", self.allow_origins, "at least one origin")
        check_flag("CORS.allow_credentials", self.allow_credentials)
        if self.allow_credentials and "*" in self.allow_origins:
            raise wrong(
                "CORS.allow_origins", list(self.allow_origins), "explicit origins with credentials"
            )
        check_int("CORS.max_age", self.max_age, minimum=0)
