"""A small BM25 (Okapi) index over short documents such as tool names and descriptions.

Tokens are lower-cased words of letters and digits, with identifiers split at ``_``, ``-``,
``.`` and camelCase humps (``getWeatherForecast`` → ``get weather forecast``), plus, for
Chinese, Japanese and Korean text (no spaces between words), every character and every pair
of neighbouring characters. An index of a few hundred tools answers in microseconds, so no
dependency is needed.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Mapping

__all__ = ["BM25Index", "tokenize"]

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_HUMP = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_WIDE = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]+")


def tokenize(text: str) -> list[str]:
    """The index terms of ``text``."""
    terms: list[str] = []
    for word in _WORD.findall(_HUMP.sub(" ", text)):
        wide = _WIDE.findall(word)
        if wide:
            for run in wide:
                terms.extend(run)
                terms.extend(run[i : i + 2] for i in range(len(run) - 1))
            word = _WIDE.sub(" ", word)
        terms.extend(part.lower() for part in word.split())
    return terms


class BM25Index:
    """BM25 scores of documents ``{key: text}`` for a query.

    Args:
        documents: The documents, by key.
        k1: Term-frequency saturation (default 1.5).
        b: Length normalisation (default 0.75).
    """

    def __init__(self, documents: Mapping[str, str], *, k1: float = 1.5, b: float = 0.75) -> None:
        self.k1 = k1
        self.b = b
        self._terms = {key: Counter(tokenize(text)) for key, text in documents.items()}
        self._lengths = {key: sum(terms.values()) for key, terms in self._terms.items()}
        count = len(self._terms)
        self._average = (sum(self._lengths.values()) / count) if count else 0.0
        frequency: Counter[str] = Counter()
        for terms in self._terms.values():
            frequency.update(terms.keys())
        self._idf = {
            term: math.log(1 + (count - n + 0.5) / (n + 0.5)) for term, n in frequency.items()
        }

    def __len__(self) -> int:
        return len(self._terms)

    def score(self, query: str, key: str) -> float:
        """The BM25 score of document ``key`` for ``query``."""
        terms = self._terms[key]
        norm = self.k1 * (1 - self.b + self.b * self._lengths[key] / (self._average or 1.0))
        total = 0.0
        for term in set(tokenize(query)):
            frequency = terms.get(term, 0)
            if frequency:
                total += self._idf[term] * frequency * (self.k1 + 1) / (frequency + norm)
        return total

    def search(
        self, query: str, *, top_k: int = 5, min_score: float = 0.0
    ) -> list[tuple[str, float]]:
        """The best ``top_k`` documents with a score above ``min_score``, best first (ties by
        key)."""
        scored = [(key, self.score(query, key)) for key in self._terms]
        hits = [(key, value) for key, value in scored if value > min_score]
        hits.sort(key=lambda item: (-item[1], item[0]))
        return hits[:top_k]
