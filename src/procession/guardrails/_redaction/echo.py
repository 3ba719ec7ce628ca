"""Partial echoes of a card the run has seen, recognised by salted fingerprints.

A model that read ``4111 1111 1111 1111`` in a tool result may repeat it with a group
dropped, split by words or over two fields, or in two-digit groups: no card detector sees a
card there, yet more than the first six and last four digits (what the PCI DSS display rule
lets show) reach the client. :class:`EchoMemory` keeps, per run, salted SHA-256 fingerprints
of every fragment (every substring of two digits or more) of the cards seen in the run's tool
results, never the digits themselves, so the run's state stays JSON-serialisable and holds
nothing a checkpoint could leak. :class:`EchoPattern` finds, in later text, *chains* of digit
runs that are fragments of a seen card (each within :data:`ECHO_GAP` characters of the
previous one) and reports every fragment of a chain that shows more than the display rule
allows; used as a :class:`~procession.guardrails._redaction.redaction.CustomRule`'s pattern, its
partial matching holds a chain back while more of it may still arrive (fail closed).
"""

from __future__ import annotations

import hashlib
import re
import secrets
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

__all__ = ["ECHO_GAP", "ECHO_STATE", "ECHO_TYPE", "EchoMatch", "EchoMemory", "EchoPattern"]

ECHO_GAP = 48
"""The most characters between two fragments of one chain."""
ECHO_TYPE = "card-fragment"
"""The type of a detected fragment (masked whole: its last digits are not the card's)."""
ECHO_STATE = "echo"
"""The ``state`` key of a run's :meth:`EchoMemory.to_state`."""

_RUN = re.compile(r"[0-9]+")
_SEPARATOR = re.compile(r"[ .\-/_,\t]{1,3}")
_NOT_DIGIT = re.compile(r"[^0-9]")
_SHOWN_HEAD, _SHOWN_TAIL = 6, 4


class EchoMemory:
    """Salted fingerprints of the fragments of the cards a run has seen (JSON state)."""

    __slots__ = ("_longest", "fingerprints", "salt")

    def __init__(self, salt: str | None = None, fingerprints: Iterable[str] = ()) -> None:
        self.salt = salt if salt is not None else secrets.token_hex(16)
        self.fingerprints: set[str] = set(fingerprints)
        self._longest = 19

    def _digest(self, kind: str, digits: str) -> str:
        data = f"{self.salt}:{kind}:{digits}".encode("ascii")
        return hashlib.sha256(data).hexdigest()[:20]

    def remember(self, number: str) -> bool:
        """Fingerprint every fragment of ``number`` (its digits); whether it was new."""
        digits = _NOT_DIGIT.sub("", number)
        if len(digits) < 8 or self._digest("F", digits) in self.fingerprints:
            return False
        size = len(digits)
        add = self.fingerprints.add
        for start in range(size - 1):
            for end in range(start + 2, size + 1):
                add(self._digest("F", digits[start:end]))
        for length in range(1, _SHOWN_HEAD + 1):
            add(self._digest("H", digits[:length]))
        for length in range(1, _SHOWN_TAIL + 1):
            add(self._digest("T", digits[-length:]))
        return True

    def is_fragment(self, digits: str) -> bool:
        """Whether ``digits`` occur in a seen card."""
        return 2 <= len(digits) <= self._longest and self._digest("F", digits) in self.fingerprints

    def shown(self, fragments: list[str]) -> bool:
        """Whether a chain of ``fragments`` shows no more than the display rule allows: some
        of the first six digits, then some of the last four (either may be absent)."""
        for cut in range(len(fragments) + 1):
            head, tail = "".join(fragments[:cut]), "".join(fragments[cut:])
            if len(head) > _SHOWN_HEAD:
                return False
            if head and self._digest("H", head) not in self.fingerprints:
                continue
            if len(tail) <= _SHOWN_TAIL and (
                not tail or self._digest("T", tail) in self.fingerprints
            ):
                return True
        return False

    def to_state(self) -> dict[str, Any]:
        """A JSON-serialisable form (salt and fingerprints: never a digit of a card)."""
        return {"salt": self.salt, "fingerprints": sorted(self.fingerprints)}

    @classmethod
    def from_state(cls, data: Any) -> EchoMemory:
        """The memory :meth:`to_state` saved (a clear error when ``data`` is not one)."""
        if (
            not isinstance(data, dict)
            or not isinstance(data.get("salt"), str)
            or not isinstance(data.get("fingerprints"), list)
        ):
            raise ValueError(
                f"state[{ECHO_STATE!r}] is not an echo memory: expected "
                "{'salt': str, 'fingerprints': [str, ...]}"
            )
        return cls(data["salt"], (str(item) for item in data["fingerprints"]))


@dataclass(frozen=True, slots=True)
class EchoMatch:
    """A match-like result of :class:`EchoPattern` (the subset of ``regex.Match`` used)."""

    begin: int
    finish: int
    text: str
    partial: bool = False

    def start(self) -> int:
        """Where the fragment starts."""
        return self.begin

    def end(self) -> int:
        """Where it ends."""
        return self.finish

    def group(self) -> str:
        """Its text."""
        return self.text


class EchoPattern:
    """Finds fragments of seen cards that together show too much (a ``regex``-like pattern)."""

    __slots__ = ("memory",)

    def __init__(self, memory: EchoMemory) -> None:
        self.memory = memory

    def finditer(
        self, text: str, pos: int = 0, endpos: int | None = None, *, partial: bool = False
    ) -> Iterator[EchoMatch]:
        """Fragments of too-revealing chains, in order; with ``partial``, a chain that more
        text could still extend is one partial match from its start to the end of ``text``."""
        limit = len(text) if endpos is None else endpos
        chain: list[re.Match[str]] = []
        for run in _RUN.finditer(text, pos, limit):
            digits = _NOT_DIGIT.sub("", run.group())
            if partial and run.end() == limit:  # a number still arriving: hold from here
                joined = bool(chain) and run.start() - chain[-1].end() <= ECHO_GAP
                start = chain[0].start() if joined else run.start()
                if not joined:
                    yield from self._decided(chain, text)
                yield EchoMatch(start, limit, text[start:limit], True)
                return
            if not self.memory.is_fragment(digits):
                continue
            if chain and run.start() - chain[-1].end() > ECHO_GAP:
                yield from self._decided(chain, text)
                chain = []
            chain.append(run)
        if partial and chain and limit - chain[-1].end() <= ECHO_GAP:
            start = chain[0].start()
            yield EchoMatch(start, limit, text[start:limit], True)
            return
        yield from self._decided(chain, text)

    def _decided(self, chain: list[re.Match[str]], text: str) -> Iterator[EchoMatch]:
        if not chain:
            return
        fragments = [_NOT_DIGIT.sub("", run.group()) for run in chain]
        if sum(len(f) for f in fragments) <= _SHOWN_TAIL or self.memory.shown(fragments):
            return
        begin, finish = chain[0].start(), chain[0].end()
        for run in chain[1:]:  # groups only a separator apart are one span
            if _SEPARATOR.fullmatch(text, finish, run.start()) is None:
                yield EchoMatch(begin, finish, text[begin:finish])
                begin = run.start()
            finish = run.end()
        yield EchoMatch(begin, finish, text[begin:finish])
