"""Identity numbers a bare check cannot tell from an ordinary number, read after an identity
label; ids of digits and letters with a check character; Maestro's 0604 cards (issue 21,
decision 0297). Values are generated here with Faker's locales and python-stdnum, never taken
from the evaluation corpora. The engines hold only the detectors under test (no phone
detector that could catch a bare twelve-digit number by chance)."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest
from faker import Faker
from hypothesis import given, settings
from hypothesis import strategies as st
from stdnum import luhn, verhoeff
from stdnum.jp import in_ as my_number
from stdnum.sg import uen

from procession.guardrails._redaction.detectors import detectors_for
from procession.guardrails._redaction.id_labels import label_hold, labelled
from procession.guardrails._redaction.redaction import RedactionEngine
from tests.guardrails.streaming import streamed

IDS = RedactionEngine(detectors_for(("national-id",)))
CARDS = RedactionEngine(detectors_for(("credit-card",)))
RNG = random.Random(2197)


def aadhaar() -> str:
    """A valid Aadhaar: twelve digits, not led by 0 or 1, Verhoeff check digit."""
    body = str(RNG.randint(2, 9)) + "".join(str(RNG.randint(0, 9)) for _ in range(10))
    return body + verhoeff.calc_check_digit(body)


def my_number_value() -> str:
    """A valid Japanese My Number: eleven digits and its check digit."""
    body = "".join(str(RNG.randint(0, 9)) for _ in range(11))
    return body + my_number.calc_check_digit(body)


def curp_value() -> str:
    """A CURP from Faker that passes stdnum's check: about 4 % of Faker's name an unknown state."""
    from stdnum.mx import curp

    faker = Faker("es_MX")
    return next(v for v in iter(faker.curp, None) if curp.is_valid(v))


def uen_value() -> str:
    """A valid Singapore UEN of the T/S/R form: year, entity type, four digits, check."""
    body = f"T{RNG.randint(0, 2)}{RNG.randint(0, 4)}LL{RNG.randint(0, 9999):04d}"
    return body + uen.calc_other_check_digit(body)


def unchecked(digits: int) -> str:
    """An id of a format without a check digit (Algeria's 18 digits, Bangladesh's 13...)."""
    return str(RNG.randint(1, 9)) + "".join(str(RNG.randint(0, 9)) for _ in range(digits - 1))


# labels in the languages concerned, as people write them before the number
LABELS = [
    "Aadhaar: {}", "मेरा आधार नंबर {} है", "私のマイナンバーは{}です", "個人番号：{}",
    "주민등록번호는 {}입니다", "身份证号：{}", "Ausweisnummer {} bitte", "numéro d'identité : {}.",
    "Mi número de identificación es {}, gracias", "The ID number on file is {} - ok?",
    "O meu número de identidade é {}, obrigado", "national insurance number: {}",
    "Here is my ID number:\n{}. Thanks",
]  # fmt: skip


def labelled_cases() -> list[tuple[str, str, str]]:
    """(class, text, the value): each kind of bare value after each label."""
    values = {
        "bare Aadhaar": aadhaar(),
        "Faker's Aadhaar": Faker("en_IN").aadhaar_id(),
        "bare My Number": my_number_value(),
        "Korean RRN without its dash": Faker("ko_KR").ssn().replace("-", ""),
        "an 18-digit id without a check digit": unchecked(18),
        "a 13-digit id without a check digit": unchecked(13),
    }
    return [
        (f"{kind} after {label!r}", label.format(value), value)
        for kind, value in values.items()
        for label in LABELS
    ]


LABELLED = labelled_cases()

LETTERED = [
    ("Finnish HETU", "henkilötunnus {} kiitos", Faker("fi_FI").ssn()),
    ("Mexican CURP", "CURP {} gracias", curp_value()),
    ("Spanish NIE", "NIE {} gracias", Faker("es_ES").nie()),
    ("Spanish NIE in lower case", "use {} please", Faker("es_ES").nie().lower()),
    ("Spanish NIE with dashes", "use {} please", "X-2482300-W"),
    ("Singapore UEN", "UEN {}で", uen_value()),
]

CASES = LABELLED + [(name, text.format(value), value) for name, text, value in LETTERED]


def covered(engine: RedactionEngine, text: str, value: str) -> bool:
    """Whether one detection covers ``value`` in ``text``."""
    at = text.index(value)
    return any(d.start <= at and at + len(value) <= d.end for d in engine.scan(text))


def test_the_fixtures_are_valid() -> None:
    from stdnum.es import nie
    from stdnum.fi import hetu
    from stdnum.in_ import aadhaar as stdnum_aadhaar
    from stdnum.mx import curp

    assert stdnum_aadhaar.is_valid(aadhaar())
    assert my_number.is_valid(my_number_value())
    assert uen.is_valid(uen_value())
    assert hetu.is_valid(LETTERED[0][2])
    assert curp.is_valid(LETTERED[1][2])
    assert nie.is_valid(LETTERED[2][2])
    assert nie.is_valid(LETTERED[4][2].replace("-", ""))


@pytest.mark.parametrize(("name", "text", "value"), CASES, ids=[c[0] for c in CASES])
def test_a_class_is_found_whole(name: str, text: str, value: str) -> None:
    assert covered(IDS, text, value), name


def shown(value: str, text: str) -> bool:
    """Whether ``text`` still shows ``value`` (digits joined across separators)."""
    digits = "".join(c for c in value if c.isdigit())
    return digits in "".join(c for c in text if c.isdigit() or c == "#")


@settings(max_examples=400, deadline=None)
@given(case=st.sampled_from(CASES), cuts=st.lists(st.integers(1, 70), max_size=14))
def test_a_class_never_streams_through(case: tuple[str, str, str], cuts: list[int]) -> None:
    _, text, value = case
    assert not shown(value, streamed(IDS, text, cuts))


def test_a_list_after_one_label_is_read_whole() -> None:
    first, second, third = aadhaar(), my_number_value(), aadhaar()
    grouped = " ".join((first[:4], first[4:8], first[8:]))  # a grouped Aadhaar: its check
    for text in (
        f"Aadhaar: {first}, {second} / {third}.",
        f"個人番号：{first}、{second}",
        f"ids {grouped} / {second} ok",  # a list opened by an id found by its check
    ):
        out = streamed(IDS, text, [7, 19, 33])
        assert not any(shown(v, out) for v in (first, second)), (text, out)


# numbers that are not labelled as identity numbers, and words that only look like labels
ORDINARY = [
    ("a bare twelve-digit tracking number", "FedEx tracking 7961 2345 6789 shipped"),
    ("a bare run after no label", "Order 843257925898 arrived"),
    ("a timestamp", "created_at = 1712345678901"),
    ("a label in another sentence", "Enter your Aadhaar. Order 843257925898 arrived."),
    ("a label far before the number", "ID number policy is described in chapter four of the"
     " handbook, see page 843257925898"),
    ("'nie' inside a word", "the niece paid 843257925898 yen"),
    ("a date after a label", "ID number issued 2024-05-06 12:00"),
    ("an amount after a label", "national id budget 1,234,567,890 EUR"),
    ("a part number with a letter check shape", "part S12AB1234C and T99XX0000Z"),
]  # fmt: skip


@pytest.mark.parametrize(("name", "text"), ORDINARY, ids=[c[0] for c in ORDINARY])
def test_ordinary_numbers_stay(name: str, text: str) -> None:
    assert IDS.scan(text) == [], name


def test_a_stream_holds_a_label_until_the_number_is_read() -> None:
    text = "Le numéro d'identité enregistré est "
    assert labelled(text, len(text))
    assert label_hold(text, len(text)) == text.index("numéro")
    plain = "The quick brown fox jumps over the lazy dog "
    assert label_hold(plain, len(plain)) == len(plain)
    assert label_hold(plain + "12", len(plain)) == len(plain)


def test_maestro_0604_cards_are_cards_with_a_count_after_them() -> None:
    for _ in range(20):
        body = "0604" + "".join(str(RNG.randint(0, 9)) for _ in range(RNG.choice((7, 11, 14))))
        card = body + luhn.calc_check_digit(body)
        grouped = " ".join(card[i : i + 4] for i in range(0, len(card), 4))
        for text, digits in (
            (f"Pay with {card} 2 times", card),
            (f"card {grouped} 11/27", grouped),
        ):
            out = streamed(CARDS, text, [5, 11, 17])
            assert card not in "".join(c for c in out if c.isdigit()), (text, out)
            assert covered(CARDS, text, digits), text
    assert CARDS.scan("ref 0123 4567 8901 2345 ok") == []  # led by 0 but not 0604


def numbers(count: int) -> str:
    """``count`` random digits."""
    return "".join(str(RNG.randint(0, 9)) for _ in range(count))


def isbn13() -> str:
    """A valid ISBN-13, hyphenated."""
    from stdnum import ean, isbn

    while True:
        body = "978" + numbers(9)
        value = body + ean.calc_check_digit(body)
        if isbn.is_valid(value):
            return str(isbn.format(value))


# references of other kinds of number, labelled as such: one in ten passes some id's check
LABELLED_REFERENCES = [
    ("a part number", lambda: f"P/N {numbers(4)}-{numbers(4)}-{numbers(2)} rev C"),
    ("an ISBN", lambda: f"ISBN {isbn13()}"),
    ("a parcel number", lambda: f"DHL Sendungsnummer {numbers(10)}, morgen."),
    ("a tracking number", lambda: f"FedEx tracking: {numbers(12)} (Express)."),
    ("an IMEI", lambda: f"IMEI: 35{numbers(13)}"),
]


@pytest.mark.parametrize(
    ("name", "make"), LABELLED_REFERENCES, ids=[c[0] for c in LABELLED_REFERENCES]
)
def test_a_number_labelled_as_another_kind_is_no_id(name: str, make: Callable[[], str]) -> None:
    texts = [make() for _ in range(300)]
    assert [t for t in texts if IDS.scan(t)] == [], name


SSNS = RedactionEngine(detectors_for(("ssn",)))  # StreamRedactor's and RegexFilter's type


def ssn_value() -> str:
    """An SSN the SSA could have issued."""
    return f"{RNG.randint(1, 665):03d}{RNG.randint(1, 99):02d}{RNG.randint(1, 9999):04d}"


SSN_LABELS = ["SSN: {}", "social security number {} ok", "社会保障番号は{}です", "Mi SSN es {}."]


@pytest.mark.parametrize("label", SSN_LABELS)
def test_an_ssn_in_comma_groups_is_read_after_a_label(label: str) -> None:
    digits = ssn_value()
    value = f"{digits[:3]},{digits[3:6]},{digits[6:]}"
    text = label.format(value)
    assert covered(SSNS, text, value), text
    assert not shown(value, streamed(SSNS, text, [4, 9, 15])), text
    assert SSNS.scan(f"It moved {value} bytes.") == []  # no label: an amount
