"""Which windows of a long text the injection classifier reads exactly, and where the encoder
looks.

Reading every 512-character window of a 12,000-character tool result exactly costs about
0.5 ms a window (31 windows: 16 ms) before the sentence encoder's 7 ms. Most windows of a
long result are ordinary text, so :func:`read_windows` first ranks every window cheaply: the
character n-grams of the whole text are hashed once (vectorised), each n-gram's weight in the
head is looked up, and a cumulative sum gives every window's summed weight in one pass (no
word features, no ``log1p``, no normalisation: a ranking, not a score). Only the
:data:`TOP_WINDOWS` best-ranked windows, and those holding a rule's match (the rules' cheap
triggers already located them), up to :data:`MAX_EXACT` in all, are then read exactly; a text
of at most :data:`MAX_EXACT` windows is read whole, as before.

Where a rule matched inside the best window, the encoder's
:data:`~procession.guardrails._injection.sentence_encoder.ENCODER_CHARS` characters start just
before that match; otherwise the same ranking, at :data:`ENCODER_STEP`-character steps inside
the best window, picks them, so an attack in the middle of a long window is what the encoder
sees, not the window's first sentences.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from procession.guardrails._injection.sentence_encoder import ENCODER_CHARS
from procession.guardrails._text.hashed_head import (
    WINDOW,
    HashedHead,
    features,
    ngram_hashes,
    window_starts,
)

__all__ = ["ENCODER_STEP", "MAX_EXACT", "TOP_WINDOWS", "position_weights", "read_windows"]

TOP_WINDOWS = 3
"""Windows read exactly because the cheap ranking puts them highest."""
MAX_EXACT = 6
"""The most windows read exactly (ranked ones and those holding a rule's match)."""
ENCODER_STEP = 64
"""The step, in characters, at which the encoder's span is chosen inside the best window."""


def position_weights(normalised: str, head: HashedHead) -> npt.NDArray[np.float64]:
    """The cumulative head weight of the character n-grams starting at each position of
    ``normalised`` (index ``i``: the n-grams starting before ``i``), from one vectorised hash
    of the whole text."""
    padded = f" {normalised} "
    size = len(padded)
    mask = np.uint64((1 << head.bits) - 1)
    with np.errstate(over="ignore"):
        hashes = ngram_hashes(padded) & mask
    weight = head.weights[hashes.astype(np.int64)].astype(np.float64)
    per = np.zeros(size + 1, dtype=np.float64)
    offset = 0
    for n in (2, 3, 4):
        count = max(size - n + 1, 0)
        per[:count] += weight[offset : offset + count]
        offset += count
    out: npt.NDArray[np.float64] = np.concatenate([[0.0], np.cumsum(per)])
    return out


def span_weight(cumulative: npt.NDArray[np.float64], start: int, length: int) -> float:
    """The summed n-gram weight of ``length`` characters from ``start`` (padded offsets)."""
    end = min(start + length, len(cumulative) - 1)
    return float(cumulative[end] - cumulative[start])


def chosen_starts(
    normalised: str,
    cumulative: npt.NDArray[np.float64],
    starts: Sequence[int],
    hints: Sequence[str],
) -> list[int]:
    """The window starts read exactly: the best-ranked ones and those holding a hint."""
    ranked = sorted(starts, key=lambda s: span_weight(cumulative, s, WINDOW), reverse=True)
    chosen = ranked[:TOP_WINDOWS]
    for hint in hints:
        where = normalised.find(hint) if hint else -1
        if where < 0:
            continue
        holding = [s for s in starts if s <= where and where + len(hint) <= s + WINDOW]
        for start in holding[:2]:  # windows overlap: at most two hold a short match
            if start not in chosen and len(chosen) < MAX_EXACT:
                chosen.append(start)
    return sorted(chosen)


def encoder_start(cumulative: npt.NDArray[np.float64], window: int, length: int) -> int:
    """Where, inside the window starting at ``window`` (``length`` characters of text), the
    encoder's span has the highest summed n-gram weight (steps of :data:`ENCODER_STEP`)."""
    if length <= ENCODER_CHARS:
        return window
    last = window + length - ENCODER_CHARS
    candidates = [*range(window, last, ENCODER_STEP), last]
    best: int = max(candidates, key=lambda s: span_weight(cumulative, s, ENCODER_CHARS))
    return best


def read_windows(
    head: HashedHead,
    normalised: str,
    extra: Sequence[tuple[str, float]] = (),
    hints: Sequence[str] = (),
) -> tuple[float, int]:
    """The highest exact logit over the chosen windows of ``normalised``, and where (in
    ``normalised``) the encoder's span starts. ``hints`` are rule matches (normalised text)
    whose windows are always read."""
    starts = window_starts(normalised)
    if len(starts) <= MAX_EXACT and len(normalised) <= ENCODER_CHARS:
        return head.best_window(normalised, extra)
    cumulative = position_weights(normalised, head)
    if len(starts) <= MAX_EXACT:
        offsets = [start for start, _ in starts]
    else:
        offsets = chosen_starts(normalised, cumulative, [s for s, _ in starts], hints)
    best, where = -np.inf, 0
    for start in offsets:
        index, value = features(normalised[start : start + WINDOW], head.bits, extra)
        logit = float(np.dot(head.weights[index], value)) + head.bias
        if logit > best:
            best, where = logit, start
    length = min(WINDOW, len(normalised) - where)
    return float(best), hinted_start(normalised, where, length, hints) or encoder_start(
        cumulative, where, length
    )


def hinted_start(normalised: str, window: int, length: int, hints: Sequence[str]) -> int | None:
    """Where the encoder's span starts when a rule matched inside the chosen window: a few
    characters before the first such match (``None`` when none is there)."""
    if length <= ENCODER_CHARS:
        return None
    places = [normalised.find(hint, window, window + length) for hint in hints if hint]
    places = [place for place in places if place >= 0]
    if not places:
        return None
    return max(window, min(places) - ENCODER_STEP // 2) or None
