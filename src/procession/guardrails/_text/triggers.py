"""Gate many regular expressions behind the literal words they cannot match without.

Running sixty patterns over every message, or one alternation of all of them, costs hundreds
of microseconds; most text contains none of the words those patterns need. A
:class:`TriggerIndex` maps each item (a rule) to its *trigger* words — literals that every
match of the item contains — and finds, with trie-shaped regular expressions, the items whose
triggers occur. Only those items are then run.

Trigger forms: a lower-case literal (``"jailbr"``); with a leading ``=``, a whole word
(``"=ai"`` matches ``ai`` but not ``said``). With ``word_start=True`` an ASCII literal must
begin a word (``"kill"`` is found in ``killing`` but not in ``skill``), which lets the regex
engine skip most positions; literals in other scripts (Chinese) are found anywhere.
Correctness rests on each item's triggers really being necessary; the tests check it on the
labelled data.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Generic, TypeVar

__all__ = ["TriggerIndex", "trie_pattern"]

T = TypeVar("T")


def trie_pattern(words: Iterable[str]) -> str:
    """An alternation of ``words`` shaped as a trie (shared prefixes written once), which the
    regex engine scans far faster than a flat alternation. ``""`` for no words."""
    trie: dict[str, dict] = {}  # type: ignore[type-arg]
    for word in words:
        node = trie
        for char in word:
            node = node.setdefault(char, {})
        node[""] = {}
    return _node_pattern(trie)


def _node_pattern(node: dict[str, dict]) -> str:  # type: ignore[type-arg]
    ends = "" in node
    branches = [
        re.escape(char) + _node_pattern(child) for char, child in sorted(node.items()) if char
    ]
    if not branches:
        return ""
    body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
    if ends:
        return f"(?:{body})?" if len(branches) == 1 else body + "?"
    return body


class TriggerIndex(Generic[T]):
    """Which items may match a text, found by their trigger words (see the module doc).

    Args:
        keyed: For each item, its trigger words (lower case; ``=word`` for a whole word).
        word_start: ASCII literals must begin a word.
    """

    __slots__ = ("_ascii", "_items", "_order", "_other", "_scans", "_whole")

    def __init__(self, keyed: Mapping[T, Iterable[str]], *, word_start: bool = False) -> None:
        groups: tuple[dict[str, set[T]], dict[str, set[T]], dict[str, set[T]]] = ({}, {}, {})
        for item, triggers in keyed.items():
            words = list(triggers)
            if not words:
                raise ValueError(f"{item!r} has no trigger")
            for word in words:
                kind = 2 if word.startswith("=") else 0 if word.isascii() else 1
                groups[kind].setdefault(word.lstrip("="), set()).add(item)
        ascii_words = _minimal(groups[0], prefix_only=word_start)
        other, whole = _minimal(groups[1], prefix_only=False), groups[2]
        self._order = {item: number for number, item in enumerate(keyed)}
        self._items: dict[str, set[T]] = {}
        for group in (whole, other, ascii_words):
            for word, items in group.items():
                self._items[word] = self._items.get(word, set()) | items
        start = r"\b" if word_start else ""
        self._ascii = _compile(ascii_words, f"{start}(?:", ")")
        self._other = _compile(other, "(?:", ")")
        self._whole = _compile(whole, r"\b(", r")\b")
        self._scans = tuple(
            pattern
            for pattern in (
                _compile(ascii_words, f"{start}(?=(", "))"),
                _compile(other, "(?=(", "))"),
                self._whole,
            )
            if pattern is not None
        )

    def any(self, text: str) -> bool:
        """Whether any trigger occurs in ``text``."""
        return self.any_from(text, 0)

    def any_from(self, text: str, start: int, *, ascii_only: bool = False) -> bool:
        """Whether a trigger occurs in ``text`` at or after ``start`` (no slice is made);
        ``ascii_only`` skips the other scripts' literals (when the new text is ASCII)."""
        for pattern in (self._ascii, self._whole, None if ascii_only else self._other):
            if pattern is not None and pattern.search(text, start):
                return True
        return False

    def candidates(self, text: str) -> list[T]:
        """The items with a trigger in ``text``, in the order they were given."""
        if not self.any(text):
            return []
        hits: set[T] = set()
        for pattern in self._scans:
            for match in pattern.finditer(text):
                hits |= self._items[match[1]]
        return sorted(hits, key=self._order.__getitem__)


def _minimal(words: dict[str, set[T]], *, prefix_only: bool) -> dict[str, set[T]]:
    """Drop triggers that contain (or, with ``prefix_only``, start with) a shorter trigger,
    giving their items to it: a text holding the longer one holds the shorter."""
    kept: dict[str, set[T]] = {}
    for word in sorted(words, key=len):
        inner = [
            short for short in kept if (word.startswith(short) if prefix_only else short in word)
        ]
        for short in inner:
            kept[short] |= words[word]
        if not inner:
            kept[word] = set(words[word])
    return kept


def _compile(words: Mapping[str, object], before: str, after: str) -> re.Pattern[str] | None:
    return re.compile(before + trie_pattern(words) + after) if words else None
