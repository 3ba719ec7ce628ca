"""Griffe extensions for the API reference (``mkdocs.yml``, under mkdocstrings' options).

``PublicDocstrings`` logs a warning for every public name without a docstring, so that
``mkdocs build --strict`` fails on one. ``SphinxMarkup`` turns the reST roles procession's
docstrings use (``:class:`~procession.Tool```) into cross-references that link when the target
is documented and read as code when it is not, and reST's ``::`` literal-block markers into
plain colons (the indented block after one is already a Markdown code block).

A public name is one a user may import: a module whose dotted path has no ``_`` component (and
that ``exclude`` does not name), each name such a module exports (its ``__all__``, else its own
names without a leading underscore), wherever the object is defined, and the public methods and
properties of each class reached that way. Class attributes and dunder methods are not required
to carry their own docstring: the class docstring describes them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any

import griffe

__all__ = [
    "PublicDocstrings",
    "SphinxMarkup",
    "missing_docstrings",
    "rest_to_markdown",
    "roles_to_references",
]

_KINDS = {"module", "class", "function", "attribute"}


def _is_dunder(name: str) -> bool:
    return name.startswith("__") and name.endswith("__")


def _target(member: griffe.Object | griffe.Alias) -> griffe.Object | None:
    """The object a member names, or ``None`` when it lies outside the loaded package."""
    if not isinstance(member, griffe.Alias):
        return member
    try:
        target = member.final_target
    except (griffe.AliasResolutionError, griffe.CyclicAliasError):
        return None
    return target if isinstance(target, griffe.Object) else None


def _excluded(path: str, exclude: Iterable[str]) -> bool:
    return any(path == prefix or path.startswith(prefix + ".") for prefix in exclude)


def _public_module(module: griffe.Module, exclude: tuple[str, ...]) -> bool:
    return not any(part.startswith("_") for part in module.path.split(".")) and not _excluded(
        module.path, exclude
    )


def _class_members(cls: griffe.Class) -> Iterator[griffe.Object]:
    """A class's own public methods and properties (not inherited, not dunder)."""
    for name, member in cls.members.items():
        if member.is_alias or name.startswith("_"):
            continue
        assert isinstance(member, griffe.Object)
        if member.is_function or "property" in member.labels or member.is_class:
            yield member


def _exported(module: griffe.Module) -> Iterator[griffe.Object]:
    """The objects a public module exports, followed through re-exports."""
    for name, member in module.members.items():
        if _is_dunder(name) or not member.is_public:
            continue
        target = _target(member)
        if target is not None and not target.is_module and target.kind.value in _KINDS:
            yield target


def missing_docstrings(package: griffe.Module, exclude: Iterable[str] = ()) -> list[griffe.Object]:
    """Every public object of ``package`` without a docstring, in a stable order."""
    skip = tuple(exclude)
    seen: set[str] = set()
    missing: list[griffe.Object] = []

    def check(obj: griffe.Object) -> None:
        if obj.path in seen or not obj.path.startswith(package.path):
            return
        seen.add(obj.path)
        if not (obj.docstring and obj.docstring.value.strip()):
            missing.append(obj)
        if isinstance(obj, griffe.Class):
            for member in _class_members(obj):
                check(member)

    def walk(module: griffe.Module) -> None:
        if not _public_module(module, skip):
            return
        check(module)
        for obj in _exported(module):
            check(obj)
        for submodule in module.modules.values():
            if not submodule.is_alias:
                assert isinstance(submodule, griffe.Module)
                walk(submodule)

    walk(package)
    return sorted(missing, key=lambda obj: (str(obj.relative_filepath), obj.lineno or 0))


class PublicDocstrings(griffe.Extension):
    """Warn about every public name of the loaded packages that has no docstring.

    Args:
        packages: The packages to check (others loaded along the way, such as pydantic, are
            not ours to document).
        exclude: Module paths whose names are not part of the documented API (and their
            submodules), such as the command line, documented in prose.
    """

    def __init__(self, packages: list[str] | None = None, exclude: list[str] | None = None) -> None:
        super().__init__()
        self.packages = tuple(packages or ("procession",))
        self.exclude = tuple(exclude or ())

    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
        """Check one package once it is loaded."""
        if pkg.name not in self.packages:
            return
        for obj in missing_docstrings(pkg, self.exclude):
            where = f"{obj.relative_filepath}:{obj.lineno or 0}"
            griffe.logger.warning(f"{where}: public {obj.kind.value} {obj.path} has no docstring")


_ROLE = re.compile(
    r":(?:py:)?(?:class|func|meth|mod|data|attr|exc|obj|const|type):`(?P<tilde>~?)(?P<name>[\w.]+)`"
)


def _resolve(scope: griffe.Object, name: str) -> str:
    """The full path of ``name`` as seen from ``scope`` (best effort)."""
    head, _, rest = name.partition(".")
    try:
        full = scope.resolve(head)
    except (griffe.NameResolutionError, AttributeError, KeyError):
        return name
    return f"{full}.{rest}" if rest else full


_LITERAL_ALONE = re.compile(r"^[ \t]*::[ \t]*$", re.M)
_LITERAL_END = re.compile(r"(?<=\S)::[ \t]*$", re.M)


def rest_to_markdown(text: str, scope: griffe.Object) -> str:
    """``text`` with reST roles as cross-references and ``::`` markers as colons."""
    if ":`" in text:
        text = roles_to_references(text, scope)
    if "::" in text:
        text = _LITERAL_END.sub(":", _LITERAL_ALONE.sub("", text))
    return text


def roles_to_references(text: str, scope: griffe.Object) -> str:
    """``text`` with each reST role replaced by an optional cross-reference in code font."""

    def replace(match: re.Match[str]) -> str:
        name = match["name"]
        title = name.rsplit(".", 1)[-1] if match["tilde"] else name
        identifier = _resolve(scope, name)
        return f'<autoref identifier="{identifier}" optional><code>{title}</code></autoref>'

    return _ROLE.sub(replace, text)


class SphinxMarkup(griffe.Extension):
    """Rewrite the reST markup in the docstrings of the given packages as Markdown."""

    def __init__(self, packages: list[str] | None = None) -> None:
        super().__init__()
        self.packages = tuple(packages or ("procession",))

    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
        """Rewrite every docstring of one package once it is loaded."""
        if pkg.name in self.packages:
            self._rewrite(pkg)

    def _rewrite(self, obj: griffe.Object) -> None:
        if obj.docstring is not None:
            obj.docstring.value = rest_to_markdown(obj.docstring.value, obj)
        for member in obj.members.values():
            if not member.is_alias:
                assert isinstance(member, griffe.Object)
                self._rewrite(member)
