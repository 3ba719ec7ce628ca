"""A small offline text classifier: hashed character n-grams and words, logistic regression.

The features are language-agnostic: character 2-, 3- and 4-grams of the normalised text
(padded with spaces, so CJK, Cyrillic and Arabic need no tokenizer; hashed with a vectorised
polynomial hash over code points), word unigrams and bigrams, and optional extra named
features (the injection rules that fired; these hashed with CRC-32). All hashes are
deterministic across processes (unlike ``hash``) and fall into ``2**bits`` buckets; the counts
are squashed with ``log1p`` and L2-normalised; the score is ``sigmoid(w . x + b)``.

Long texts are read in windows of :data:`WINDOW` characters (overlapping by a quarter) and
scored by their highest window, so one injected sentence in a long tool result is not diluted.
At most :data:`MAX_WINDOWS` windows are read (the first 12,000 characters or so).

Weights ship as a ``.npz`` file in the wheel (float16 weights); training is a developer's
script (``scripts/injection_data/train_head.py``), never run by CI or at run time.
"""

from __future__ import annotations

import math
import re
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
import numpy.typing as npt

__all__ = [
    "MAX_WINDOWS",
    "WINDOW",
    "HashedHead",
    "cached_head",
    "features",
    "load_head",
    "window_starts",
    "windows",
]

WINDOW = 512
"""Characters per window."""
MAX_WINDOWS = 32
"""The most windows one text is read in."""
_STEP = WINDOW * 3 // 4
_WORD = re.compile(r"\w+")


def windows(text: str) -> list[str]:
    """``text`` in overlapping windows of :data:`WINDOW` characters (at most
    :data:`MAX_WINDOWS`)."""
    return [window for _, window in window_starts(text)]


def window_starts(text: str) -> list[tuple[int, str]]:
    """:func:`windows` with where each starts in ``text``."""
    if len(text) <= WINDOW:
        return [(0, text)]
    last = len(text) - WINDOW
    starts = [*range(0, last, _STEP)][: MAX_WINDOWS - 1]
    starts.append(last)
    return [(s, text[s : s + WINDOW]) for s in starts]


def _mix(h: npt.NDArray[np.uint64]) -> npt.NDArray[np.uint64]:
    """A 64-bit finaliser (MurmurHash3's), so nearby polynomial hashes spread over buckets."""
    h ^= h >> np.uint64(33)
    h *= np.uint64(0xFF51AFD7ED558CCD)
    h ^= h >> np.uint64(33)
    return h


def ngram_hashes(padded: str) -> npt.NDArray[np.uint64]:
    """The hashes of every character 2-, 3- and 4-gram of ``padded``, vectorised: a polynomial
    over code points (wrapping at 2**64), salted by the length, then mixed."""
    points = np.frombuffer(padded.encode("utf-32-le"), dtype=np.uint32).astype(np.uint64)
    parts = []
    for n in (2, 3, 4):
        count = len(points) - n + 1
        if count <= 0:
            continue
        h = np.full(count, np.uint64(n) * _SALT, dtype=np.uint64)
        for k in range(n):
            h *= _PRIME
            h += points[k : k + count]
        parts.append(_mix(h))
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.uint64)


_PRIME = np.uint64(1_000_003)
_SALT = np.uint64(0x9E3779B97F4A7C15)


def features(
    normalised: str, bits: int, extra: Iterable[tuple[str, float]] = ()
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float32]]:
    """The hashed feature vector of one normalised window: (indices, values), L2-normalised."""
    mask = (1 << bits) - 1
    with np.errstate(over="ignore"):
        grams = (ngram_hashes(f" {normalised} ") & np.uint64(mask)).astype(np.int64)
    crc = zlib.crc32
    named: list[int] = []
    weights: list[float] = []
    words = _WORD.findall(normalised)
    for i, word in enumerate(words):
        named.append(crc(b"w:" + word.encode()) & mask)
        weights.append(1.0)
        if i:
            named.append(crc(f"b:{words[i - 1]} {word}".encode()) & mask)
            weights.append(1.0)
    for name, amount in extra:
        named.append(crc(b"x:" + name.encode()) & mask)
        weights.append(amount * 4.0)
    keys = np.concatenate([grams, np.array(named, dtype=np.int64)])
    amounts = np.concatenate([np.ones(len(grams)), np.array(weights, dtype=np.float64)])
    index, inverse = np.unique(keys, return_inverse=True)
    counts = np.bincount(inverse, weights=amounts, minlength=len(index))
    value: npt.NDArray[np.float32] = np.log1p(counts).astype(np.float32)
    value /= np.float32(np.sqrt(np.dot(value, value)) or 1.0)
    return index, value


@dataclass(frozen=True)
class HashedHead:
    """A trained head: weights over ``2**bits`` hashed features, a bias, and where it came
    from (``meta``: training data, date, the dev threshold it was shifted to 0.5 at)."""

    weights: npt.NDArray[np.float32]
    bias: float
    bits: int
    meta: str

    def score(self, normalised: str, extra: Sequence[tuple[str, float]] = ()) -> float:
        """The probability that ``normalised`` is positive: the highest over its windows."""
        return 1.0 / (1.0 + math.exp(-self.best_window(normalised, extra)[0]))

    def best_window(
        self, normalised: str, extra: Sequence[tuple[str, float]] = ()
    ) -> tuple[float, int]:
        """The highest logit over the windows of ``normalised``, and where that window starts."""
        best, start = -math.inf, 0
        for offset, window in window_starts(normalised):
            index, value = features(window, self.bits, extra)
            logit = float(np.dot(self.weights[index], value)) + self.bias
            if logit > best:
                best, start = logit, offset
        return best, start


def load_head(path: Path) -> HashedHead:
    """Read a head from a ``.npz`` file; a clear error when it is missing or malformed."""
    try:
        with np.load(path, allow_pickle=False) as data:
            weights = data["weights"].astype(np.float32)
            bias = float(data["bias"])
            bits = int(data["bits"])
            meta = str(data["meta"])
    except (OSError, KeyError, ValueError) as error:
        raise ValueError(f"cannot read the classifier head {path}: {error}") from error
    if weights.shape != (1 << bits,):
        raise ValueError(
            f"classifier head {path}: {weights.shape[0]} weights for {bits} bits "
            f"(expected {1 << bits})"
        )
    return HashedHead(weights, bias, bits, meta)


@lru_cache(maxsize=8)
def cached_head(path: str) -> HashedHead:
    """:func:`load_head`, once per process per file."""
    return load_head(Path(path))
