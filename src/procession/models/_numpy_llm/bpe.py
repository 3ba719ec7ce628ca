"""Byte-level BPE encoding (GPT-2 style) in pure Python, from a GGUF's tokens and merges.

Prompts are a few hundred tokens, so a Python merge loop with a per-word cache costs
milliseconds, and the numpy runtime needs no tokenizer package (one less dependency tree to
install on a fresh machine). The pre-tokenizer is llama.cpp's for ``gpt2``-family files:
special tokens are matched first (longest first), then, for the ``smollm``/``starcoder``
family, every number character stands alone, then GPT-2's pattern splits words; ``\\p{L}``
and ``\\p{N}`` are built from ``unicodedata`` (letters: categories L*, numbers: N*).
"""

from __future__ import annotations

import re
import sys
import unicodedata
from functools import lru_cache

__all__ = ["BytePairEncoder", "byte_alphabet"]


def byte_alphabet() -> dict[int, str]:
    """GPT-2's byte-level alphabet: the printable character standing for each byte."""
    keep = [*range(33, 127), *range(161, 173), *range(174, 256)]
    chars = list(keep)
    extra = 0
    for byte in range(256):
        if byte not in keep:
            keep.append(byte)
            chars.append(256 + extra)
            extra += 1
    return {b: chr(c) for b, c in zip(keep, chars, strict=True)}


def _classes() -> tuple[str, str]:
    """Regex class bodies of the letters (categories L*) and numbers (N*), in one scan."""
    found: dict[str, list[str]] = {"L": [], "N": []}
    runs: dict[str, int] = {"L": -2, "N": -2}
    ends: dict[str, int] = {"L": -2, "N": -2}
    for code in range(sys.maxunicode + 1):
        kind = unicodedata.category(chr(code))[0]
        if kind not in found:
            continue
        if code != ends[kind] + 1:
            if runs[kind] >= 0:
                found[kind].append(_span(runs[kind], ends[kind]))
            runs[kind] = code
        ends[kind] = code
    for kind in found:
        found[kind].append(_span(runs[kind], ends[kind]))
    return "".join(found["L"]), "".join(found["N"])


def _span(low: int, high: int) -> str:
    return re.escape(chr(low)) if low == high else f"{re.escape(chr(low))}-{re.escape(chr(high))}"


@lru_cache(maxsize=1)
def _patterns() -> tuple[re.Pattern[str], re.Pattern[str]]:
    letter, number = _classes()
    words = re.compile(
        rf"'s|'t|'re|'ve|'m|'ll|'d| ?[{letter}]+| ?[{number}]+| ?[^\s{letter}{number}]+"
        r"|\s+(?!\S)|\s+"
    )
    return words, re.compile(f"[{number}]")


class BytePairEncoder:
    """Encodes text to token ids with the vocabulary's merges (ranked by their order).

    Args:
        tokens: The vocabulary, in byte-level spelling.
        merges: ``"left right"`` pairs, most preferred first.
        specials: Token texts matched verbatim in the text (control tokens).
        split_digits: Split every number character into its own word first.
    """

    __slots__ = ("_alphabet", "_cache", "_ids", "_ranks", "_specials", "_split_digits")

    def __init__(
        self, tokens: list[str], merges: list[str], specials: list[str], *, split_digits: bool
    ) -> None:
        self._ids = {token: i for i, token in enumerate(tokens)}
        self._ranks: dict[tuple[str, str], int] = {}
        for rank, merge in enumerate(merges):
            left, _, right = merge.partition(" ")
            self._ranks.setdefault((left, right), rank)
        ordered = sorted(set(specials), key=len, reverse=True)
        self._specials = re.compile("|".join(map(re.escape, ordered))) if ordered else None
        self._split_digits = split_digits
        self._alphabet = byte_alphabet()
        self._cache: dict[str, list[int]] = {}
        _patterns()

    def encode(self, text: str) -> list[int]:
        """The token ids of ``text`` (special tokens' spellings become those tokens)."""
        out: list[int] = []
        position = 0
        if self._specials is not None:
            for match in self._specials.finditer(text):
                self._encode_plain(text[position : match.start()], out)
                out.append(self._ids[match.group()])
                position = match.end()
        self._encode_plain(text[position:], out)
        return out

    def _encode_plain(self, text: str, out: list[int]) -> None:
        if not text:
            return
        words, number = _patterns()
        pieces = [text]
        if self._split_digits:
            pieces = []
            last = 0
            for match in number.finditer(text):
                if match.start() > last:
                    pieces.append(text[last : match.start()])
                pieces.append(match.group())
                last = match.end()
            if last < len(text):
                pieces.append(text[last:])
        for piece in pieces:
            for word in words.findall(piece):
                out.extend(self._word(word))

    def _word(self, word: str) -> list[int]:
        done = self._cache.get(word)
        if done is not None:
            return done
        alphabet = self._alphabet
        parts = [alphabet[b] for b in word.encode("utf-8")]
        ranks = self._ranks
        while len(parts) > 1:
            best, at = None, -1
            for i in range(len(parts) - 1):
                rank = ranks.get((parts[i], parts[i + 1]))
                if rank is not None and (best is None or rank < best):
                    best, at = rank, i
            if best is None:
                break
            parts[at : at + 2] = [parts[at] + parts[at + 1]]
        ids = self._ids
        result = [ids[p] for p in parts if p in ids]
        if len(self._cache) < 50_000:
            self._cache[word] = result
        return result
