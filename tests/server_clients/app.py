"""The app the JavaScript-client tests serve with uvicorn: ``tests.server_clients.app:app``.

Two configurations of the same agents, picked by ``PROCESSION_TEST_SERVER_AUTH``:

* unset: no credentials, as ``procession serve`` runs on loopback; every request belongs to
  the resource its body names (or ``local``);
* ``1``: an API key for ``alice`` and HS256 JWTs whose ``sub`` is the resource.
"""

from __future__ import annotations

import os

from procession.server import APIKey, Auth, JWTAuth, create_app
from tests.server_clients.agents import echo, refunds, slow, support, weather
from tests.server_clients.shared import API_KEY, JWT_SECRET


def build_auth() -> Auth | None:
    """The credentials of the configuration the environment asks for."""
    if os.environ.get("PROCESSION_TEST_SERVER_AUTH") != "1":
        return None
    return Auth(api_keys=[APIKey(API_KEY, "alice")], jwt=JWTAuth(secret=JWT_SECRET))


app = create_app([support, echo, slow, weather, refunds], auth=build_auth())
