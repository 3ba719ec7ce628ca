"""Provider key formats found by their documented shape (decision 0290).

Each provider documents how its keys look: a literal prefix (``figd_``, ``glsa_``,
``hvs.``), a length and an alphabet, sometimes a check part (Grafana's ``_<8 hex>`` tail).
This module holds the formats the older ``api-key`` shapes did not list, as three
:class:`~procession.processors.builtin.detectors.Detector` patterns of the ``api-key`` type:

- ``PREFIXED``: formats led by a literal: 1Password service accounts (``ops_eyJ``),
  Artifactory (``AKC``), Azure storage and service-bus connection strings (``AccountKey=``,
  ``SharedAccessKey=``), Docker ``config.json`` ``"auth"`` values (base64 of ``user:password``),
  Figma (``figd_``), Grafana service accounts and Cloud tokens (``glsa_``, ``glc_``), Notion
  (``ntn_``, ``secret_``), Square (``EAAA``, ``sq0atp-``, ``sq0csp-``), HashiCorp Vault
  (``hvs.``, ``hvb.``, ``hvr.``) and an AWS secret access key after its JSON field name
  (``"SecretAccessKey": "..."``);
- ``MAILCHIMP``: 32 hex digits and the data-centre suffix (``...-us20``);
- ``DISCORD``: a bot token, three base64url parts (user id, timestamp, HMAC).

A value made of one character class only (``AKCONFIGURATIONVALUE...``) is not a key: random
keys mix letters and digits or both cases, which every format here documents.
"""

from __future__ import annotations

import base64
import binascii
import re

__all__ = [
    "DISCORD_PATTERN",
    "DISCORD_PREFIX",
    "MAILCHIMP_PATTERN",
    "MAILCHIMP_PREFIX",
    "PREFIXED_PATTERN",
    "PREFIXED_PREFIX",
    "PREFIXED_TRIGGER",
    "key_value",
]

_START = r"(?<![A-Za-z0-9\-])(?<![A-Za-z0-9_\-]_)"
"""No key starts inside a word; an underscore may precede it only as markdown emphasis."""
_END = r"(?![A-Za-z0-9])"

_QUOTE = r"\\?\""
_FIELD_GAP = r"[ \t]{0,3}[:=][ \t]{0,3}"

_PREFIXED = (
    r"ops_eyJ[A-Za-z0-9+/=_\-]{50,}",  # 1Password service account
    r"AKC[A-Za-z0-9]{40,}",  # Artifactory API key
    r"(?:Account|SharedAccess)Key=[A-Za-z0-9+/]{20,}={0,2}",  # Azure connection strings
    rf"auth{_QUOTE}{_FIELD_GAP}{_QUOTE}[A-Za-z0-9+/]{{12,}}={{0,2}}",  # Docker config.json
    r"figd_[A-Za-z0-9_\-]{38,}",  # Figma personal access token
    r"glsa_[A-Za-z0-9]{32}_[0-9a-fA-F]{8}",  # Grafana service account
    r"glc_[A-Za-z0-9+/]{32,}={0,2}",  # Grafana Cloud
    r"ntn_[0-9]{11}[A-Za-z0-9]{35}",  # Notion integration
    r"secret_[A-Za-z0-9]{43}",  # Notion integration (before ntn_)
    r"EAAA[A-Za-z0-9_\-]{56,}",  # Square access token
    r"sq0(?:atp|csp)-[A-Za-z0-9_\-]{22,43}",  # Square application token and secret
    r"hv[sbr]\.[A-Za-z0-9_\-]{24,}",  # HashiCorp Vault service, batch and recovery tokens
    rf"SecretAccessKey{_QUOTE}?{_FIELD_GAP}{_QUOTE}?[A-Za-z0-9/+]{{40}}",  # AWS JSON
)
_HEADS = (
    "ops_eyJ", "AKC", "AccountKey=", "SharedAccessKey=", 'auth"', 'auth\\"', "figd_",
    "glsa_", "glc_", "ntn_", "secret_", "EAAA", "sq0atp-", "sq0csp-", "hvs.", "hvb.", "hvr.",
    "SecretAccessKey",
)  # fmt: skip


def _literal_prefix(word: str) -> str:
    out = ""
    for char in reversed(word):
        out = re.escape(char) + (f"(?:{out})?" if out else "")
    return out


PREFIXED_PATTERN = f"{_START}(?:{'|'.join(_PREFIXED)}){_END}"
"""Every literal-led format, not inside a word."""
PREFIXED_PREFIX = (
    f"{_START}(?:{'|'.join(_literal_prefix(h) for h in _HEADS)}"
    rf"|(?:{'|'.join(re.escape(h) for h in _HEADS)})[A-Za-z0-9_\-.+/=:\"\\ \t]*)\Z"
)
"""What more text could turn into a match (a superset: it only holds text back longer)."""
PREFIXED_TRIGGER = (
    r"ops_|AKC|Key=|auth\\?\"|figd_|glsa_|glc_|ntn_|secret_|EAAA|sq0|hv[sbr]\.|SecretAccessKey"
)
"""A literal of every literal-led format."""

MAILCHIMP_PATTERN = r"[0-9a-f](?<![A-Za-z0-9\-][0-9a-f])[0-9a-f]{31}-us[0-9]{1,2}" + _END
"""A Mailchimp API key: 32 lower-case hex digits, ``-us`` and the data centre's number."""
MAILCHIMP_PREFIX = r"(?<![A-Za-z0-9\-])[0-9a-f]{1,32}(?:-(?:u(?:s[0-9]{0,2})?)?)?\Z"

DISCORD_PATTERN = (
    r"[MNO](?<![A-Za-z0-9_\-][MNO])[A-Za-z0-9_\-]{23,25}\.[A-Za-z0-9_\-]{6}\."
    r"[A-Za-z0-9_\-]{27,38}" + _END
)
"""A Discord bot token: the base64 user id (``M``, ``N`` or ``O`` first), a six-character
timestamp and the HMAC, dot-separated."""
DISCORD_PREFIX = (
    r"(?<![A-Za-z0-9_\-])[MNO][A-Za-z0-9_\-]{0,25}(?:\.[A-Za-z0-9_\-]{0,6}"
    r"(?:\.[A-Za-z0-9_\-]*)?)?\Z"
)

_BODY = re.compile(r"[A-Za-z0-9+/_\-]{12,}={0,2}\Z")
_CLASSES = (re.compile("[a-z]"), re.compile("[A-Z]"), re.compile("[0-9]"))


def _mixed(value: str) -> bool:
    return sum(1 for c in _CLASSES if c.search(value)) >= 2


def _docker_auth(value: str) -> bool:
    """A Docker ``auth`` value is base64 of ``user:password``."""
    try:
        decoded = base64.b64decode(value + "=" * (-len(value) % 4), validate=True)
    except (binascii.Error, ValueError):
        return False
    return b":" in decoded


def key_value(text: str) -> int:
    """Length of the valid part of a candidate of these formats (0: not a key).

    The key's body (after its field name or prefix) must mix character classes; a Docker
    ``auth`` value must decode to ``user:password``.
    """
    found = _BODY.search(text)
    body = found.group() if found else text
    if text.startswith("auth"):
        return len(text) if found is not None and _docker_auth(body) else 0
    return len(text) if _mixed(body) else 0
