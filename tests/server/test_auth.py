"""API keys and JWTs (HS256, RS256/ES256 from a local JWKS file), on a real socket."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from procession import ConfigurationError
from procession.server import APIKey, Auth, JWTAuth, create_app

from .conftest import live_server, scripted_agent

SECRET = "s" * 64


def token(
    claims: dict[str, Any], key: Any = SECRET, algorithm: str = "HS256", **headers: Any
) -> str:
    body = {"exp": int(time.time()) + 60, **claims}
    return jwt.encode(body, key, algorithm=algorithm, headers=headers or None)


def jwks_file(tmp_path: Path) -> tuple[Path, Any, Any]:
    rsa_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    ec_key = ec.generate_private_key(ec.SECP256R1())
    rsa_jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(rsa_key.public_key()))
    ec_jwk = json.loads(jwt.algorithms.ECAlgorithm.to_jwk(ec_key.public_key()))
    keys = [
        {**rsa_jwk, "kid": "r1", "alg": "RS256", "use": "sig"},
        {**ec_jwk, "kid": "e1", "alg": "ES256", "use": "sig"},
    ]
    path = tmp_path / "jwks.json"
    path.write_text(json.dumps({"keys": keys}))
    return path, rsa_key, ec_key


async def resource_seen(auth: Auth, headers: dict[str, str]) -> tuple[int, Any]:
    """The status and the resource a generate call ran as (the owner of the thread it made)."""
    from procession import Memory
    from procession.memory import SQLiteStorage

    memory = Memory(SQLiteStorage(":memory:"))
    app = create_app(scripted_agent("a", memory=memory), auth=auth)
    async with live_server(app) as live, live.client() as client:
        response = await client.post(
            "/api/agents/a/generate",
            json={"messages": "hi", "memory": {"thread": "t"}},
            headers=headers,
        )
        if response.status_code != 200:
            return response.status_code, response.json()
    owners = [r for r in ("alice", "bob") if await memory.list_threads(r)]
    return 200, owners[0] if len(owners) == 1 else owners


@pytest.mark.asyncio
async def test_hs256_tokens_name_the_resource_by_sub_or_a_chosen_claim() -> None:
    auth = Auth(jwt=JWTAuth(secret=SECRET))
    assert await resource_seen(auth, {"Authorization": f"Bearer {token({'sub': 'alice'})}"}) == (
        200,
        "alice",
    )
    custom = Auth(jwt=JWTAuth(secret=SECRET, resource_claim="tenant", audience="api", issuer="idp"))
    claims = {"sub": "x", "tenant": "alice", "aud": "api", "iss": "idp"}
    assert await resource_seen(custom, {"Authorization": f"Bearer {token(claims)}"}) == (
        200,
        "alice",
    )


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("claims", "key", "algorithm", "why"),
    [
        ({"sub": "alice", "exp": int(time.time()) - 600}, SECRET, "HS256", "expired"),
        ({"sub": "alice"}, "t" * 64, "HS256", "Signature"),
        ({"sub": "alice"}, SECRET, "HS512", "alg value"),
        ({}, SECRET, "HS256", "'sub'"),
        ({"sub": 7}, SECRET, "HS256", "sub"),
    ],
)
async def test_bad_tokens_are_401(
    claims: dict[str, Any], key: str, algorithm: str, why: str
) -> None:
    auth = Auth(jwt=JWTAuth(secret=SECRET))
    status, body = await resource_seen(
        auth, {"Authorization": f"Bearer {token(claims, key, algorithm)}"}
    )
    assert status == 401
    assert why.lower() in body["error"].lower()


@pytest.mark.asyncio
async def test_unsigned_and_wrong_audience_tokens_are_401() -> None:
    auth = Auth(jwt=JWTAuth(secret=SECRET, audience="api"))
    unsigned = jwt.encode({"sub": "alice", "exp": int(time.time()) + 60}, None, algorithm="none")  # type: ignore[arg-type]
    for bad in (unsigned, token({"sub": "alice", "aud": "other"}), token({"sub": "alice"})):
        status, _ = await resource_seen(auth, {"Authorization": f"Bearer {bad}"})
        assert status == 401


@pytest.mark.asyncio
async def test_rs256_and_es256_tokens_verify_against_the_jwks_file(tmp_path: Path) -> None:
    path, rsa_key, ec_key = jwks_file(tmp_path)
    auth = Auth(jwt=JWTAuth(jwks_file=path))
    rs = token({"sub": "alice"}, rsa_key, "RS256", kid="r1")
    es = token({"sub": "alice"}, ec_key, "ES256", kid="e1")
    assert await resource_seen(auth, {"Authorization": f"Bearer {rs}"}) == (200, "alice")
    assert await resource_seen(auth, {"Authorization": f"Bearer {es}"}) == (200, "alice")
    swapped = token({"sub": "alice"}, rsa_key, "RS256", kid="e1")  # the wrong key for its kid
    other = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    forged = token({"sub": "alice"}, other, "RS256", kid="r1")
    public_pem = rsa_key.public_key().public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo)
    hs_confusion = jwt.encode(
        {"sub": "alice", "exp": int(time.time()) + 60}, public_pem[:40], algorithm="HS256"
    )
    for bad in (swapped, forged, hs_confusion):
        status, _ = await resource_seen(auth, {"Authorization": f"Bearer {bad}"})
        assert status == 401


@pytest.mark.asyncio
async def test_api_keys_and_jwts_together() -> None:
    auth = Auth(api_keys=[APIKey("k" * 20, "alice")], jwt=JWTAuth(secret=SECRET))
    assert await resource_seen(auth, {"X-API-Key": "k" * 20}) == (200, "alice")
    assert await resource_seen(auth, {"Authorization": f"Bearer {token({'sub': 'alice'})}"}) == (
        200,
        "alice",
    )
    status, body = await resource_seen(auth, {})
    assert (status, body) == (401, {"error": "Missing credentials"})


@pytest.mark.parametrize(
    ("build", "words"),
    [
        (lambda: Auth(), "api_keys= or jwt="),
        (lambda: Auth(api_keys={"short": "a"}), "at least 16"),
        (lambda: Auth(api_keys={"k" * 20: ""}), "APIKey.resource_id"),
        (lambda: Auth(api_keys=["k" * 20]), "Auth.api_keys"),  # type: ignore[list-item]
        (lambda: JWTAuth(), "exactly one"),
        (lambda: JWTAuth(secret="short"), "32 bytes"),
        (lambda: JWTAuth(secret="s" * 40, algorithms=["HS512"]), "64 bytes"),
        (lambda: JWTAuth(secret=SECRET, algorithms=["RS256"]), "JWTAuth.algorithms"),
        (lambda: JWTAuth(secret=SECRET, algorithms="HS256"), "JWTAuth.algorithms"),
        (lambda: JWTAuth(secret=SECRET, leeway=True), "JWTAuth.leeway"),
        (lambda: JWTAuth(jwks_file="/nonexistent/jwks.json"), "cannot read keys"),
    ],
)
def test_bad_auth_settings_are_configuration_errors(build: Any, words: str) -> None:  # D35
    with pytest.raises(ConfigurationError, match=words.replace("(", r"\(")):
        build()


def test_a_jwks_with_a_private_or_secret_key_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "secret.json"
    path.write_text(json.dumps({"keys": [{"kty": "oct", "k": "c2VjcmV0c2VjcmV0", "alg": "HS256"}]}))
    with pytest.raises(ConfigurationError, match="non-public key"):
        JWTAuth(jwks_file=path)


def test_reprs_never_show_secrets() -> None:
    auth = Auth(api_keys={"k" * 20: "alice"}, jwt=JWTAuth(secret=SECRET))
    assert "kkkk" not in repr(auth)
    assert SECRET not in repr(auth)
    assert "kkkk" not in repr(APIKey("k" * 20, "alice"))
