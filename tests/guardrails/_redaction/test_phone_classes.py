"""Phone numbers (issue 21): every class of writing the issue lists as leaked is found, whole
and under any chunking of a stream, by ``PIIDetector`` and ``RegexFilter``'s ``pii`` preset;
every class of ordinary number it lists as wrongly read as a phone stays. Cases are written
from the issue's classes, not taken from any evaluation corpus."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from procession import Agent, PIIDetector, RegexFilter
from procession.guardrails._redaction.detectors import detectors_for
from procession.guardrails._redaction.phones import label_start
from procession.guardrails._redaction.redaction import RedactionEngine
from procession.testing import Reply, ScriptedModel
from tests.guardrails.streaming import streamed

ENGINE = RedactionEngine(detectors_for(("phone",)))

# (class, text, the phone number in it)
LEAKED: list[tuple[str, str, str]] = [
    ("dotted international", "Appelez le +33.1.42.68.53.00 demain.", "+33.1.42.68.53.00"),
    ("dotted international, no country code", "Call 0612.3456.78 now", "0612.3456.78"),
    ("national with a five-digit group", "Mobile: 07700 900123, thanks", "07700 900123"),
    ("five-digit group after an area code", "Ligue (11) 96169-4321 hoje", "(11) 96169-4321"),
    ("three groups with a long one", "Ruf 02954 83058 462 an", "02954 83058 462"),
    ("compact national", "Please use 0612345678 for the order.", "0612345678"),
    ("compact international", "请拨打+447700900123谢谢", "+447700900123"),
    ("over lines", "my number is\n0612\n3456\n78 ok", "0612\n3456\n78"),
    ("in table cells", "| tel | +44 | 7700 | 9001 | 23 |", "+44 | 7700 | 9001 | 23"),
    ("split by tabs", "n\t0612\t3456\t78\tend", "0612\t3456\t78"),
    ("split by commas", "n 0612,3456,78 end", "0612,3456,78"),
    ("split by space runs", "n 0612   3456   78 end", "0612   3456   78"),
    ("split by middle dots", "n 0612·3456·78 end", "0612·3456·78"),
    ("split by slashes", "Tel. 0612/3456/78", "0612/3456/78"),
    ("a count right after", "dial 0612-345678 2 times", "0612-345678"),
    ("an expiry right after", "+44 20 7946 0958 11/27 ok", "+44 20 7946 0958"),
    ("a digit glued after", "call +44 20 7946 09581 now", "+44 20 7946 09581"),
    ("a letter glued after", "call +44 20 7946 0958 3x now", "+44 20 7946 0958"),
    ("two in a row, same writing", "+44 20 7946 0958 +33 1 42 68 53 00", "+33 1 42 68 53 00"),
    ("two in a row, parentheses", "(020) 7946 0958 (030) 1234 5678.", "(030) 1234 5678"),
    ("two in a row, slash", "0612 345 678 / 0687654321 ok", "0687654321"),
    ("region outside any list", "Ethiopia: +251 91 123 4567", "+251 91 123 4567"),
    ("region outside any list, national", "Tashkent 90 123 45 67 ok", "90 123 45 67"),
    ("00 country code", "call 0044 20 7946 0958", "0044 20 7946 0958"),
    ("national prefix kept", "call +44 (0)20 7946 0958", "+44 (0)20 7946 0958"),
    ("Russian trunk prefix", "звоните 8 (912) 345-67-89", "8 (912) 345-67-89"),
    ("markdown emphasis", "use _0612345678_ please", "0612345678"),
    ("JSON-escaped line break", '{"note": "see\\n0612345678"}', "0612345678"),
    ("seven digits grouped 3-4", "Ring 555 0123 tonight", "555 0123"),
    ("seven digits grouped 3-2-2", "звоните 283 01 66 вечером", "283 01 66"),
    ("seven digits after a phone word", "Tel.: 9527601, ask for Ana", "9527601"),
    ("seven digits after a phone word, cells", "| phone | 283 | 016 | 6 |", "283 | 016 | 6"),
    ("seven digits after a phone word, Korean", "전화번호는 3233079입니다", "3233079"),
    ("country code in parentheses", "Ligue (351) 911860913 hoje", "(351) 911860913"),
    ("trunk prefix, then one long group", "Wien 01 234567890 erreichbar", "01 234567890"),
]

# (class, text): numbers the issue says must not be read as phone numbers
ORDINARY: list[tuple[str, str]] = [
    ("ISSN", "ISSN 0317-8471 (print)"),
    ("tracking number", "FedEx tracking: 123456789012 (Express)."),
    ("tracking number, words between", "USPS tracking number 9400 1000 0000 0000 0000 00"),
    ("carrier number", "DHL Sendungsnummer 1234567890, morgen."),
    ("order number", "Order #123-4567890-1234567 confirmed."),
    ("order number, Chinese", "您的订单号1234567890已发货。"),
    ("order number, Japanese", "注文番号20241234-5678をお知らせください。"),
    ("part number", "P/N 1234-5678-90 rev B"),
    ("lot number", "LOT 2024-1234-A, exp 2027-03."),
    ("serial number", "Serial No. 12345678 / model A1"),
    ("invoice", "Invoice INV-1234567890 due 21/12"),
    ("IMEI", "IMEI: 490154203237518"),
    ("price", "Total: 1234,56 € TTC"),
    ("amount with thousands", "It moved 123,456,789 bytes."),
    ("date", "On 2026-03-14 12:30 the job ran."),
    ("dotted date", "Am 14.03.2026 um 10 Uhr"),
    ("time stamp", "2026-11-06 10:16:39,405 INFO worker-1 pid=11470"),
    ("Unix time", "The job finished at 1700000000."),
    ("four-part version", "Version 10.2.15.3001 released"),
    ("IPv4 address", "host 192.168.100.200 is up"),
    ("ZIP+4 code", "Ship it to ZIP 12345-6789."),
    ("postal code", "46011 Berlin, Germany"),
    ("ISBN", "ISBN 978-1-4028-9462-6"),
    ("constant in code", "timeout = 1000000000"),
    ("UUID", "request_id=0f587421-28f1-4227-a8bf-6fffe03896c6"),
    ("hash", "fixed in commit 9f8b5daabd8d667f688517421b4b3720bce487f1"),
    ("column of amounts", "| a | 100 | 200 | 300 |"),
    ("list of small numbers", "values = [10, 20, 30, 40, 50, 60, 70, 80]"),
    ("German dotted amount", "Umsatz: 987.654.321 Euro im Jahr"),
    ("Japanese postal code", "〒100-0001 東京都千代田区"),
    ("Japanese postal code, no mark", "132-8720 宛てに発送してください。"),
    ("coordinates", "GPS fix: 42.8513, 125.6122."),
    ("page range", "see pp. 173-4137 of the report"),
    ("article number", "Art.-Nr. 107-4973, 3 Stück"),
    ("PubMed id", "PMID 31452104 (2019)"),
    ("seven digits compact", "It has 1234567 rows."),
    ("seven digits in a table row", "| 123 | 4567 |"),
    ("phone word on another line", "phone: see below\n1234567 rows"),
]


def digits_left(text: str, phone: str) -> bool:
    """Whether the phone's digits survive in ``text``, joined across separators."""
    wanted = re.sub(r"\D", "", phone)
    return any(wanted in re.sub(r"\D", "", part) for part in re.split(r"[A-Za-z#\[\]]", text))


@pytest.mark.parametrize(("name", "text", "phone"), LEAKED, ids=[c[0] for c in LEAKED])
def test_a_leaked_class_is_found_whole(name: str, text: str, phone: str) -> None:
    at = text.index(phone)
    spans = [(d.start, d.end) for d in ENGINE.scan(text)]
    assert any(a <= at and at + len(phone) - 1 <= b for a, b in spans), (name, spans)


# Three three-digit table cells are also how an SSN split over cells is written (issue 21's
# table-cells class): the `ssn` type reads them as one, by choice (decision 0255). The phone
# detector alone must still leave them.
READ_AS_SSN = frozenset({"column of amounts"})


@pytest.mark.parametrize(("name", "text"), ORDINARY, ids=[c[0] for c in ORDINARY])
def test_an_ordinary_class_is_not_a_phone_number(name: str, text: str) -> None:
    assert ENGINE.scan(text) == [], name
    if name not in ("UUID", "IPv4 address", *READ_AS_SSN):  # PIIDetector's other types
        assert PIIDetector().engine.scan(text) == [], name


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(LEAKED), st.lists(st.integers(0, 80), max_size=12))
def test_no_chunking_lets_a_leaked_class_through(
    case: tuple[str, str, str], cuts: list[int]
) -> None:
    _, text, phone = case
    assert not digits_left(streamed(ENGINE, text, cuts), phone)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(ORDINARY), st.lists(st.integers(0, 80), max_size=12))
def test_no_chunking_alters_an_ordinary_class(case: tuple[str, str], cuts: list[int]) -> None:
    # the label before a number ("tracking: ") is held with it, so a stream decides as the
    # whole text does
    _, text = case
    assert streamed(ENGINE, text, cuts) == text


def test_a_label_is_held_with_the_number_after_it() -> None:
    assert label_start("FedEx tracking: ", 16) == 6
    assert label_start("USPS tracking number ", 21) == 5
    assert label_start("您的订单号", 5) == 2
    assert label_start("Call me on ", 11) == 11


@pytest.mark.asyncio
@pytest.mark.parametrize("make", [PIIDetector, lambda: RegexFilter(presets=["pii"])])
async def test_agent_runs_redact_every_class_in_every_channel(make: object) -> None:
    for _, text, phone in LEAKED:
        pieces = [text[i : i + 3] for i in range(0, len(text), 3)]
        agent = Agent(id="a", model=ScriptedModel([Reply(text=pieces)]), output_processors=[make()])  # type: ignore[operator]
        result = await agent.generate("x")
        assert not digits_left(result.text, phone), (text, result.text)
        assert not digits_left(repr(result.messages), phone), text


@pytest.mark.asyncio
async def test_agent_runs_keep_ordinary_numbers() -> None:
    for name, text in ORDINARY:
        if name in READ_AS_SSN:
            continue
        pieces = [text[i : i + 5] for i in range(0, len(text), 5)]
        agent = Agent(
            id="a",
            model=ScriptedModel([Reply(text=pieces)]),
            output_processors=[RegexFilter(presets=["pii"])],
        )
        assert (await agent.generate("x")).text == text


def test_phone_regions_restrict_national_numbers() -> None:
    only_gb = PIIDetector(phone_regions=["GB"]).engine
    assert [d.value for d in only_gb.scan("Mobile: 07911 123456")] == ["07911 123456"]
    assert only_gb.scan("Bel 0612345678 nu") == []  # a Dutch mobile: not a GB number
    assert only_gb.scan("Appelez le +33.1.42.68.53.00") != []  # a country code: any region
