"""The access token of a server without credentials, the way Jupyter guards its notebooks.

``procession serve`` and :func:`~procession.server.serve` put :class:`AccessToken` in front
of an app that has no :class:`~procession.server.Auth`: every request but ``/health`` must
carry the token, as ``Authorization: Bearer <token>`` (``@mastra/client-js``'s and the AI
SDK's ``headers`` option) or as the cookie a browser gets by opening a URL with
``?token=<token>`` once (HttpOnly, SameSite=Strict; the answer redirects to the same URL
without the query, so the token leaves the address bar). The token only gates access: the
request then acts as it would without it (the resource its body names, or ``local``).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from typing import Any
from urllib.parse import parse_qsl, urlencode

from procession.errors import ConfigurationError
from procession.server.encoding import dumps
from procession.server.openai_compat.errors import error_body_for

__all__ = ["AccessToken", "check_token", "new_token"]

ASGIApp = Any
_OPEN = frozenset({"/health"})


def new_token() -> str:
    """A fresh random token (256 bits, URL-safe), never starting with ``-``: a user pastes it
    after ``--token``, where a leading dash reads as another option."""
    while True:
        token = secrets.token_urlsafe(32)
        if not token.startswith("-"):
            return token


def check_token(token: str) -> str:
    """``token`` when it is usable: at least 16 characters, printable ASCII, no spaces or
    ``;`` (it travels in a header, a URL and a cookie)."""
    if not isinstance(token, str) or len(token) < 16:
        raise ConfigurationError("token: expected a string of at least 16 characters")
    if not token.isascii() or not token.isprintable() or any(c in token for c in ' ;,"\\'):
        raise ConfigurationError("token: use printable ASCII without spaces, ';', ',' or quotes")
    return token


class AccessToken:
    """ASGI middleware: requests must carry ``token`` (module docs); 401 otherwise."""

    def __init__(self, app: ASGIApp, *, token: str) -> None:
        self.app = app
        self._token = check_token(token).encode()
        digest = hashlib.sha256(self._token).hexdigest()[:12]
        self.cookie = f"procession-token-{digest}"
        """The cookie's name: one per token, so two servers on localhost keep theirs."""

    def __repr__(self) -> str:  # never print the secret
        return f"AccessToken(cookie={self.cookie!r})"

    def matches(self, candidate: str | bytes | None) -> bool:
        """Whether ``candidate`` is the token, compared in constant time."""
        if candidate is None:
            return False
        given = candidate.encode("utf-8", "replace") if isinstance(candidate, str) else candidate
        return hmac.compare_digest(given, self._token)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        """Let a request with the token through; trade a query token for the cookie."""
        if scope["type"] != "http" or scope["path"] in _OPEN:
            await self.app(scope, receive, send)
            return
        query = parse_qsl(scope.get("query_string", b"").decode("latin-1"), True)
        given = [value for name, value in query if name == "token"]
        if given and scope["method"] in ("GET", "HEAD"):
            if self.matches(given[0]):
                await self._redirect(scope, send, query)
            else:
                await _denied(scope, send, "Invalid access token in ?token=")
            return
        if self._carried(scope):
            await self.app(scope, receive, send)
            return
        await _denied(
            scope,
            send,
            "Missing access token: send 'Authorization: Bearer <token>' or open the URL "
            "procession serve printed (with ?token=)",
        )

    def _carried(self, scope: Any) -> bool:
        for name, value in scope["headers"]:
            if name == b"authorization":
                scheme, _, rest = value.partition(b" ")
                if scheme.lower() == b"bearer" and self.matches(rest.strip()):
                    return True
            elif name == b"cookie":
                for part in value.split(b";"):
                    key, _, cookie = part.strip().partition(b"=")
                    if key.decode("latin-1") == self.cookie and self.matches(cookie):
                        return True
        return False

    async def _redirect(self, scope: Any, send: Any, query: list[tuple[str, str]]) -> None:
        rest = urlencode([(k, v) for k, v in query if k != "token"])
        raw = scope.get("raw_path") or scope["path"].encode("utf-8")
        path = "/" + raw.decode("latin-1").lstrip("/")  # never "//host": no open redirect
        location = path + (f"?{rest}" if rest else "")
        cookie = f"{self.cookie}={self._token.decode()}; Path=/; HttpOnly; SameSite=Strict" + (
            "; Secure" if scope.get("scheme") == "https" else ""
        )
        headers = [
            (b"location", location.encode("latin-1", "replace")),
            (b"set-cookie", cookie.encode()),
            (b"cache-control", b"no-store"),
            (b"content-length", b"0"),
        ]
        await send({"type": "http.response.start", "status": 303, "headers": headers})
        await send({"type": "http.response.body", "body": b"", "more_body": False})


async def _denied(scope: Any, send: Any, message: str) -> None:
    body = dumps(error_body_for(scope, 401, message))
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"www-authenticate", b'Bearer realm="procession"'),
    ]
    await send({"type": "http.response.start", "status": 401, "headers": headers})
    await send({"type": "http.response.body", "body": body, "more_body": False})
