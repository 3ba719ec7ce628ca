"""Running the app under uvicorn, and the rule that keeps an open server on loopback.

Without credentials every request is served as the resource it names, so such a server must
only be reachable from this machine: :func:`check_host` refuses any address but loopback
(``127.0.0.0/8``, ``::1``, ``localhost``) unless an :class:`~procession.server.Auth` is
configured.
"""

from __future__ import annotations

import ipaddress
from typing import Any

from procession._checks import check_int
from procession.errors import ConfigurationError
from procession.server.auth import Auth

__all__ = ["DEFAULT_HOST", "DEFAULT_PORT", "check_host", "is_loopback", "serve"]

DEFAULT_HOST = "127.0.0.1"
"""Loopback: a server without credentials must not listen elsewhere."""
DEFAULT_PORT = 4111
"""Mastra's default port."""


def is_loopback(host: str) -> bool:
    """Whether ``host`` is a loopback address (or ``localhost``)."""
    if host.lower() in ("localhost", "localhost."):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_host(host: str, auth: Auth | None) -> None:
    """Refuse to listen beyond loopback without credentials (``ConfigurationError``)."""
    if not isinstance(host, str) or not host:
        raise ConfigurationError(f"host: expected an address, got {host!r}")
    if auth is None and not is_loopback(host):
        raise ConfigurationError(
            f"host: refusing to listen on {host!r} without credentials: every request would "
            "act as any resource it names. Configure API keys or JWTs, or listen on 127.0.0.1"
        )


def serve(
    app: Any,
    *,
    host: str = DEFAULT_HOST,
    port: int = DEFAULT_PORT,
    auth: Auth | None = None,
    shutdown_grace: int = 30,
    log_level: str = "info",
) -> None:
    """Serve ``app`` (from :func:`~procession.server.create_app`) with uvicorn until a
    signal stops it.

    On SIGINT or SIGTERM the server stops accepting connections and lets in-flight runs
    finish for up to ``shutdown_grace`` seconds; runs still going then are cancelled, and a
    cancelled run stores nothing (a turn is stored in one transaction, D13). ``auth`` must be
    the app's: it decides whether ``host`` may be beyond loopback.
    """
    import uvicorn

    check_host(host, auth)
    check_int("port", port, minimum=0)
    check_int("shutdown_grace", shutdown_grace, minimum=0)
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level=log_level,
        timeout_graceful_shutdown=shutdown_grace,
        lifespan="on",
    )
    uvicorn.Server(config).run()
