"""The text a model reads in a tool's result, before the injection detector scores it.

A tool returns structure — JSON, an HTML page, an e-mail, text extracted from a PDF, a CSV
file — and an attack hides in it: a JSON string value (with ``\\n`` and ``\\u`` escapes), an
HTML comment, an ``alt`` text or a hidden ``<div>``, an e-mail's quoted-printable body, a
sentence broken over lines and hyphenated by a PDF's layout, a spreadsheet cell. Scored as
raw markup, the attack's words sit among braces, tags and headers the classifier never saw
in an attack, and a PDF's ``ig-\\nnore`` is not "ignore". :func:`readable_text` gives the
text itself:

* JSON (a document, or JSON lines): every string value, recursively (keys left out), each
  read again in case it is itself markup;
* HTML: the text, with comments, ``alt``/``title``/``aria-label``/``placeholder``/``content``
  attributes and hidden elements kept (a model reading the page source reads those too);
  ``<script>`` and ``<style>`` bodies left out; entities decoded;
* e-mail (an RFC 5322 header block): the subject and every text part, transfer encodings
  decoded, HTML parts read as HTML;
* CSV or TSV (two or more rows with the same number of delimiters): the cells;
* always last: words hyphenated over a line break joined, single line breaks inside a
  sentence joined (a PDF extractor's layout), Chinese and Japanese lines joined without a
  space.

Text that is none of these is returned unchanged (apart from the line joins), so the cost on
ordinary text is a few regular-expression searches.
"""

from __future__ import annotations

import csv
import email
import email.policy
import io
import json
import re
from html.parser import HTMLParser
from typing import Any

__all__ = ["MAX_STRUCTURED", "readable_text"]

MAX_STRUCTURED = 200_000
"""Longer texts are not parsed as structure (only their line breaks are joined)."""
_DEPTH = 3
_HTML_HINT = re.compile(
    r"<(?:!--|!doctype|html|head|body|div|p|span|a|img|meta|table|td|li|h[1-6]|br|section|"
    r"article|footer|header|script|style|font|b|i|em|strong|input|form)\b",
    re.IGNORECASE,
)
_MAIL_HEADER = re.compile(
    r"\A(?:[ \t]*\n)*(?:[A-Za-z][A-Za-z0-9-]*:[^\n]*\n(?:[ \t]+[^\n]*\n)*){2,}\n", re.ASCII
)
_MAIL_NAMES = re.compile(r"^(?:from|to|subject|date|cc|reply-to|message-id):", re.I | re.M)
_HYPHEN_BREAK = re.compile(r"(\w)[-\u00ad]\n[ \t]*([a-zà-öø-ÿ])")
_CJK = "\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af"
_CJK_BREAK = re.compile(f"([{_CJK}])\\n[ \\t]*(?=[{_CJK}])")
_SOFT_BREAK = re.compile(
    r"([^\s.!?:;\u3002\uff01\uff1f\u300d\u300f)\]\"'])[ \t]*\n[ \t]*(?=[^\s\-*\u2022#>|\d])"
)
_KEPT_ATTRIBUTES = frozenset({"alt", "title", "aria-label", "placeholder", "content", "value"})
_SKIPPED_TAGS = frozenset({"script", "style"})
_BLOCK_TAGS = frozenset(
    {"p", "div", "br", "li", "tr", "td", "th", "h1", "h2", "h3", "h4", "h5", "h6", "section"}
)


class _PageText(HTMLParser):
    """Collects an HTML page's text, comments and readable attributes."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.skipping = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _SKIPPED_TAGS:
            self.skipping += 1
        elif tag in _BLOCK_TAGS:
            self.parts.append("\n")
        for name, value in attrs:
            if value and (name in _KEPT_ATTRIBUTES or name.startswith("data-")):
                self.parts.append(f"\n{value}\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIPPED_TAGS:
            self.skipping = max(self.skipping - 1, 0)
        elif tag in _BLOCK_TAGS:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if not self.skipping:
            self.parts.append(data)

    def handle_comment(self, data: str) -> None:
        self.parts.append(f"\n{data}\n")


def html_text(text: str) -> str:
    """The text an HTML page holds (see the module doc)."""
    parser = _PageText()
    try:
        parser.feed(text)
        parser.close()
    except (AssertionError, ValueError):  # malformed markup: read what was collected
        pass
    joined = "".join(parser.parts)
    return "\n".join(line.strip() for line in joined.split("\n") if line.strip())


def json_strings(value: Any, out: list[str]) -> None:
    """Appends every string value inside ``value`` (keys left out) to ``out``."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if item.strip():
                out.append(item)
        elif isinstance(item, dict):
            stack.extend(reversed(list(item.values())))
        elif isinstance(item, list):
            stack.extend(reversed(item))


def parsed_json(text: str) -> list[str] | None:
    """The string values of ``text`` read as JSON or JSON lines, or ``None``."""
    stripped = text.strip()
    if stripped[:1] not in ("{", "[", '"'):
        return None
    out: list[str] = []
    try:
        json_strings(json.loads(stripped), out)
        return out
    except ValueError:
        pass
    lines = [line for line in stripped.split("\n") if line.strip()]
    if len(lines) < 2:
        return None
    try:
        for line in lines:
            json_strings(json.loads(line), out)
    except ValueError:
        return None
    return out


def mail_text(text: str) -> str | None:
    """The subject and text parts of ``text`` read as an e-mail, or ``None``."""
    if not _MAIL_HEADER.match(text) or len(_MAIL_NAMES.findall(text[:2000])) < 2:
        return None
    message = email.message_from_string(text.lstrip(), policy=email.policy.default)
    parts: list[str] = []
    subject = message.get("subject")
    if subject:
        parts.append(str(subject))
    for part in message.walk():
        if part.is_multipart() or part.get_content_maintype() != "text":
            continue
        try:
            body = part.get_content()
        except (LookupError, ValueError):
            body = part.get_payload()
        if not isinstance(body, str):
            continue
        parts.append(html_text(body) if part.get_content_subtype() == "html" else body)
    return "\n".join(parts)


def csv_cells(text: str) -> str | None:
    """The cells of ``text`` read as CSV or TSV (two rows or more, most with the same number
    of cells, at least two), or ``None``."""
    lines = [line for line in text.split("\n") if line.strip()]
    if len(lines) < 2:
        return None
    for delimiter in (",", "\t", ";", "|"):
        if not all(delimiter in line for line in lines):
            continue
        rows = [row for row in csv.reader(io.StringIO(text), delimiter=delimiter) if row]
        sizes = [len(row) for row in rows]
        if len(rows) < 2 or sizes[0] < 2 or sizes.count(sizes[0]) < 0.8 * len(rows):
            continue
        return "\n".join(cell.strip() for row in rows for cell in row if cell.strip())
    return None


def join_breaks(text: str) -> str:
    """``text`` with hyphenated and soft line breaks joined (a PDF extractor's layout)."""
    if "\n" not in text:
        return text
    text = _HYPHEN_BREAK.sub(r"\1\2", text)
    text = _CJK_BREAK.sub(r"\1", text)
    return _SOFT_BREAK.sub(r"\1 ", text)


def structured_text(text: str, depth: int = 0) -> str | None:
    """The text inside ``text`` when it is JSON, an e-mail, HTML or CSV, else ``None``."""
    if depth > _DEPTH or len(text) > MAX_STRUCTURED:
        return None
    strings = parsed_json(text)
    if strings is not None:
        return "\n".join(structured_text(s, depth + 1) or s for s in strings)
    mail = mail_text(text)
    if mail is not None:
        return mail
    if "<" in text and _HTML_HINT.search(text):
        return html_text(text)
    return csv_cells(text)


def readable_text(text: str) -> str:
    """The text a model reads in the tool result ``text`` (see the module doc)."""
    inner = structured_text(text)
    return join_breaks(text if inner is None else inner)
