"""What a browser page of another site must not do: the ``Host``, ``Origin`` and
``Content-Type`` checks every route of the app passes first.

Loopback is no trust boundary against browsers: any web page can send a request to
``127.0.0.1``, and a DNS-rebinding page can even read the answers. :class:`RequestGuard`
refuses

* a ``Host`` header that is not one of the allowed hosts (loopback names by default), 400:
  a rebinding page reaches the server under its own name;
* a state-changing request (``POST``, ``PUT``, ``PATCH``, ``DELETE``) whose ``Origin`` is
  present and neither the server's own origin nor one of the CORS origins, 403
  (``Origin: null`` included; a request without ``Origin``, as Node, ``curl`` and the
  ``openai`` SDK send them, passes);
* a state-changing request with a body that is not JSON (``application/json`` or
  ``+json``), 415: a page can post ``text/plain`` without a CORS preflight, never JSON.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from procession._checks import wrong
from procession.server.encoding import dumps
from procession.server.errors import error_body
from procession.server.params import control_character

__all__ = ["DEFAULT_ALLOWED_HOSTS", "RequestGuard", "check_allowed_hosts", "host_name"]

DEFAULT_ALLOWED_HOSTS = ("localhost", "127.0.0.1", "[::1]")
"""The hosts a server answers by default: loopback names, with any port."""

_UNSAFE = frozenset({"POST", "PUT", "PATCH", "DELETE"})

ASGIApp = Any


def check_allowed_hosts(hosts: Sequence[str] | None) -> tuple[str, ...]:
    """The allowed host names, lower-cased (``DEFAULT_ALLOWED_HOSTS`` for ``None``).

    Each is a host name without port (``api.example.com``), ``*.example.com`` for its
    subdomains, an IPv6 address in brackets (``[::1]``), or ``*`` for any host.
    """
    if hosts is None:
        return DEFAULT_ALLOWED_HOSTS
    if isinstance(hosts, str) or not isinstance(hosts, Sequence) or not hosts:
        raise wrong("allowed_hosts", hosts, "a non-empty list of host names")
    out: list[str] = []
    for host in hosts:
        if not isinstance(host, str) or not host or _has_port(host):
            raise wrong("allowed_hosts", host, "a host name without scheme or port")
        out.append(host.lower())
    return tuple(out)


def _has_port(host: str) -> bool:
    bracketed = host.startswith("[") and host.endswith("]")
    return not bracketed and any(c in host for c in "/ :@")


def host_name(host: str) -> str:
    """``host`` (a ``Host`` header value) without its port, lower-cased."""
    host = host.strip().lower()
    if host.startswith("["):
        end = host.find("]")
        return host[: end + 1] if end > 0 else host
    name, _, port = host.rpartition(":")
    if name and port.isdigit():
        return name
    return host


def _host_allowed(name: str, allowed: Iterable[str]) -> bool:
    for pattern in allowed:
        if pattern == "*" or pattern == name:
            return True
        if pattern.startswith("*.") and name.endswith(pattern[1:]):
            return True
    return False


def _is_json(content_type: str) -> bool:
    media = content_type.partition(";")[0].strip().lower()
    return media == "application/json" or (
        media.startswith("application/") and media.endswith("+json")
    )


class RequestGuard:
    """ASGI middleware: the ``Host``, ``Origin`` and content-type checks (module docs)."""

    def __init__(
        self, app: ASGIApp, *, allowed_hosts: Sequence[str], allowed_origins: Sequence[str]
    ) -> None:
        self.app = app
        self.allowed_hosts = tuple(allowed_hosts)
        self.allowed_origins = frozenset(o.rstrip("/").lower() for o in allowed_origins)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        """Answer a refused request, pass the rest on."""
        if scope["type"] == "http":
            refusal = self.refusal(scope)
            if refusal is not None:
                await _refuse(send, *refusal)
                return
        await self.app(scope, receive, send)

    def refusal(self, scope: Any) -> tuple[int, str] | None:
        """``(status, message)`` of a refused request, or ``None``."""
        headers: dict[bytes, bytes] = {}
        for name, value in scope["headers"]:
            headers.setdefault(name, value)
        host = headers.get(b"host", b"").decode("latin-1")
        if not _host_allowed(host_name(host), self.allowed_hosts):
            return 400, (
                f"Host {host!r} is not allowed: this server answers "
                f"{', '.join(self.allowed_hosts)} (create_app(allowed_hosts=[...]) or "
                "procession serve --allowed-host)"
            )
        index = control_character(scope["path"])
        if index is not None:
            return 400, f"Invalid request: path: must not hold control characters (at {index})"
        if scope["method"] not in _UNSAFE:
            return None
        origin = headers.get(b"origin")
        if origin is not None:
            text = origin.decode("latin-1").strip()
            if not self._origin_allowed(text, host):
                return 403, (
                    f"Origin {text!r} may not change anything on this server: allow it with "
                    "CORS(allow_origins=[...]) (procession serve --cors-origin)"
                )
        content_type = headers.get(b"content-type")
        if content_type is not None:
            if not _is_json(content_type.decode("latin-1")):
                return 415, (
                    f"Content-Type {content_type.decode('latin-1')!r} is not accepted: "
                    "send the body as application/json"
                )
        elif _has_body(headers):
            return 415, "Content-Type is missing: send the body as application/json"
        return None

    def _origin_allowed(self, origin: str, host: str) -> bool:
        origin = origin.rstrip("/").lower()
        if origin == "null" or "://" not in origin:
            return False
        if "*" in self.allowed_origins or origin in self.allowed_origins:
            return True
        # the server's own pages (Studio): the origin names the host the request came to
        return origin.partition("://")[2] == host.strip().lower()


def _has_body(headers: dict[bytes, bytes]) -> bool:
    length = headers.get(b"content-length")
    if length is not None:
        return length.strip() not in (b"", b"0")
    return b"transfer-encoding" in headers


async def _refuse(send: Any, status: int, message: str) -> None:
    body = dumps(error_body(message))
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body, "more_body": False})
