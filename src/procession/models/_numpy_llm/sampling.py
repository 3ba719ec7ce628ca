"""Choosing the next token: greedy decoding, or llama.cpp's sampler chain, with lazy masking.

The chain is llama-cpp-python's: repetition penalties over the last 64 generated tokens, then
(at temperature 0) the most likely token, else top-k, top-p and min-p (on the probabilities
before temperature), temperature, and a draw. A grammar constraint does not mask the whole
vocabulary: candidates are tried in logit order and the first ones the grammar accepts are
kept (the most likely allowed token for greedy decoding, the top-k allowed ones otherwise),
which picks what masking every disallowed token first would.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import numpy as np
import numpy.typing as npt

from procession.models._local_settings import Sampling

__all__ = ["PENALTY_WINDOW", "choose"]

Logits = npt.NDArray[np.float32]
PENALTY_WINDOW = 64
"""How many recent generated tokens the repetition penalties look at (llama-cpp-python's
``last_n_tokens_size``)."""
_STEPS = (16, 512)  # partial sorts before a full one


def _penalise(logits: Logits, recent: list[int], s: Sampling) -> Logits:
    logits = logits.copy()
    tokens, counts = np.unique(
        np.asarray(recent[-PENALTY_WINDOW:], dtype=np.intp), return_counts=True
    )
    values = logits[tokens]
    values = np.where(values <= 0, values * s.repeat_penalty, values / s.repeat_penalty)
    values -= counts * s.frequency_penalty + s.presence_penalty
    logits[tokens] = values
    return logits


def _in_order(logits: Logits) -> Iterator[int]:
    """Token ids from the most to the least likely, sorting only as far as needed."""
    best = int(np.argmax(logits))
    yield best
    done = 1
    for size in (*_STEPS, logits.shape[0]):
        size = min(size, logits.shape[0])
        if size <= done:
            continue
        top = np.argpartition(-logits, size - 1)[:size] if size < logits.shape[0] else None
        order = (
            top[np.argsort(-logits[top], kind="stable")]
            if top is not None
            else np.argsort(-logits, kind="stable")
        )
        for token in order[done:size].tolist():
            yield int(token)
        done = size


def _allowed(
    logits: Logits, allows: Callable[[int], bool] | None, limit: int
) -> npt.NDArray[np.intp]:
    if allows is None:
        if limit >= logits.shape[0]:
            return np.argsort(-logits, kind="stable")
        top = np.argpartition(-logits, limit - 1)[:limit]
        return top[np.argsort(-logits[top], kind="stable")]
    kept: list[int] = []
    for token in _in_order(logits):
        if allows(token):
            kept.append(token)
            if len(kept) >= limit:
                break
    return np.asarray(kept, dtype=np.intp)


def _draw(
    logits: Logits, candidates: npt.NDArray[np.intp], s: Sampling, rng: np.random.Generator
) -> int:
    values = logits[candidates].astype(np.float64)
    probs = np.exp(values - values.max())
    probs /= probs.sum()
    keep = candidates.shape[0]
    if s.top_p < 1.0:
        keep = min(keep, int(np.searchsorted(np.cumsum(probs), s.top_p)) + 1)
    if s.min_p > 0.0:
        keep = min(keep, max(1, int(np.sum(probs[:keep] >= s.min_p * probs[0]))))
    values = values[:keep] / s.temp
    weights = np.exp(values - values.max())
    weights /= weights.sum()
    return int(candidates[int(rng.choice(keep, p=weights))])


def choose(
    logits: Logits,
    s: Sampling,
    *,
    recent: list[int],
    rng: np.random.Generator,
    allows: Callable[[int], bool] | None = None,
) -> int | None:
    """The next token (``None``: the constraint allows no token at all).

    Args:
        logits: The model's next-token logits.
        s: The call's sampling settings.
        recent: The tokens generated so far (for the penalties).
        rng: The call's random generator (seeded from the call's seed).
        allows: The constraint: whether a token keeps the output valid.
    """
    if s.penalises and recent:
        logits = _penalise(logits, recent, s)
    if s.temp == 0.0:
        if allows is None:
            return int(np.argmax(logits))
        return next((t for t in _in_order(logits) if allows(t)), None)
    vocab = logits.shape[0]
    limit = s.top_k if 0 < s.top_k < vocab and s.temp > 0 else vocab
    candidates = _allowed(logits, allows, limit)
    if candidates.shape[0] == 0:
        return None
    if s.temp < 0:  # llama.cpp: draw from the raw distribution
        return _draw(logits, candidates, Sampling(temp=1.0, top_p=1.0, min_p=0.0), rng)
    return _draw(logits, candidates, s, rng)
