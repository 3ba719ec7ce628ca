"""Which dotted quads are IP addresses worth redacting (the ``ip-address`` type's IPv4 rule).

Two kinds of dotted quads are not: a four-part version number (``__version__ = '5.5.2.4'``,
``Version 2.10.0.3``, ``VERSION=1.2.3.4``, ``build 1.0.0.7``), recognised by the word before
it (``version``, ``ver``, ``build``: words a stream holds back until what follows arrives), and the
addresses that name no one: the loopback network ``127.0.0.0/8`` and ``0.0.0.0``. An object
identifier of four arcs (``ObjectIdentifier('1.3.101.112')``, ``OID 1.3.6.1``) is no address
either: the words before it say so (decision 0327).
"""

from __future__ import annotations

__all__ = ["OID_CONTEXT", "VERSION_CONTEXT", "ipv4_value"]

VERSION_CONTEXT = r"(?:(?<![A-Za-z])(?i:version|ver|build)[_\"' :=]{0,8})?"
"""An optional word before a dotted quad that makes it a version: the match then starts with
a letter, and :func:`ipv4_value` rejects it."""


def ipv4_value(text: str) -> int:
    """The validator: ``text``'s length for an address to redact, 0 for a version (``text``
    starts with the word before it) or a loopback or unspecified address."""
    if not text[:1].isdigit():
        return 0
    first = text.split(".", 1)[0]
    if first == "127" or text == "0.0.0.0":
        return 0
    return len(text)


OID_CONTEXT = (
    "(?<!Identifier\\(')(?<!Identifier\\(\")(?<!oid )(?<!OID )(?<!oid=)(?<!OID=)(?<!oid: )"
    "(?<!OID: )(?<!oid=')(?<!oid=\")(?<!OID=')(?<!OID=\")(?<!oid\\(')(?<!oid\\(\")"
)
"""Lookbehinds: no address right after an object identifier's name (``ObjectIdentifier('``,
``OID ``, ``oid=``): the quad is the identifier's four arcs."""
