"""Ordinary text for false positives, from real sources and real formats.

- prose: sentences of the translations (``.mo`` catalogues) shipped inside installed
  packages, READMEs of installed packages (their ``METADATA``), and Faker's text provider of
  each language;
- code: snippets of installed packages' source (never procession's) and README code blocks;
- identifiers: carriers' tracking numbers, order, lot, part and serial numbers, ISSNs, ISBNs,
  IMEIs and other Luhn-valid references that are not card-shaped, git hashes, UUIDs, digests,
  four-part versions;
- config-logs: environment lookups, placeholders, URL slugs, log lines.

A value with a card's issuer prefix, length and a valid Luhn digit counts as a card and is
never put here (:func:`card_like`).
"""

from __future__ import annotations

import contextlib
import gettext
import hashlib
import io
import random
import re
import string
import sys
import uuid
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from faker import Faker
from stdnum import ean, isbn, issn, luhn

SITE = Path(next(p for p in sys.path if p.endswith("site-packages")))
PROSE_LOCALES = {
    "en": "en_US",
    "de": "de_DE",
    "fr": "fr_FR",
    "es": "es_ES",
    "zh": "zh_CN",
    "ja": "ja_JP",
    "ru": "ru_RU",
    "ar": "ar_AA",
    "pt": "pt_BR",
    "it": "it_IT",
    "ko": "ko_KR",
    "nl": "nl_NL",
    "pl": "pl_PL",
    "tr": "tr_TR",
    "he": "he_IL",
    "hi": "hi_IN",
}
SKIP_PACKAGES = ("procession", "_pytest", "pip", "setuptools", "faker", "stdnum")

# Public issuer ranges (IIN prefix, lengths) of the major schemes.
CARD_RANGES: list[tuple[int, int, tuple[int, ...]]] = [
    (4, 4, (13, 16, 19)),
    (51, 55, (16,)),
    (2221, 2720, (16,)),
    (34, 34, (15,)),
    (37, 37, (15,)),
    (6011, 6011, (16, 19)),
    (644, 649, (16, 19)),
    (65, 65, (16, 19)),
    (36, 36, (14, 19)),
    (300, 305, (14, 19)),
    (38, 39, (14, 19)),
    (3528, 3589, (16, 19)),
    (50, 50, (12, 19)),
    (56, 69, (12, 19)),
    (62, 62, (16, 19)),
    (2200, 2204, (16, 19)),
]


def card_like(digits: str) -> bool:
    """Issuer prefix, a card length and a valid Luhn digit: the acceptance rule's card."""
    if not digits.isdigit() or not luhn.is_valid(digits):
        return False
    for low, high, lengths in CARD_RANGES:
        width = len(str(low))
        if low <= int(digits[:width]) <= high and (
            len(digits) in lengths
            or (len(lengths) == 2 and lengths[0] <= len(digits) <= lengths[1])
        ):
            return True
    return False


def item(text: str, category: str, source: str, lang: str = "und") -> dict[str, Any]:
    """One ordinary item."""
    return {"text": text, "category": category, "source": source, "lang": lang}


def mo_sentences(limit_per_lang: int) -> Iterator[dict[str, Any]]:
    """Translated messages of the ``.mo`` catalogues installed packages ship."""
    per: dict[str, int] = {}
    for path in sorted(SITE.rglob("*.mo")):
        parts = path.parts
        lang = parts[parts.index("LC_MESSAGES") - 1] if "LC_MESSAGES" in parts else path.stem
        package = path.relative_to(SITE).parts[0]
        with path.open("rb") as handle:
            catalog: Any = gettext.GNUTranslations(handle)
        messages = [str(v) for k, v in catalog._catalog.items() if k != ""]  # "" is the header
        for text in sorted(messages):
            if len(text) < 25 or "%" in text or "{" in text:
                continue
            if per.get(lang, 0) >= limit_per_lang:
                break
            per[lang] = per.get(lang, 0) + 1
            yield item(text, "prose", f"mo:{package}", lang.split("_")[0])


def faker_prose(rng: random.Random, per_lang: int) -> Iterator[dict[str, Any]]:
    """Faker's text provider of each language (real word lists), a sentence or two each."""
    for lang, locale in PROSE_LOCALES.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fake = Faker(locale)
        fake.seed_instance(rng.randrange(1 << 30))
        lorem = type(fake.provider("faker.providers.lorem")).__module__
        if not lorem.endswith((locale, lang)) and lang != "en":
            continue  # the locale has no word list of its own: Faker falls back to Latin
        for _ in range(per_lang):
            yield item(fake.paragraph(nb_sentences=2), "prose", f"faker-text:{locale}", lang)


def readme_texts(rng: random.Random, limit: int) -> Iterator[dict[str, Any]]:
    """Paragraphs and code blocks of installed packages' READMEs (``METADATA`` bodies)."""
    prose: list[dict[str, Any]] = []
    code: list[dict[str, Any]] = []
    for meta in sorted(SITE.glob("*.dist-info/METADATA")):
        package = meta.parent.name.split("-")[0]
        if package.lower().startswith(SKIP_PACKAGES):
            continue
        body = meta.read_text(encoding="utf-8", errors="replace").split("\n\n", 1)[-1]
        for block in re.findall(r"```[a-z]*\n(.*?)```", body, flags=re.S):
            if 20 <= len(block) <= 800:
                code.append(item(block, "code", f"readme:{package}", "en"))
        for para in re.sub(r"```.*?```", "", body, flags=re.S).split("\n\n"):
            para = para.strip()
            if 60 <= len(para) <= 600 and not para.startswith(("|", "<", "[!", "![")):
                prose.append(item(para, "prose", f"readme:{package}", "en"))
    rng.shuffle(prose)
    rng.shuffle(code)
    yield from prose[:limit]
    yield from code[:limit]


def source_snippets(rng: random.Random, limit: int) -> Iterator[dict[str, Any]]:
    """Windows of 3-10 lines from installed packages' Python source."""
    files = [
        p
        for p in sorted(SITE.glob("*/*.py"))
        if not p.relative_to(SITE).parts[0].lower().startswith(SKIP_PACKAGES)
    ]
    rng.shuffle(files)
    count = 0
    for path in files:
        if count >= limit:
            return
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        if len(lines) < 20:
            continue
        start = rng.randrange(0, len(lines) - 10)
        snippet = "\n".join(lines[start : start + rng.randint(3, 10)])
        if snippet.strip():
            count += 1
            yield item(snippet, "code", f"source:{path.relative_to(SITE).parts[0]}", "en")


def luhn_ref(rng: random.Random, length: int, prefix: str = "") -> str:
    """A Luhn-valid reference that is not card-shaped."""
    while True:
        body = prefix + "".join(rng.choice(string.digits) for _ in range(length - 1 - len(prefix)))
        value = body + luhn.calc_check_digit(body)
        if not card_like(value):
            return value


def digits(rng: random.Random, n: int) -> str:
    """``n`` random digits."""
    return "".join(rng.choice(string.digits) for _ in range(n))


def alnum(
    rng: random.Random, n: int, alphabet: str = string.ascii_uppercase + string.digits
) -> str:
    """``n`` random characters of ``alphabet``."""
    return "".join(rng.choice(alphabet) for _ in range(n))


def identifier_values(rng: random.Random) -> list[tuple[str, str]]:
    """(format, sentence) pairs: one of each identifier format."""
    isbn13 = isbn.format(_isbn(rng))
    sha = hashlib.sha256(rng.randbytes(16)).hexdigest()
    return [
        ("ups", f"Your UPS parcel 1Z{alnum(rng, 6)}{digits(rng, 10)} ships today."),
        ("fedex", f"FedEx tracking: {digits(rng, 12)} (Express)."),
        ("fedex-ground", f"FedEx Ground {digits(rng, 15)} delivered."),
        (
            "usps",
            f"USPS tracking number 9400 {digits(rng, 4)} {digits(rng, 4)} {digits(rng, 4)}"
            f" {digits(rng, 4)} {digits(rng, 2)}",
        ),
        ("dhl", f"DHL Express Sendungsnummer {digits(rng, 10)}, Zustellung morgen."),
        ("s10", f"Envoi suivi RR{digits(rng, 9)}FR, La Poste."),
        ("amazon-order", f"Order #{digits(rng, 3)}-{digits(rng, 7)}-{digits(rng, 7)} confirmed."),
        (
            "lot",
            f"LOT {rng.randint(2019, 2026)}-{digits(rng, 4)}-{rng.choice('ABC')}, exp 2027-03.",
        ),
        ("part", f"P/N {digits(rng, 4)}-{digits(rng, 4)}-{digits(rng, 2)} rev C"),
        ("serial", f"Serial No. {alnum(rng, 12)} / model A{digits(rng, 4)}"),
        ("issn", f"ISSN {issn.format(_issn(rng))} (print)"),
        ("isbn", f"ISBN {isbn13}"),
        ("imei", f"IMEI: {luhn_ref(rng, 15, rng.choice(['35', '86', '01', '99']))}"),
        ("luhn-ref", f"Referenz {luhn_ref(rng, rng.choice([13, 16, 18, 19]), '9')}"),
        ("git-sha", f"fixed in commit {rng.randbytes(20).hex()}"),
        ("git-short", f"see {rng.randbytes(4).hex()[:7]} and {rng.randbytes(4).hex()[:7]}"),
        ("uuid", f"request_id={uuid.UUID(bytes=rng.randbytes(16), version=4)}"),
        ("sha256", f"sha256:{sha}"),
        ("sri", f'integrity="sha384-{hashlib.sha384(rng.randbytes(8)).hexdigest()[:64]}"'),
        (
            "version4",
            f"Version {rng.randint(1, 20)}.{rng.randint(0, 9)}.{rng.randint(0, 99)}."
            f"{rng.randint(0, 9999)} released",
        ),
        ("price", f"Total: {rng.randint(10, 9999)},{digits(rng, 2)} € TTC"),
        (
            "date-time",
            f"{rng.randint(2000, 2030)}-{rng.randint(1, 12):02d}-"
            f"{rng.randint(1, 28):02d}T{rng.randint(0, 23):02d}:{digits(rng, 2)}:00Z",
        ),
        ("postal", f"{digits(rng, 5)} Berlin, Germany"),
        ("invoice", f"Invoice INV-{digits(rng, 10)} due {rng.randint(1, 28)}/12"),
    ]


def _isbn(rng: random.Random) -> str:
    while True:
        body = "978" + digits(rng, 9)
        value = body + ean.calc_check_digit(body)
        if isbn.is_valid(value):
            return value


def _issn(rng: random.Random) -> str:
    body = digits(rng, 7)
    return body + issn.calc_check_digit(body)


def config_values(rng: random.Random) -> list[tuple[str, str]]:
    """(format, text) pairs of configuration, logs and code-ish references to secrets."""
    word = rng.choice(["memory", "chips", "earnings", "fab", "hbm"])
    return [
        ("env-lookup-js", "const key = process.env.OPENAI_API_KEY;"),
        ("env-lookup-py", "password = os.environ['DB_PASSWORD']"),
        ("env-getenv", 'token = os.getenv("GITHUB_TOKEN", "")'),
        ("placeholder", "Authorization: Bearer YOUR_ACCESS_TOKEN_HERE"),
        ("placeholder-env", "STRIPE_API_KEY=<your-stripe-key>"),
        ("placeholder-angle", 'api_key = "<YOUR_API_KEY>"'),
        ("slug", f"https://example.com/news/sk-hynix-{word}-{rng.randint(2020, 2026)}-results"),
        ("css-class", '<div class="sk-spinner sk-spinner-pulse"></div>'),
        (
            "log-line",
            f"2026-11-{rng.randint(1, 28):02d} 10:{digits(rng, 2)}:{digits(rng, 2)},"
            f"{digits(rng, 3)} INFO worker-{rng.randint(1, 9)} pid={digits(rng, 5)}"
            f" took {rng.randint(1, 999)}ms",
        ),
        (
            "k8s",
            f"pod/api-{rng.randbytes(5).hex()}-{alnum(rng, 5, string.ascii_lowercase)} Running",
        ),
        (
            "docker",
            f"image: ghcr.io/acme/api@sha256:{hashlib.sha256(rng.randbytes(8)).hexdigest()}",
        ),
        ("ini", f"[server]\nport = {rng.randint(1024, 65000)}\nworkers = {rng.randint(1, 16)}"),
        (
            "dotted-ver",
            f"__version__ = '{rng.randint(0, 9)}.{rng.randint(0, 30)}.{rng.randint(0, 9)}"
            f".{rng.randint(0, 9)}'",
        ),
    ]


def identifiers(rng: random.Random, rounds: int) -> Iterator[dict[str, Any]]:
    """Every identifier and config format, ``rounds`` times."""
    for _ in range(rounds):
        for fmt, text in identifier_values(rng):
            yield {**item(text, "identifiers", f"format:{fmt}"), "format": fmt}
        for fmt, text in config_values(rng):
            yield {**item(text, "config-logs", f"format:{fmt}"), "format": fmt}


def all_ordinary(seed: int, scale: int = 1) -> list[dict[str, Any]]:
    """Every ordinary item, deterministic for ``seed`` (and the installed packages)."""
    rng = random.Random(seed)
    out: list[dict[str, Any]] = []
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        out += mo_sentences(60 * scale)
        out += faker_prose(rng, 40 * scale)
        out += readme_texts(rng, 250 * scale)
        out += source_snippets(rng, 250 * scale)
        out += identifiers(rng, 15 * scale)
    for n, entry in enumerate(out):
        entry["id"] = f"o{n:05d}"
    return out
