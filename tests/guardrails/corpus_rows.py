"""Reading the frozen JSON-lines corpora and comparing their texts without showing them."""

from __future__ import annotations

import hashlib
import json
import unicodedata
from pathlib import Path
from typing import Any


def read_rows(path: Path) -> list[dict[str, Any]]:
    """Every JSON line of ``path``, failing with the file and line number on a bad one."""
    out: list[dict[str, Any]] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").split("\n"), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:  # pragma: no cover - only on a broken file
            raise AssertionError(f"{path.name}:{number}: not JSON: {exc}") from exc
        assert isinstance(row, dict), f"{path.name}:{number}: not an object"
        out.append(row)
    return out


def fold(text: str) -> str:
    """Text as compared across files: NFKC, case-folded, white space runs as one space."""
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def digest(text: str) -> str:
    """The SHA-256 of the folded text: what is compared, so no other file's text is shown."""
    return hashlib.sha256(fold(text).encode("utf-8")).hexdigest()
