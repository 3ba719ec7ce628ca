"""Serving Studio's page and its assets from inside the package.

The page is three hand-written files (``assets/index.html``, ``studio.css``, ``studio.js``),
read once when the app is built: no build step, no CDN, nothing fetched. They hold no data, so
they are served without credentials, like ``/health``; every request the page then makes for
data goes through the API's authentication (``docs/studio.md``). Every URL the page uses is
relative to where the app is mounted, so ``Mount("/ai", app=create_app(...))`` works.

Each answer carries a strict Content-Security-Policy (scripts and styles from this origin
only, no inline script, no framing), ``nosniff`` and ``no-referrer``, and an ``ETag`` so a
reload costs a ``304``.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from importlib import resources

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from procession.server.errors import HTTPError

__all__ = [
    "ASSETS",
    "SECURITY_HEADERS",
    "Asset",
    "load_assets",
    "page_routes",
    "page_without_slash",
]

ASSETS = {
    "index.html": "text/html; charset=utf-8",
    "studio.css": "text/css; charset=utf-8",
    "studio.js": "text/javascript; charset=utf-8",
}
"""Every file Studio serves, with its media type."""

SECURITY_HEADERS = {
    "content-security-policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    ),
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "x-frame-options": "DENY",
    "cache-control": "no-cache",
}
"""The headers of every Studio file: model output shown by the page can never run as code."""


@dataclass(frozen=True, slots=True)
class Asset:
    """One file of the page: its bytes, media type and entity tag."""

    body: bytes
    media_type: str
    etag: str

    def respond(self, request: Request) -> Response:
        """The file, or ``304`` when the browser already holds this version."""
        headers = {**SECURITY_HEADERS, "etag": self.etag}
        if request.headers.get("if-none-match") == self.etag:
            return Response(status_code=304, headers=headers)
        return Response(self.body, media_type=self.media_type, headers=headers)


def load_assets() -> dict[str, Asset]:
    """Read the page's files from the installed package."""
    folder = resources.files("procession.server.studio").joinpath("assets")
    out: dict[str, Asset] = {}
    for name, media_type in ASSETS.items():
        body = folder.joinpath(name).read_bytes()
        etag = '"' + hashlib.sha256(body).hexdigest()[:32] + '"'
        out[name] = Asset(body, media_type, etag)
    return out


def page_without_slash(page: Asset) -> Asset:
    """The page as served at ``/studio``: its asset links are relative (``assets/...``, so
    Studio works under whatever prefix the app is mounted at), which from ``/studio`` itself
    must read ``studio/assets/...``."""
    body = page.body.replace(b'="assets/', b'="studio/assets/')
    etag = '"' + hashlib.sha256(body).hexdigest()[:32] + '"'
    return Asset(body, page.media_type, etag)


def page_routes() -> list[Route]:
    """``GET /studio`` (the page) and ``GET /studio/assets/{name}`` (its script and style)."""
    assets = load_assets()
    page = assets["index.html"]
    bare = page_without_slash(page)

    async def index(request: Request) -> Response:
        return page.respond(request)

    async def index_without_slash(request: Request) -> Response:
        return bare.respond(request)

    async def asset(request: Request) -> Response:
        found = assets.get(request.path_params["name"])
        if found is None or found is page:
            raise HTTPError(404, "No such Studio file")
        return found.respond(request)

    return [
        Route("/studio", index_without_slash, methods=["GET"]),
        Route("/studio/", index, methods=["GET"]),
        Route("/studio/assets/{name}", asset, methods=["GET"]),
    ]
