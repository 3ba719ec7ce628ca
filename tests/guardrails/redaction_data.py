"""The corpora of ``tests/data`` (see ``tests/data/make_redaction_corpora.py``)."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parent.parent / "data"


@cache
def ordinary_sentences() -> list[dict[str, str]]:
    """Sentences with numbers that are not secrets: ``{"lang", "category", "text"}``."""
    lines = (DATA / "ordinary_numbers.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


@cache
def secret_values() -> dict[str, list[str]]:
    """Well-formed secrets and personal data by detector type."""
    data: dict[str, Any] = json.loads((DATA / "secrets.json").read_text(encoding="utf-8"))
    return {kind: list(values) for kind, values in data["values"].items()}


@cache
def carriers() -> list[str]:
    """Sentences in several languages with a ``{}`` where a secret goes."""
    data: dict[str, Any] = json.loads((DATA / "secrets.json").read_text(encoding="utf-8"))
    return list(data["carriers"])


def carry(carrier: str, secret: str) -> str:
    """``carrier`` with ``secret`` in its slot (JSON carriers escape nothing we use)."""
    return carrier.replace("{{", "{").replace("}}", "}").replace("{}", secret, 1)


STREAM_TYPES = ("credit-card", "email", "api-key", "aws-key", "jwt", "ssn")
"""The secret types ``StreamRedactor``'s defaults cover."""
