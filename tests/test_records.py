"""``record`` behaves as ``@dataclass`` with the same options (decision record 0380).

Each case declares one class body twice, once with ``dataclasses.dataclass`` and once with
``procession._records.record``, and compares what a user can see: the ``__init__`` signature,
``repr``, equality, hashing, frozen assignment, pickling and copying, ``dataclasses.fields`` /
``replace`` / ``asdict``, ``__match_args__`` and ``__dataclass_params__``.
"""

from __future__ import annotations

import copy
import dataclasses
import inspect
import pickle
from collections.abc import Callable
from dataclasses import InitVar, dataclass, field
from types import CodeType
from typing import Any, ClassVar

import pytest

from procession import _records as records
from procession._record_inits import CODE
from procession._records import record
from procession.approvals import Decision

Decorator = Callable[..., Any]


def plain(deco: Decorator) -> type:
    @deco
    class Plain:
        """A class with defaults."""

        a: int
        b: str = "x"
        c: list[int] = field(default_factory=list)

    return Plain


def frozen_slotted(deco: Decorator) -> type:
    @deco(frozen=True, slots=True)
    class Point:
        """A frozen slotted pair."""

        kind: ClassVar[str] = "point"
        x: int
        y: float = 0.0

    return Point


def keyword_only(deco: Decorator) -> type:
    @deco(slots=True, kw_only=True)
    class Options:
        """Keyword-only fields, one hidden from repr and compare, one set by the init."""

        name: str
        secret: str | None = field(default=None, repr=False, compare=False)
        tags: dict[str, int] = field(default_factory=dict)
        count: int = field(default=0, init=False)
        made: list[str] = field(default_factory=list, init=False)

    return Options


def identity(deco: Decorator) -> type:
    @deco(slots=True, eq=False)
    class Handle:
        """Compared by identity."""

        value: object = None

    return Handle


def empty_frozen(deco: Decorator) -> type:
    @deco(frozen=True, slots=True)
    class Marker:
        """No fields."""

        name: ClassVar[str] = "marker"

    return Marker


def one_field_frozen(deco: Decorator) -> type:
    @deco(frozen=True, slots=True)
    class Wrapped:
        """One field."""

        payload: Any

    return Wrapped


def post_init(deco: Decorator) -> type:
    @deco(slots=True)
    class Checked:
        """Runs ``__post_init__``."""

        value: int
        doubled: int = field(default=0, init=False)

        def __post_init__(self) -> None:
            self.doubled = self.value * 2

    return Checked


def own_methods(deco: Decorator) -> type:
    @deco(frozen=True)
    class Custom:
        """Its own repr and hash are kept."""

        value: int

        def __repr__(self) -> str:
            return f"<custom {self.value}>"

        def __hash__(self) -> int:
            return 7

    return Custom


def no_docstring(deco: Decorator) -> type:
    @deco(slots=True)
    class Bare:
        a: int
        b: str = "b"

    return Bare


@record(frozen=True, slots=True)
class FrozenPoint:
    """A module-level frozen record, to subclass."""

    x: int
    y: float = 0.0


Args = tuple[Any, ...] | dict[str, Any]

CASES: dict[str, tuple[Callable[[Decorator], type], list[Args]]] = {
    "plain": (plain, [(1,), (1, "y", [2])]),
    "frozen_slotted": (frozen_slotted, [(1,), (2, 3.5), (float("nan"),)]),
    "keyword_only": (keyword_only, [{"name": "n"}, {"name": "n", "secret": "s", "tags": {"a": 1}}]),
    "identity": (identity, [(), (5,)]),
    "empty_frozen": (empty_frozen, [()]),
    "one_field_frozen": (one_field_frozen, [(1,), ([1, 2],), (float("nan"),)]),
    "post_init": (post_init, [(3,)]),
    "own_methods": (own_methods, [(4,)]),
    "no_docstring": (no_docstring, [(1,), (2, "c")]),
}


def build(cls: type, args: tuple[Any, ...] | dict[str, Any]) -> Any:
    return cls(**args) if isinstance(args, dict) else cls(*args)


def both(case: str) -> tuple[type, type]:
    make, _ = CASES[case]
    return make(dataclass), make(record)


def outcome(fn: Callable[[], Any]) -> tuple[str, Any]:
    """What calling ``fn`` gives: its value, or its exception's type and message."""
    try:
        return ("value", fn())
    except Exception as error:  # the exception is what is compared
        return (type(error).__name__, str(error))


def set_outcome(obj: object, name: str) -> tuple[str, Any]:
    """What setting ``obj.name = 1`` gives."""
    return outcome(lambda: setattr(obj, name, 1))


def delete_outcome(obj: object, name: str) -> tuple[str, Any]:
    """What ``del obj.name`` gives."""
    return outcome(lambda: delattr(obj, name))


def hash_outcome(cls: type, args: tuple[Any, ...] | dict[str, Any]) -> tuple[str, Any]:
    """Whether two equal instances hash alike, or the error hashing raises."""
    return outcome(lambda: hash(build(cls, args)) == hash(build(cls, args)))


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_class_looks_the_same(case: str) -> None:
    reference, made = both(case)
    check_looks_the_same(reference, made)


@pytest.mark.parametrize("case", sorted(CASES))
def test_an_init_from_the_precompiled_code_is_the_same(
    case: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 0382: the __init__ made from procession._record_inits' code object, with the defaults
    # added from the fields, is the one compiled from the source
    make, cases = CASES[case]
    start = len(records.SOURCES)
    make(record)
    for source in records.SOURCES[start:]:
        module = compile(source, "<test>", "exec")
        code = next(const for const in module.co_consts if isinstance(const, CodeType))
        monkeypatch.setitem(CODE, source, code)
    compiled = len(records.COMPILED)
    reference, made = make(dataclass), make(record)
    assert len(records.COMPILED) == compiled  # every __init__ came from CODE this time
    check_looks_the_same(reference, made)
    for args in cases:
        assert repr(build(made, args)) == repr(build(reference, args))


def check_looks_the_same(reference: type, made: type) -> None:
    """The class-level comparisons of :func:`test_the_class_looks_the_same`."""
    assert str(inspect.signature(made)) == str(inspect.signature(reference))
    assert made.__doc__ == reference.__doc__
    assert made.__match_args__ == reference.__match_args__  # type: ignore[attr-defined]
    assert [f.name for f in dataclasses.fields(made)] == [
        f.name for f in dataclasses.fields(reference)
    ]
    for option in ("init", "repr", "eq", "order", "unsafe_hash", "frozen"):
        mine = getattr(made.__dataclass_params__, option)  # type: ignore[attr-defined]
        theirs = getattr(reference.__dataclass_params__, option)  # type: ignore[attr-defined]
        assert mine == theirs, option
    assert ("__slots__" in made.__dict__) == ("__slots__" in reference.__dict__)
    assert (made.__hash__ is None) == (reference.__hash__ is None)


@pytest.mark.parametrize("case", sorted(CASES))
def test_instances_behave_the_same(case: str) -> None:
    reference, made = both(case)
    for args in CASES[case][1]:
        ours, theirs = build(made, args), build(reference, args)
        assert repr(ours) == repr(theirs)
        assert hash_outcome(made, args) == hash_outcome(reference, args)
        assert (ours == build(made, args)) == (theirs == build(reference, args))
        assert (ours == ours) == (theirs == theirs)  # a NaN field is equal to itself
        assert (ours == theirs) is False  # another class: NotImplemented both ways
        assert dataclasses.asdict(ours) == dataclasses.asdict(theirs)
        assert repr(dataclasses.replace(ours)) == repr(dataclasses.replace(theirs))
        assert repr(copy.deepcopy(ours)) == repr(copy.deepcopy(theirs))


@pytest.mark.parametrize("case", sorted(CASES))
def test_assignment_and_deletion_of_fields_fail_or_work_the_same(case: str) -> None:
    reference, made = both(case)
    for args in CASES[case][1]:
        ours, theirs = build(made, args), build(reference, args)
        for name in [f.name for f in dataclasses.fields(made)]:
            assert set_outcome(ours, name) == set_outcome(theirs, name)
            assert delete_outcome(ours, name) == delete_outcome(theirs, name)


@pytest.mark.parametrize("case", sorted(CASES))
def test_setting_another_attribute_fails_where_it_fails(case: str) -> None:
    """A frozen slotted dataclass of Python 3.11 raises ``TypeError`` here (its generated
    ``__setattr__`` names the class from before the slots were added, a bug fixed in 3.12);
    a record raises the ``FrozenInstanceError`` that was meant."""
    reference, made = both(case)
    for args in CASES[case][1]:
        ours, theirs = build(made, args), build(reference, args)
        mine = set_outcome(ours, "not_a_field")
        theirs_ = set_outcome(theirs, "not_a_field")
        assert (mine[0] == "value") == (theirs_[0] == "value")
        if made.__dataclass_params__.frozen:  # type: ignore[attr-defined]
            assert mine[0] == "FrozenInstanceError"


def test_unequal_values_differ_and_ignored_fields_do_not_count() -> None:
    reference, made = both("keyword_only")
    for cls in (reference, made):
        assert cls(name="a") != cls(name="b")
        assert cls(name="a", secret="x") == cls(name="a", secret="y")
        assert cls(name="a").tags is not cls(name="a").tags  # a fresh default each time


def test_frozen_slotted_instances_pickle_and_copy() -> None:
    decision = Decision(approved=False, reason="no")  # a frozen slotted record of procession's
    twins = (pickle.loads(pickle.dumps(decision)), copy.copy(decision), copy.deepcopy(decision))
    for twin in twins:
        assert twin == decision
        assert twin is not decision
        assert hash(twin) == hash(decision)
        with pytest.raises(dataclasses.FrozenInstanceError):
            twin.approved = True  # type: ignore[misc]


def test_a_frozen_records_subclass_dataclass_stays_frozen() -> None:
    @dataclass(frozen=True, slots=True)
    class Point3(FrozenPoint):
        """A subclass made with ``@dataclass``: the frozen checks see a frozen base."""

        z: int = 0

    assert Point3(1, 2.0, 3) == Point3(1, 2.0, 3)
    with pytest.raises(dataclasses.FrozenInstanceError):
        Point3(1).z = 1  # type: ignore[misc]


def test_a_records_subclass_record_is_a_plain_dataclass() -> None:
    @record(frozen=True, slots=True)
    class Point3(FrozenPoint):
        """A record with a dataclass base goes through ``@dataclass`` itself."""

        z: int = 0

    assert repr(Point3(1, 2.0, 3)).endswith("Point3(x=1, y=2.0, z=3)")
    with pytest.raises(dataclasses.FrozenInstanceError):
        Point3(1).z = 1  # type: ignore[misc]


def test_unsupported_declarations_are_refused_with_the_reason() -> None:
    with pytest.raises(TypeError, match="non-default argument 'b' follows default argument"):

        @record
        class Bad:
            """A required field after a default."""

            a: int = 0
            b: int  # type: ignore[misc]

    with pytest.raises(TypeError, match="does not support InitVar"):

        @record
        class WithInitVar:
            """An init-only pseudo-field."""

            seed: InitVar[int]

    with pytest.raises(TypeError, match="Cannot overwrite attribute __setattr__"):

        @record(frozen=True)
        class OwnSetattr:
            """A frozen class with its own ``__setattr__``."""

            a: int

            def __setattr__(self, name: str, value: object) -> None:
                raise AttributeError(name)


def test_a_repr_of_a_cycle_shows_an_ellipsis() -> None:
    reference, made = both("identity")
    ours, theirs = made(), reference()
    ours.value, theirs.value = [ours], [theirs]
    assert repr(ours) == repr(theirs)
    assert repr(ours).endswith("Handle(value=[...])")
