"""``record``: ``@dataclass`` for the classes ``import procession`` builds, at a third of the cost.

A ``@dataclass`` compiles source text for each method it adds: ``__init__``, ``__repr__``,
``__eq__``, and for a frozen class ``__hash__``, ``__setattr__`` and ``__delattr__``. Compiling
was about half of what ``import procession`` spent in its own modules (issue 25, decision record
0380). ``record`` keeps the dataclass (``dataclasses.fields``, ``replace``, ``asdict``,
``is_dataclass`` and ``__match_args__`` work as before) but compiles only ``__init__``: the other
methods are shared functions over the field names that give the same results (``repr`` text,
equality and hash of the same field tuples, ``FrozenInstanceError`` on assignment, pickling of
frozen slotted instances), and ``__dataclass_params__`` reports the options as given.

Supported: ``eq``, ``frozen``, ``kw_only`` and ``slots``, ``field(default=..., default_factory=...,
init=..., repr=..., compare=..., kw_only=...)``, ``ClassVar`` and ``__post_init__`` without
``InitVar``. A class that inherits from another dataclass gets a plain ``@dataclass``.
"""

from __future__ import annotations

import dataclasses
import reprlib
from collections.abc import Callable, Iterable, Mapping
from operator import attrgetter
from types import FunctionType
from typing import Any, TypeVar, dataclass_transform, overload

from procession._record_inits import CODE

__all__ = [
    "COMPILED",
    "FACTORY",
    "SOURCES",
    "build_record",
    "compile_init",
    "init_source",
    "record",
]

T = TypeVar("T")

Fields = tuple[dataclasses.Field[Any], ...]


class _Factory:
    """The default a ``default_factory`` field shows in ``__init__``'s signature."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<factory>"


FACTORY = _Factory()
"""Stands for "not given, call the field's factory" in a generated ``__init__``."""


@overload
def record(cls: type[T], /) -> type[T]: ...


@overload
def record(
    *, eq: bool = True, frozen: bool = False, kw_only: bool = False, slots: bool = False
) -> Callable[[type[T]], type[T]]: ...


@dataclass_transform(field_specifiers=(dataclasses.field, dataclasses.Field))
def record(
    cls: type[T] | None = None,
    /,
    *,
    eq: bool = True,
    frozen: bool = False,
    kw_only: bool = False,
    slots: bool = False,
) -> type[T] | Callable[[type[T]], type[T]]:
    """Make ``cls`` a dataclass, like ``@dataclass`` with the same options (see the module)."""

    def wrap(target: type[T]) -> type[T]:
        return build_record(target, eq=eq, frozen=frozen, kw_only=kw_only, slots=slots)

    return wrap if cls is None else wrap(cls)


def build_record(
    cls: type[T],
    *,
    eq: bool = True,
    frozen: bool = False,
    kw_only: bool = False,
    slots: bool = False,
    init: bool = True,
) -> type[T]:
    """The dataclass ``record`` makes of ``cls``; ``init=False`` leaves ``__init__`` to the caller.

    ``__dataclass_params__.init`` says ``True`` either way: the caller adds one.
    """
    if any(hasattr(base, "__dataclass_fields__") for base in cls.__mro__[1:]):
        # a dataclass base: dataclasses' checks of frozen bases need the real options
        return dataclasses.dataclass(cls, eq=eq, frozen=frozen, kw_only=kw_only, slots=slots)
    body = dict(cls.__dict__)
    if frozen:
        for name in ("__setattr__", "__delattr__"):
            if name in body:
                raise TypeError(f"Cannot overwrite attribute {name} in class {cls.__name__}")
    if not body.get("__doc__"):
        cls.__doc__ = cls.__name__  # replaced below: dataclass would sign object.__init__
    made = dataclasses.dataclass(
        cls, init=False, repr=False, eq=False, kw_only=kw_only, slots=slots
    )
    params = made.__dataclass_params__  # type: ignore[attr-defined]
    params.init, params.repr, params.eq, params.frozen = True, True, eq, frozen
    fields = dataclasses.fields(made)  # type: ignore[arg-type]
    if init and "__init__" not in body:
        _install(made, __init__=make_init(made, fields, frozen=frozen))
    if "__repr__" not in body:
        _install(made, __repr__=make_repr(made, fields))
    if eq:
        _add_eq_and_hash(made, fields, body, frozen=frozen)
    if frozen:
        _add_frozen(made, fields, slots=slots, body=body)
    if not body.get("__doc__"):
        made.__doc__ = made.__name__ + _text_signature(made)
    return made


def _text_signature(cls: type) -> str:
    import inspect  # loaded already: dataclasses imports it

    try:
        return str(inspect.signature(cls)).replace(" -> None", "")
    except (TypeError, ValueError):
        return ""


def _add_eq_and_hash(cls: type, fields: Fields, body: Mapping[str, Any], *, frozen: bool) -> None:
    compared = tuple(f.name for f in fields if f.compare)
    if "__eq__" not in body:
        _install(cls, __eq__=make_eq(cls, compared))
    class_hash = body.get("__hash__", dataclasses.MISSING)
    explicit = not (class_hash is dataclasses.MISSING or (class_hash is None and "__eq__" in body))
    if explicit:
        return
    if frozen:
        hashed = tuple(f.name for f in fields if (f.compare if f.hash is None else f.hash))
        _install(cls, __hash__=make_hash(cls, hashed))
    else:
        _install(cls, __hash__=None)  # mutable and compared by value


def _add_frozen(cls: type, fields: Fields, *, slots: bool, body: Mapping[str, Any]) -> None:
    set_frozen, delete_frozen = make_frozen(cls, fields)
    _install(cls, __setattr__=set_frozen, __delattr__=delete_frozen)
    if slots:
        names = tuple(f.name for f in fields)
        if "__getstate__" not in body:
            _install(cls, __getstate__=_getstate_for(cls, names))
        if "__setstate__" not in body:
            _install(cls, __setstate__=_setstate_for(cls, names))


def _install(cls: type, **methods: object) -> None:
    for name, method in methods.items():
        setattr(cls, name, method)


def _named(fn: Callable[..., Any], cls: type, name: str) -> None:
    fn.__name__ = name
    fn.__qualname__ = f"{cls.__qualname__}.{name}"
    fn.__module__ = cls.__module__


def _tuple_of(names: tuple[str, ...]) -> Callable[[object], tuple[Any, ...]]:
    """A C-level getter of the named attributes as a tuple (no Python call per use)."""
    if len(names) == 1:
        one = attrgetter(names[0])
        return lambda obj: (one(obj),)
    if not names:
        return lambda obj: ()
    return attrgetter(*names)


def make_repr(cls: type, fields: Fields) -> Callable[[object], str]:
    """``Name(a=1, b='x')`` over the fields with ``repr=True``, ``...`` for a cycle."""
    labels = tuple(f"{f.name}=" for f in fields if f.repr)
    values = _tuple_of(tuple(f.name for f in fields if f.repr))

    def show(self: object) -> str:
        shown = ", ".join(
            [label + repr(value) for label, value in zip(labels, values(self), strict=True)]
        )
        return f"{self.__class__.__qualname__}({shown})"

    _named(show, cls, "__repr__")
    return reprlib.recursive_repr()(show)


def make_eq(cls: type, names: tuple[str, ...]) -> Callable[[object, object], Any]:
    """Equal when of the same class with equal tuples of the compared fields."""
    if len(names) > 1:
        values = attrgetter(*names)

        def equal(self: object, other: object) -> Any:
            if other.__class__ is self.__class__:
                return values(self) == values(other)
            return NotImplemented

    elif names:
        value = attrgetter(names[0])

        def equal(self: object, other: object) -> Any:
            if other.__class__ is self.__class__:
                return (value(self),) == (value(other),)
            return NotImplemented

    else:

        def equal(self: object, other: object) -> Any:
            if other.__class__ is self.__class__:
                return True
            return NotImplemented

    _named(equal, cls, "__eq__")
    return equal


def make_hash(cls: type, names: tuple[str, ...]) -> Callable[[object], int]:
    """The hash of the tuple of the hashed fields."""
    if len(names) > 1:
        values = attrgetter(*names)

        def hash_of(self: object) -> int:
            return hash(values(self))

    elif names:
        value = attrgetter(names[0])

        def hash_of(self: object) -> int:
            return hash((value(self),))

    else:

        def hash_of(self: object) -> int:
            return hash(())

    _named(hash_of, cls, "__hash__")
    return hash_of


def make_frozen(
    cls: type, fields: Fields
) -> tuple[Callable[[object, str, object], None], Callable[[object, str], None]]:
    """``__setattr__`` and ``__delattr__`` raising ``FrozenInstanceError`` on the fields."""
    names = frozenset(f.name for f in fields)
    owner: type = cls
    frozen_error = dataclasses.FrozenInstanceError

    def set_frozen(self: object, name: str, value: object) -> None:
        parent = super(owner, self)
        if type(self) is owner or name in names:
            raise frozen_error(f"cannot assign to field {name!r}")
        parent.__setattr__(name, value)

    def delete_frozen(self: object, name: str) -> None:
        parent = super(owner, self)
        if type(self) is owner or name in names:
            raise frozen_error(f"cannot delete field {name!r}")
        parent.__delattr__(name)

    _named(set_frozen, cls, "__setattr__")
    _named(delete_frozen, cls, "__delattr__")
    return set_frozen, delete_frozen


def _getstate_for(cls: type, names: tuple[str, ...]) -> Callable[[object], list[Any]]:
    def getstate(self: object) -> list[Any]:
        return [getattr(self, name) for name in names]

    _named(getstate, cls, "__getstate__")
    return getstate


def _setstate_for(cls: type, names: tuple[str, ...]) -> Callable[[object, Iterable[Any]], None]:
    set_field = object.__setattr__

    def setstate(self: object, state: Iterable[Any]) -> None:
        for name, value in zip(names, state, strict=False):
            set_field(self, name, value)

    _named(setstate, cls, "__setstate__")
    return setstate


def make_init(cls: type, fields: Fields, *, frozen: bool) -> Callable[..., None]:
    """Compile the dataclass ``__init__`` of ``cls`` (``object.__setattr__`` when frozen)."""
    post_init = "self.__post_init__()" if hasattr(cls, "__post_init__") else ""
    source, namespace = init_source(cls, fields, direct=frozen, tail=(post_init,))
    return compile_init(cls, fields, source, namespace)


def init_source(
    cls: type,
    fields: Fields,
    *,
    direct: bool,
    convert: Mapping[str, str] | None = None,
    tail: tuple[str, ...] = (),
) -> tuple[str, dict[str, Any]]:
    """The source of ``cls``'s dataclass ``__init__`` and the globals it needs.

    ``direct`` assigns with ``object.__setattr__`` (frozen or counting classes); ``convert``
    maps a field name to an expression template around its value (``{}``); ``tail`` lines run
    after the assignments.
    """
    _check_pseudo_fields(cls)
    namespace: dict[str, Any] = {"_set": object.__setattr__, "FACTORY": FACTORY}
    positional: list[str] = []
    keyword: list[str] = []
    body: list[str] = []
    seen_default = False
    for f in fields:
        has_default = f.default is not dataclasses.MISSING
        factory = f.default_factory is not dataclasses.MISSING
        if has_default:
            namespace[f"_d_{f.name}"] = f.default
        if factory:
            namespace[f"_f_{f.name}"] = f.default_factory
        if f.init:
            default = f"=_d_{f.name}" if has_default else "=FACTORY" if factory else ""
            if not f.kw_only:
                if default:
                    seen_default = True
                elif seen_default:
                    raise TypeError(f"non-default argument {f.name!r} follows default argument")
            (keyword if f.kw_only else positional).append(f"{f.name}{default}")
            value = f"_f_{f.name}() if {f.name} is FACTORY else {f.name}" if factory else f.name
        elif factory:
            value = f"_f_{f.name}()"
        elif has_default and "__slots__" in cls.__dict__:
            value = f"_d_{f.name}"
        else:
            continue
        if convert and f.name in convert:
            value = convert[f.name].format(f"({value})")
        body.append(
            f"    _set(self, {f.name!r}, {value})" if direct else f"    self.{f.name} = {value}"
        )
    body += [f"    {line}" for line in tail if line]
    signature = ", ".join(["self", *positional, *(["*", *keyword] if keyword else [])])
    return f"def __init__({signature}):\n" + ("\n".join(body) or "    pass") + "\n", namespace


def _check_pseudo_fields(cls: type) -> None:
    for f in cls.__dataclass_fields__.values():  # type: ignore[attr-defined]
        kind = f.type if isinstance(f.type, str) else type(f.type).__name__
        if "InitVar" in kind:
            raise TypeError(f"{cls.__qualname__}.{f.name}: record does not support InitVar")
        if f.name == "self":
            raise TypeError(f"{cls.__qualname__}: record does not support a field named 'self'")


def compile_init(
    cls: type, fields: Fields, source: str, namespace: dict[str, Any]
) -> Callable[..., None]:
    """Make ``init_source``'s function and name it as ``cls``'s ``__init__``.

    The code comes from :data:`procession._record_inits.CODE`, compiled into that module's
    ``.pyc``, when it holds this very source (decision record 0382); otherwise it is compiled
    here and the class is listed in :data:`COMPILED`.
    """
    SOURCES.append(source)
    code = CODE.get(source)
    if code is None:
        COMPILED.append(f"{cls.__module__}.{cls.__qualname__}")
        name = f"<record {cls.__module__}.{cls.__qualname__}>"
        exec(compile(source, name, "exec"), namespace)
        init: Callable[..., None] = namespace["__init__"]
    else:
        positional = tuple(_default_of(f) for f in fields if f.init and not f.kw_only)
        first = next((i for i, value in enumerate(positional) if value is not _NONE), None)
        init = FunctionType(
            code.replace(co_name="__init__"),
            namespace,
            "__init__",
            None if first is None else positional[first:],
        )
        keyword = {f.name: _default_of(f) for f in fields if f.init and f.kw_only}
        init.__kwdefaults__ = {k: v for k, v in keyword.items() if v is not _NONE} or None
    init.__annotations__ = {f.name: f.type for f in fields if f.init} | {"return": None}
    _named(init, cls, "__init__")
    return init


_NONE = object()
"""A field without a default (``None`` is a default)."""


def _default_of(f: dataclasses.Field[Any]) -> Any:
    if f.default is not dataclasses.MISSING:
        return f.default
    if f.default_factory is not dataclasses.MISSING:
        return FACTORY
    return _NONE


SOURCES: list[str] = []
"""Every ``__init__`` source made so far (``scripts/gen_record_inits.py`` writes them out)."""
COMPILED: list[str] = []
"""The classes whose ``__init__`` was compiled at run time: none of ``import procession``'s."""
