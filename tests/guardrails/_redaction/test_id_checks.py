"""The national-id classes decision 0327 adds (issue 21): UK NINOs with the ``ZZ`` prefix and
set-apart digits, Algerian NINs, Thai ids grouped 1-4-5-2-1, Philippine UMID/SSS/PhilHealth
numbers, Venezuelan cédulas and Singapore UENs of digits; and the ordinary text around them
that stays (object identifiers, longer dotted numbers). Values are made here from the
formats' published rules (check digits from python-stdnum where it has the format), never
taken from the evaluation corpora."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from stdnum.sg import uen
from stdnum.th import pin

from procession.guardrails._redaction.detectors import OFFLINE_TYPES, detectors_for
from procession.guardrails._redaction.id_checks import dz_nin, shaped_id
from procession.guardrails._redaction.national_ids import national_id_length, nino_length
from procession.guardrails._redaction.redaction import RedactionEngine
from tests.guardrails.streaming import streamed

EVERY = RedactionEngine(detectors_for(OFFLINE_TYPES))


def algerian(head: str) -> str:
    """``head`` (16 digits) and its key: ten less the Luhn sum (every second digit from the
    right doubled), as two digits."""
    total = 0
    for position, char in enumerate(reversed(head)):
        value = int(char) * (2 if position % 2 else 1)
        total += value - 9 if value > 9 else value
    return head + f"{(10 - total % 10) % 10:02d}"


# nationality 1, sex 0, year 987, commune 1604 (wilaya 16, Algiers), act 12345, register 07
DZ = algerian("1098716041234507")
THAI = "3100600445635"  # its check digit is python-stdnum's (test_the_fixtures_are_valid)
THAI_GROUPED = f"{THAI[0]}-{THAI[1:5]}-{THAI[5:10]}-{THAI[10:12]}-{THAI[12]}"
UEN_BUSINESS = "53012345" + uen.calc_business_check_digit("53012345")
UEN_COMPANY = "201912345" + uen.calc_local_company_check_digit("201912345")

CLASSES: list[tuple[str, str, str]] = [
    ("NINO with ZZ in pairs", "O meu número é ZZ 96 97 95 T, obrigado.", "ZZ 96 97 95 T"),
    ("NINO with ZZ in one token", "NI ZZ014948T, ZZ014948T.", "ZZ014948T"),
    ("NINO with ZZ set apart", "NINO ZZ 969795 T ok", "ZZ 969795 T"),
    ("NINO set apart", "NINO AB 123456 C ok", "AB 123456 C"),
    ("NINO with zz in lower case", "nino zz 96 97 95 t ok", "zz 96 97 95 t"),
    ("Algerian NIN", f"Pouvez-vous utiliser {DZ} pour la commande ?", DZ),
    ("Algerian NIN with an expiry after it", f"I found {DZ} 11/27 here", DZ),
    ("Algerian NIN in cells", f"| ja | {DZ[:4]} | {DZ[4:8]} | {DZ[8:12]} | {DZ[12:16]} | "
     f"{DZ[16:]} |", f"{DZ[:4]} | {DZ[4:8]} | {DZ[8:12]} | {DZ[12:16]} | {DZ[16:]}"),
    ("Thai id grouped 1-4-5-2-1", f"เลขบัตร {THAI_GROUPED} ครับ", THAI_GROUPED),
    ("Philippine UMID", "Bitte verwenden Sie 7064-2734428-3 11/27 für", "7064-2734428-3"),
    ("Philippine SSS", "SSS 34-1234567-8 ok", "34-1234567-8"),
    ("Philippine PhilHealth", "PhilHealth 12-345678901-2 ok", "12-345678901-2"),
    ("Venezuelan cedula", "Por favor use V-20993219 V-20993219 para", "V-20993219"),
    ("Venezuelan cedula of seven digits", "C.I. V-5235027 ok", "V-5235027"),
    ("Venezuelan cedula in thousands", "cédula V-12.345.678, gracias", "V-12.345.678"),
    ("Venezuelan foreigner's cedula", "cédula E-84012345 ok", "E-84012345"),
    ("Singapore UEN of a business", f"UEN {UEN_BUSINESS} ok", UEN_BUSINESS),
    ("Singapore UEN of a local company", f"UEN: {UEN_COMPANY}.", UEN_COMPANY),
    # no check digit: read after the label in the locale's language (decision 0297's rule)
    ("UMID after its label", "UMID: 123456789012 ok", "123456789012"),
    ("Vietnamese CCCD after its label", "Số CCCD: 001099012345 nhé", "001099012345"),
    ("Kazakh IIN after its label", "ИИН 900101300123 верно", "900101300123"),
    ("Bangladeshi NID after its label", "জাতীয় পরিচয় নম্বর 1990791417776317", "1990791417776317"),
    ("Indonesian NIK after its label", "NIK 3174012345678901 ya", "3174012345678901"),
]  # fmt: skip

ORDINARY: list[tuple[str, str]] = [
    ("NINO-shaped code with a bad suffix", "part AB123456E ships"),
    ("NINO-shaped code with a bad prefix", "code QQ123456C ships"),
    ("an unallocated NINO prefix", "ref GB123456A x"),
    ("18 digits failing the Algerian key", f"order {DZ[:16]}{(int(DZ[16:]) + 1) % 100:02d} ok"),
    ("18 digits with a sex digit 2", f"ref 12{DZ[2:]} ok"),
    ("13 digits in 1-4-5-2-1 failing the check",
     f"ref {THAI_GROUPED[:-1]}{(int(THAI[-1]) + 1) % 10} ok"),
    ("dashed 3-7-1", "lot 706-2734428-3 ok"),
    ("UMID shape with dots", "v 7064.2734428.3 ok"),
    ("cedula-like code without a dash", "model V20993219 ok"),
    ("cedula-like code led by zero", "model V-0993219 ok"),
    ("cedula-like code in a longer number", "build V-20993219.5 ok"),
    ("8 digits and a letter failing UEN and DNI", "lot 12345678A ok"),
    ("an object identifier", "id_Ed25519 = univ.ObjectIdentifier('1.3.101.112')"),
    ("an OID after its name", "OID 1.3.6.1 (internet)"),
    ("a five-part dotted number", "see 1.3.101.112.7 there"),
    ("Spanish 'sin' is no label", "precio sin IVA 1234567890 total"),
]  # fmt: skip


def test_the_fixtures_are_valid() -> None:
    assert pin.is_valid(THAI)
    assert uen.is_valid(UEN_BUSINESS)
    assert uen.is_valid(UEN_COMPANY)
    assert dz_nin(DZ)


def found_whole(text: str, secret: str) -> bool:
    at = text.index(secret)
    return any(d.start <= at and at + len(secret) <= d.end for d in EVERY.scan(text))


@pytest.mark.parametrize(("name", "text", "secret"), CLASSES, ids=[c[0] for c in CLASSES])
def test_a_class_is_found_whole(name: str, text: str, secret: str) -> None:
    assert found_whole(text, secret), name


def shown(secret: str, text: str) -> bool:
    """Whether ``text`` still holds the secret's digits in one piece."""
    digits = "".join(c for c in secret if c.isdigit())
    return digits in "".join(c for c in text if c.isdigit() or c == "#")


@settings(max_examples=300, deadline=None)
@given(case=st.sampled_from(CLASSES), cuts=st.lists(st.integers(1, 70), max_size=12))
def test_a_class_never_streams_through(case: tuple[str, str, str], cuts: list[int]) -> None:
    _, text, secret = case
    assert not shown(secret, streamed(EVERY, text, cuts))


@pytest.mark.parametrize(("name", "text"), ORDINARY, ids=[c[0] for c in ORDINARY])
def test_ordinary_text_stays(name: str, text: str) -> None:
    assert EVERY.scan(text) == [], name


@settings(max_examples=200, deadline=None)
@given(case=st.sampled_from(ORDINARY), cuts=st.lists(st.integers(1, 60), max_size=12))
def test_ordinary_text_stays_under_any_chunking(case: tuple[str, str], cuts: list[int]) -> None:
    _, text = case
    assert streamed(EVERY, text, cuts) == text


def test_the_rules_themselves() -> None:
    assert nino_length("ZZ123456T") == 9  # the dummy prefix: any suffix letter
    assert nino_length("AB123456T") == 0  # others: A-D only
    assert nino_length("Zz123456T") == 0  # one case
    assert not dz_nin("3" + DZ[1:])  # nationality 1 or 2
    assert not dz_nin(DZ[:5] + "59" + DZ[7:])  # wilaya 01-58
    assert shaped_id(["7064", "2734428", "3"], ["-", "-"])
    assert not shaped_id(["7064", "2734428", "3"], ["-", " "])
    # ungrouped (decision 0390): read, but not as a time in ms of 2010-2030 nor an EAN-13
    assert national_id_length(THAI) == len(THAI)
    assert pin.is_valid("1623374467302")
    assert national_id_length("1623374467302") == 0
    assert pin.is_valid("3114598413313")
    assert national_id_length("3114598413313") == 0
    assert national_id_length(THAI_GROUPED) == len(THAI_GROUPED)
