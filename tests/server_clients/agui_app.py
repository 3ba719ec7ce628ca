"""The app the AG-UI client tests serve with uvicorn: ``tests.server_clients.agui_app:app``.

The agents of ``app.py`` that the AG-UI tests drive (``support``, ``weather``, ``refunds``)
plus ``planner`` (shared state), with the same credentials switch
(``PROCESSION_TEST_SERVER_AUTH``).
"""

from __future__ import annotations

from procession.server import create_app
from tests.server_clients.agents import refunds, support, weather
from tests.server_clients.agui_agents import planner
from tests.server_clients.app import build_auth

app = create_app([support, weather, refunds, planner], auth=build_auth())
