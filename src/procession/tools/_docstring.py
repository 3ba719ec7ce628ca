"""Reading a tool function's docstring: its prose and its parameter descriptions.

Google, NumPy and Sphinx (reST) styles are read by ``docstring-parser``, which picks the style
that finds the most sections (``docs/decisions/0009-docstring-parser.md``). It is imported only
when a tool is built, so ``import procession`` stays fast.
"""

from __future__ import annotations

import logging
from dataclasses import field

from procession._records import record

__all__ = ["ParsedDocstring", "parse_docstring"]

logger = logging.getLogger("procession.tools")

_PARAMETER_KEYS = frozenset(
    {"param", "parameter", "arg", "argument", "keyword", "key", "other_param"}
)
"""Section keys that document a parameter (``attribute`` and ``returns`` do not)."""


@record(frozen=True, slots=True)
class ParsedDocstring:
    """What a tool takes from its function's docstring.

    Attributes:
        description: The prose: the summary line(s) and the body, without the sections
            (``Args:``, ``Parameters``, ``:param x:``, ``Returns:``, ``Raises:``...).
        params: Each documented parameter's description, by parameter name.
    """

    description: str = ""
    params: dict[str, str] = field(default_factory=dict)


def parse_docstring(doc: str) -> ParsedDocstring:
    """Split a (dedented) docstring into its prose and its parameter descriptions.

    A docstring no style can read is kept whole as the description, with no parameters.
    """
    if not doc.strip():
        return ParsedDocstring()
    from docstring_parser import ParseError, Style, parse

    try:
        parsed = parse(doc, style=Style.AUTO)
        if not parsed.params and not parsed.blank_after_short_description:
            # A docstring that starts with its section ("Args:" on the first line) is read as a
            # summary by every style; read it again with an empty summary.
            again = parse("\n" + doc, style=Style.AUTO)
            if again.params:
                parsed = again
    except ParseError as error:
        logger.debug("docstring not parsed (%s); kept whole as the description", error)
        return ParsedDocstring(description=doc.strip())
    short = (parsed.short_description or "").strip()
    long = (parsed.long_description or "").strip()
    separator = "\n\n" if parsed.blank_after_short_description else "\n"
    description = f"{short}{separator}{long}" if short and long else short or long
    params = {
        p.arg_name: " ".join(p.description.split()) if p.description else ""
        for p in parsed.params
        if p.args and p.args[0] in _PARAMETER_KEYS
    }
    return ParsedDocstring(description=description, params={k: v for k, v in params.items() if v})
