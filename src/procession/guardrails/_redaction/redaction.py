"""The streaming redaction engine every redacting processor shares.

:class:`RedactionEngine` holds the detectors (built-in ones, and users' own regular expressions)
and the hold bound; it is immutable and shared by every run. :class:`StreamScanner` is one
stream's state (a run's text, its reasoning, one tool call's argument text): fed delta by delta,
it returns the text that no later delta can change the verdict on, with the detections in it,
and holds back the rest.

What is held back is exactly the *open candidate*: the leftmost position from which the text
up to its end could still grow into a match (each detector's ``prefix``). Everything before it
is final, since a match there is already whole or can no longer occur. Work per delta is
proportional to the held text plus the delta, and the held text is bounded: when an open
candidate outgrows ``hold`` characters it is reported and redacted at once (fail closed),
and what continues it is swallowed too, never released. Total work is linear in the stream.

Users' own patterns (``rules``) cannot declare a prefix; for them the third-party ``regex``
module's *partial matching* tells whether the end of the text could still become a match, so
custom rules are held across chunks the same way.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from procession.guardrails._redaction.detectors import (
    FAMILIES,
    Detection,
    Detector,
    count_digits,
    matching_text,
)
from procession.guardrails._redaction.held_groups import GROUPED, skip_groups
from procession.guardrails._redaction.id_labels import label_hold
from procession.guardrails._redaction.open_reach import leftmost, reach_parts
from procession.guardrails._redaction.phones import label_start

__all__ = [
    "DEFAULT_HOLD",
    "REDACTION_METHODS",
    "CustomRule",
    "RedactionEngine",
    "RedactionMethod",
    "StreamScanner",
    "mask_value",
    "redact_value",
]

DEFAULT_HOLD = 256
"""Default bound, in characters, on the text a stream may hold back."""

RedactionMethod = Literal["mask", "hash", "remove", "placeholder"]
"""How a detection is replaced: ``mask``, ``hash``, ``remove`` or ``placeholder`` (see
``redact_value``)."""
REDACTION_METHODS: tuple[str, ...] = ("mask", "hash", "remove", "placeholder")
"""Every ``RedactionMethod``, for checking the ``redaction_method`` argument."""


@dataclass(frozen=True, slots=True)
class CustomRule:
    """A user's own pattern (a ``regex`` module pattern, so it can match partially)."""

    type: str
    pattern: Any
    """A compiled ``regex`` pattern."""
    placeholder: str

    @classmethod
    def compile(cls, name: str, pattern: str | re.Pattern[str], placeholder: str) -> CustomRule:
        """Compile ``pattern`` (a string or an ``re`` pattern) with the ``regex`` module."""
        import regex

        if isinstance(pattern, re.Pattern):
            flags = pattern.flags & (re.IGNORECASE | re.MULTILINE | re.DOTALL | re.VERBOSE)
            compiled = regex.compile(pattern.pattern, flags | regex.VERSION0)
        else:
            compiled = regex.compile(pattern, regex.VERSION0)
        return cls(name, compiled, placeholder)


class RedactionEngine:
    """The detectors, custom rules and hold bound of one processor (shared by its runs).

    Args:
        detectors: Built-in detectors (:func:`~procession.guardrails._redaction.detectors.
            detectors_for`).
        rules: Users' own patterns.
        hold: The most characters a stream may hold back; a candidate that outgrows it is
            redacted whole (fail closed).
        batch: Text is scanned once this many new characters are waiting (default
            ``min(64, hold // 4)``, decision 0261): detection then runs once per batch, not
            once per delta.
    """

    __slots__ = (
        "_by_group",
        "_open",
        "_order",
        "_parts",
        "_plan",
        "batch",
        "detectors",
        "hold",
        "rules",
    )

    def __init__(
        self,
        detectors: Sequence[Detector],
        rules: Sequence[CustomRule] = (),
        *,
        hold: int = DEFAULT_HOLD,
        batch: int | None = None,
    ) -> None:
        self.detectors = tuple(detectors)
        self.rules = tuple(rules)
        self.hold = hold
        self.batch = min(64, hold // 4) if batch is None else batch
        prefixes: dict[str, Detector] = {}
        for detector in self.detectors:
            prefixes.setdefault(detector.prefix, detector)
        self._by_group = {f"g{i}": d for i, d in enumerate(prefixes.values())}
        never = r"(?!)"
        self._open = re.compile(
            "|".join(f"(?P<{g}>{d.prefix})" for g, d in self._by_group.items()) or never
        )
        self._parts = reach_parts({g: d.prefix for g, d in self._by_group.items()})
        self._order = {g: i for i, g in enumerate(self._by_group)}
        self._plan = _plan(self.detectors)

    def to_state(self) -> dict[str, Any]:
        """The stored form of a per-run engine (its detector types; rebuilt by replay)."""
        return {"detectors": [d.type for d in self.detectors], "hold": self.hold}

    def scanner(self) -> StreamScanner:
        """A fresh stream state."""
        return StreamScanner(self)

    def scan(self, text: str) -> list[Detection]:
        """Every detection in a complete ``text``, in order."""
        found, _ = self.final(matching_text(text), 0, len(text))
        return found

    def redact(self, text: str, replace: Callable[[Detection], str]) -> tuple[str, list[Detection]]:
        """``text`` with every detection replaced, and the detections."""
        found = self.scan(text)
        return (apply(text, found, replace) if found else text), found

    def open_start(self, norm: str, offset: int) -> tuple[int, str]:
        """Where the leftmost open candidate starts (``len(norm)`` if none), and its group.

        A cheap superset comes first: the trailing run of printable ASCII, extended left over
        the space-separated groups that spaced shapes (cards, phone numbers, IBANs, ``Bearer
        <token>``, ``api_key = <value>``) are made of, and an unfinished private-key block.
        Holding a superset is safe; only a long one is refined with the exact prefixes.
        """
        start = _superset_start(norm, offset)
        kind = ""
        if len(norm) - start > _REFINE:  # each prefix searched only where it can start
            start, kind = leftmost(self._parts, self._order, norm, start)
        for rule in self.rules:
            for found in rule.pattern.finditer(norm, offset, partial=True):
                if found.start() >= start:
                    break
                if found.end() > found.start() and (found.partial or found.end() == len(norm)):
                    start, kind = found.start(), rule.type
                    break
        return start, kind

    def continuation(self, kind: str) -> tuple[str, re.Pattern[str]]:
        """The type and continuation pattern of an open candidate's group (or rule type)."""
        detector = self._by_group.get(kind)
        if detector is None:  # a custom rule: its candidate runs to the next space
            return kind, _NON_SPACE
        return detector.type, re.compile(detector.continuation)

    def final(self, norm: str, offset: int, cut: int) -> tuple[list[Detection], int]:
        """Detections starting in ``[offset, cut)`` and the cut, lowered below any match that
        would straddle it."""
        hits: list[tuple[int, list[Detection]]] = []
        if self._plan:
            # the whole buffer: a match may start before the cut and end after it
            scope = norm[offset:] if offset else norm
            digits = count_digits(scope)
            for least, family, members in self._plan:
                if least > digits or (family is not None and family(norm, offset) is None):
                    continue
                for rank, need, literal, trigger, search, detector in members:
                    if need > digits:
                        continue
                    if literal is not None and literal not in scope:
                        continue
                    if trigger is not None and trigger(norm, offset) is None:
                        continue
                    match = search(norm, offset)  # most searches find nothing: no call then
                    if match is None or match.start() >= cut:
                        continue
                    more = detector.find(norm, offset, cut, match)
                    if more:
                        hits.append((rank, more))
        found: list[Detection] = []
        if hits:
            hits.sort(key=_rank)  # equal starts keep the detectors' order (stable sort)
            for _, more in hits:
                found.extend(more)
        for rule in self.rules:
            for hit in rule.pattern.finditer(norm, offset):
                if hit.start() >= cut:
                    break
                if hit.end() > hit.start():
                    found.append(Detection(rule.type, hit.start(), hit.end(), hit.group()))
        if not found:
            return found, cut
        while True:  # a match reaching past the cut moves the cut to its start
            lowest = min((d.start for d in found if d.end > cut), default=cut)
            if lowest >= cut:
                break
            cut = lowest
            found = [d for d in found if d.start < cut]
        found.sort(key=_start)
        return found, cut


_Search = Callable[[str, int], "re.Match[str] | None"]
_Member = tuple[int, int, str | None, _Search | None, _Search, Detector]
_Step = tuple[int, _Search | None, tuple[_Member, ...]]
_LITERAL = re.compile(r"[^\\.^$*+?{}\[\]|()]+")


def _plan(detectors: Sequence[Detector]) -> tuple[_Step, ...]:
    """How :meth:`RedactionEngine.final` runs ``detectors``: steps, each the fewest digits
    its members need, its family's combined search (or ``None``) and its members: their rank
    (place in ``detectors``), ``min_digits``, trigger (a literal looked for with ``in``, or a
    search function), search function and detector. A family of one is searched alone."""
    families: dict[str, list[tuple[int, Detector]]] = {}
    for rank, detector in enumerate(detectors):
        key = detector.family if detector.family in FAMILIES and detector.sketch else ""
        families.setdefault(key or f"#{rank}", []).append((rank, detector))
    steps: list[_Step] = []
    for key, ranked in families.items():
        members = tuple(_member(rank, detector) for rank, detector in ranked)
        family = None
        if len(ranked) > 1:
            head, sketches = FAMILIES[key], "|".join(d.sketch for _, d in ranked)
            # no group around a headless pass: a flat alternation of literal-led sketches
            # is what lets `re` skip to the literals
            family = re.compile(f"{head}(?:{sketches})" if head else sketches).search
        steps.append((min(m[1] for m in members), family, members))
    return tuple(steps)


def _member(rank: int, detector: Detector) -> _Member:
    trigger = detector.trigger
    literal = trigger if trigger and _LITERAL.fullmatch(trigger) else None
    search = re.compile(trigger).search if trigger and literal is None else None
    return (rank, detector.min_digits, literal, search, detector.compiled.search, detector)


def _rank(hit: tuple[int, list[Detection]]) -> int:
    return hit[0]


_NON_SPACE = re.compile(r"\S*")
_REFINE = 48
"""A superset hold longer than this is refined with the exact prefix patterns."""
_PRINTABLE = "".join(chr(code) for code in range(0x21, 0x7F))
_GROUPED = GROUPED
_KEYWORDS = frozenset(
    (
        "bearer", "api_key", "api-key", "apikey", "api_secret", "api-secret", "secret_key",
        "secret-key", "access_token", "access-token", "auth_token", "auth-token",
        "client_secret", "client-secret", "aws_secret_access_key", "secretaccesskey",
        "secret_access_key", "secret-access-key", "password", "passwd", "auth", "",
    )
)  # fmt: skip
"""Words whose value may follow after a space; ``auth`` is a Docker ``config.json`` field."""
_KEYWORD_ENDS = tuple(word for word in _KEYWORDS if word)
_CONTEXT_WORDS = frozenset(("version", "ver", "build"))
"""Words that make the dotted quad after them a version, not an address (``ip_rules``)."""


def _wider_start(norm: str, start: int, offset: int) -> int:
    """``start`` moved back over what an e-mail address may hold beyond printable ASCII: an
    accented or Cyrillic local part or domain, a CJK domain after ``@``, a quoted local part
    still open (the last ``"`` within 64 characters)."""
    low = max(offset, start - 64)
    quote = norm.rfind('"', low, start)
    if (
        quote >= 0
        and norm.count('"', quote, len(norm)) % 2
        and norm.find("\n", quote) < 0
        and norm.find("\\", quote) < 0
    ):  # a quoted local part holds no line break and no backslash: most quotes stop here
        start = quote
    at = norm.rfind("@", low, start)
    if at >= 0 and not any(c.isspace() for c in norm[at:start]):
        start = at
    while start > offset and (
        "\u00c0" <= norm[start - 1] <= "\u04ff" or "!" <= norm[start - 1] <= "~"
    ):
        start -= 1
    return start


def _superset_start(norm: str, offset: int) -> int:
    """A start at or before every open candidate's (see :meth:`RedactionEngine.open_start`)."""
    start = max(len(norm.rstrip(_PRINTABLE)), offset)
    if start > offset and (norm[start - 1] > "~" or norm.find('"', max(offset, start - 64)) >= 0):
        start = _wider_start(norm, start, offset)
    while start > offset:
        start = skip_groups(norm, start, offset)  # whole groups in one pass: a list of numbers
        if start <= offset:
            break
        gap = start
        while gap > offset and start - gap <= 8 and norm[gap - 1] in " \t\n":
            gap -= 1
        if gap in (start, offset) or start - gap > 8:
            break
        last = norm[gap - 1]
        if not "!" <= last <= "~" or (last.islower() and last not in "rytnd"):
            break  # what `_joinable` says of the token before the gap: most text stops here
        low = max(offset, gap - 64)  # the token before the gap: look at a bounded piece
        tail = norm[low:gap].rstrip(_PRINTABLE)
        if not tail and low > offset:
            tail = norm[offset:gap].rstrip(_PRINTABLE)
            low = offset
        token = norm[low + len(tail) : gap]
        joined = _joinable(token)
        if not joined:
            break
        start = gap - joined
        if joined < gap - offset and (joined < len(token) or norm[start - 1] not in " \t\n"):
            break  # a partial token, or one after a non-space character
    begin = norm.rfind("-----BEGIN", offset)
    if 0 <= begin < start and norm.find("-----END", begin) < 0:
        start = begin
    low = max(offset, start - 48)
    if start - offset > 1 and _TWO_DIGITS.search(norm, low, start + 2):
        head = _LOWER_IBAN.search(norm, low)  # an IBAN in lower case: its groups of letters
        if head is not None and head.start() < start:  # are held with it
            start = head.start()
    start = label_start(norm, start, offset)  # "tracking: ", "订单号": read with the number
    return label_hold(norm, start, offset)  # "Aadhaar: ", "個人番号": held with the number


_TWO_DIGITS = re.compile("[0-9]{2}")


_LOWER_IBAN = re.compile(r"(?<![A-Za-z0-9])[a-z]{2}[0-9]{2}(?:[ \-]?[a-z0-9]){0,40}[ \-]?\Z")


def _joinable(token: str) -> int:
    """How much of ``token``'s end can belong to a spaced candidate (0: none)."""
    last = token[-1:]
    if last.islower() and last not in "rytnd":  # no group, no keyword ends so
        return 0
    if token.lower().strip("_\"'`:=") in _CONTEXT_WORDS:  # __version__ = '1.2.3.4'
        return len(token)
    grouped = len(token) - len(token.rstrip(_GROUPED))
    if grouped:
        return grouped
    word = token.lower().strip("\\\"'`:=({[*]})")
    # a keyword after ` ( { * [ or an escaped quote, or ending a name (OPENAI_API_KEY): its
    # value may follow
    return len(token) if word in _KEYWORDS or word.endswith(_KEYWORD_ENDS) else 0


def _start(detection: Detection) -> int:
    return detection.start


class StreamScanner:
    """One stream's held text: feed it deltas, flush it when the stream ends.

    ``feed`` and ``flush`` return ``(text, detections)``: the released text, as it was
    received, and the detections in it (offsets into that text). A detection whose ``type``
    is prefixed ``+`` continues an overlong candidate already reported: redact it, but do not
    report it again.

    ``room`` is how many characters a delta may have and still only be added to ``held`` (the
    batch is not full yet): a caller on the hot path may do that itself (``held += delta;
    room -= len(delta)``) instead of calling ``feed``, which would do the same.
    """

    __slots__ = ("_engine", "_skip", "_skip_type", "held", "room")

    def __init__(self, engine: RedactionEngine) -> None:
        self._engine = engine
        self.held = ""
        self.room = engine.batch
        self._skip: re.Pattern[str] | None = None
        self._skip_type = ""

    def to_state(self) -> dict[str, Any]:
        """The stored form in a durable run's checkpoint check: how much is held, never the
        held (unredacted) text; replay rebuilds the scanner."""
        return {"held": len(self.held), "room": self.room}

    def rebind(self, engine: RedactionEngine) -> None:
        """Scan what comes next with ``engine`` (a run's own, once it knows more)."""
        self._engine = engine

    def reset(self) -> None:
        """Forget the held text (a rejected attempt's text is never released)."""
        self.held = ""
        self._skip = None
        self.room = self._engine.batch

    def feed(self, delta: str) -> tuple[str, list[Detection]]:
        """Add ``delta``; return what is now safe to release."""
        if len(delta) < self.room:  # release in batches: cheaper
            self.held += delta
            self.room -= len(delta)
            return "", []
        buf = self.held + delta if self.held else delta
        engine = self._engine
        if (
            self._skip is None
            and delta.isascii()
            and delta.isprintable()
            and " " not in delta
            and len(buf) <= engine.hold // 2
        ):  # it only extends the last word: nothing before it can become releasable
            self._keep(buf)
            return "", []
        norm = matching_text(buf)
        offset, found = self._swallow(buf, norm) if self._skip is not None else (0, [])
        if offset == len(buf):
            self._keep("")
            return buf, found
        cut, kind = engine.open_start(norm, offset)
        if len(buf) - cut > engine.hold:  # an overlong candidate: fail closed
            more, cut = engine.final(norm, offset, cut)
            kind_type, self._skip = engine.continuation(kind)
            self._skip_type = kind_type
            self._keep("")
            found.extend(more)
            found.append(Detection(kind_type, cut, len(buf), buf[cut:]))
            return buf, found
        if cut == offset and not found:
            self._keep(buf)
            return "", found
        more, cut = engine.final(norm, offset, cut)
        found.extend(more)
        self._keep(buf[cut:])
        return buf[:cut], found

    def _keep(self, held: str) -> None:
        self.held = held
        # a fresh batch after every scan, whatever stays held (a long open candidate, a URL,
        # is scanned again once per batch, not once per delta), within the hold bound
        engine = self._engine
        self.room = min(engine.batch, engine.hold - len(held)) if self._skip is None else 0

    def flush(self) -> tuple[str, list[Detection]]:
        """The stream ended: release everything held, with its detections."""
        buf = self.held
        skip = self._skip
        self.reset()
        if not buf:
            return "", []
        norm = matching_text(buf)
        self._skip = skip
        offset, found = self._swallow(buf, norm) if skip is not None else (0, [])
        self._skip = None
        more, _ = self._engine.final(norm, offset, len(buf))
        found.extend(more)
        return buf, found

    def _swallow(self, buf: str, norm: str) -> tuple[int, list[Detection]]:
        """Text continuing an overlong candidate: redacted with it, never released."""
        assert self._skip is not None
        end = self._skip.match(norm).end()  # type: ignore[union-attr]  # `*` always matches
        if end < len(buf):
            self._skip = None
        if end == 0:
            return 0, []
        return end, [Detection("+" + self._skip_type, 0, end, buf[:end])]


def apply(text: str, detections: Sequence[Detection], replace: Callable[[Detection], str]) -> str:
    """Replace ``detections`` in ``text``; overlapping ones merge, the longest names the span."""
    out: list[str] = []
    position = 0
    index = 0
    count = len(detections)
    ordered = sorted(detections, key=_start)
    while index < count:
        owner = ordered[index]
        start, end = owner.start, owner.end
        index += 1
        while index < count and ordered[index].start < end:
            other = ordered[index]
            if other.end - other.start > owner.end - owner.start:
                owner = other
            end = max(end, other.end)
            index += 1
        if start < position:  # already covered
            start = position
        out.append(text[position:start])
        span = (
            owner
            if (owner.start, owner.end) == (start, end)
            else Detection(owner.type, start, end, text[start:end])
        )
        out.append(replace(span))
        position = end
    out.append(text[position:])
    return "".join(out)


# -- redaction methods ------------------------------------------------------------------------

_KEEP_LAST_FOUR = frozenset(("credit-card", "ssn", "phone", "national-id"))


def mask_value(detection: Detection, preserve_format: bool = True) -> str:
    """Mask a value: letters and digits become ``*`` (format-preserving), some tails kept.

    Cards, SSNs, phone numbers and national ids keep their last four digits; e-mail keeps the
    first and last letters of the local part and the top-level domain; an IBAN keeps its
    country code and last four characters. ``preserve_format=False`` gives ``*`` of the same
    length (at most 8).
    """
    value, kind = detection.value, detection.type.lstrip("+")
    if detection.type.startswith("+") or not preserve_format:
        return "*" * min(len(value), 8) if not detection.type.startswith("+") else ""
    if kind in _KEEP_LAST_FOUR:
        return _mask_keep_tail(value, 4)
    if kind == "email" and "@" in value:
        local, domain = value.split("@", 1)
        head, _, tld = domain.rpartition(".")
        local_mask = local[0] + "*" * (len(local) - 2) + local[-1] if len(local) > 2 else "***"
        return f"{local_mask}@{_star(head)}.{tld}"
    if kind == "iban" and len(value) > 6:
        return value[:2] + _star(value[2:-4]) + value[-4:]
    return _star(value)


def _star(text: str) -> str:
    if "\\" in text:
        return _mask_keep_tail(text, 0)
    return "".join("*" if c.isalnum() else c for c in text)


def _escaped(value: str) -> list[bool]:
    """Which characters of ``value`` are the letter of an escape (``\\n``, ``\\t``, ``\\u00e9``
    ...): masked, ``\\n`` would become ``\\*``, which is no longer valid JSON."""
    out = [False] * len(value)
    index = value.find("\\")
    while 0 <= index < len(value) - 1:
        out[index + 1] = True
        if value[index + 1] == "u":  # \uXXXX keeps its four hex digits
            for hexdigit in range(index + 2, min(index + 6, len(value))):
                out[hexdigit] = True
        index = value.find("\\", index + 2)
    return out


def _mask_keep_tail(value: str, keep: int) -> str:
    out = list(value)
    escaped = _escaped(value) if "\\" in value else None
    seen = 0
    for index in range(len(out) - 1, -1, -1):
        if out[index].isalnum() and (escaped is None or not escaped[index]):
            seen += 1
            if seen > keep:
                out[index] = "*"
    return "".join(out)


def redact_value(
    detection: Detection,
    method: str,
    *,
    placeholder: str | None = None,
    preserve_format: bool = True,
) -> str:
    """The replacement of ``detection`` under ``method`` (mask, hash, remove, placeholder).

    ``hash`` gives ``[HASH:<first 8 hex digits of SHA-256>]``; ``placeholder`` gives
    ``placeholder`` or ``[<TYPE>]``. The continuation of an overlong candidate (a type
    prefixed ``+``) is removed under every method but ``mask``.
    """
    if detection.type.startswith("+"):
        return _star(detection.value) if method == "mask" else ""
    if method == "mask":
        return mask_value(detection, preserve_format)
    if method == "hash":
        digest = hashlib.sha256(detection.value.encode("utf-8")).hexdigest()[:8]
        return f"[HASH:{digest}]"
    if method == "remove":
        return ""
    return placeholder or f"[{detection.type.upper().replace('-', '_')}]"
