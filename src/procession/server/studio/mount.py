"""Mounting Studio on the app: its settings, its routes, its part of the OpenAPI document.

:func:`~procession.server.create_app` calls these three, so that everything Studio adds to
the server lives in this package.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from starlette.routing import Route

from procession._checks import check_flag, wrong
from procession.server.config import ServerLimits
from procession.server.openapi import openapi_document
from procession.server.studio.api import STUDIO_ROUTES, STUDIO_SCHEMAS
from procession.server.studio.page import page_routes

__all__ = ["check_traces", "inspect_allowed", "studio_routes"]


def check_traces(traces: Any) -> Any:
    """``create_app``'s ``traces``: ``None`` or a trace store (checked without importing the
    tracing extra when none is given).

    Raises:
        ConfigurationError: anything else, naming the value.
    """
    if traces is None:
        return None
    try:
        from procession.tracing.store import TraceStore
    except ImportError:  # pragma: no cover - the extra is missing, so this cannot be one
        TraceStore = ()  # type: ignore[assignment,misc]  # noqa: N806
    if not isinstance(traces, TraceStore):
        raise wrong("traces", traces, "a procession.tracing TraceStore or None")
    return traces


def inspect_allowed(allow_inspect: bool | None, auth: object) -> bool:
    """``create_app``'s ``allow_inspect``: as given, else only on a server without ``auth``.

    Raises:
        ConfigurationError: not a bool (nor ``None``).
    """
    if allow_inspect is None:
        return auth is None
    return check_flag("allow_inspect", allow_inspect)


def studio_routes(
    document: dict[str, Any], limits: ServerLimits, agent_ids: Sequence[str], auth: bool
) -> list[Route]:
    """Studio's page, assets and JSON routes; adds the JSON routes (and their schemas) to the
    app's OpenAPI ``document`` in place."""
    own = openapi_document(STUDIO_ROUTES, limits=limits, agent_ids=agent_ids, auth=auth)
    document["paths"].update(own["paths"])
    document["components"]["schemas"].update(own["components"]["schemas"])
    document["components"]["schemas"].update(STUDIO_SCHEMAS)
    routes: list[Route] = [Route(r.path, r.endpoint, methods=[r.method]) for r in STUDIO_ROUTES]
    return routes + page_routes()
