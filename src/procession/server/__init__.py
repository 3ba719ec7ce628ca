"""procession's HTTP server: Mastra's routes and the AI SDK's, for any set of agents.

::

    from procession.server import create_app
    app = create_app([support, billing])          # an ASGI app (Starlette)

or from the command line: ``procession serve app.py --port 4111``. Needs the ``server``
extra (Starlette, uvicorn, httptools, PyJWT, orjson). See ``docs/server.md``.
"""

from procession.server.access import AccessToken
from procession.server.app import create_app
from procession.server.auth import APIKey, Auth, JWTAuth
from procession.server.chunk_log import ChunkLog
from procession.server.config import CORS, ServerLimits
from procession.server.connections import ConnectionLimits
from procession.server.run import check_host, serve
from procession.server.scaling import Scaling

__all__ = [
    "CORS",
    "APIKey",
    "AccessToken",
    "Auth",
    "ChunkLog",
    "ConnectionLimits",
    "JWTAuth",
    "Scaling",
    "ServerLimits",
    "check_host",
    "create_app",
    "serve",
]
