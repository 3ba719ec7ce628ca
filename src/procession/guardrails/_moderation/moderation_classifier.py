"""The offline moderation classifier: three small heads shipped in the wheel.

One logistic-regression head per goal category — clear threats, harassment aimed at a
person, first-person self-harm — over the language-agnostic features of
:mod:`~procession.guardrails._text.hashed_head` (character 2- to 4-grams, words and word pairs),
read in windows, and, where the ``guardrails`` extra's sentence encoder is installed, an
encoder half (:mod:`~procession.guardrails._moderation.moderation_encoder`) whose logit is added to
the hashed one. They catch phrasings the rules do not list ("I'll snap your neck", "you're
going to end up in a body bag") in any of the languages they were trained on. Each head's
bias was shifted so that its dev threshold sits at probability 0.5, the processor's default
``threshold``. Without the encoder a head counts only when the text uses a word of harm
(``moderation_context.harm_vocabulary``); with it, the encoder is asked only when a hashed
half sees a faint sign of harm (its gate), and not in a text using a listed idiom of violence
("kill two birds with one stone", "ich lach mich tot": the hashed halves decide there).
Training data, licences and the script: docs/guardrails/moderation.md,
``scripts/moderation_data/``.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Final

import numpy as np

from procession.guardrails._injection.sentence_encoder import embed
from procession.guardrails._moderation.moderation_context import (
    exempt_categories,
    harm_vocabulary,
    has_idiom,
    unquoted,
)
from procession.guardrails._moderation.moderation_encoder import EncoderHalf, encoder_half
from procession.guardrails._text.hashed_head import (
    HashedHead,
    cached_head,
    features,
    window_starts,
)

__all__ = [
    "HEADS",
    "classifier_scores",
    "encoder_halves",
    "hashed_logits",
    "mixed_logits",
    "moderation_heads",
]

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


@lru_cache(maxsize=1)
def encoder_halves() -> tuple[EncoderHalf, ...] | None:
    """The heads' encoder halves, in :data:`HEADS` order; ``None`` when the encoder is not
    installed or a head has no encoder half (the hashed halves then decide alone)."""
    halves = tuple(encoder_half(str(path)) for path in HEADS.values())
    if any(half is None for half in halves):
        return None
    return tuple(half for half in halves if half is not None)


def hashed_logits(normalised: str) -> tuple[list[float], int]:
    """Each head's highest window logit over ``normalised``, and where the window with the
    highest logit of all starts."""
    heads = moderation_heads()
    bits = heads[0][1].bits
    best = [-np.inf] * len(heads)
    top, start = -np.inf, 0
    for offset, window in window_starts(normalised):
        index, value = features(window, bits)
        for i, (_, head) in enumerate(heads):
            logit = float(np.dot(head.weights[index], value)) + head.bias
            best[i] = max(best[i], logit)
            if logit > top:
                top, start = logit, offset
    return best, start


def mixed_logits(quoted_out: str, halves: tuple[EncoderHalf, ...]) -> list[float]:
    """Each head's hashed + encoder logit for text with its quotations cut out; ``-inf`` for a
    head whose hashed half stays below its gate, and no embedding at all when every head does.
    The hashed half reads the text with its idioms cut out too, and, when the text uses no
    word of harm, can only lower the sum (its words alone, "your", "are you", are no sign)."""
    normalised = unquoted(quoted_out)
    best, start = hashed_logits(normalised)
    open_ = [logit > half.gate for logit, half in zip(best, halves, strict=True)]
    if not any(open_):
        return [-np.inf] * len(best)
    if not harm_vocabulary(normalised):
        best = [min(logit, 0.0) for logit in best]
    vector = embed(quoted_out[start:] if start else quoted_out)
    return [
        half.logit(logit, vector) if gated else -np.inf
        for logit, half, gated in zip(best, halves, open_, strict=True)
    ]


def classifier_scores(normalised: str) -> dict[str, float]:
    """Each head's probability for ``normalised`` text (the highest over its windows), read
    with its quotations cut out; less the categories its context lifts (a game, a joke: see
    ``moderation_context``). Without the encoder, ``{}`` when the text uses no word of harm."""
    halves = encoder_halves()
    if halves is not None and not has_idiom(normalised):
        best = mixed_logits(unquoted(normalised, idioms=False), halves)
        normalised = unquoted(normalised)
    elif harm_vocabulary(normalised := unquoted(normalised)):
        best = hashed_logits(normalised)[0]
    else:
        return {}
    exempt = exempt_categories(normalised)
    return {
        category: float(1.0 / (1.0 + np.exp(-logit)))
        for category, logit in zip(HEADS, best, strict=True)
        if category not in exempt
    }
