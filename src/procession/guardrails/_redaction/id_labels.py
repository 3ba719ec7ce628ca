"""Identity labels: the words that say the number after them is a person's identity number.

A bare run of twelve digits is an Aadhaar or a My Number about one time in ten, and so is a
tracking number or a timestamp; written after ``Aadhaar``, ``個人番号``, ``주민등록번호``,
``Ausweisnummer`` or ``ID number`` it is an identity number. The ``national-id`` detector
reads bare runs that a check passes too often (and runs of formats with no check digit) only
after such a label (decision 0297); a stream holds the label with the number after it
(:func:`label_hold`), so that the detector sees both whatever the chunking.

A label is followed by at most :data:`GAP` characters of words, spaces and punctuation that
end no sentence (``The ID number on file is``, ``Le numéro d'identité enregistré est``,
``私の個人番号は``), then the number, perhaps on the next line.
"""

from __future__ import annotations

import re

__all__ = ["GAP", "ID_LABELS", "LABEL_PREFIX", "label_hold", "labelled"]

ID_LABELS: tuple[str, ...] = (
    # English, Filipino, Indonesian, Vietnamese, Icelandic, Swiss, Belgian
    "id number", "id no", "id no.", "id #", "aadhaar no.", "identification no.", "id card",
    "identity number", "identity card",
    "identification number", "identification no", "national id", "national identity",
    "national insurance", "nino", "ssn", "social security", "personal number",
    "personal identity", "citizen id", "aadhaar", "aadhar", "uidai", "my number", "nric",
    "uen", "tax id", "taxpayer id", "umid", "sss", "philhealth", "crn", "ppsn", "nin", "nid",
    "nik", "ktp", "cccd", "cmnd", "căn cước", "kennitala", "ahv", "avs", "insz",
    "rijksregisternummer", "niss", "nss",
    # German, Dutch, Nordic, Polish, Czech, Slovak, Hungarian, Croatian, Romanian, Baltic
    "ausweisnummer", "personalausweis", "identifikationsnummer", "steuer-id", "steuerid",
    "sozialversicherungsnummer", "versicherungsnummer", "svnr", "bsn", "burgerservicenummer",
    "personnummer", "fødselsnummer", "fodselsnummer", "personbevis", "cpr", "henkilötunnus",
    "hetu", "pesel", "rodné číslo", "rodne cislo", "rodné čislo", "személyi szám",
    "taj szám", "oib", "cnp", "asmens kodas", "isikukood", "personas kods", "egn", "егн",
    "emšo", "emso", "jmbg", "амка", "amka",
    # French, Spanish, Portuguese, Italian
    "numéro d'identité", "numéro d\u2019identité", "numéro d'identification", "sécurité sociale",
    "nir", "número de identificación", "número de identidad", "número de identidade",
    "número de identificação", "documento de identidad", "cédula", "cedula", "dni", "nie",
    "nif", "curp", "rfc", "rut", "cuit", "cuil", "seguridad social",
    "segurança social", "cpf", "bilhete de identidade", "codice fiscale",
    "carta d'identità", "numéro national", "assurance sociale", "matricule",
    "cartão de cidadão", "karta tal-identità",
    # Russian, Ukrainian, Kazakh, Macedonian, Serbian, Turkish, Greek, Hebrew, Arabic, Persian,
    # Hindi, Bengali, Thai
    "паспорт", "снилс", "инн", "ідентифікаційний", "кимлик", "kimlik", "tc no",
    "αριθμός ταυτότητας", "ת.ז", "תעודת זהות", "رقم الهوية", "الرقم الوطني", "आधार",
    "पहचान संख्या", "เลขประจำตัวประชาชน", "บัตรประชาชน", "αμκα", "αφμ", "рнокпп", "іпн", "ипн",
    "иин", "ембг", "јмбг", "رقم التعريف", "کد ملی", "জাতীয় পরিচয়", "এনআইডি",
    # Chinese, Japanese, Korean
    "身份证", "身份證", "身分證", "身分证", "居民身份", "证件号", "證件號", "個人番号", "个人番号",
    "マイナンバー", "社会保障番号", "住民票コード", "주민등록번호", "주민번호", "외국인등록번호",
    "신분증",
)  # fmt: skip
"""Identity labels, lower case (ASCII ones match as whole words)."""

GAP = 32
"""The most characters between the end of a label and the number it names."""


def _trie(words: list[str]) -> str:
    """One regex for ``words`` with their common beginnings factored out (``re`` tries far
    fewer branches per position than with a flat alternation)."""
    heads: dict[str, list[str]] = {}
    ends = False
    for word in words:
        if word:
            heads.setdefault(word[0], []).append(word[1:])
        else:
            ends = True
    branches = [re.escape(head) + _trie(rest) for head, rest in sorted(heads.items())]
    if not branches:
        return ""
    body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
    return f"(?:{body})?" if ends else body


_ALTERNATION = (
    # ASCII labels are whole words: "nie" is no label inside "niece"
    rf"(?<![a-z0-9])(?:{_trie([w for w in ID_LABELS if w.isascii()])})(?![a-z])"
    rf"|{_trie([w for w in ID_LABELS if not w.isascii()])}"
)
# words, spaces, quotes and colons, no digit and no sentence end (a dot before a space); then
# perhaps a line break and markdown emphasis before the number
_GAP_TEXT = (
    rf"(?:[^0-9.!?\u3002\uff01\uff1f\n]|\.(?![ \t])){{0,{GAP}}}"
    r"(?:\n[ \t]*)?[*_>`\-]{0,2}[ \t]*"
)
LABEL_PREFIX = rf"(?i:{_ALTERNATION}){_GAP_TEXT}(?:[0-9][0-9 \t.\-/_,|\n]{{0,160}})?\Z"
"""A label, the words after it and perhaps the start of a number, at the end of a stream:
what a stream holds (the ``national-id`` run detector's ``prefix``)."""
_BEFORE = re.compile(rf"(?:{_ALTERNATION}){_GAP_TEXT}\Z")
_WINDOW = 24 + GAP
_HEADS = frozenset(w.split(" ")[0] for w in ID_LABELS if " " in w or w.isascii())
"""The first word of each label written with spaces or in ASCII: one set look-up per word."""
_RUN_ON = tuple(w for w in ID_LABELS if " " not in w and not w.isascii())
"""Labels of scripts written without spaces (``個人番号は``): looked for as substrings."""
_PUNCTUATION = "\"'`*_()[]{}<>:;,.-=#/|\\"


def _may_hold(window: str) -> bool:
    """A cheap test that ``window`` may hold a label in its last words: most text does not."""
    words = window.rsplit(None, _WORDS)
    for word in words[1:] if len(words) > _WORDS else words:
        word = word.lower()
        if word in _HEADS or word.strip(_PUNCTUATION) in _HEADS:
            return True
    return not window.isascii() and any(label in window for label in _RUN_ON)


_WORDS = 6
"""How many words before a number may hold the head of its label (``ID number on file is``)."""


def labelled(text: str, start: int) -> bool:
    """Whether an identity label ends within :data:`GAP` characters before ``start``."""
    window = text[max(0, start - _WINDOW) : start]
    return _may_hold(window) and _BEFORE.search(window.lower()) is not None


def label_hold(text: str, start: int, offset: int = 0) -> int:
    """``start`` moved back to an identity label before it (in ``text[offset:]``), so that a
    stream holds the label with the number that may follow (``start`` if there is none).

    The label is looked for before a held number (``start`` at a digit, or at markdown
    emphasis before one), else before the end of the text: words after a label may still
    lead to a number (``ID number on file is``)."""
    end = start if start < len(text) and text[start] in _NUMBER_HEADS else len(text)
    low = max(offset, end - _WINDOW)
    piece = text[low:end]
    if not _may_hold(piece):
        return start
    window = piece.lower()
    found = _BEFORE.search(window)
    if found is None:
        return start
    if len(window) != len(piece):  # lower() changed a length: hold the whole window
        return min(start, low)
    return min(start, low + found.start())


_NUMBER_HEADS = frozenset("0123456789*_>`-")
