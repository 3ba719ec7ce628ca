"""The offline moderation classifier: three small hashed heads shipped in the wheel.

One logistic-regression head per goal category — clear threats, harassment aimed at a
person, first-person self-harm — over the language-agnostic features of
:mod:`~procession.guardrails._text.hashed_head` (character 2- to 4-grams, words and word pairs),
read in windows. They catch phrasings the rules do not list ("I'll snap your neck", "you're
going to end up in a body bag") in any of the languages they were trained on. Each head's
bias was shifted so that its dev threshold sits at probability 0.5, the processor's default
``threshold``. Training data, licences and the script: docs/guardrails/moderation.md,
``scripts/moderation_data/``.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Final

import numpy as np

from procession.guardrails._moderation.moderation_context import (
    exempt_categories,
    harm_vocabulary,
    unquoted,
)
from procession.guardrails._text.hashed_head import HashedHead, cached_head, features, windows

__all__ = ["HEADS", "classifier_scores", "moderation_heads"]

_DATA = Path(__file__).resolve().parent / "data"
HEADS: Final[dict[str, Path]] = {
    "harassment/threatening": _DATA / "moderation_threat_head.npz",
    "harassment": _DATA / "moderation_harassment_head.npz",
    "self-harm/intent": _DATA / "moderation_self_harm_head.npz",
}
"""The category each shipped head scores, and its file."""


@lru_cache(maxsize=1)
def moderation_heads() -> tuple[tuple[str, HashedHead], ...]:
    """The shipped heads, loaded once per process (they share one feature size)."""
    heads = tuple((category, cached_head(str(path))) for category, path in HEADS.items())
    if len({head.bits for _, head in heads}) != 1:
        raise ValueError("the moderation heads must share one feature size")
    return heads


def classifier_scores(normalised: str) -> dict[str, float]:
    """Each head's probability for ``normalised`` text (the highest over its windows), read
    with its quotations cut out; ``{}`` when the text uses no word of harm; less the
    categories its context lifts (a game, a joke: see ``moderation_context``)."""
    normalised = unquoted(normalised)
    if not harm_vocabulary(normalised):
        return {}
    heads = moderation_heads()
    bits = heads[0][1].bits
    best = dict.fromkeys(HEADS, -np.inf)
    for window in windows(normalised):
        index, value = features(window, bits)
        for category, head in heads:
            logit = float(np.dot(head.weights[index], value)) + head.bias
            best[category] = max(best[category], logit)
    exempt = exempt_categories(normalised)
    return {
        category: float(1.0 / (1.0 + np.exp(-logit)))
        for category, logit in best.items()
        if category not in exempt
    }
