"""Provider key formats found by their documented shape (decision 0290).

Each provider documents how its keys look: a literal prefix (``figd_``, ``glsa_``,
``hvs.``), a length and an alphabet, sometimes a check part (Grafana's ``_<8 hex>`` tail).
This module holds the formats the older ``api-key`` shapes did not list, as four
:class:`~procession.guardrails._redaction.detectors.Detector` patterns of the ``api-key`` type:

- ``LOWER`` and ``CAPITAL``: formats led by a literal head (lower case or punctuation first,
  or a capital first), among them 1Password service accounts (``ops_eyJ``),
  Artifactory (``AKC``), Azure storage and service-bus connection strings (``AccountKey=``,
  ``SharedAccessKey=``), Docker ``config.json`` ``"auth"`` values (base64 of ``user:password``),
  Figma (``figd_``), Grafana service accounts and Cloud tokens (``glsa_``, ``glc_``), Notion
  (``ntn_``, ``secret_``), Square (``EAAA``, ``sq0atp-``, ``sq0csp-``), HashiCorp Vault
  (``hvs.``, ``hvb.``, ``hvr.``) and an AWS secret access key after its JSON field name
  (``"SecretAccessKey": "..."``), and some thirty more documented prefixes;
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
    "CAPITAL_PATTERN",
    "CAPITAL_PREFIX",
    "CAPITAL_SKETCH",
    "CAPITAL_TRIGGER",
    "DISCORD_PATTERN",
    "DISCORD_PREFIX",
    "DISCORD_SKETCH",
    "LOWER_PATTERN",
    "LOWER_PREFIX",
    "LOWER_SKETCH",
    "MAILCHIMP_PATTERN",
    "MAILCHIMP_PREFIX",
    "MAILCHIMP_SKETCH",
    "key_value",
]

_START = r"(?<![A-Za-z0-9\-])(?<![A-Za-z0-9_\-]_)"
"""No key starts inside a word; an underscore may precede it only as markdown emphasis."""
_END = r"(?![A-Za-z0-9])"

_QUOTE = r"\\?\""
_FIELD_GAP = r"[ \t]{0,3}[:=][ \t]{0,3}"

# (head, the rest of the key, what the family pass looks for): a head led by a capital is
# searched in the ``capital`` family's pass (the sketch follows the capital), any other in
# the ``literal`` family's pass (the sketch is led by the punctuation ending the head, so that
# `re` skips through text to it in C).
_LOWER = (
    ("ops_eyJ", r"[A-Za-z0-9+/=_\-]{50,}", r"_(?<=ops_)eyJ"),  # 1Password service account
    ("figd_", r"[A-Za-z0-9_\-]{38,}", r"_(?<=figd_)"),  # Figma
    ("glsa_", r"[A-Za-z0-9]{32}_[0-9a-fA-F]{8}", r"_(?<=glsa_)"),  # Grafana service account
    ("glc_", r"[A-Za-z0-9+/]{32,}={0,2}", r"_(?<=glc_)"),  # Grafana Cloud
    ("ntn_", r"[0-9]{11}[A-Za-z0-9]{35}", r"_(?<=ntn_)"),  # Notion
    ("secret_", r"[A-Za-z0-9]{43}", r"_(?<=secret_)"),  # Notion, before ntn_
    ("sq0atp-", r"[A-Za-z0-9_\-]{22,43}", r"-(?<=sq0atp-)"),  # Square application token
    ("sq0csp-", r"[A-Za-z0-9_\-]{22,43}", r"-(?<=sq0csp-)"),  # Square application secret
    ("hvs.", r"[A-Za-z0-9_\-]{24,}", r"\.(?<=hvs\.)"),  # HashiCorp Vault service token
    ("hvb.", r"[A-Za-z0-9_\-]{24,}", r"\.(?<=hvb\.)"),  # ... batch token
    ("hvr.", r"[A-Za-z0-9_\-]{24,}", r"\.(?<=hvr\.)"),  # ... recovery token
    ("dp.", r"(?:pt|st|ct|sa|scim|audit)\.[A-Za-z0-9]{40,}", r"\.(?<=dp\.)"),  # Doppler
    ("pscale_", r"(?:tkn|pw|oauth)_[A-Za-z0-9_\-.]{32,}", r"_(?<=pscale_)"),  # PlanetScale
    ("pul-", r"[a-f0-9]{40}", r"-(?<=pul-)"),  # Pulumi
    ("sntrys_", r"[A-Za-z0-9+/=_\-]{40,}", r"_(?<=sntrys_)"),  # Sentry organisation token
    ("sntryu_", r"[a-f0-9]{64}", r"_(?<=sntryu_)"),  # Sentry user token
    ("sbp_", r"[a-f0-9]{40}", r"_(?<=sbp_)"),  # Supabase
    ("tskey-", r"(?:auth|api|client|webhook|scim)-[A-Za-z0-9]{8,}-[A-Za-z0-9]{16,}",
     r"-(?<=tskey-)"),  # Tailscale
    ("dt0c01.", r"[A-Z0-9]{24}\.[A-Z0-9]{64}", r"\.(?<=dt0c01\.)"),  # Dynatrace
    ("sk.eyJ", r"[A-Za-z0-9_\-]{50,}\.[A-Za-z0-9_\-]{20,}", r"\.(?<=sk\.)eyJ"),  # Mapbox
    ("pat", r"[A-Za-z0-9]{14}\.[a-f0-9]{64}", r"\.(?<=pat[A-Za-z0-9]{14}\.)"),  # Airtable
    ("shippo_", r"(?:live|test)_[a-f0-9]{40}", r"_(?<=shippo_)"),  # Shippo
    ("rzp_", r"(?:live|test)_[A-Za-z0-9]{14}", r"_(?<=rzp_)"),  # Razorpay
    ("dckr_pat_", r"[A-Za-z0-9_\-]{27,}", r"_(?<=dckr_)"),  # Docker Hub
    ("glptt-", r"[A-Za-z0-9_\-]{20,}", r"-(?<=glptt-)"),  # GitLab pipeline trigger
    ("gldt-", r"[A-Za-z0-9_\-]{20,}", r"-(?<=gldt-)"),  # GitLab deploy token
    ("glrt-", r"[A-Za-z0-9_\-]{20,}", r"-(?<=glrt-)"),  # GitLab runner token
    ("glcbt-", r"[A-Za-z0-9_\-]{20,}", r"-(?<=glcbt-)"),  # GitLab CI/CD job token
    ("glft-", r"[A-Za-z0-9_\-]{20,}", r"-(?<=glft-)"),  # GitLab feed token
    ("glimt-", r"[A-Za-z0-9_\-]{20,}", r"-(?<=glimt-)"),  # GitLab incoming mail token
    ("glsoat-", r"[A-Za-z0-9_\-]{20,}", r"-(?<=glsoat-)"),  # GitLab SCIM token
    ("gloas-", r"[A-Za-z0-9_\-]{20,}", r"-(?<=gloas-)"),  # GitLab OAuth secret
    ("nfp_", r"[A-Za-z0-9]{36}", r"_(?<=nfp_)"),  # Netlify
    ("rnd_", r"[A-Za-z0-9]{32}", r"_(?<=rnd_)"),  # Render
    ("xkeysib-", r"[a-f0-9]{64}-[A-Za-z0-9]{16}", r"-(?<=xkeysib-)"),  # Brevo
    ("rubygems_", r"[a-f0-9]{48}", r"_(?<=rubygems_)"),  # RubyGems
)  # fmt: skip
_CAPITAL = (
    ("AKC", r"[A-Za-z0-9]{40,}", "KC"),  # Artifactory
    ("AccountKey=", r"[A-Za-z0-9+/]{20,}={0,2}", "ccountKey="),  # Azure storage
    ("SharedAccessKey=", r"[A-Za-z0-9+/]{20,}={0,2}", "haredAccessKey="),  # Azure service bus
    ("EAA", r"[A-Za-z0-9][A-Za-z0-9_\-]{55,}", "AA"),  # Square (EAAA...) and Meta tokens
    ("ATATT3xFf", r"[A-Za-z0-9_\-=]{50,}", "TATT3xFf"),  # Atlassian API token
    ("ATCTT3xFf", r"[A-Za-z0-9_\-=]{50,}", "TCTT3xFf"),  # Confluence token
    ("ATBB", r"[A-Za-z0-9_=.\-]{32,}", "TBB"),  # Bitbucket app password
    ("PMAK-", r"[a-f0-9]{24}-[a-f0-9]{34}", "MAK-"),  # Postman
    ("NRAK-", r"[A-Z0-9]{27}", "RAK-"),  # New Relic user key
    ("AGE-SECRET-KEY-1", r"[02-9AC-HJ-NP-Z]{58}", "GE-SECRET-KEY-1"),  # age
    ("GOCSPX-", r"[A-Za-z0-9_\-]{28}", "OCSPX-"),  # Google OAuth client secret
    ("CFPAT-", r"[A-Za-z0-9_\-]{43}", "FPAT-"),  # Contentful
    ("FLWSECK", r"(?:_TEST)?-[a-fA-F0-9]{32}-X", "LWSECK"),  # Flutterwave
    ("EZAK", r"[A-Za-z0-9]{54}", "ZAK"),  # EasyPost
    ("LTAI", r"[A-Za-z0-9]{20}", "TAI"),  # Alibaba Cloud AccessKey id
    ("AKID", r"[A-Za-z0-9]{32}", "KID"),  # Tencent Cloud SecretId
    ("HRKU-", r"[A-Za-z0-9_\-]{58,}", "RKU-"),  # Heroku
    ("SecretAccessKey", rf"{_QUOTE}?{_FIELD_GAP}{_QUOTE}?[A-Za-z0-9/+]{{40}}",
     "ecretAccessKey"),  # AWS secret access key after its JSON field
)  # fmt: skip
_DOCKER = rf"auth{_QUOTE}{_FIELD_GAP}{_QUOTE}[A-Za-z0-9+/]{{12,}}={{0,2}}"
"""A Docker ``config.json`` ``"auth"`` value (base64 of ``user:password``)."""
_FIELDS = ("auth", "SecretAccessKey")
"""Field names a key's value follows after a quote, a colon and spaces (JSON)."""


def _literal_prefix(word: str) -> str:
    out = ""
    for char in reversed(word):
        out = re.escape(char) + (f"(?:{out})?" if out else "")
    return out


def _pattern(formats: tuple[tuple[str, str, str], ...], *extra: str) -> str:
    shapes = [re.escape(head) + rest for head, rest, _ in formats]
    return f"{_START}(?:{'|'.join((*shapes, *extra))}){_END}"


def _prefix(formats: tuple[tuple[str, str, str], ...]) -> str:
    heads = [head for head, _, _ in formats if head not in _FIELDS]
    return (
        f"{_START}(?:{'|'.join(_literal_prefix(h) for h in (*heads, *_FIELDS))}"
        rf"|(?:{'|'.join(re.escape(h) for h in heads)})[A-Za-z0-9_\-.+/=]*"
        rf"|(?:{'|'.join(_FIELDS)})\\?\"?[ \t]{{0,3}}(?:[:=][ \t]{{0,3}}\\?\"?[A-Za-z0-9+/=]*)?)\Z"
    )


LOWER_PATTERN = _pattern(_LOWER, _DOCKER)
"""The formats whose head is not led by a capital, and Docker ``auth`` values."""
LOWER_PREFIX = _prefix(_LOWER)
"""What more text could turn into a match (a superset: it only holds text back longer)."""
LOWER_SKETCH = "|".join((*(s for _, _, s in _LOWER), r"\"(?<=auth\")", r"\\(?<=auth\\)"))
"""The ``literal`` family's part: led by the punctuation ending each head (a quote or an
escaping backslash after ``auth``)."""
CAPITAL_PATTERN = _pattern(_CAPITAL)
"""The formats whose head is led by a capital."""
CAPITAL_PREFIX = _prefix(_CAPITAL)
"""What more text could turn into a match."""
CAPITAL_SKETCH = "|".join(s for _, _, s in _CAPITAL)
"""The ``capital`` family's part: what follows the capital."""
CAPITAL_TRIGGER = "|".join(re.escape(h) for h, _, _ in _CAPITAL)
"""A literal of every capital-led format (its head)."""

MAILCHIMP_PATTERN = r"[0-9a-f](?<![A-Za-z0-9\-][0-9a-f])[0-9a-f]{31}-us[0-9]{1,2}" + _END
"""A Mailchimp API key: 32 lower-case hex digits, ``-us`` and the data centre's number."""
MAILCHIMP_PREFIX = r"(?<![A-Za-z0-9\-])[0-9a-f]{1,32}(?:-(?:u(?:s[0-9]{0,2})?)?)?\Z"
"""What more text could turn into a Mailchimp key."""

DISCORD_PATTERN = (
    r"[MNO](?<![A-Za-z0-9_\-][MNO])[A-Za-z0-9_\-]{23,25}\.[A-Za-z0-9_\-]{6}\."
    r"[A-Za-z0-9_\-]{27,38}" + _END
)
"""A Discord bot token: the base64 user id (``M``, ``N`` or ``O`` first), a six-character
timestamp and the HMAC, dot-separated."""
MAILCHIMP_SKETCH = r"-us[0-9]"
"""The ``literal`` family's part for Mailchimp keys."""
DISCORD_SKETCH = r"\.[A-Za-z0-9_\-]{6}\.[A-Za-z0-9_\-]{27}"
"""The ``literal`` family's part for Discord tokens: the timestamp between two dots."""
DISCORD_PREFIX = (
    r"(?<![A-Za-z0-9_\-])[MNO][A-Za-z0-9_\-]{0,25}(?:\.[A-Za-z0-9_\-]{0,6}"
    r"(?:\.[A-Za-z0-9_\-]*)?)?\Z"
)
"""What more text could turn into a Discord token."""

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
