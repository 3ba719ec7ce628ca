"""Who is calling: API keys and bearer JWTs, each naming the caller's resource.

A request carries its credential as ``Authorization: Bearer <key or token>`` (what
``@mastra/client-js`` and the AI SDK's transports send through their ``headers`` option) or
as ``X-API-Key: <key>``. An API key maps to one resource id; a JWT is verified with PyJWT —
HS256 with a shared secret, or RS256/ES256 with the public keys of a local JWKS file — and its
``sub`` claim (configurable) is the resource. The resource decides everything a request may
see and change: its own threads, and nothing else.

API keys are kept as SHA-256 digests, so the secret is compared as a fixed-size digest and
never held in a dict as itself.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from procession._checks import check_int, wrong
from procession.errors import ConfigurationError
from procession.server.errors import HTTPError

__all__ = ["APIKey", "Auth", "JWTAuth"]

_HMAC = frozenset({"HS256", "HS384", "HS512"})
_ASYMMETRIC = frozenset({"RS256", "RS384", "RS512", "ES256", "ES384", "ES512", "PS256", "PS384"})
_CHALLENGE = {"WWW-Authenticate": 'Bearer realm="procession"'}


@dataclass(frozen=True, slots=True)
class APIKey:
    """An API key and the resource its requests belong to."""

    key: str
    resource_id: str

    def __post_init__(self) -> None:
        if not isinstance(self.key, str) or len(self.key) < 16:
            raise ConfigurationError("APIKey.key: expected a string of at least 16 characters")
        if not isinstance(self.resource_id, str) or not self.resource_id:
            raise wrong("APIKey.resource_id", self.resource_id, "a non-empty string")

    def __repr__(self) -> str:  # never print the secret
        return f"APIKey(key='…', resource_id={self.resource_id!r})"


@dataclass(frozen=True, slots=True, kw_only=True)
class JWTAuth:
    """Bearer JWTs, verified with PyJWT.

    Give ``secret`` for HMAC tokens (HS256 by default) or ``jwks_file`` (a JSON Web Key Set
    on disk; RS256 and ES256 by default) for tokens signed with a private key. The token
    must be signed with one of ``algorithms``, be within its ``exp``/``nbf`` window (with
    ``leeway`` seconds), and match ``audience`` and ``issuer`` when they are set. Its
    ``resource_claim`` (``sub`` by default) names the resource.

    Attributes:
        secret: The shared secret of HMAC tokens (at least 32 bytes).
        jwks_file: A JWKS file with the public keys of signed tokens; a token's ``kid``
            header picks the key (a set of one key needs none).
        algorithms: The accepted algorithms. HMAC and public-key algorithms never mix.
        resource_claim: The claim holding the resource id.
        audience: The required ``aud``.
        issuer: The required ``iss``.
        require_exp: Refuse tokens without an ``exp`` claim (default ``True``).
        leeway: Seconds of clock skew allowed on ``exp`` and ``nbf``.
    """

    secret: str | None = field(default=None, repr=False)
    jwks_file: str | Path | None = None
    algorithms: Sequence[str] | None = None
    resource_claim: str = "sub"
    audience: str | None = None
    issuer: str | None = None
    require_exp: bool = True
    leeway: int = 0
    _keys: Any = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if (self.secret is None) == (self.jwks_file is None):
            raise ConfigurationError("JWTAuth: give exactly one of secret= or jwks_file=")
        default: tuple[str, ...]
        if self.secret is not None:
            if not isinstance(self.secret, str) or len(self.secret.encode()) < 32:
                raise ConfigurationError("JWTAuth.secret: expected a string of at least 32 bytes")
            allowed, default = _HMAC, ("HS256",)
        else:
            allowed, default = _ASYMMETRIC, ("RS256", "ES256")
            object.__setattr__(self, "_keys", _load_jwks(Path(self.jwks_file)))  # type: ignore[arg-type]
        algorithms = default if self.algorithms is None else self.algorithms
        if isinstance(algorithms, str) or not algorithms or not set(algorithms) <= allowed:
            raise wrong(
                "JWTAuth.algorithms", self.algorithms, f"a list drawn from {sorted(allowed)}"
            )
        object.__setattr__(self, "algorithms", tuple(algorithms))
        if self.secret is not None:  # RFC 7518 3.2: a key at least as long as the hash
            needed = max(int(name[2:]) // 8 for name in algorithms)
            if len(self.secret.encode()) < needed:
                raise ConfigurationError(
                    f"JWTAuth.secret: {'/'.join(algorithms)} needs at least {needed} bytes"
                )
        if not isinstance(self.resource_claim, str) or not self.resource_claim:
            raise wrong("JWTAuth.resource_claim", self.resource_claim, "a claim name")
        check_int("JWTAuth.leeway", self.leeway, minimum=0)

    def resource_of(self, token: str) -> str:
        """Verify ``token`` and return its resource; ``HTTPError(401)`` when it fails."""
        import jwt

        try:
            key = self.secret if self.secret is not None else self._key_for(token)
            claims = jwt.decode(
                token,
                key,
                algorithms=list(self.algorithms or ()),
                audience=self.audience,
                issuer=self.issuer,
                leeway=self.leeway,
                options={"require": ["exp"] if self.require_exp else []},
            )
        except jwt.PyJWTError as exc:
            raise HTTPError(401, f"Invalid token: {exc}", headers=_CHALLENGE) from None
        resource = claims.get(self.resource_claim)
        if not isinstance(resource, str) or not resource:
            raise HTTPError(
                401, f"Invalid token: no {self.resource_claim!r} claim", headers=_CHALLENGE
            )
        return resource

    def _key_for(self, token: str) -> Any:
        import jwt

        kid = jwt.get_unverified_header(token).get("kid")
        keys = [k for k in self._keys.keys if kid is None or k.key_id == kid]
        if len(keys) != 1:
            raise jwt.InvalidKeyError(f"no single key in the JWKS for kid {kid!r}")
        return keys[0]


def _load_jwks(path: Path) -> Any:
    import jwt

    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        keys = jwt.PyJWKSet.from_dict(data)
    except (OSError, ValueError, jwt.PyJWTError) as exc:
        raise ConfigurationError(
            f"JWTAuth.jwks_file: cannot read keys from {path}: {exc}"
        ) from None
    for key in keys.keys:
        if key.algorithm_name in _HMAC or not hasattr(key.key, "public_bytes"):
            raise ConfigurationError(f"JWTAuth.jwks_file: {path} holds a non-public key")
    return keys


class Auth:
    """The credentials a server accepts; every request must carry one of them.

    Args:
        api_keys: ``{key: resource_id}`` or a list of :class:`APIKey`.
        jwt: A :class:`JWTAuth` for bearer tokens.

    A request without a credential, or with a wrong one, gets 401.
    """

    def __init__(
        self,
        *,
        api_keys: Mapping[str, str] | Sequence[APIKey] = (),
        jwt: JWTAuth | None = None,
    ) -> None:
        keys = (
            [APIKey(key, resource) for key, resource in api_keys.items()]
            if isinstance(api_keys, Mapping)
            else list(api_keys)
        )
        if not all(isinstance(k, APIKey) for k in keys):
            raise wrong("Auth.api_keys", api_keys, "a mapping of key to resource id, or APIKeys")
        if jwt is not None and not isinstance(jwt, JWTAuth):
            raise wrong("Auth.jwt", jwt, "a JWTAuth")
        if not keys and jwt is None:
            raise ConfigurationError("Auth: give api_keys= or jwt= (or no Auth at all)")
        self._keys = {_digest(k.key): k.resource_id for k in keys}
        self.jwt = jwt

    def __repr__(self) -> str:
        return f"Auth(api_keys={len(self._keys)}, jwt={self.jwt!r})"

    def resource_of(self, authorization: str | None, api_key: str | None) -> str:
        """The resource of a request's credential; ``HTTPError(401)`` when there is none or
        it is wrong."""
        token = api_key
        if authorization is not None:
            scheme, _, value = authorization.strip().partition(" ")
            if scheme.lower() != "bearer" or not value.strip():
                raise HTTPError(
                    401, "Invalid credentials: use 'Bearer <token>'", headers=_CHALLENGE
                )
            token = value.strip()
        if not token:
            raise HTTPError(401, "Missing credentials", headers=_CHALLENGE)
        resource = self._keys.get(_digest(token))
        if resource is not None:
            return resource
        if self.jwt is not None and token.count(".") == 2:
            return self.jwt.resource_of(token)
        raise HTTPError(401, "Invalid credentials", headers=_CHALLENGE)


def _digest(key: str) -> bytes:
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).digest()
