"""Write ``src/procession/_record_inits.py``: the ``__init__`` of every record ``import
procession`` makes, as code compiled into the module's ``.pyc`` (decision record 0382).

Run from a checkout after changing a record's fields: ``PYTHONPATH=src python
scripts/gen_record_inits.py``. ``tests/test_import_cost.py`` fails while an entry is missing
(a class then compiles its ``__init__`` on every start) or unused.

Each entry maps the exact source ``procession._records.init_source`` makes (defaults named
``_d_<field>``) to the code of the same function written without its defaults: a code object
holds no defaults, ``procession._records`` adds them from the fields.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

TARGET = Path(__file__).resolve().parents[1] / "src" / "procession" / "_record_inits.py"
PROBE = "import json, procession, procession._records as r; print(json.dumps(r.SOURCES))"
HEADER = '''"""The compiled ``__init__`` of each record ``import procession`` makes (record 0382).

Written by ``scripts/gen_record_inits.py``; do not edit. ``procession._records`` looks up the
source it would compile in :data:`CODE` and builds the function from the code object, compiled
once into this module's ``.pyc``, instead of compiling it on every start. Each function here is
that source without its defaults (a code object holds none).
"""

from __future__ import annotations

from types import CodeType
from typing import Any

__all__ = ["CODE"]

_set: Any = None
EDITS: Any = None
FACTORY: Any = None
PartList: Any = None
'''


def sources() -> list[str]:
    """The ``__init__`` sources a fresh ``import procession`` makes, without this cache."""
    empty = (  # this module, emptied: every source is then made, none looked up
        "import sys, types; name = 'procession._record_inits'; "
        "sys.modules[name] = m = types.ModuleType(name); m.CODE = {}; "
    )
    command = [sys.executable, "-c", empty + PROBE]
    out = subprocess.run(command, capture_output=True, text=True, check=True)
    return sorted(set(json.loads(out.stdout.splitlines()[-1])))


def without_defaults(source: str, index: int) -> tuple[str, set[str]]:
    """The function as ``_init_<index>``, its defaults dropped and its names typed ``Any``, and
    the global names its body reads."""
    func = ast.parse(source).body[0]
    assert isinstance(func, ast.FunctionDef)
    func.name = f"_init_{index}"
    func.args.defaults = []
    func.args.kw_defaults = [None] * len(func.args.kwonlyargs)
    for arg in [*func.args.args, *func.args.kwonlyargs]:
        arg.annotation = ast.Name("Any", ast.Load())
    func.returns = ast.Constant(None)
    params = {a.arg for a in [*func.args.args, *func.args.kwonlyargs]}
    names = {
        node.id
        for node in ast.walk(func)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id not in params
    }
    return ast.unparse(func), names


def render(all_sources: list[str]) -> str:
    """The module's text (before ``ruff format``)."""
    functions: list[str] = []
    globals_read: set[str] = set()
    for index, source in enumerate(all_sources):
        text, names = without_defaults(source, index)
        functions.append(text)
        globals_read |= names
    factories = sorted(name for name in globals_read if name.startswith("_f_"))
    lines = [HEADER, *(f"{name}: Any = None" for name in factories), ""]
    lines += [f"\n{text}\n" for text in functions]
    lines.append("\nCODE: dict[str, CodeType] = {")
    for i, source in enumerate(all_sources):
        pieces = [source[start : start + 70] for start in range(0, len(source), 70)]
        lines += [
            "    (",
            *(f"        {piece!r}" for piece in pieces),
            f"    ): _init_{i}.__code__,",
        ]
    lines.append("}\n")
    return "\n".join(lines)


def main() -> None:
    """Write the module and format it."""
    TARGET.write_text(render(sources()))
    ruff = Path(sys.executable).with_name("ruff")
    subprocess.run([str(ruff), "format", "-q", str(TARGET)], check=True)
    print(f"wrote {TARGET}")


if __name__ == "__main__":
    main()
