"""Noticing edits to messages cheaply, so a hook's in-place edits are checked only when it made
some (D30).

Messages and parts are mutable (D24): a hook may set ``part.text`` or append to
``message.content.parts``. Checking every message after every hook costs microseconds per part;
counting edits costs almost nothing. Every tracked object (messages, their content, parts, tool
invocations) counts its construction and each field assignment in :data:`EDITS`, and
``content.parts`` is a :class:`PartList`, a list that counts its own changes. The runner reads
the count before a hook and checks the messages after it only when the count moved.

The count is global, so another run's edits in the meantime only cause an extra check, never a
missed one.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from typing import Any, SupportsIndex, TypeVar, dataclass_transform

from procession._records import build_record, compile_init, init_source

__all__ = [
    "EDITS",
    "EditCounter",
    "PARTS_AS_LIST",
    "PartList",
    "edits_in_place",
    "keeps_messages",
    "tracked",
]

T = TypeVar("T")
F = TypeVar("F", bound=Callable[..., Any])

_KEEPS = "__procession_keeps_messages__"


class EditCounter:
    """How many tracked constructions and changes happened so far (it only grows)."""

    __slots__ = ("count",)

    def __init__(self) -> None:
        self.count = 0


EDITS = EditCounter()
"""The process-wide edit count."""

_set = object.__setattr__


def _count_setattr(self: object, name: str, value: object) -> None:
    EDITS.count += 1
    _set(self, name, value)


def keeps_messages(function: F) -> F:
    """Mark a hook that edits no message in place: it only adds messages through
    ``MessageList.add``, which checks each one with the rules storage reads with (D24), so the
    runner need not check the whole list again after it returns (D30).

    Only the marked function is trusted: a subclass that overrides it (even one that calls it
    through ``super()``) has a function of its own, and that one is checked as any hook.
    """
    setattr(function, _KEEPS, True)
    return function


def edits_in_place(function: Callable[..., Any]) -> bool:
    """Whether a hook (a bound method or a function) may edit messages in place: every hook
    but one marked with :func:`keeps_messages`."""
    return not getattr(getattr(function, "__func__", function), _KEEPS, False)


@dataclass_transform(field_specifiers=(dataclasses.field, dataclasses.Field))
def tracked(*, kw_only: bool = False) -> Callable[[type[T]], type[T]]:
    """Make a class a slotted dataclass (a :func:`~procession._records.record`) that counts its
    constructions and field assignments in :data:`EDITS`.

    Its ``__init__`` sets fields without going through the counting ``__setattr__`` (one count
    per construction, not one per field), keeping construction cheap. ``parts`` fields are
    stored as a :class:`PartList`.
    """

    def wrap(cls: type[T]) -> type[T]:
        made = build_record(cls, kw_only=kw_only, slots=True, init=False)
        fields = dataclasses.fields(made)  # type: ignore[arg-type]
        source, namespace = init_source(
            made, fields, direct=True, convert=PARTS_AS_LIST, tail=("EDITS.count += 1",)
        )
        namespace.update(EDITS=EDITS, PartList=PartList)
        init = compile_init(made, fields, source, namespace)
        setattr(made, "__init__", init)  # noqa: B010 (mypy forbids assigning a method)
        setattr(made, "__setattr__", _setattr_for(made))  # noqa: B010
        return made

    return wrap


PARTS_AS_LIST = {"parts": "{0} if type({0}) is PartList else PartList({0})"}
"""A ``parts`` field is stored as a :class:`PartList`."""


def _setattr_for(cls: type) -> Callable[[object, str, object], None]:
    names = {f.name for f in dataclasses.fields(cls)}
    if "parts" not in names:
        return _count_setattr

    def set_parts_as_list(self: object, name: str, value: object) -> None:
        EDITS.count += 1
        if name == "parts" and type(value) is not PartList and isinstance(value, Iterable):
            value = PartList(value)
        _set(self, name, value)

    return set_parts_as_list


class PartList(list[Any]):
    """A message's list of parts: a plain list that counts its changes in :data:`EDITS`.

    Assigning a list to ``content.parts`` stores a ``PartList`` copy of it.
    """

    __slots__ = ()

    def append(self, item: Any) -> None:
        """Append a part."""
        EDITS.count += 1
        super().append(item)

    def extend(self, items: Iterable[Any]) -> None:
        """Append several parts."""
        EDITS.count += 1
        super().extend(items)

    def insert(self, index: SupportsIndex, item: Any) -> None:
        """Insert a part."""
        EDITS.count += 1
        super().insert(index, item)

    def remove(self, item: Any) -> None:
        """Remove a part."""
        EDITS.count += 1
        super().remove(item)

    def pop(self, index: SupportsIndex = -1) -> Any:
        """Remove and return a part."""
        EDITS.count += 1
        return super().pop(index)

    def clear(self) -> None:
        """Remove every part."""
        EDITS.count += 1
        super().clear()

    def sort(self, *args: Any, **kwargs: Any) -> None:
        """Sort the parts."""
        EDITS.count += 1
        super().sort(*args, **kwargs)

    def reverse(self) -> None:
        """Reverse the parts."""
        EDITS.count += 1
        super().reverse()

    def __setitem__(self, index: Any, value: Any) -> None:
        EDITS.count += 1
        super().__setitem__(index, value)

    def __delitem__(self, index: Any) -> None:
        EDITS.count += 1
        super().__delitem__(index)

    def __iadd__(self, items: Iterable[Any]) -> PartList:  # type: ignore[misc]
        EDITS.count += 1
        super().__iadd__(items)
        return self

    def __imul__(self, count: SupportsIndex) -> PartList:
        EDITS.count += 1
        super().__imul__(count)
        return self
