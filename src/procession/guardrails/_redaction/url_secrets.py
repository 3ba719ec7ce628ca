"""What makes a URL a secret: a credential in its query or fragment (``secret-url``).

A link is not a secret (decision 0260): README prose, documentation and answers are full of
them. A URL carries one when it holds a credential: a password in its user information
(``postgres://app:s3cret@db``, found by the ``api-key`` type's user-information shape) or a
token, key, signature or password in a query or fragment parameter (a signed download link,
a password-reset link, ``?api_key=...``), or is itself one (a Slack or Discord incoming
webhook). The ``secret-url`` type finds those two; the
``url`` type, every link, stays available for whoever asks for it.
"""

from __future__ import annotations

import re

__all__ = [
    "SECRET_PARAMETERS",
    "SECRET_PATHS",
    "SECRET_URL_PATTERN",
    "SECRET_URL_SKETCH",
    "secret_url_value",
]

SECRET_PARAMETERS: tuple[str, ...] = (
    "access_token", "refresh_token", "id_token", "auth_token", "private_token", "token",
    "api_key", "apikey", "api-key", "key", "client_secret", "secret", "password", "passwd",
    "pwd", "sig", "signature", "x-amz-signature", "x-amz-security-token", "x-amz-credential",
    "x-goog-signature", "x-goog-credential", "jwt", "session", "sessionid", "session_id",
    "sid", "code", "auth",
)  # fmt: skip
"""Query and fragment parameters whose value is a credential."""

_URL_CHARS = r"[!#-&(-;=?-Z_a-z~]"  # printable ASCII but space " ' < > [ \ ] ^ ` { | }
_VALUE = r"[A-Za-z0-9%._~+/=\-]"

SECRET_PATHS: tuple[str, ...] = (
    "hooks.slack.com/services/", "hooks.slack.com/workflows/", "hooks.slack.com/triggers/",
    "discord.com/api/webhooks/", "discordapp.com/api/webhooks/", "webhook.office.com/webhookb2/",
    "api.telegram.org/bot",
)  # fmt: skip
"""Hosts and paths whose URL is itself the credential (incoming webhooks, bot tokens)."""

_PARAMETERS = "|".join(re.escape(p) for p in SECRET_PARAMETERS)
_PATHS = "|".join(re.escape(p) for p in SECRET_PATHS)

SECRET_URL_PATTERN = (
    r"[HhFfWw](?<![A-Za-z0-9][HhFfWw])(?i:(?<=h)ttps?://|(?<=f)tp://|(?<=w)ww\.)"
    rf"(?:(?i:{_PATHS})|{_URL_CHARS}*?[?&#;](?i:{_PARAMETERS})=)"
    rf"{_VALUE}{{8,}}(?:{_URL_CHARS}*[A-Za-z0-9/#=_\-~&%+])?"
)
"""A URL with a credential parameter, led by its first letter (``re`` skips to those)."""

SECRET_URL_SKETCH = r"://|\.(?<=[Ww][Ww][Ww]\.)"
"""What every such URL holds, led by a literal character (the ``literal`` family's pass)."""

_PARAMETER = re.compile(rf"(?:(?i:{_PATHS})|[?&#;](?i:{_PARAMETERS})=)({_VALUE}{{8,}})")
_NOT_A_VALUE = re.compile(
    r"(?i)[A-Z_%]*(?:YOUR|HERE|EXAMPLE|PLACEHOLDER|CHANGE_?ME|REPLACE|XXXX|REDACTED)"
    r"|%3C|%7B|%24|\*"
)
"""A value that names a credential instead of holding one (``YOUR_TOKEN``, ``%3Ctoken%3E``)."""


def secret_url_value(text: str) -> int:
    """The validator: ``text``'s length when a credential parameter holds a real value (one
    with a letter and a digit, not a placeholder), else 0."""
    for found in _PARAMETER.finditer(text):
        value = found.group(1)
        if _NOT_A_VALUE.match(value):
            continue
        if any(c.isdigit() for c in value) and any(c.isalpha() for c in value):
            return len(text)
    return 0
