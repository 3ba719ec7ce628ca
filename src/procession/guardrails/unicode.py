"""``UnicodeNormalizer``: NFKC-normalise input text, strip control characters, tidy spaces.

Run first in the input lane, it makes later checks see one spelling of the text:
full-width letters and digits become ASCII, ligatures and compatibility forms fold, invisible
characters that hide text (zero-width, bidirectional, tags) are stripped, control characters
can be, and runs of spaces and blank lines collapse.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from procession.guardrails._common.options import check_bool
from procession.messages.parts import TextPart
from procession.processors.base import Processor

__all__ = ["UnicodeNormalizer"]

# Mastra's control characters: C0 but tab, LF and CR; DEL; C1.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_JOINERS = "\u200c\u200d"
_SELECTORS = "\ufe00-\ufe0f\U000e0100-\U000e01ef"
# Invisible characters that hide text from later checks: zero-width space, word joiner and
# BOM, bidirectional marks, embeddings, overrides and isolates, invisible operators, the
# deprecated format controls, the Mongolian vowel separator and tag characters (ASCII
# smuggling). The joiners and variation selectors are judged by their neighbours; an emoji's
# tag sequence (a subdivision flag) is kept whole.
_INVISIBLE = re.compile(
    "(\U0001f3f4[\U000e0020-\U000e007e]+\U000e007f)"
    f"|[{_JOINERS}{_SELECTORS}]"
    "|[\u200b\u200e\u200f\u061c\u180e\u202a-\u202e\u2060-\u206f\ufeff\U000e0000-\U000e007f]"
)
_SELECTOR = re.compile(f"[{_SELECTORS}]")
# Scripts that write with the joiners (Arabic to Mongolian: Arabic, Syriac, Thaana, N'Ko,
# the Indic scripts, Sinhala, Tibetan, Myanmar, Khmer), and emoji and their modifiers.
_JOINING = re.compile(
    "[\u0600-\u08ff\u0900-\u0dff\u0f00-\u109f\u1780-\u18af\ua8e0-\ua8ff\ufb50-\ufdff"
    "\ufe70-\ufefe\u00a9\u00ae\u203c\u2049\u20e3\u2122\u2139\u2194-\u21aa\u2300-\u23ff"
    "\u24c2\u25aa-\u25fe\u2600-\u27bf\u2934\u2935\u2b00-\u2bff\u3030\u303d\u3297"
    "\u3299\ufe0f\U0001f000-\U0001faff]"
)
_NEWLINES = re.compile(r"\r\n?")
_BLANK_LINES = re.compile(r"\n{2,}")
_SPACES = re.compile(r"[ \t]{2,}|\t")
# What JavaScript's String.prototype.trim removes (white space and line terminators, the BOM
# included); Python's str.strip would also take the information separators \x1c-\x1f.
_TRIM = re.compile(
    "^[\t\n\v\f\r \xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]+"
    "|[\t\n\v\f\r \xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]+$"
)


class UnicodeNormalizer(Processor[Any]):
    """Normalises the text of input messages (Mastra's ``UnicodeNormalizer``).

    Args:
        strip_control_chars: Remove the C0 controls but tab, LF and CR, DEL and the C1
            controls, as Mastra's (default False).
        preserve_emojis: Accepted as Mastra's option; as in Mastra, neither value removes
            emoji or the joiners emoji and scripts such as Persian need (default True).
        collapse_whitespace: CRLF and CR become LF, runs of newlines one, runs of spaces and
            tabs (a lone tab too) one space (default True).
        trim: Strip leading and trailing white space as JavaScript's ``trim`` does: the BOM
            goes, the information separators ``\x1c``-``\x1f`` stay (default True).
        strip_invisible: Remove characters that hide text from later checks: zero-width
            space, word joiner, BOM, bidirectional controls, invisible operators, tag
            characters; a zero-width joiner or non-joiner only outside emoji and the scripts
            that write with it, a variation selector only after another (default True, not in
            Mastra; decision 0335).

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
        strip_invisible: bool = True,
    ) -> None:
        owner = "UnicodeNormalizer"
        self.strip_control_chars = check_bool(owner, "strip_control_chars", strip_control_chars)
        self.preserve_emojis = check_bool(owner, "preserve_emojis", preserve_emojis)
        self.collapse_whitespace = check_bool(owner, "collapse_whitespace", collapse_whitespace)
        self.trim = check_bool(owner, "trim", trim)
        self.strip_invisible = check_bool(owner, "strip_invisible", strip_invisible)

    def normalize(self, text: str) -> str:
        """``text`` normalised with this processor's options."""
        out = unicodedata.normalize("NFKC", text)
        if self.strip_control_chars:
            out = _CONTROL.sub("", out)
        if self.strip_invisible:
            out = _INVISIBLE.sub(_invisible, out)
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


def _invisible(match: re.Match[str]) -> str:
    """What stays of one invisible character (or an emoji's tag sequence) in context."""
    found = match.group()
    if match.group(1) is not None:
        return found  # a subdivision flag
    text, start, end = match.string, match.start(), match.end()
    before = text[start - 1] if start else ""
    if _SELECTOR.fullmatch(found):
        return "" if not before or _SELECTOR.fullmatch(before) else found
    if found in _JOINERS:
        after = text[end] if end < len(text) else ""
        if (
            before
            and _JOINING.fullmatch(before)
            and (not after or _JOINING.fullmatch(after) or not after.isalnum())
        ):
            return found
    return ""
