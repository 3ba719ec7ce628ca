"""``UnicodeNormalizer``: NFKC-normalise input text, strip control characters, tidy spaces.

Run first in the input lane, it makes later checks see one spelling of the text:
full-width letters and digits become ASCII, ligatures and compatibility forms fold, zero-width and
other control characters can be stripped, and runs of spaces and blank lines collapse.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from procession.guardrails._common.options import check_bool
from procession.messages.parts import TextPart
from procession.processors.base import Processor

__all__ = ["UnicodeNormalizer"]

_CONTROL = re.compile(
    r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]"
)
# Keeping emoji: zero-width joiners and variation selectors are part of emoji sequences.
_CONTROL_KEEP_EMOJI = re.compile(
    r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u200b\u200e\u200f\u2028-\u202e\u2060-\u206f\ufeff]"
)
_NEWLINES = re.compile(r"\r\n?")
_BLANK_LINES = re.compile(r"\n{2,}")
_SPACES = re.compile(r"[ \t]{2,}|\t")
_SEPARATORS = re.compile("[\u2028\u2029]")
# What JavaScript's String.prototype.trim removes (white space and line terminators, the BOM
# included); Python's str.strip would also take the information separators \x1c-\x1f.
_TRIM = re.compile(
    "^[\t\n\v\f\r \xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]+"
    "|[\t\n\v\f\r \xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]+$"
)


class UnicodeNormalizer(Processor[Any]):
    """Normalises the text of input messages (Mastra's ``UnicodeNormalizer``).

    Args:
        strip_control_chars: Remove control and invisible format characters (default False).
        preserve_emojis: When stripping, keep what emoji sequences need (zero-width joiner,
            variation selectors; default True).
        collapse_whitespace: CRLF and CR become LF, runs of newlines one, runs of spaces and
            tabs (a lone tab too) one space (default True).
        trim: Strip leading and trailing white space as JavaScript's ``trim`` does: the BOM
            goes, the information separators ``\x1c``-``\x1f`` stay (default True).

    Errors are not swallowed: a normalizer that cannot run fails the run closed (D10), where
    Mastra's returns the messages unchanged.
    """

    id = "unicode-normalizer"

    def __init__(
        self,
        *,
        strip_control_chars: bool = False,
        preserve_emojis: bool = True,
        collapse_whitespace: bool = True,
        trim: bool = True,
    ) -> None:
        owner = "UnicodeNormalizer"
        self.strip_control_chars = check_bool(owner, "strip_control_chars", strip_control_chars)
        self.preserve_emojis = check_bool(owner, "preserve_emojis", preserve_emojis)
        self.collapse_whitespace = check_bool(owner, "collapse_whitespace", collapse_whitespace)
        self.trim = check_bool(owner, "trim", trim)

    def normalize(self, text: str) -> str:
        """``text`` normalised with this processor's options."""
        out = unicodedata.normalize("NFKC", text)
        if self.strip_control_chars:  # line and paragraph separators end a line, not glue
            out = _SEPARATORS.sub("\n", out)
            out = (_CONTROL_KEEP_EMOJI if self.preserve_emojis else _CONTROL).sub("", out)
        if self.collapse_whitespace:
            out = _SPACES.sub(" ", _BLANK_LINES.sub("\n", _NEWLINES.sub("\n", out)))
        return _TRIM.sub("", out) if self.trim else out

    def process_input(self, *, messages: list[Any]) -> None:
        """Normalise every text part (and the legacy ``content.content`` string) in place."""
        for message in messages:
            content = message.content
            for part in content.parts:
                if isinstance(part, TextPart):
                    part.text = self.normalize(part.text)
            if isinstance(content.content, str):
                content.content = self.normalize(content.content)
