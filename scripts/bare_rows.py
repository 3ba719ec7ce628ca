"""Count contract-row references (D1-D35) in comments and docstrings that do not say the rule.

Issue 22: a comment cites a row only beside the rule in words (``# nothing is stored (D13)``),
so the code reads without ``docs/contract.md`` open. A reference is **bare** when the comment,
or the docstring sentence, it sits in says nothing but row numbers (``# D23``, ``(D1, D2).``);
**thin** when it says fewer than three words besides them (counted, for a reader to judge).

    python scripts/bare_rows.py                 # totals, and each bare reference
    python scripts/bare_rows.py --thin          # the thin ones too
    python scripts/bare_rows.py src/procession  # another root (default: src/procession)

``processors/`` is left out (the built-ins are moving to ``procession.guardrails``).
``tests/test_comments.py`` fails on any bare reference.
"""

from __future__ import annotations

import ast
import io
import itertools
import re
import sys
import tokenize
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

NUMBER = r"D(?:[1-9]|[12][0-9]|3[0-5])\b"
ROW = re.compile(rf"\b{NUMBER}(?:'s)?(?:\s*[-\u2013]\s*{NUMBER})?")
"""A row number (``D23``, ``D31's``) or a range of them (``D1-D6``)."""
FILLER = frozenset(
    {
        *("see", "per", "and", "or", "also", "cf", "the", "of", "under", "by", "in", "to"),
        *("from", "with", "via", "as", "for", "is", "a", "an", "row", "rows", "rule", "rules"),
        "contract",
    }
)
"""Words that say nothing of a rule on their own."""
SENTENCE = re.compile(r"(?<=[.!?])\s+|\n\s*\n")
SKIPPED = ("processors",)


@dataclass(frozen=True)
class Reference:
    """One comment or docstring sentence that cites a row."""

    path: Path
    line: int
    text: str
    words: int
    """How many words it says besides row numbers and filler."""

    @property
    def bare(self) -> bool:
        """Nothing but row numbers."""
        return self.words == 0

    @property
    def thin(self) -> bool:
        """Fewer than three words besides them."""
        return self.words < 3


def words_besides_rows(text: str) -> int:
    """The words a text says besides row numbers and filler words."""
    rest = re.findall(r"[A-Za-z][A-Za-z'_]*", ROW.sub(" ", text))
    return sum(1 for word in rest if word.lower() not in FILLER)


def _comments(source: str) -> Iterator[tuple[int, str]]:
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            yield token.start[0], token.string.lstrip("#").strip()


def _docstring_sentences(tree: ast.Module) -> Iterator[tuple[int, str]]:
    for node in ast.walk(tree):
        if not isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        if not (node.body and isinstance(node.body[0], ast.Expr)):
            continue
        value = node.body[0].value
        if not (isinstance(value, ast.Constant) and isinstance(value.value, str)):
            continue
        for sentence in SENTENCE.split(value.value):
            yield value.lineno, sentence.strip()
    for node in ast.walk(tree):  # attribute docstrings: a string right after an assignment
        body = getattr(node, "body", None)
        if not isinstance(body, list):
            continue
        for before, after in itertools.pairwise(body):
            if (
                isinstance(before, ast.Assign | ast.AnnAssign)
                and isinstance(after, ast.Expr)
                and isinstance(after.value, ast.Constant)
                and isinstance(after.value.value, str)
            ):
                for sentence in SENTENCE.split(after.value.value):
                    yield after.value.lineno, sentence.strip()


def references(path: Path) -> Iterator[Reference]:
    """Each comment and docstring sentence of a file that cites a row."""
    source = path.read_text()
    texts = [*_comments(source), *_docstring_sentences(ast.parse(source))]
    for line, text in texts:
        if ROW.search(text):
            yield Reference(path, line, text, words_besides_rows(text))


def scan(root: Path) -> list[Reference]:
    """Every row reference under ``root``, ``processors/`` left out."""
    return [
        reference
        for path in sorted(root.rglob("*.py"))
        if not any(part in SKIPPED for part in path.relative_to(root).parts)
        for reference in references(path)
    ]


def main(argv: list[str]) -> int:
    """Print the totals and the bare (with ``--thin``, also the thin) references."""
    thin = "--thin" in argv
    roots = [Path(arg) for arg in argv if not arg.startswith("--")] or [Path("src/procession")]
    found = [reference for root in roots for reference in scan(root)]
    for reference in found:
        if reference.bare or (thin and reference.thin):
            kind = "bare" if reference.bare else "thin"
            print(f"{reference.path}:{reference.line}: {kind}: {reference.text}")
    bare = sum(reference.bare for reference in found)
    few = sum(reference.thin for reference in found)
    print(f"{len(found)} comments and sentences cite a row; {bare} bare, {few} thin")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
