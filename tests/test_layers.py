"""The package's layers: no private name imported from another module, no
import cycle, imports inside functions included (issue 21, item 5), and no
function body over 80 lines outside the compiled kernels (issue 21's target).

Every module of ``mipagg/`` is parsed with :mod:`ast`; each ``import`` and
``from ... import`` anywhere in it (module level, functions, methods) is one
edge of the import graph.  ``from pkg import name`` points at ``pkg.name``
when that is a module, else at ``pkg`` (its ``__init__``).  The import of a
package that Python makes before running a submodule is not an edge (every
package would be a cycle with its submodules); an explicit ``from . import x``
in a submodule is.

A name is private when it starts with one underscore (dunders such as
``__version__`` are public); a module is private (``heuristics/_common.py``)
to the package that holds it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "mipagg"

def _modules(package: Path) -> dict[str, tuple[Path, bool]]:
    """Dotted name -> (file, is a package ``__init__``) for every module."""
    out = {}
    for path in sorted(package.rglob("*.py")):
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        is_pkg = parts[-1] == "__init__"
        out[".".join(parts[:-1] if is_pkg else parts)] = (path, is_pkg)
    return out


def _imports(package: Path):
    """Yield (importer, imported module, imported name or None, line) for
    every import of the package's own modules, wherever it appears."""
    mods = _modules(package)
    top = package.name
    for name, (path, is_pkg) in mods.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.split(".")[0] == top:
                        yield name, alias.name, None, node.lineno
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = name.split(".") if is_pkg else name.split(".")[:-1]
                    base = base[:len(base) - node.level + 1]
                    source = ".".join(base + ([node.module] if node.module else []))
                else:
                    source = node.module or ""
                if source.split(".")[0] != top:
                    continue
                for alias in node.names:
                    yield name, source, alias.name, node.lineno


def _private(part: str) -> bool:
    return part.startswith("_") and not part.startswith("__")


def private_imports(package: Path) -> list[tuple[str, str, int]]:
    """(importer, "module.name", line) for every private name or private
    module imported from outside the module or package that holds it."""
    found = []
    for importer, source, name, line in _imports(package):
        target = source if name is None else f"{source}.{name}"
        parts = target.split(".")
        for i, part in enumerate(parts[1:], start=1):
            owner = ".".join(parts[:i])            # the module or package holding it
            inside = importer == owner or importer.startswith(owner + ".")
            if _private(part) and not inside:
                found.append((importer, target, line))
                break
    return sorted(set(found))


def import_graph(package: Path) -> dict[str, set[str]]:
    mods = _modules(package)
    graph: dict[str, set[str]] = {m: set() for m in mods}
    for importer, source, name, _ in _imports(package):
        target = source
        if name is not None and f"{source}.{name}" in mods:
            target = f"{source}.{name}"
        while target not in mods:                  # import of a name inside a module
            target = target.rpartition(".")[0]
        if target != importer:
            graph[importer].add(target)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(out)


MAX_BODY = 80


def _compiled(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """A numba kernel: decorated with ``njit``/``jit`` (bare or called)."""
    for d in fn.decorator_list:
        target = d.func if isinstance(d, ast.Call) else d
        name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
        if name in ("njit", "jit"):
            return True
    return False


def long_functions(package: Path, limit: int = MAX_BODY) -> list[tuple[str, str, int]]:
    """(file, function, body lines) of every function whose body, its
    docstring left out, is over ``limit`` lines, compiled kernels excepted."""
    out = []
    for path in sorted(package.rglob("*.py")):
        for fn in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) or _compiled(fn):
                continue
            body = fn.body
            doc = (isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                   and isinstance(body[0].value.value, str))
            first = body[1] if doc and len(body) > 1 else body[0]
            lines = fn.end_lineno - first.lineno + 1
            if lines > limit:
                out.append((str(path.relative_to(package.parent)), fn.name, lines))
    return out


def test_no_function_body_over_80_lines():
    found = long_functions(PACKAGE)
    assert not found, "function bodies over 80 lines:\n" + "\n".join(
        f"  {f}: {name} ({n} lines)" for f, name, n in found)


def test_no_private_name_imported_across_modules():
    found = private_imports(PACKAGE)
    assert not found, "private names imported from another module:\n" + "\n".join(
        f"  {imp} (line {line}) imports {target}" for imp, target, line in found)


def test_no_import_cycle():
    found = cycles(import_graph(PACKAGE))
    assert not found, "import cycles (deferred imports included):\n" + "\n".join(
        "  " + " <-> ".join(c) for c in found)


@pytest.fixture
def toy(tmp_path):
    """A package with two private imports and no cycle (yet)."""
    pkg = tmp_path / "toy"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("__version__ = '1'\n")
    (pkg / "a.py").write_text("from . import __version__\n\ndef f():\n    from .b import g\n")
    (pkg / "b.py").write_text("def _h():\n    pass\n\ng = 1\n")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "sub" / "_common.py").write_text("def helper():\n    pass\n\ndef _own():\n    pass\n")
    (pkg / "sub" / "c.py").write_text("from ._common import helper\nfrom ..b import _h\n")
    (pkg / "sub" / "e.py").write_text("from ._common import _own\n")
    (pkg / "d.py").write_text("from .sub._common import helper\nimport toy.sub.c\n")
    return pkg


def test_checker_finds_private_imports_and_cycles(toy):
    assert [(i, t) for i, t, _ in private_imports(toy)] == [
        ("toy.d", "toy.sub._common.helper"), ("toy.sub.c", "toy.b._h"),
        ("toy.sub.e", "toy.sub._common._own")]
    graph = import_graph(toy)
    assert graph["toy.a"] == {"toy", "toy.b"}
    assert graph["toy.d"] == {"toy.sub._common", "toy.sub.c"}
    assert cycles(graph) == []
    (toy / "b.py").write_text("g = 1\n\ndef k():\n    from .a import f\n")   # deferred
    assert cycles(import_graph(toy)) == [["toy.a", "toy.b"]]
    (toy / "__init__.py").write_text("from .a import f\n__version__ = '1'\n")
    assert cycles(import_graph(toy)) == [["toy", "toy.a", "toy.b"]]


def test_checker_finds_long_functions(toy):
    long_body = "\n".join(f"    x{i} = {i}" for i in range(81))
    (toy / "f.py").write_text(
        "import numba\n\n"
        f"def slow():\n    \"\"\"Doc.\"\"\"\n{long_body}\n\n"
        f"@numba.njit(cache=True)\ndef kernel():\n{long_body}\n\n"
        f"def short():\n    \"\"\"Doc.\"\"\"\n" + "\n".join(long_body.splitlines()[:80]) + "\n")
    assert long_functions(toy) == [("toy/f.py", "slow", 81)]
