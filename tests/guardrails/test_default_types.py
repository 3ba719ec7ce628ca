"""Ordinary text the redactors used to alter, class by class (issue 21), and the types that
replaced the broad ones (decision 0260): a link is not a secret, a URL carrying a credential is;
``url`` and ``uuid`` are opt-in; a four-part version is not an address; masking keeps JSON's
escapes. Each ordinary class stays under every two-piece chunking and in 5-character chunks;
each secret is found under the same chunkings. Cases written from the issue's description.
"""

from __future__ import annotations

import itertools
import json

import pytest

from procession import PIIDetector, RegexFilter, StreamRedactor
from procession.guardrails._redaction.detectors import Detection
from procession.guardrails._redaction.redacting import RedactingProcessor
from procession.guardrails._redaction.redaction import apply, mask_value
from procession.guardrails.pii import PII_DEFAULT_TYPES, PII_OPT_IN_TYPES


def redactors() -> list[RedactingProcessor]:
    """The two redactors whose defaults or presets held the broad types."""
    return [PIIDetector(), RegexFilter(presets=["pii", "secrets", "urls"], strategy="redact")]


def chunkings(text: str) -> list[list[int]]:
    """Every cut in two, and 5-character chunks."""
    return [[cut] for cut in range(1, len(text))] + [list(range(5, len(text), 5))]


def streamed(processor: RedactingProcessor, text: str, cuts: list[int]) -> str:
    """``text`` through one stream scanner of ``processor``, cut at ``cuts``."""
    scanner = processor.engine.scanner()
    out: list[str] = []
    bounds = [0, *cuts, len(text)]
    for a, b in itertools.pairwise(bounds):
        released, found = scanner.feed(text[a:b])
        out.append(apply(released, found, processor.replacement))
    released, found = scanner.flush()
    out.append(apply(released, found, processor.replacement))
    return "".join(out)


ORDINARY = [
    ("README link", "Install it with pip, see https://github.com/psf/black for the docs."),
    ("link with a query", "Results at https://example.com/search?q=redaction&page=2 here"),
    ("python version quad", "__version__ = '5.5.2.4'"),
    ("assigned version quad", 'VERSION="10.0.19041.1"'),
    ("version quad in prose", "Upgrade to version 2.10.0.3 before Friday."),
    ("build quad", "build 7.15.1.2 passed"),
    ("loopback address", 'run_simple("127.0.0.1", 5000, application)'),
    ("unspecified address", "listen on 0.0.0.0:8080"),
    ("UUID", "request_id=0f587421-28f1-4227-a8bf-6fffe03896c6"),
    ("placeholder in a URL query", "https://api.example.com/v1?api_key=YOUR_API_KEY_HERE"),
]


@pytest.mark.parametrize(("name", "text"), ORDINARY, ids=[c[0] for c in ORDINARY])
def test_ordinary_text_stays_under_every_chunking(name: str, text: str) -> None:
    for processor in redactors():
        assert not processor.engine.scan(text), (name, type(processor).__name__)
        for cuts in chunkings(text):
            assert streamed(processor, text, cuts) == text, (name, cuts)


SECRETS = [
    (
        "reset token",
        "Reset: https://app.example.com/reset?token=9f8a7c6b5d4e3f2a1b0c now",
        "9f8a7c6b",
    ),
    (
        "signed S3 link",
        "get https://b.s3.amazonaws.com/k?X-Amz-Signature=a1b2c3d4e5f60718&X-Amz-Date=2 ok",
        "a1b2c3d4e5f6",
    ),
    ("key in a fragment", "open https://x.example/#access_token=ya29Qx81kLmn0pZ done", "ya29Qx81"),
    (
        "incoming webhook",
        "post to https://hooks.slack.com/services/T0A1B2C3D/B9Z8Y7X6W/q1w2e3r4t5y6u7i8 now",
        "q1w2e3r4t5y6",
    ),
    ("public address", "the server at 203.0.114.7 answered", "203.0.114.7"),
    ("private address", "router 192.168.1.20 is down", "192.168.1.20"),
]


@pytest.mark.parametrize(("name", "text", "secret"), SECRETS, ids=[c[0] for c in SECRETS])
def test_a_credential_url_and_an_address_are_found_under_every_chunking(
    name: str, text: str, secret: str
) -> None:
    processor = PIIDetector()
    for cuts in chunkings(text):
        assert secret not in streamed(processor, text, cuts), (name, cuts)
    if "://" in text:  # the urls and secrets presets, StreamRedactor's api-key
        for other in (
            RegexFilter(presets=["urls"], strategy="redact"),
            RegexFilter(presets=["secrets"], strategy="redact"),
            StreamRedactor(),
        ):
            assert secret not in streamed(other, text, list(range(5, len(text), 5)))


def test_url_and_uuid_are_opt_in() -> None:
    assert "url" not in PII_DEFAULT_TYPES
    assert "uuid" not in PII_DEFAULT_TYPES
    assert set(PII_OPT_IN_TYPES) == {"url", "uuid"}
    text = "see https://github.com/psf/black and 0f587421-28f1-4227-a8bf-6fffe03896c6"
    found = PIIDetector(detection_types=["url", "uuid"]).engine.scan(text)
    assert [d.type for d in found] == ["url", "uuid"]
    links = RegexFilter(presets=["links"], strategy="redact").engine.scan(text)
    assert [d.type for d in links] == ["url"]


@pytest.mark.parametrize(
    "answer",
    [
        '{"note": "Write to\\nbob.smith@example.com today"}',
        '{"note": "key:\\t-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEF'
        '\\nAASCBKcwggSjAgEAAoIBAQC7\\n-----END PRIVATE KEY-----"}',
        '{"note": "carte 4539 1488 0343 6467\\n\\u00e9t\\u00e9"}',
    ],
)
def test_masking_keeps_a_json_answer_valid(answer: str) -> None:
    # the mask used to turn the "n" of an escaped line break into "*": "\*" is invalid JSON
    processor = PIIDetector()
    found = processor.engine.scan(answer)
    assert found
    out = apply(answer, found, processor.replacement)
    assert json.loads(out)["note"] != json.loads(answer)["note"]
    for cuts in chunkings(answer)[::7]:
        json.loads(streamed(processor, answer, cuts))


def test_a_mask_keeps_every_escape_and_masks_the_rest() -> None:
    value = "ab\\ncd\\u00e9f\\\\g"
    masked = mask_value(Detection("private-key", 0, len(value), value))
    assert masked == "**\\n**\\u00e9*\\\\*"
