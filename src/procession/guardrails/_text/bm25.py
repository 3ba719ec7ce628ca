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
        terms = {key: Counter(tokenize(text)) for key, text in documents.items()}
        lengths = {key: sum(counts.values()) for key, counts in terms.items()}
        count = len(terms)
        average = (sum(lengths.values()) / count) if count else 1.0
        self._keys = list(terms)
        self._norm = {key: k1 * (1 - b + b * lengths[key] / (average or 1.0)) for key in terms}
        self._postings: dict[str, list[tuple[str, int]]] = {}
        for key, counts in terms.items():
            for term, frequency in counts.items():
                self._postings.setdefault(term, []).append((key, frequency))
        self._idf = {
            term: math.log(1 + (count - len(posts) + 0.5) / (len(posts) + 0.5))
            for term, posts in self._postings.items()
        }

    def __len__(self) -> int:
        return len(self._keys)

    def scores(self, query: str) -> dict[str, float]:
        """The BM25 score of every document sharing a term with ``query``."""
        k1 = self.k1
        norm = self._norm
        totals: dict[str, float] = {}
        for term in set(tokenize(query)):
            idf = self._idf.get(term)
            if idf is None:
                continue
            for key, frequency in self._postings[term]:
                gain = idf * frequency * (k1 + 1) / (frequency + norm[key])
                totals[key] = totals.get(key, 0.0) + gain
        return totals

    def score(self, query: str, key: str) -> float:
        """The BM25 score of document ``key`` for ``query``."""
        return self.scores(query).get(key, 0.0)

    def search(
        self, query: str, *, top_k: int = 5, min_score: float = 0.0
    ) -> list[tuple[str, float]]:
        """The best ``top_k`` documents with a score above ``min_score``, best first (ties by
        key)."""
        hits = [(key, value) for key, value in self.scores(query).items() if value > min_score]
        hits.sort(key=lambda item: (-item[1], item[0]))
        return hits[:top_k]
