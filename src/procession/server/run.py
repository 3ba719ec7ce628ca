"""Running the app under uvicorn, and the rule that keeps an open server on loopback.

Without credentials every request is served as the resource it names, so such a server must
only be reachable from this machine: :func:`check_host` refuses any address but loopback
(``127.0.0.0/8``, ``::1``, ``localhost``) unless an :class:`~procession.server.Auth` is
configured. The app's own credentials decide (:func:`app_auth`), not an argument beside it.
"""

from __future__ import annotations

import ipaddress
import os
from typing import Any
from urllib.parse import urlencode

from procession._checks import check_int, wrong
from procession.errors import ConfigurationError
from procession.server.access import AccessToken, check_token, new_token
from procession.server.auth import Auth
from procession.server.connections import ConnectionLimits

__all__ = [
    "DEFAULT_HOST",
    "DEFAULT_PORT",
    "app_auth",
    "check_host",
    "guarded",
    "is_loopback",
    "serve",
    "studio_url",
    "uvicorn_config",
]

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


def app_auth(app: Any, auth: Auth | None) -> Auth | None:
    """The credentials ``app`` checks: its own when it is a procession app (``auth`` must
    then be ``None`` or the same), else ``auth`` (an app that mounts a procession app)."""
    state = getattr(getattr(app, "state", None), "procession", None)
    if state is None:
        return auth
    own: Auth | None = state.auth
    if auth is not None and auth is not own:
        raise ConfigurationError(
            "auth: not the app's credentials; serve() reads them from the app (leave auth out)"
        )
    return own


def guarded(app: Any, auth: Auth | None, token: str | bool | None) -> tuple[Any, str | None]:
    """``app`` behind its access token when it has no credentials, and that token.

    ``token``: ``None`` for ``$PROCESSION_TOKEN`` or a new random one, a string for that
    token, ``False`` for none (the explicit ``--no-token``). With credentials there is no
    token (``token`` must not be a string then).
    """
    if token is True:
        token = None
    if token is not None and not isinstance(token, str | bool):
        raise wrong("token", token, "a string, None or False")
    if auth is not None:
        if isinstance(token, str):
            raise ConfigurationError("token: the app has credentials (Auth); drop the token")
        return app, None
    if token is False:
        return app, None
    chosen = token or os.environ.get("PROCESSION_TOKEN") or new_token()
    return AccessToken(app, token=check_token(chosen)), chosen


def studio_url(host: str, port: int, token: str | None) -> str:
    """The URL printed at start: Studio, with the access token when there is one."""
    shown = f"[{host}]" if ":" in host else host
    if host in ("0.0.0.0", "::"):
        shown = "127.0.0.1"
    query = f"?{urlencode({'token': token})}" if token else ""
    return f"http://{shown}:{port}/studio{query}"


def serve(
    app: Any,
    *,
    host: str = DEFAULT_HOST,
    port: int = DEFAULT_PORT,
    auth: Auth | None = None,
    token: str | bool | None = None,
    limits: ConnectionLimits | None = None,
    shutdown_grace: int = 30,
    log_level: str = "info",
) -> None:
    """Serve ``app`` (from :func:`~procession.server.create_app`) with uvicorn until a
    signal stops it.

    An app without credentials (no :class:`~procession.server.Auth`) only listens on
    loopback, and requires an access token (:mod:`procession.server.access`): ``token=``,
    else ``$PROCESSION_TOKEN``, else a random one; the Studio URL carrying it is printed
    once at start. ``token=False`` turns it off. The app's own credentials decide; ``auth``
    is only read for an app that is not a procession app (one that mounts it).

    ``limits`` bounds header size, slow and idle clients and open connections
    (:class:`ConnectionLimits`; its defaults when ``None``).

    On SIGINT or SIGTERM the server stops accepting connections and lets in-flight runs
    finish for up to ``shutdown_grace`` seconds; runs still going then are cancelled, and a
    cancelled run stores nothing (a turn is stored in one transaction, D13).
    """
    import uvicorn

    config, chosen = uvicorn_config(
        app,
        host=host,
        port=port,
        auth=auth,
        token=token,
        limits=limits,
        shutdown_grace=shutdown_grace,
        log_level=log_level,
    )
    server = uvicorn.Server(config)
    if chosen is not None:
        _announce(server, host, chosen)
    server.run()


def uvicorn_config(
    app: Any,
    *,
    host: str = DEFAULT_HOST,
    port: int = DEFAULT_PORT,
    auth: Auth | None = None,
    token: str | bool | None = None,
    limits: ConnectionLimits | None = None,
    shutdown_grace: int = 30,
    log_level: str = "info",
) -> tuple[Any, str | None]:
    """What :func:`serve` runs: the ``uvicorn.Config`` (the app behind its access token,
    the connection limits) and the access token (``None`` when there is none). For running
    the same server another way, such as ``uvicorn.Server(config).serve()`` in a loop."""
    import uvicorn

    credentials = app_auth(app, auth)
    check_host(host, credentials)
    check_int("port", port, minimum=0)
    check_int("shutdown_grace", shutdown_grace, minimum=0)
    limits = ConnectionLimits() if limits is None else limits
    if not isinstance(limits, ConnectionLimits):
        raise wrong("limits", limits, "a ConnectionLimits")
    served, chosen = guarded(app, credentials, token)
    config = uvicorn.Config(
        served,
        host=host,
        port=port,
        log_level=log_level,
        timeout_graceful_shutdown=shutdown_grace,
        lifespan="on",
        **limits.uvicorn_options(),
    )
    return config, chosen


def _announce(server: Any, host: str, token: str) -> None:
    """Print the Studio URL with the token once the socket is bound (its real port)."""
    startup = server.startup

    async def announced(sockets: Any = None) -> None:
        await startup(sockets=sockets)
        if server.started:
            port = server.servers[0].sockets[0].getsockname()[1]
            print(f"Studio and API (access token): {studio_url(host, port, token)}", flush=True)

    server.startup = announced
