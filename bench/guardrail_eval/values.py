"""Secret values from independent generators: Faker, python-stdnum, providers' key formats.

Nothing here reads procession's own patterns or test data. Every value is a :class:`Secret`
with its format (``faker-card:visa13``, ``stdnum:kr.rrn``, ``key:shopify-shpat``...), its
format group, its category and the locale it came from. The key formats are the providers'
documented shapes (inventoried from detect-secrets' plugin list and secretlint's
recommended preset, read as facts; no code of theirs is used).
"""

from __future__ import annotations

import base64
import contextlib
import importlib
import io
import json
import random
import re
import string
import warnings
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import phonenumbers
import stdnum
from faker import Faker
from faker.config import AVAILABLE_LOCALES
from stdnum import iban as std_iban
from stdnum import luhn, verhoeff

from guardrail_eval import bech32

ALNUM = string.ascii_letters + string.digits
URLSAFE = ALNUM + "-_"
HEX = "0123456789abcdef"
B32 = string.ascii_uppercase + "234567"
B64 = ALNUM + "+/"


@dataclass(slots=True)
class Secret:
    """One secret value and what it is."""

    value: str
    format: str
    group: str
    category: str
    locale: str = "und"
    numeric: bool = False
    probes: list[str] = field(default_factory=list)

    def leak_probes(self) -> list[str]:
        """Strings whose presence in a channel is a leak (normalised, see ``normalise``)."""
        if self.probes:
            return self.probes
        return [normalise(self.value, numeric=self.numeric)]


def normalise(text: str, *, numeric: bool) -> str:
    """Digits only for numeric values; otherwise whitespace removed and case folded."""
    if numeric:
        return "".join(c for c in text if c.isdigit())
    return "".join(text.split()).casefold()


def rand(rng: random.Random, alphabet: str, n: int) -> str:
    """``n`` characters of ``alphabet``."""
    return "".join(rng.choice(alphabet) for _ in range(n))


# --- Faker, every locale -------------------------------------------------------------------

CARD_TYPES = (
    "visa13",
    "visa16",
    "visa19",
    "mastercard",
    "amex",
    "discover",
    "diners",
    "jcb15",
    "jcb16",
    "maestro",
)


def faker_for(locale: str, seed: int) -> Faker:
    """A seeded Faker of one locale."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fake = Faker(locale)
    fake.seed_instance(seed)
    return fake


def faker_cards(rng: random.Random, per_type: int) -> Iterator[Secret]:
    """Card numbers of every issuer Faker knows (13-digit Visa included)."""
    fake = faker_for("en_US", rng.randrange(1 << 30))
    for card_type in CARD_TYPES:
        for _ in range(per_type):
            number = fake.credit_card_number(card_type)
            yield Secret(number, f"faker-card:{card_type}", "card", "financial", numeric=True)


def faker_locale_values(rng: random.Random, per_locale: int) -> Iterator[Secret]:
    """IBANs, national ids (``ssn``), phones and e-mails from every Faker locale.

    A locale without its own provider falls back to another's (``en_US``, ``en_GB``): such
    formats are capped at ``2 * per_locale`` values so they do not swamp the corpus.
    """
    seen: Counter[str] = Counter()
    for locale in AVAILABLE_LOCALES:
        fake = faker_for(locale, rng.randrange(1 << 30))
        for _ in range(per_locale):
            for secret in locale_values(fake, locale):
                seen[secret.format] += 1
                if seen[secret.format] <= 2 * per_locale:
                    yield secret


def locale_values(fake: Faker, locale: str) -> Iterator[Secret]:
    """One of each value a locale's providers make."""
    makers: list[tuple[str, str, str, bool]] = [
        ("iban", "iban", "financial", False),
        ("ssn", "national-id", "personal-id", True),
        ("phone_number", "phone", "contact", True),
        ("email", "email", "contact", False),
    ]
    for method, group, category, numeric in makers:
        maker = getattr(fake, method, None)
        if maker is None:
            continue
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                value = str(maker())
        except (AttributeError, NotImplementedError, ValueError):
            continue
        if group == "national-id":
            if locale == "en_US":
                group = "ssn"
            digits = sum(c.isdigit() for c in value)
            numeric = digits >= len(value.replace(" ", "").replace("-", "")) - 1
            if digits < 6:
                continue
        if group == "phone" and sum(c.isdigit() for c in value) < 7:
            continue
        source = type(getattr(maker, "__self__", None)).__module__.rsplit(".", 1)[-1]
        yield Secret(value, f"faker-{method}:{source}", group, category, locale, numeric)


# --- IBANs of every registry country (python-stdnum's registry data) -----------------------

IBAN_LETTERS = string.ascii_uppercase
IBAN_KINDS = {"n": string.digits, "a": IBAN_LETTERS, "c": IBAN_LETTERS + string.digits}


def iban_countries() -> dict[str, str]:
    """Country code to BBAN structure (``8!n10!n``), from python-stdnum's IBAN registry."""
    out: dict[str, str] = {}
    path = stdnum.__path__[0] + "/iban.dat"
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            if line[:2].isalpha() and 'bban="' in line:
                out[line[:2]] = line.split('bban="')[1].split('"')[0]
    return out


def make_iban(rng: random.Random, country: str, structure: str) -> str:
    """A valid IBAN: a random BBAN of the registry's structure and its mod-97 check digits.

    Countries with a national check digit inside the BBAN get tries until python-stdnum
    accepts it; after 400 the mod-97 check alone is kept.
    """
    value = ""
    for _ in range(400):
        bban = "".join(
            rand(rng, IBAN_KINDS[part[-1]], int(part[:-1])) for part in bban_parts(structure)
        )
        number = int("".join(str(int(c, 36)) for c in bban + country + "00"))
        value = f"{country}{98 - number % 97:02d}{bban}"
        if std_iban.is_valid(value):
            return value
    std_iban.validate(value, check_country=False)
    return value


def bban_parts(structure: str) -> list[str]:
    """``8!n10!n`` → ``['8n', '10n']``."""
    return re.findall(r"\d+[nac]", structure.replace("!", ""))


def registry_ibans(rng: random.Random, per_country: int) -> Iterator[Secret]:
    """IBANs of every country of the registry (LU, RO, QA, MT... with few digits too)."""
    for country, structure in sorted(iban_countries().items()):
        for _ in range(per_country):
            value = make_iban(rng, country, structure)
            yield Secret(std_iban.format(value), f"iban:{country}", "iban", "financial", country)


# --- National ids: python-stdnum's modules -------------------------------------------------


def aadhaar(rng: random.Random) -> str:
    """A valid Aadhaar number (Verhoeff check digit; first digit 2-9)."""
    body = str(rng.randint(2, 9)) + rand(rng, string.digits, 10)
    return body + verhoeff.calc_check_digit(body)


def my_number(rng: random.Random) -> str:
    """A valid Japanese individual number (My Number), check digit per the MIC ordinance."""
    body = rand(rng, string.digits, 11)
    total = sum(
        int(d) * (n + 1 if n <= 6 else n - 5) for n, d in enumerate(reversed(body), start=1)
    )
    rest = total % 11
    return body + str(0 if rest <= 1 else 11 - rest)


def kr_rrn(rng: random.Random) -> str:
    """A valid Korean resident registration number (birth date, sex digit, check digit)."""
    from stdnum.kr import rrn

    while True:
        year, month, day = rng.randint(50, 99), rng.randint(1, 12), rng.randint(1, 28)
        body = f"{year:02d}{month:02d}{day:02d}{rng.choice('12')}{rand(rng, string.digits, 5)}"
        value = body + rrn.calc_check_digit(body)
        if rrn.is_valid(value):
            return value


def us_ssn(rng: random.Random) -> str:
    """A valid-shaped US SSN (no 000/666/9xx area, no 00 group, no 0000 serial)."""
    area = rng.choice([a for a in range(1, 900) if a != 666])
    return f"{area:03d}{rng.randint(1, 99):02d}{rng.randint(1, 9999):04d}"


def stdnum_with_check(module: str, body_len: int) -> Callable[[random.Random], str]:
    """A generator of numbers a python-stdnum module accepts: a random body and the two
    check digits that make it valid."""

    def make(rng: random.Random) -> str:
        mod: Any = importlib.import_module(f"stdnum.{module}")
        for _ in range(200):
            body = rand(rng, string.digits, body_len)
            for check in range(100):
                value = f"{body}{check:02d}"
                if mod.is_valid(value):
                    return str(mod.compact(value))
        raise RuntimeError(f"stdnum.{module}: no valid number generated")

    return make


NATIONAL_IDS: dict[str, tuple[Callable[[random.Random], str], str, str]] = {
    # name: (generator, group, module used to format/validate or '')
    "us.ssn": (us_ssn, "ssn", "us.ssn"),
    "in_.aadhaar": (aadhaar, "national-id", "in_.aadhaar"),
    "jp.my-number": (my_number, "national-id", ""),
    "kr.rrn": (kr_rrn, "national-id", "kr.rrn"),
    "br.cpf": (stdnum_with_check("br.cpf", 9), "national-id", "br.cpf"),
    "ca.sin": (lambda r: luhn_number(r, "", 9, "123456789"), "national-id", "ca.sin"),
    "cn.ric": (lambda r: cn_ric(r), "national-id", "cn.ric"),
    "es.dni": (lambda r: es_dni(r), "national-id", "es.dni"),
    "pl.pesel": (lambda r: pl_pesel(r), "national-id", "pl.pesel"),
    "nl.bsn": (lambda r: nl_bsn(r), "national-id", "nl.bsn"),
}


def luhn_number(rng: random.Random, prefix: str, length: int, first: str = "") -> str:
    """A Luhn-valid number of ``length`` digits starting with ``prefix``."""
    body = prefix + (rng.choice(first) if first and not prefix else "")
    body += rand(rng, string.digits, length - len(body) - 1)
    return body + luhn.calc_check_digit(body)


def cn_ric(rng: random.Random) -> str:
    """A valid Chinese resident identity card number."""
    from stdnum.cn import ric

    while True:
        body = (
            rng.choice(["110101", "310104", "440305", "510107", "330106"])
            + f"{rng.randint(1950, 2005)}{rng.randint(1, 12):02d}{rng.randint(1, 28):02d}"
            + rand(rng, string.digits, 3)
        )
        value = body + ric.calc_check_digit(body)
        if ric.is_valid(value):
            return value


def es_dni(rng: random.Random) -> str:
    """A valid Spanish DNI."""
    from stdnum.es import dni

    body = rand(rng, string.digits, 8)
    return body + dni.calc_check_digit(body)


def pl_pesel(rng: random.Random) -> str:
    """A valid Polish PESEL."""
    from stdnum.pl import pesel

    while True:
        body = f"{rng.randint(50, 99):02d}{rng.randint(1, 12):02d}{rng.randint(1, 28):02d}" + rand(
            rng, string.digits, 4
        )
        value = body + pesel.calc_check_digit(body)
        if pesel.is_valid(value):
            return value


def nl_bsn(rng: random.Random) -> str:
    """A valid Dutch BSN (11-test)."""
    from stdnum.nl import bsn

    while True:
        body = rand(rng, string.digits, 8)
        for last in string.digits:
            value = body + last
            if bsn.is_valid(value):
                return value


def national_ids(rng: random.Random, per_format: int) -> Iterator[Secret]:
    """National ids in compact and formatted forms (python-stdnum's ``format``)."""
    for name, (make, group, module) in NATIONAL_IDS.items():
        mod: Any = importlib.import_module(f"stdnum.{module}") if module else None
        for n in range(per_format):
            value = make(rng)
            if mod is not None and n % 2 and hasattr(mod, "format"):
                value = str(mod.format(value))
            yield Secret(
                value,
                f"stdnum:{name}",
                group,
                "personal-id",
                name.split(".")[0],
                numeric=any(c.isdigit() for c in value) and name != "es.dni",
            )


def stdnum_doc_examples() -> Iterator[Secret]:
    """Valid examples from python-stdnum's own docstrings for personal-id modules."""
    for module in (
        "us.ssn",
        "in_.aadhaar",
        "kr.rrn",
        "cn.ric",
        "br.cpf",
        "ca.sin",
        "es.dni",
        "es.nie",
        "it.codicefiscale",
        "se.personnummer",
        "no.fodselsnummer",
        "dk.cpr",
        "fi.hetu",
        "pl.pesel",
        "ro.cnp",
        "bg.egn",
        "be.nn",
        "fr.nir",
        "nl.bsn",
        "za.idnr",
        "mx.curp",
        "cl.rut",
        "tr.tckimlik",
        "il.idnr",
        "th.pin",
        "my.nric",
        "ee.ik",
        "lt.asmens",
        "cz.rc",
        "iban",
        "gb.nhs",
        "sg.uen",
    ):
        try:
            mod: Any = importlib.import_module(f"stdnum.{module}")
        except ImportError:
            continue
        for example in doc_valid_examples(mod.__doc__ or ""):
            group = "iban" if module == "iban" else ("ssn" if module == "us.ssn" else "national-id")
            yield Secret(
                example,
                f"stdnum-doc:{module}",
                group,
                "financial" if group == "iban" else "personal-id",
                module.split(".")[0],
                numeric=sum(c.isdigit() for c in example)
                >= len(example.replace(" ", "").replace("-", "")) - 1,
            )


def doc_valid_examples(doc: str) -> list[str]:
    """Arguments of ``>>> validate('…')`` lines whose next line is not a traceback."""
    lines = doc.splitlines()
    out: list[str] = []
    for i, line in enumerate(lines[:-1]):
        text = line.strip()
        if text.startswith(">>> validate('") and not lines[i + 1].strip().startswith("Trace"):
            out.append(text.split("'")[1])
        if text.startswith(">>> format('") and not lines[i + 1].strip().startswith("Trace"):
            out.append(lines[i + 1].strip().strip("'"))
    return [o for o in out if 6 <= len(o) <= 40]


# --- Phones and e-mails beyond Faker's defaults --------------------------------------------

PHONE_REGIONS = (
    "US",
    "GB",
    "FR",
    "DE",
    "ES",
    "IT",
    "BR",
    "JP",
    "CN",
    "IN",
    "KR",
    "MX",
    "AU",
    "NL",
    "CH",
    "SE",
    "PL",
    "RU",
    "TR",
    "ZA",
    "AR",
    "CA",
    "BE",
    "PT",
    "IE",
)


def phone_forms(rng: random.Random, per_region: int) -> Iterator[Secret]:
    """Example-shaped numbers of many regions in E.164, international, national and dotted."""
    for region in PHONE_REGIONS:
        for kind in (phonenumbers.PhoneNumberType.MOBILE, phonenumbers.PhoneNumberType.FIXED_LINE):
            example = phonenumbers.example_number_for_type(region, kind)
            if example is None:
                continue
            for _ in range(per_region):
                number = vary_phone(rng, example)
                if number is None:
                    continue
                yield from phone_renderings(number, region)


def vary_phone(rng: random.Random, example: phonenumbers.PhoneNumber) -> Any:
    """The example with its last four digits changed, if still valid."""
    national = str(example.national_number)
    for _ in range(20):
        candidate = national[:-4] + rand(rng, string.digits, 4)
        parsed = phonenumbers.parse(f"+{example.country_code}{candidate}")
        if phonenumbers.is_valid_number(parsed):
            return parsed
    return None


def phone_renderings(number: phonenumbers.PhoneNumber, region: str) -> Iterator[Secret]:
    """E.164, international, national and dotted international forms of one number."""
    fmt = phonenumbers.PhoneNumberFormat
    intl = phonenumbers.format_number(number, fmt.INTERNATIONAL)
    forms = {
        "e164": phonenumbers.format_number(number, fmt.E164),
        "international": intl,
        "national": phonenumbers.format_number(number, fmt.NATIONAL),
        "dotted": intl.replace(" ", ".").replace("-", "."),
    }
    for name, value in forms.items():
        yield Secret(
            value,
            f"phone-{name}:{region}",
            "phone",
            "contact",
            region,
            numeric=True,
            probes=[str(number.national_number)],
        )


IDN_DOMAINS = (
    "münchen-mail.de",
    "bücher.example",
    "почта.рф",
    "例え.jp",
    "中文网.中国",
    "café-crème.fr",
    "españa-correo.es",
    "한국메일.kr",
    "παράδειγμα.gr",
    "xn--mnchen-3ya.de",
    "correo.xn--espaa-rta.es",
    "mail.xn--p1ai",
    "shop.xn--fiqs8s",
    "example.xn--q9jyb4c",
)


def extra_emails(rng: random.Random, count: int) -> Iterator[Secret]:
    """E-mails with IDN domains, punycode TLDs, quoted and Unicode local parts."""
    fake = faker_for("en_US", rng.randrange(1 << 30))
    for n in range(count):
        user = fake.user_name()
        domain = rng.choice(IDN_DOMAINS)
        kind = n % 4
        if kind == 0:
            value, fmt = f"{user}@{domain}", "email:idn"
        elif kind == 1:
            puny = domain.encode("idna").decode("ascii") if not domain.isascii() else domain
            value, fmt = f"{user}@{puny}", "email:punycode"
        elif kind == 2:
            value = f'"{fake.first_name()} {fake.last_name()}"@{fake.free_email_domain()}'
            fmt = "email:quoted-local"
        else:
            value = (
                f"{rng.choice(['josé', 'müller', '用户', 'ユーザー', 'андрей'])}.{user}@{domain}"
            )
            fmt = "email:unicode-local"
        yield Secret(value, fmt, "email", "contact")


# --- Providers' keys (documented formats) ---------------------------------------------------


def key_formats() -> dict[str, Callable[[random.Random], tuple[str, str]]]:
    """Format name → generator of ``(text, secret part)``."""
    return {
        "aws-access-key-id": lambda r: _same("AKIA" + rand(r, B32, 16)),
        "aws-sts-key-id": lambda r: _same("ASIA" + rand(r, B32, 16)),
        "aws-secret-json": lambda r: _wrapped('"SecretAccessKey": "{}"', rand(r, B64, 40)),
        "aws-secret-env": lambda r: _wrapped("AWS_SECRET_ACCESS_KEY={}", rand(r, B64, 40)),
        "github-pat": lambda r: _same("ghp_" + rand(r, ALNUM, 36)),
        "github-oauth": lambda r: _same("gho_" + rand(r, ALNUM, 36)),
        "github-app": lambda r: _same(r.choice(["ghs_", "ghu_", "ghr_"]) + rand(r, ALNUM, 36)),
        "github-fine-grained": lambda r: _same(
            "github_pat_" + rand(r, ALNUM, 22) + "_" + rand(r, ALNUM, 59)
        ),
        "gitlab-pat": lambda r: _same("glpat-" + rand(r, URLSAFE, 20)),
        "slack-bot": lambda r: _same(
            f"xoxb-{rand(r, string.digits, 12)}-{rand(r, string.digits, 13)}-{rand(r, ALNUM, 24)}"
        ),
        "slack-user": lambda r: _same(
            f"xoxp-{rand(r, string.digits, 12)}-{rand(r, string.digits, 12)}-"
            f"{rand(r, string.digits, 13)}-{rand(r, HEX, 32)}"
        ),
        "slack-webhook": lambda r: _same(
            f"https://hooks.slack.com/services/T{rand(r, B32, 8)}/B{rand(r, B32, 10)}/"
            f"{rand(r, ALNUM, 24)}"
        ),
        "stripe-secret": lambda r: _same("sk_live_" + rand(r, ALNUM, r.choice([24, 99]))),
        "stripe-restricted": lambda r: _same("rk_live_" + rand(r, ALNUM, 24)),
        "twilio-api-key": lambda r: _same("SK" + rand(r, HEX, 32)),
        "shopify-shpat": lambda r: _same("shpat_" + rand(r, HEX, 32)),
        "shopify-shpss": lambda r: _same("shpss_" + rand(r, HEX, 32)),
        "mailgun-key": lambda r: _same("key-" + rand(r, HEX, 32)),
        "digitalocean-pat": lambda r: _same("dop_v1_" + rand(r, HEX, 64)),
        "groq": lambda r: _same("gsk_" + rand(r, ALNUM, 52)),
        "telegram-bot": lambda r: _same(f"{r.randint(10**8, 10**10)}:AA{rand(r, URLSAFE, 33)}"),
        "databricks": lambda r: _same("dapi" + rand(r, HEX, 32)),
        "openai-project": lambda r: _same("sk-proj-" + rand(r, URLSAFE, 156)),
        "openai-legacy": lambda r: _same(
            "sk-" + rand(r, ALNUM, 20) + "T3BlbkFJ" + rand(r, ALNUM, 20)
        ),
        "anthropic": lambda r: _same("sk-ant-api03-" + rand(r, URLSAFE, 93) + "AA"),
        "google-api": lambda r: _same("AIza" + rand(r, URLSAFE, 35)),
        "npm-token": lambda r: _same("npm_" + rand(r, ALNUM, 36)),
        "pypi-token": lambda r: _same("pypi-AgEIcHlwaS5vcmc" + rand(r, URLSAFE, 70)),
        "sendgrid": lambda r: _same(f"SG.{rand(r, URLSAFE, 22)}.{rand(r, URLSAFE, 43)}"),
        "huggingface": lambda r: _same("hf_" + rand(r, string.ascii_letters, 34)),
        "jwt": jwt,
        "bearer-colon": lambda r: _wrapped(
            "Authorization: Bearer {}", f"{rand(r, ALNUM, 12)}:{rand(r, URLSAFE, 32)}"
        ),
        "bearer-opaque": lambda r: _wrapped("Authorization: Bearer {}", rand(r, URLSAFE, 40)),
        "env-api-key": lambda r: _wrapped(
            r.choice(["ACME", "MY_SERVICE", "WEATHER", "PAYMENTS", "SEARCH"]) + "_API_KEY={}",
            rand(r, ALNUM, 32),
        ),
        "env-password": lambda r: _wrapped(
            r.choice(["DB_PASSWORD", "POSTGRES_PASSWORD", "SMTP_PASSWORD"]) + "={}",
            rand(r, ALNUM + "!#%", 18),
        ),
        "url-postgres": lambda r: _url(r, "postgres", 5432, "/app"),
        "url-amqp": lambda r: _url(r, "amqp", 5672, "/vhost"),
        "url-redis": lambda r: _url(r, "redis", 6379, "/0"),
        "url-mysql": lambda r: _url(r, "mysql", 3306, "/shop"),
        "url-mongodb": lambda r: _url(r, "mongodb+srv", 0, "/db"),
        "pem-rsa": lambda r: pem(r, "RSA PRIVATE KEY", False),
        "pem-rsa-proc-type": lambda r: pem(r, "RSA PRIVATE KEY", True),
        "pem-pkcs8": lambda r: pem(r, "PRIVATE KEY", False),
        "pem-ec": lambda r: pem(r, "EC PRIVATE KEY", False),
        "pem-openssh": lambda r: pem(r, "OPENSSH PRIVATE KEY", False),
        "pgp-private": pgp,
    }


KEY_GROUPS = {
    "jwt": "jwt",
    "bearer-colon": "bearer",
    "bearer-opaque": "bearer",
    "env-api-key": "env-assignment",
    "env-password": "env-assignment",
}


def key_group(name: str) -> str:
    """The format group of a key format."""
    if name.startswith("url-"):
        return "url-credential"
    if name.startswith(("pem-", "pgp-")):
        return "private-key"
    return KEY_GROUPS.get(name, "provider-key")


def _same(value: str) -> tuple[str, str]:
    return value, value


def _wrapped(template: str, secret: str) -> tuple[str, str]:
    return template.format(secret), secret


def _url(rng: random.Random, scheme: str, port: int, path: str) -> tuple[str, str]:
    password = rand(rng, ALNUM, rng.randint(12, 20))
    user = rng.choice(["app", "admin", "svc_orders", "guest", ""])
    host = rng.choice(["db.internal", "10.0.3.7", "cache.acme.io", "mq-1.prod"])
    hostport = f"{host}:{port}" if port else host
    return f"{scheme}://{user}:{password}@{hostport}{path}", password


def b64url(raw: bytes) -> str:
    """Unpadded base64url."""
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


def jwt(rng: random.Random) -> tuple[str, str]:
    """An HS256-shaped JWT with a random payload and signature."""
    header = b64url(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    payload = b64url(
        json.dumps(
            {"sub": rand(rng, string.digits, 8), "iat": rng.randint(1_600_000_000, 1_800_000_000)}
        ).encode()
    )
    token = f"{header}.{payload}.{b64url(rng.randbytes(32))}"
    return token, token


def pem(rng: random.Random, label: str, proc_type: bool) -> tuple[str, str]:
    """A PEM private key block with a random body (64-character lines)."""
    body = base64.b64encode(rng.randbytes(rng.choice([120, 240, 400]))).decode()
    lines = [body[i : i + 64] for i in range(0, len(body), 64)]
    head = [f"-----BEGIN {label}-----"]
    if proc_type:
        head += [
            "Proc-Type: 4,ENCRYPTED",
            f"DEK-Info: AES-128-CBC,{rand(rng, HEX, 32).upper()}",
            "",
        ]
    return "\n".join([*head, *lines, f"-----END {label}-----"]), body


def pgp(rng: random.Random) -> tuple[str, str]:
    """An armored PGP private key block with a random body."""
    body = base64.b64encode(rng.randbytes(300)).decode()
    lines = [body[i : i + 64] for i in range(0, len(body), 64)]
    text = "\n".join(
        [
            "-----BEGIN PGP PRIVATE KEY BLOCK-----",
            "",
            *lines,
            f"={rand(rng, B64, 4)}",
            "-----END PGP PRIVATE KEY BLOCK-----",
        ]
    )
    return text, body


def provider_keys(rng: random.Random, per_format: int) -> Iterator[Secret]:
    """Keys of every documented format; probes are the secret part (lines of key bodies)."""
    for name, make in key_formats().items():
        for _ in range(per_format):
            text, secret = make(rng)
            group = key_group(name)
            if group == "private-key":
                probes = [secret[i : i + 48] for i in range(0, len(secret) - 47, 64)]
            else:
                probes = [normalise(secret, numeric=False)]
            yield Secret(text, f"key:{name}", group, "credential", probes=probes)


# --- Crypto wallets -------------------------------------------------------------------------


def wallets(rng: random.Random, per_format: int) -> Iterator[Secret]:
    """Bitcoin legacy, P2SH, segwit v0 and taproot (bech32m) addresses; Ethereum."""
    for _ in range(per_format):
        yield Secret(
            bech32.base58check(b"\x00" + rng.randbytes(20)), "btc:p2pkh", "crypto-wallet", "crypto"
        )
        yield Secret(
            bech32.base58check(b"\x05" + rng.randbytes(20)), "btc:p2sh", "crypto-wallet", "crypto"
        )
        yield Secret(
            bech32.segwit_address("bc", 0, rng.randbytes(20)),
            "btc:p2wpkh",
            "crypto-wallet",
            "crypto",
        )
        yield Secret(
            bech32.segwit_address("bc", 1, rng.randbytes(32)),
            "btc:taproot",
            "crypto-wallet",
            "crypto",
        )
        yield Secret("0x" + rng.randbytes(20).hex(), "eth:address", "crypto-wallet", "crypto")


def all_values(seed: int, scale: int = 1) -> list[Secret]:
    """Every secret value, deterministic for ``seed``."""
    rng = random.Random(seed)
    out: list[Secret] = []
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        collect(rng, scale, out)
    return out


def collect(rng: random.Random, scale: int, out: list[Secret]) -> None:
    """Append every generator's values to ``out``."""
    out += faker_cards(rng, 40 * scale)
    out += faker_locale_values(rng, 3 * scale)
    out += registry_ibans(rng, 3 * scale)
    out += national_ids(rng, 30 * scale)
    out += stdnum_doc_examples()
    out += phone_forms(rng, 2 * scale)
    out += extra_emails(rng, 60 * scale)
    out += provider_keys(rng, 12 * scale)
    out += wallets(rng, 25 * scale)


def sample_values(seed: int) -> list[Secret]:
    """A small deterministic sample of every generator but the all-locale sweep (for tests)."""
    rng = random.Random(seed)
    out: list[Secret] = []
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        out += faker_cards(rng, 1)
        out += registry_ibans(rng, 1)
        out += national_ids(rng, 1)
        out += phone_forms(rng, 1)
        out += extra_emails(rng, 4)
        out += provider_keys(rng, 1)
        out += wallets(rng, 1)
        fake = faker_for("de_DE", rng.randrange(1 << 30))
        out += locale_values(fake, "de_DE")
    return out
