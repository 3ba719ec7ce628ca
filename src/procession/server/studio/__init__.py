"""Studio: a page at ``/studio`` for watching agents work, served by the app itself.

The agents; a chat on the live stream with what each processor did shown inline (a
replacement, a dropped chunk, a retry and its reason, a tripwire, data chunks); each run's
timeline of hook calls from the trace store; threads and their stored messages. The page is
plain HTML, CSS and JavaScript shipped inside the package (:mod:`.page`), and reads the API's
routes plus a few of its own (:mod:`.api`) with the API's credentials. :mod:`.mount` puts it
on the app. See ``docs/studio.md``.
"""

from procession.server.studio.api import STUDIO_ROUTES, STUDIO_SCHEMAS
from procession.server.studio.mount import check_traces, inspect_allowed, studio_routes
from procession.server.studio.page import page_routes

__all__ = [
    "STUDIO_ROUTES",
    "STUDIO_SCHEMAS",
    "check_traces",
    "inspect_allowed",
    "page_routes",
    "studio_routes",
]
