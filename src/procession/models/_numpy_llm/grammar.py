"""Constrained JSON without llama.cpp: a JSON schema compiled to a character grammar, and a
prefix checker that says which tokens keep the output valid.

The grammar accepts the same strings as the GBNF that llama-cpp-python's
``json_schema_to_gbnf`` builds for the schemas the local model's output plans produce
(objects with ``properties``/``required``/``additionalProperties``, strings with or without
``minLength``/``maxLength``, numbers, integers, booleans, null, ``enum``, ``const``,
``anyOf``/``oneOf``, type lists, arrays with ``items``/``minItems``/``maxItems``, tuples,
local ``$ref``; ``{}`` is any JSON object), including where it allows a space, so greedy
decoding picks the same tokens on both runtimes. A schema using anything else (``pattern``,
``format``, ``allOf``, ...) falls back to the generic JSON grammar, as the llama.cpp path does
when the conversion fails.

The checker works as llama.cpp's grammar engine does: its state is the set of parse stacks
(tuples of pending symbols, top last) whose top is a character class; a character advances
every stack whose top matches it. States and steps are memoised, so testing a token costs
about one dictionary look-up per character once the grammar is warm.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["Grammar", "Matcher", "UnsupportedSchemaError", "compile_schema", "generic_json"]

Chars = tuple[bool, tuple[tuple[int, int], ...]]
"""A character class: ``(negated, ((low, high), ...))`` code-point ranges."""
Symbol = int | Chars  # a rule index or a character class
Sequence = tuple[Symbol, ...]
Stack = tuple[Symbol, ...]
State = frozenset[Stack]
_NON_ASCII = 0x4E00  # stands for an incomplete multi-byte character


class UnsupportedSchemaError(ValueError):
    """A schema feature the grammar does not express (the caller falls back to any JSON)."""


def _chars(spec: str, *, negated: bool = False) -> Chars:
    """A class from ``"a-z0-9_"``-style text (ranges written ``x-y``)."""
    ranges: list[tuple[int, int]] = []
    i = 0
    while i < len(spec):
        if i + 2 < len(spec) and spec[i + 1] == "-":
            ranges.append((ord(spec[i]), ord(spec[i + 2])))
            i += 3
        else:
            ranges.append((ord(spec[i]), ord(spec[i])))
            i += 1
    return (negated, tuple(ranges))


def _matches(chars: Chars, code: int) -> bool:
    negated, ranges = chars
    inside = any(low <= code <= high for low, high in ranges)
    return inside != negated


class Grammar:
    """Rules as alternatives of symbol sequences; rule 0 is the root."""

    __slots__ = ("rules",)

    def __init__(self) -> None:
        self.rules: list[list[Sequence]] = [[]]

    def rule(self, *alternatives: Sequence) -> Sequence:
        """A new rule with these alternatives, as a one-symbol sequence referring to it."""
        self.rules.append(list(alternatives))
        return (len(self.rules) - 1,)

    def placeholder(self) -> int:
        """A rule whose alternatives are set later (for recursion)."""
        self.rules.append([])
        return len(self.rules) - 1

    @staticmethod
    def literal(text: str) -> Sequence:
        """The characters of ``text``, in order."""
        return tuple((False, ((ord(c), ord(c)),)) for c in text)

    def optional(self, seq: Sequence) -> Sequence:
        """``seq?``."""
        return self.rule(seq, ())

    def star(self, seq: Sequence) -> Sequence:
        """``seq*`` (a right-recursive rule: the stack does not grow per repetition)."""
        index = self.placeholder()
        self.rules[index] = [(*seq, index), ()]
        return (index,)

    def repeat(self, seq: Sequence, low: int, high: int | None) -> Sequence:
        """``seq{low,high}`` (``high=None``: unbounded)."""
        out: Sequence = seq * low
        if high is None:
            return out + self.star(seq)
        tail: Sequence = ()
        for _ in range(high - low):
            tail = self.optional(seq + tail)
        return out + tail


class _Json:
    """The JSON building blocks of one dialect."""

    def __init__(self, g: Grammar, *, generic: bool) -> None:
        self.g = g
        lit = g.literal
        digit = (_chars("0-9"),)
        if generic:  # llama-cpp-python's JSON_GBNF
            self.space = g.rule((), lit(" "), lit("\n") + g.repeat((_chars(" \t"),), 0, 20))
            plain = (_chars('"\\\x7f\x00-\x1f', negated=True),)
            escape = lit("\\") + g.rule(
                (_chars('"\\bfnrt'),), lit("u") + (_chars("0-9a-fA-F"),) * 4
            )
        else:  # json_schema_to_gbnf: one optional space
            self.space = g.optional(lit(" "))
            plain = (_chars('"\\', negated=True),)
            hexes = (_chars("0-9a-fA-F"),) * 4
            escape = lit("\\") + g.rule((_chars('"\\/bfnrt'),), lit("u") + hexes)
        self.char = g.rule(plain, escape)
        self.string = lit('"') + g.star(self.char) + lit('"') + self.space
        integral = g.rule(digit, (_chars("1-9"), *g.repeat(digit, 0, 15)))
        minus = g.optional(lit("-"))
        if generic:
            fraction = g.optional(lit(".") + digit + g.star(digit))
            exponent_digits = digit + g.repeat((_chars("1-9"),), 0, 15)
        else:
            fraction = g.optional(lit(".") + digit + g.repeat(digit, 0, 15))
            exponent_digits = integral
        exponent = g.optional((_chars("eE"), *g.optional((_chars("-+"),)), *exponent_digits))
        self.number = minus + integral + fraction + exponent + self.space
        self.integer = minus + integral + self.space
        words = g.rule(lit("true"), lit("false"))
        self.boolean = words + self.space
        self.null = lit("null") + self.space
        value = g.placeholder()
        self.value: Sequence = (value,)
        self.object = self.container("{", "}", self.string + lit(":") + self.space + self.value)
        self.array = self.container("[", "]", self.value)
        if generic:
            keyword = g.rule(lit("true"), lit("false"), lit("null")) + self.space
            g.rules[value] = [self.object, self.array, self.string, self.number, keyword]
        else:
            g.rules[value] = [
                self.object, self.array, self.string, self.number, self.boolean, self.null
            ]  # fmt: skip

    def container(self, start: str, end: str, item: Sequence) -> Sequence:
        """``start space (item ("," space item)*)? end space``."""
        g, lit = self.g, self.g.literal
        more = g.star(lit(",") + self.space + item)
        return lit(start) + self.space + g.optional(item + more) + lit(end) + self.space


def generic_json() -> Grammar:
    """Any JSON object (llama-cpp-python's ``JSON_GBNF``: the root is an object)."""
    g = Grammar()
    g.rules[0] = [_Json(g, generic=True).object]
    return g


class _SchemaCompiler:
    def __init__(self, root: dict[str, Any]) -> None:
        self.g = Grammar()
        self.json = _Json(self.g, generic=False)
        self.root = root
        self.refs: dict[str, int] = {}

    def ref(self, pointer: str) -> Sequence:
        if pointer in self.refs:
            return (self.refs[pointer],)
        if not pointer.startswith("#"):
            raise UnsupportedSchemaError(f"only local $ref pointers are supported, not {pointer!r}")
        target: Any = self.root
        for part in filter(None, pointer[1:].split("/")):
            if not isinstance(target, dict) or part not in target:
                raise UnsupportedSchemaError(f"$ref {pointer!r} points nowhere")
            target = target[part]
        index = self.refs[pointer] = self.g.placeholder()
        self.g.rules[index] = [self.visit(target)]
        return (index,)

    def visit(self, schema: Any) -> Sequence:
        if not isinstance(schema, dict):
            raise UnsupportedSchemaError(f"a schema must be an object, got {schema!r}")
        g, j = self.g, self.json
        kind = schema.get("type")
        if "$ref" in schema:
            return self.ref(str(schema["$ref"]))
        if "oneOf" in schema or "anyOf" in schema:
            return g.rule(*(self.visit(s) for s in schema.get("oneOf") or schema["anyOf"]))
        if isinstance(kind, list):
            return g.rule(*(self.visit({"type": t}) for t in kind))
        if "const" in schema:
            return g.literal(json.dumps(schema["const"]))
        if "enum" in schema:
            return g.rule(*(g.literal(json.dumps(v)) for v in schema["enum"]))
        extra = schema.get("additionalProperties")
        if kind in (None, "object") and (
            "properties" in schema or ("additionalProperties" in schema and extra is not True)
        ):
            return self.object(schema)
        if kind in (None, "array") and ("items" in schema or "prefixItems" in schema):
            return self.array(schema)
        if any(k in schema for k in ("pattern", "format", "allOf", "not", "if")):
            raise UnsupportedSchemaError(f"unsupported schema keywords in {schema!r}")
        if kind == "string" and ("minLength" in schema or "maxLength" in schema):
            low, high = int(schema.get("minLength", 0)), schema.get("maxLength")
            chars = g.repeat(j.char, low, None if high is None else int(high))
            return g.literal('"') + chars + g.literal('"') + j.space
        if kind == "object" or not schema:
            return j.object
        primitives = {
            "string": j.string, "number": j.number, "integer": j.integer,
            "boolean": j.boolean, "null": j.null, "array": j.array, "value": j.value,
        }  # fmt: skip
        if kind not in primitives:
            raise UnsupportedSchemaError(f"unrecognised schema {schema!r}")
        return primitives[kind]

    def array(self, schema: dict[str, Any]) -> Sequence:
        g, j = self.g, self.json
        items = schema.get("items") or schema["prefixItems"]
        comma = g.literal(",") + j.space
        if isinstance(items, list):
            body: Sequence = ()
            for i, item in enumerate(items):
                body += (comma if i else ()) + self.visit(item)
        else:
            item = self.visit(items)
            low, high = int(schema.get("minItems", 0)), schema.get("maxItems")
            body = self.separated(item, low, None if high is None else int(high), comma)
        return g.literal("[") + j.space + body + g.literal("]") + j.space

    def separated(self, item: Sequence, low: int, high: int | None, sep: Sequence) -> Sequence:
        """``item{low,high}`` with ``sep`` between items."""
        g = self.g
        if low == 0:
            if high == 0:
                return ()
            rest = None if high is None else high - 1
            return g.optional(item + g.repeat(sep + item, 0, rest))
        rest = None if high is None else high - low
        return item + (sep + item) * (low - 1) + g.repeat(sep + item, 0, rest)

    def object(self, schema: dict[str, Any]) -> Sequence:
        g, j = self.g, self.json
        comma = g.literal(",") + j.space
        properties = dict(schema.get("properties") or {})
        required = set(schema.get("required") or [])
        pairs = {
            name: g.literal(json.dumps(name)) + j.space + g.literal(":") + j.space + self.visit(sub)
            for name, sub in properties.items()
        }
        must = [pairs[k] for k in properties if k in required]
        may = [pairs[k] for k in properties if k not in required]
        extra = schema.get("additionalProperties")
        if extra is True or isinstance(extra, dict):
            value = self.visit({} if extra is True else extra)
            pair = j.string + g.literal(":") + j.space + value
            may.append(pair + g.star(comma + pair))
        body: Sequence = ()
        for i, pair in enumerate(must):
            body += (comma if i else ()) + pair
        if may:
            # any ordered subset of the optional pairs: first the one it starts with, then
            # each later one optionally
            starts = []
            for i in range(len(may)):
                tail: Sequence = ()
                for later in reversed(may[i + 1 :]):
                    tail = g.optional(comma + later) + tail
                starts.append(may[i] + tail)
            chosen = g.rule(*starts)
            body += g.optional((comma if must else ()) + chosen)
        return g.literal("{") + j.space + body + g.literal("}") + j.space


def compile_schema(schema: dict[str, Any]) -> Grammar:
    """The grammar of JSON matching ``schema``; the generic JSON-object grammar when the
    schema is empty or uses a feature the grammar does not express."""
    if not schema:
        return generic_json()
    try:
        compiler = _SchemaCompiler(schema)
        root = compiler.visit(schema)
    except (UnsupportedSchemaError, TypeError, ValueError, KeyError):
        return generic_json()
    compiler.g.rules[0] = [root]
    return compiler.g


class Matcher:
    """The prefix checker of one grammar (shared by calls; its caches only grow).

    ``start`` is the state before any output; :meth:`feed` advances a state by text and
    returns the empty state when the text cannot continue a valid output.
    """

    __slots__ = ("_expanded", "_grammar", "_steps", "start")

    def __init__(self, grammar: Grammar) -> None:
        self._grammar = grammar
        self._expanded: dict[Stack, State] = {}
        self._steps: dict[tuple[State, int], State] = {}
        self.start: State = self._expand((0,))

    def _expand(self, stack: Stack) -> State:
        """The stacks reachable from ``stack`` whose top is a character class (or empty)."""
        done = self._expanded.get(stack)
        if done is not None:
            return done
        if not stack or not isinstance(stack[-1], int):
            result: State = frozenset((stack,))
        else:
            below = stack[:-1]
            found: set[Stack] = set()
            for alternative in self._grammar.rules[stack[-1]]:
                found.update(self._expand(below + alternative[::-1]))
            result = frozenset(found)
        self._expanded[stack] = result
        return result

    def step(self, state: State, code: int) -> State:
        """The state after one character."""
        key = (state, code)
        found = self._steps.get(key)
        if found is None:
            stacks: set[Stack] = set()
            for stack in state:
                if stack:
                    top = stack[-1]
                    if not isinstance(top, int) and _matches(top, code):
                        stacks.update(self._expand(stack[:-1]))
            found = self._steps[key] = frozenset(stacks)
        return found

    def feed(self, state: State, text: str) -> State:
        """The state after ``text`` (empty: ``text`` cannot continue the output)."""
        for char in text:
            state = self.step(state, ord(char))
            if not state:
                break
        return state

    def feed_bytes(self, state: State, pending: bytes, piece: bytes) -> tuple[State, bytes]:
        """The state after a token's bytes, and the bytes of an unfinished character held
        back (accepted only where any non-ASCII character may follow)."""
        data = pending + piece
        try:
            return self.feed(state, data.decode("utf-8")), b""
        except UnicodeDecodeError as exc:
            if exc.reason != "unexpected end of data":
                return frozenset(), b""
            state = self.feed(state, data[: exc.start].decode("utf-8"))
            if not state or not self.step(state, _NON_ASCII):
                return frozenset(), b""
            return state, data[exc.start :]

    @staticmethod
    def can_end(state: State) -> bool:
        """Whether the output may end here."""
        return () in state

    @staticmethod
    def must_end(state: State) -> bool:
        """Whether nothing but the end may follow."""
        return state == frozenset(((),))
