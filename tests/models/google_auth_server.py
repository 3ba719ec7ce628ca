"""Google service-account credentials whose token endpoint is a loopback :class:`ScriptedServer`.

A service-account key file names its ``token_uri``; ``google-auth`` refreshes a token by
posting a JWT assertion signed with the account's private key to it (the OAuth 2.0 JWT bearer
grant). Tests write such a file with a key made for the test, point
``GOOGLE_APPLICATION_CREDENTIALS`` at it, answer the token request with :func:`token_reply`
and check the assertion with :func:`verify_assertion`, so Application Default Credentials run
for real without leaving the machine.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.models.scripted_server import Received, Reply

__all__ = ["ServiceAccount", "token_reply", "verify_assertion"]

CLOUD_PLATFORM = "https://www.googleapis.com/auth/cloud-platform"
GOOGLE_TOKEN_AUDIENCE = "https://oauth2.googleapis.com/token"


class ServiceAccount:
    """A service-account key file for ``project`` whose tokens come from ``token_uri``."""

    def __init__(self, directory: Path, token_uri: str, project: str = "proj-from-adc") -> None:
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric import rsa

        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        private = key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        ).decode()
        self.public_pem = (
            key.public_key()
            .public_bytes(
                serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
            )
            .decode()
        )
        self.token_uri = token_uri
        self.email = f"procession-test@{project}.iam.gserviceaccount.com"
        info = {
            "type": "service_account",
            "project_id": project,
            "private_key_id": "test-key-1",
            "private_key": private,
            "client_email": self.email,
            "client_id": "100000000000000000001",
            "token_uri": token_uri,
        }
        self.path = directory / "service-account.json"
        self.path.write_text(json.dumps(info), encoding="utf-8")


def token_reply(token: str = "ya29.loopback-token", expires_in: int = 3600) -> Reply:
    """The token endpoint's answer."""
    return Reply(body={"access_token": token, "expires_in": expires_in, "token_type": "Bearer"})


def verify_assertion(received: Received, account: ServiceAccount) -> dict[str, Any]:
    """Check a token request: the JWT bearer grant, signed by the account's key, for the
    cloud-platform scope; returns the assertion's claims."""
    from google.auth import jwt

    assert received.method == "POST"
    form = received.body
    assert form["grant_type"] == ["urn:ietf:params:oauth:grant-type:jwt-bearer"]
    # google-auth names Google's token endpoint as the audience whatever token_uri says
    claims: dict[str, Any] = jwt.decode(  # type: ignore[no-untyped-call]
        form["assertion"][0], certs=account.public_pem, audience=GOOGLE_TOKEN_AUDIENCE
    )
    assert claims["iss"] == account.email
    assert claims["scope"] == CLOUD_PLATFORM
    return claims
