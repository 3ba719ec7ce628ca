"""``procession serve app.py``: serve a module's agents over HTTP (the ``server`` extra).

Mastra's routes (``/api/agents``, ``/api/memory``), so ``@mastra/client-js`` works unchanged,
and the AI SDK UI message stream at ``/chat/{agentId}`` for ``useChat``. Without credentials
the server only listens on loopback.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from procession.cli.errors import EXIT_OK, CLIError
from procession.cli.loading import load_agents
from procession.cli.options import Commands, add_command

__all__ = [
    "auth_from_args",
    "connection_limits_from_args",
    "missing_models",
    "register",
    "scaling_from_args",
    "serve_command",
    "token_from_args",
    "traces_from_args",
]

DESCRIPTION = """\
Serve every agent of a module (or FILE:ATTR) and its memory over HTTP.

  procession serve app.py                                  # on 127.0.0.1:4111
  procession serve app.py:agents --port 8000
  procession serve app.py --host 0.0.0.0 --api-keys keys.json
  procession serve app.py --host 0.0.0.0 --jwt-secret-env JWT_SECRET  # HS256 secret in $JWT_SECRET

Without --api-keys or a JWT option the server refuses any host but loopback, each request
acts as the resource its body names (or 'local'), and every request needs an access token:
the Studio URL printed at start carries it (?token=), clients send 'Authorization: Bearer
TOKEN'. --token TOKEN (or $PROCESSION_TOKEN) fixes it, --no-token turns it off.
API keys: a JSON file {"key": "resource"} (or the same JSON in $PROCESSION_API_KEYS).
Routes: docs/server.md.

Studio is at /studio, behind the same credentials: --traces traces.db (a SQLite file or a
PostgreSQL URL) keeps every run's spans there for its timelines (docs/studio.md).

Replicas (docs/scaling.md): every replica names the same databases.

  procession serve app.py --chunk-log postgresql://.../app     # resumable streams
  procession serve app.py --durable postgresql://.../app_dbos  # durable runs (DBOS)
"""


def register(commands: Commands, parents: list[argparse.ArgumentParser]) -> None:
    """Add ``serve`` to the command table."""
    parser = add_command(
        commands,
        parents,
        "serve",
        summary="serve agents over HTTP (Mastra's routes and the AI SDK's)",
        description=DESCRIPTION,
        handler=serve_command,
    )
    parser.add_argument("target", metavar="TARGET", help="FILE.py, MODULE, or FILE.py:ATTR")
    parser.add_argument("--host", default="127.0.0.1", help="address (default: %(default)s)")
    parser.add_argument("--port", type=int, default=4111, help="port (default: %(default)s)")
    parser.add_argument("--api-keys", metavar="FILE", help='JSON file {"key": "resource id"}')
    parser.add_argument("--jwt-secret-env", metavar="VAR", help="env var with an HS256 secret")
    parser.add_argument("--jwt-jwks", metavar="FILE", help="JWKS file of RS256/ES256 keys")
    parser.add_argument("--jwt-algorithm", action="append", metavar="ALG", help="repeatable")
    parser.add_argument("--jwt-resource-claim", default="sub", metavar="CLAIM")
    parser.add_argument("--jwt-audience", metavar="AUD")
    parser.add_argument("--jwt-issuer", metavar="ISS")
    parser.add_argument("--cors-origin", action="append", metavar="ORIGIN", help="repeatable")
    parser.add_argument("--max-body-bytes", type=int, default=1_048_576, metavar="BYTES")
    parser.add_argument("--shutdown-grace", type=int, default=30, metavar="SECONDS")
    _guard_arguments(parser)
    _scaling_arguments(parser)
    parser.add_argument(
        "--expose-instructions",
        action="store_true",
        help="include each agent's instructions in GET /api/agents",
    )
    parser.add_argument(
        "--traces",
        metavar="DATABASE",
        help="trace runs into this SQLite file or PostgreSQL URL (Studio's run timelines)",
    )
    parser.add_argument("--no-studio", action="store_true", help="do not serve Studio")
    parser.add_argument(
        "--allow-inspect",
        action="store_true",
        help="send processor notes (what guardrails removed) to callers with credentials too",
    )


def traces_from_args(args: argparse.Namespace) -> Any:
    """The trace store ``--traces`` names, installed as the tracer provider's exporter; or
    ``None``."""
    if args.traces is None:
        return None
    try:
        from procession.tracing import configure_tracing, trace_store
    except ImportError as exc:
        raise CLIError(
            f"--traces needs the tracing extra: pip install 'procession[tracing]' ({exc})"
        ) from None
    if "://" in args.traces and not args.traces.startswith(("postgres://", "postgresql://")):
        raise CLIError(f"--traces: {args.traces} is neither a SQLite file nor a PostgreSQL URL")
    store = trace_store(args.traces)
    configure_tracing(store, service_name="procession-serve")
    return store


def _guard_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("strangers and limits (docs/server.md#security)")
    group.add_argument(
        "--token",
        metavar="TOKEN",
        help="access token without credentials (default: $PROCESSION_TOKEN, else a random one)",
    )
    group.add_argument(
        "--no-token", action="store_true", help="no access token (any local page or process)"
    )
    group.add_argument(
        "--allowed-host",
        action="append",
        metavar="HOST",
        help="a Host name to answer, repeatable (default: localhost, 127.0.0.1, [::1])",
    )
    group.add_argument("--max-header-bytes", type=int, default=16_384, metavar="BYTES")
    group.add_argument("--header-timeout", type=float, default=10.0, metavar="SECONDS")
    group.add_argument("--keep-alive-timeout", type=float, default=5.0, metavar="SECONDS")
    group.add_argument("--max-connections", type=int, default=1000, metavar="N")
    group.add_argument("--body-timeout", type=float, default=30.0, metavar="SECONDS")
    group.add_argument("--sse-keep-alive", type=float, default=15.0, metavar="SECONDS")


def connection_limits_from_args(args: argparse.Namespace) -> Any:
    """The :class:`~procession.server.ConnectionLimits` the options describe."""
    from procession.errors import ConfigurationError
    from procession.server import ConnectionLimits

    try:
        return ConnectionLimits(
            max_header_bytes=args.max_header_bytes,
            header_timeout=args.header_timeout,
            keep_alive_timeout=args.keep_alive_timeout,
            max_connections=args.max_connections,
        )
    except ConfigurationError as exc:
        raise CLIError(f"procession serve: {exc}") from None


def token_from_args(args: argparse.Namespace, auth: Any) -> str | bool | None:
    """``serve()``'s ``token``: ``False`` for ``--no-token``, the ``--token``, or ``None``
    (``$PROCESSION_TOKEN`` or a random one)."""
    if args.no_token and args.token is not None:
        raise CLIError("procession serve: give --token or --no-token, not both")
    if auth is not None and args.token is not None:
        raise CLIError("--token: the server has credentials (--api-keys or JWT); drop it")
    return False if args.no_token else args.token


def missing_models(agents: list[Any]) -> list[str]:
    """One line per agent whose model cannot be built here (a provider key not set, an
    SDK not installed, an unknown provider): what ``procession serve`` warns of at start."""
    from procession.errors import ConfigurationError, UnknownModelError
    from procession.models.registry import resolve_model

    out = []
    for agent in agents:
        model = getattr(agent, "model", None)
        if not isinstance(model, str):
            continue
        try:
            resolve_model(model)
        except (ConfigurationError, UnknownModelError) as exc:
            out.append(f"agent {getattr(agent, 'id', '?')!r} (model {model!r}): {exc}")
    return out


def _scaling_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("replicas (docs/scaling.md)")
    group.add_argument(
        "--lock-timeout",
        type=float,
        default=30.0,
        metavar="SECONDS",
        help="how long a turn waits for its thread, then 409 (default: %(default)s)",
    )
    group.add_argument("--chunk-log", metavar="DSN", help="PostgreSQL: resumable streams")
    group.add_argument("--chunk-log-schema", default="public", metavar="SCHEMA")
    group.add_argument(
        "--detach-timeout",
        type=float,
        default=30.0,
        metavar="SECONDS",
        help="a run nobody follows is cancelled after this (default: %(default)s)",
    )
    group.add_argument("--durable", metavar="URL", help="DBOS system database: durable runs")
    group.add_argument("--executor-id", metavar="ID", help="this replica's DBOS executor id")


def scaling_from_args(args: argparse.Namespace, agents: list[Any]) -> Any:
    """The :class:`~procession.server.scaling.Scaling` the replica options describe."""
    from procession.errors import ConfigurationError
    from procession.server.chunk_log import ChunkLog
    from procession.server.scaling import Scaling

    try:
        log = None
        if args.chunk_log is not None:
            log = ChunkLog(
                args.chunk_log, schema=args.chunk_log_schema, detach_timeout=args.detach_timeout
            )
        durable = None
        if args.durable is not None:
            try:
                from procession.durable import DurableRuns
            except ImportError as exc:  # pragma: no cover - the durable extra is missing
                raise CLIError(f"--durable needs the durable extra ({exc})") from None
            durable = DurableRuns(
                agents,
                database_url=args.durable,
                executor_id=args.executor_id,
                lock_timeout=args.lock_timeout,
            )
        return Scaling(lock_timeout=args.lock_timeout, chunk_log=log, durable=durable)
    except ConfigurationError as exc:
        raise CLIError(f"procession serve: {exc}") from None


def _api_keys(args: argparse.Namespace) -> dict[str, str]:
    text = os.environ.get("PROCESSION_API_KEYS")
    source = "$PROCESSION_API_KEYS"
    if args.api_keys is not None:
        try:
            text = Path(args.api_keys).read_text(encoding="utf-8")
        except OSError as exc:
            raise CLIError(f"--api-keys: cannot read {args.api_keys}: {exc.strerror}") from None
        source = args.api_keys
    if text is None:
        return {}
    try:
        keys: Any = json.loads(text)
    except ValueError:
        keys = None
    if not isinstance(keys, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in keys.items()
    ):
        raise CLIError(f'{source}: expected a JSON object {{"key": "resource id"}}')
    return keys


def auth_from_args(args: argparse.Namespace) -> Any:
    """The :class:`~procession.server.Auth` the options describe, or ``None``."""
    from procession.server import Auth, JWTAuth

    keys = _api_keys(args)
    jwt = None
    if args.jwt_secret_env is not None or args.jwt_jwks is not None:
        secret = None
        if args.jwt_secret_env is not None:
            secret = os.environ.get(args.jwt_secret_env)
            if not secret:
                raise CLIError(f"--jwt-secret-env: ${args.jwt_secret_env} is not set")
        jwt = JWTAuth(
            secret=secret,
            jwks_file=args.jwt_jwks,
            algorithms=args.jwt_algorithm,
            resource_claim=args.jwt_resource_claim,
            audience=args.jwt_audience,
            issuer=args.jwt_issuer,
        )
    if not keys and jwt is None:
        return None
    return Auth(api_keys=keys, jwt=jwt)


def serve_command(args: argparse.Namespace) -> int:
    """Run ``procession serve``; returns the exit status once the server stopped."""
    try:
        from procession.server import CORS, ServerLimits, check_host, create_app, serve
    except ImportError as exc:
        raise CLIError(
            f"procession serve needs the server extra: pip install 'procession[server]' ({exc})"
        ) from None
    auth = auth_from_args(args)
    check_host(args.host, auth)
    token = token_from_args(args, auth)
    connection_limits = connection_limits_from_args(args)
    agents = load_agents(args.target)
    for line in missing_models(agents):
        print(f"procession serve: warning: {line}; its calls will fail (500)", file=sys.stderr)
    cors = CORS(allow_origins=args.cors_origin) if args.cors_origin else None
    scaling = scaling_from_args(args, agents)
    app = create_app(
        agents,
        auth=auth,
        cors=cors,
        limits=ServerLimits(
            max_body_bytes=args.max_body_bytes,
            body_timeout=args.body_timeout,
            keep_alive=args.sse_keep_alive,
        ),
        expose_instructions=args.expose_instructions,
        traces=traces_from_args(args),
        studio=not args.no_studio,
        allow_inspect=True if args.allow_inspect else None,
        scaling=scaling,
        allowed_hosts=args.allowed_host,
    )
    serve(
        app,
        host=args.host,
        port=args.port,
        token=token,
        limits=connection_limits,
        shutdown_grace=args.shutdown_grace,
    )
    return EXIT_OK
