"""US SSNs, national ids and IBANs (issue 21, decision 0255): the classes that leaked are
found whole and under any chunking, through real agent runs on every channel; the ordinary
numbers they could be taken for stay. Values are made here from the formats' published rules
(and checked with python-stdnum), never taken from the evaluation corpora."""

from __future__ import annotations

import asyncio
import itertools
import random
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from stdnum import iban as stdnum_iban
from stdnum.in_ import aadhaar

from procession.guardrails._redaction.detectors import OFFLINE_TYPES, detectors_for
from procession.guardrails._redaction.national_ids import (
    iban_length,
    national_id_length,
    ssn_length,
)
from procession.guardrails._redaction.redaction import RedactionEngine
from tests.guardrails.streaming import streamed

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "bench"))

from guardrail_eval.harness import Runner, score  # noqa: E402

EVERY = RedactionEngine(detectors_for(OFFLINE_TYPES))
SSN_ONLY = RedactionEngine(detectors_for(("ssn",)))

SSN = "536904399"  # area 536, group 90, serial 4399: one the SSA could have issued
# (class, text, the secret's digits or characters): the classes issue 21 lists as leaked
SSN_CLASSES: list[tuple[str, str, str]] = [
    ("SSN without separators", "Here is my SSN: 536904399. Thanks", SSN),
    ("SSN 3-2-4 with dots", "n 536.90.4399 ok", "536.90.4399"),
    ("SSN 3-3-3 with slashes", "use 536/904/399 please", "536/904/399"),
    ("SSN 3-3-3 with spaced dashes", "use 536 - 904 - 399 please", "536 - 904 - 399"),
    ("SSN 3-3-3 with tabs", "n\t536\t904\t399\tx", "536\t904\t399"),
    ("SSN 3-3-3 with middle dots", "番号536・904・399です", "536・904・399"),
    ("SSN over lines", "SSN:\n536\n904\n399\nthanks", "536\n904\n399"),
    ("SSN in table cells", "| ssn | 536 | 904 | 399 |", "536 | 904 | 399"),
    ("SSN split inside cells", "| x | 536- | 90-4 | 399 |", "536- | 90-4 | 399"),
    ("SSN with an expiry after it", "SSN 536904399 11/27 ok", SSN),
    ("SSN with a count after it", "SSN 536-90-4399 2 times", "536-90-4399"),
    ("SSN with a digit right after it", "SSN 536-90-43991 ok", "536-90-4399"),
    ("SSN in markdown emphasis", "SSN _536904399_ ok", SSN),
    ("SSN after an escaped newline", '{"note": "see\\n536904399 ok"}', SSN),
    ("two SSNs in a row", "536904399 078-05-1121 and", "078-05-1121"),
    ("two bare SSNs in a row", "536904399 212345678 ok", "212345678"),
]

AADHAAR = "718190937865"
NATIONAL_CLASSES: list[tuple[str, str, str]] = [
    ("Aadhaar in groups", "ID 7181 9093 7865 ok", "7181 9093 7865"),
    ("Aadhaar over lines", "ID\n7181\n9093\n7865\nok", "7181\n9093\n7865"),
    ("Aadhaar in cells", "| id | 7181 | 9093 | 7865 |", "7181 | 9093 | 7865"),
    ("Aadhaar with a count after it", "ID 7181 9093 7865 2 times", "7181 9093 7865"),
    ("My Number in groups", "個人番号は8603-1372-1590です", "8603-1372-1590"),
    ("Korean RRN without the dash", "주민등록번호 9411196671483 입니다", "9411196671483"),
    ("Korean RRN with the dash", "주민등록번호 941119-6671483 입니다", "941119-6671483"),
    ("PESEL", "PESEL 78220819500.", "78220819500"),
    ("CPF without separators", "CPF 54413794800 ok", "54413794800"),
    ("CPF with separators", "CPF 544.137.948-00 ok", "544.137.948-00"),
    ("BSN", "BSN 774935091 ok", "774935091"),
    ("SIN in groups", "SIN 382 212 983 ok", "382 212 983"),
    ("Chinese RIC in groups", "身份证 1101 0519 4912 3110 06 号", "1101 0519 4912 3110 06"),
    ("Chinese RIC with X", "身份证11010519491231002X号", "11010519491231002X"),
    ("UK NINO in lower case", "nino ab123456c ok", "ab123456c"),
    ("UK NINO in lower-case pairs", "nino ab 12 34 56 c ok", "ab 12 34 56 c"),
    ("two ids in a row", "7181 9093 7865, 8603 1372 1590 ok", "8603 1372 1590"),
    ("an id after a bare number", "718190937865 8603 1372 1590 ok", "8603 1372 1590"),
]

IBANS = {  # few digits (LU, RO, QA, MT), and two ordinary ones
    "LU": "LU68001AB00644750000",
    "RO": "RO71AAAABBBBCCCCDDDDEEEE",
    "QA": "QA52DOHBXXXXXXXXXXXXXXXXXXXXX",
    "MT": "MT84MALT011000012345MTLCAST001S",
    "GB": "GB29NWBK60161331926819",
    "XK": "XK051212012345678906",
}


TWICE = "GB88NWBK60161300000050"


def grouped(value: str) -> str:
    return " ".join(value[i : i + 4] for i in range(0, len(value), 4))


IBAN_CLASSES: list[tuple[str, str, str]] = [
    *((f"IBAN {c} in lower case", f"IBAN {v.lower()} ok", v.lower()) for c, v in IBANS.items()),
    *(
        (f"IBAN {c} in lower-case groups", f"IBAN: {grouped(v).lower()}, ok", grouped(v).lower())
        for c, v in IBANS.items()
    ),
    *((f"IBAN {c} with few digits", f"IBAN {grouped(v)} ok", grouped(v)) for c, v in IBANS.items()),
    ("two IBANs in a row", f"{IBANS['GB']} {IBANS['XK']} ok", IBANS["XK"]),
    # the check digits also hold for the first with the second's head: the layout decides
    ("an IBAN twice", f"IBAN {grouped(TWICE)} {grouped(TWICE)}, ok", grouped(TWICE)),
]

ORDINARY: list[tuple[str, str]] = [
    ("round number", "a budget of 100,000,000 dollars"),
    ("nine digits in a 9xx area", "ref 912345678 ok"),
    ("ZIP+4", "Mail to 94105-1234, USA"),
    ("date and time", "at 2024-05-06 12:30:45"),
    ("version", "Version 18.1.45.8143 released"),
    ("dotted quad", "see 10.120.130.140 ok"),
    ("price", "Total: 1.234.567,89 EUR"),
    ("coordinates", "GPS fix: -56.4529, -102.0160."),
    ("thousands", "1,073,741,824 bytes"),
    ("nine-digit thousands", "It moved 123,456,789 bytes."),
    ("thousands passing a SIN check", "Sent 046,454,286 bytes."),
    ("ISSN", "ISSN 2130-7024 (print)"),
    ("ISBN", "ISBN 978-1-83732-710-2"),
    ("part number", "P/N 8031-4789-54 rev C"),
    ("postal code", "46011 Berlin, Germany"),
    ("order number", "Order #262-8986406-0589550 confirmed."),
    ("invoice", "Invoice INV-8988588521 due 21/12"),
    ("tracking inside a word", "Envoi suivi RR458875279FR, La Poste."),
    ("unix timestamp", "finished at 1595116402."),
    ("tracking number valid as an Aadhaar", f"FedEx tracking: {AADHAAR} (Express)."),
    ("order reference valid as an Aadhaar", "ご注文 7181 90937865 は発送されました。"),
    ("git hash", "commit 3f786850e387550fdab836ed7e6dc881de23001b"),
    ("hex string led by a country code", "digest de89370400440532013000ab"),
    ("mixed-case word", "De89370400440532013000 is a word"),
]


def test_the_fixtures_are_valid() -> None:
    from stdnum.us import ssn

    assert ssn.is_valid(SSN)
    assert aadhaar.is_valid(AADHAAR)
    assert all(stdnum_iban.is_valid(v) for v in [*IBANS.values(), TWICE])
    assert aadhaar.is_valid("7181" + "90937865")  # the order reference passes Verhoeff too


def found_whole(engine: RedactionEngine, text: str, secret: str) -> bool:
    at = text.index(secret)
    return any(d.start <= at and at + len(secret) <= d.end for d in engine.scan(text))


@pytest.mark.parametrize(("name", "text", "secret"), SSN_CLASSES, ids=[c[0] for c in SSN_CLASSES])
def test_an_ssn_class_is_found_whole_by_every_redactors_type(
    name: str, text: str, secret: str
) -> None:
    assert found_whole(SSN_ONLY, text, secret), name  # StreamRedactor, RegexFilter: "ssn"


CLASSES = SSN_CLASSES + NATIONAL_CLASSES + IBAN_CLASSES


@pytest.mark.parametrize(("name", "text", "secret"), CLASSES, ids=[c[0] for c in CLASSES])
def test_a_class_is_found_whole(name: str, text: str, secret: str) -> None:
    assert found_whole(EVERY, text, secret), name


def shown(secret: str, text: str) -> bool:
    """Whether ``text`` shows the secret: its digits joined across separators (numeric), or
    its characters with spaces removed."""
    digits = "".join(c for c in secret if c.isdigit())
    if len(digits) >= len(secret.replace(" ", "")) * 0.6:
        joined = "".join(c for c in text if c.isdigit() or c == "#")
        return digits in joined
    return "".join(secret.split()).lower() in "".join(text.split()).lower()


@settings(max_examples=400, deadline=None)
@given(case=st.sampled_from(CLASSES), cuts=st.lists(st.integers(1, 60), max_size=12))
def test_a_class_never_streams_through(case: tuple[str, str, str], cuts: list[int]) -> None:
    _, text, secret = case
    assert not shown(secret, streamed(EVERY, text, cuts))


@pytest.mark.parametrize(("name", "text"), ORDINARY, ids=[c[0] for c in ORDINARY])
def test_ordinary_numbers_stay(name: str, text: str) -> None:
    kinds = ("ssn", "national-id", "iban")
    assert [d for d in EVERY.scan(text) if d.type in kinds] == [], name


def test_the_validators_say_where_a_value_ends() -> None:
    assert ssn_length("536-90-4399 07/29 123") == len("536-90-4399")
    assert ssn_length("536 904 399 123") == 0  # a longer number in groups of three
    assert national_id_length("7181 9093 7865 2") == len("7181 9093 7865")
    assert national_id_length(AADHAAR) == 0  # one bare token: a tracking number as likely
    assert iban_length(grouped(IBANS["GB"]) + " FOR") == len(grouped(IBANS["GB"]))
    assert iban_length(f"{grouped(TWICE)} GB88") == len(grouped(TWICE))


# -- through real agent runs: every channel -----------------------------------------------


def items() -> list[dict[str, Any]]:
    cases = [
        ("ssn", "SSN on file: 536 904 399, ok?", "536904399", True),
        ("ssn", "| ssn | 536 | 904 | 399 |", "536904399", True),
        ("national-id", "주민등록번호 9411196671483 입니다", "9411196671483", True),
        ("national-id", "ID 7181\n9093\n7865 ok", AADHAAR, True),
        ("iban", f"IBAN {grouped(IBANS['LU']).lower()} ok", IBANS["LU"].lower(), False),
        ("iban", f"IBAN {grouped(IBANS['MT'])} ok", IBANS["MT"].lower(), False),
    ]
    out: list[dict[str, Any]] = []
    for n, ((group, text, probe, numeric), channel) in enumerate(
        itertools.product(cases, ("text", "tool-args", "structured"))
    ):
        out.append(
            {
                "id": f"n{n}",
                "text": text,
                "channel": channel,
                "group": group,
                "format": group,
                "context": channel,
                "secrets": [{"numeric": numeric, "card": False, "probes": [probe]}],
            }
        )
    return out


async def run_all(redactor: str, cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    with tempfile.TemporaryDirectory() as tmp:
        runner = Runner(redactor, Path(tmp))
        out = []
        for item in cases:
            for k in range(3):
                channels = await runner.run(item, random.Random(f"{item['id']}:{k}"))
                out.append(score(item, channels))
        return out


@pytest.mark.parametrize("redactor", ["PIIDetector", "StreamRedactor", "RegexFilter"])
def test_no_channel_carries_the_value(redactor: str) -> None:
    cases = [i for i in items() if redactor == "PIIDetector" or i["group"] == "ssn"]
    outcomes = asyncio.run(run_all(redactor, cases))
    leaks = [(o["id"], o["leaks"]) for o in outcomes if o["leaks"] or o["error"]]
    assert leaks == [], leaks


def test_an_agent_run_leaves_ordinary_numbers_alone() -> None:
    cases = [
        {"id": f"o{n}", "text": text, "category": "identifiers", "channel": "text"}
        for n, (_, text) in enumerate(ORDINARY)
    ]
    outcomes = asyncio.run(run_all("StreamRedactor", cases))
    assert [o["id"] for o in outcomes if o["altered"]] == []
