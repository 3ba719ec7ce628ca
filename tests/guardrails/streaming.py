"""Feeding text to a redaction engine's stream scanner in pieces, for the class tests."""

from __future__ import annotations

import itertools

from procession.guardrails._redaction.redaction import RedactionEngine, apply


def streamed(engine: RedactionEngine, text: str, cuts: list[int]) -> str:
    """``text`` through one stream scanner of ``engine``, cut at ``cuts``, every detection
    replaced by ``#``."""
    scanner = engine.scanner()
    out: list[str] = []
    bounds = [0, *sorted({c for c in cuts if 0 < c < len(text)}), len(text)]
    for a, b in itertools.pairwise(bounds):
        released, found = scanner.feed(text[a:b])
        out.append(apply(released, found, lambda _: "#"))
    released, found = scanner.flush()
    out.append(apply(released, found, lambda _: "#"))
    return "".join(out)
