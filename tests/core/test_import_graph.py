"""No import cycle among the core's modules, nor inside any plugin package.

The graph is read from the source (``ast``), so it sees every import statement: at module
level, under ``if TYPE_CHECKING:`` and inside functions. An import inside a function is
fine for laziness (an optional or costly dependency loaded on first use), but it is an
import all the same: moving one into a function to dodge a cycle leaves the cycle here.
Imports by string (``importlib.import_module``, ``lazy_exports`` tables) are not edges:
they name what a module serves, not what it needs.

Two graphs, both acyclic:

- **names**: every import statement is an edge to the module it names (``from p import n``
  names ``p.n`` when that is a module, else ``p``). This is the design: what needs what,
  type-only needs included.
- **runs**: the imports that execute (all but those under ``if TYPE_CHECKING:``), where
  importing ``a.b.c`` first runs the ``__init__`` of every enclosing package the importer is
  not itself inside (``a`` and ``a.b``). A package whose ``__init__`` pulls its importer
  back in is a cycle even when the importer names only one of its submodules.
"""

from __future__ import annotations

import ast
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = sorted(
    [
        ROOT / "core/src/agent_sdk",
        *ROOT.glob("plugins/*/src/agent_sdk_*"),
        ROOT / "contrib/plugin-template/src/agent_sdk_minifw",
    ]
)


@dataclass(frozen=True)
class Edge:
    target: str
    where: str  # file:line
    type_only: bool


def modules(package: Path) -> dict[str, Path]:
    """Dotted module name -> file, for every module of ``package``."""
    found = {}
    for path in sorted(package.rglob("*.py")):
        parts = [package.name, *path.relative_to(package).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _under_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.AST, type_only: bool = False) -> Iterator[tuple[ast.stmt, bool]]:
    """Every import statement with whether it sits under ``if TYPE_CHECKING:``."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node, type_only
        elif isinstance(node, ast.If) and _under_type_checking(node):
            for child in node.body:
                yield from _imports(ast.Module(body=[child], type_ignores=[]), True)
            for child in node.orelse:
                yield from _imports(ast.Module(body=[child], type_ignores=[]), type_only)
        else:
            yield from _imports(node, type_only)


def imports_of(name: str, path: Path, known: dict[str, Path]) -> list[tuple[str, Edge]]:
    """(named module, edge) for each import of a module of ``known`` in ``name``'s file."""
    tree = ast.parse(path.read_text(), filename=str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    where = path.relative_to(path.parents[name.count(".") + (path.name == "__init__.py")])
    found = []
    for node, type_only in _imports(tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        else:
            assert isinstance(node, ast.ImportFrom)
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*anchor, *([node.module] if node.module else [])])
            targets = [
                f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base
                for alias in node.names
            ]
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name:
                found.append((target, Edge(target, f"{where}:{node.lineno}", type_only)))
    return found


def graphs(package: Path) -> tuple[dict[str, list[Edge]], dict[str, list[Edge]]]:
    """The "names" graph and the "runs" graph of ``package`` (see the module docstring)."""
    known = modules(package)
    names: dict[str, list[Edge]] = {m: [] for m in known}
    runs: dict[str, list[Edge]] = {m: [] for m in known}
    for name, path in known.items():
        inside = {".".join(name.split(".")[:i]) for i in range(1, name.count(".") + 2)}
        if path.name != "__init__.py":
            inside.discard(name)
        for target, edge in imports_of(name, path, known):
            names[name].append(edge)
            if edge.type_only:
                continue
            runs[name].append(edge)
            parts = target.split(".")
            for i in range(1, len(parts)):
                enclosing = ".".join(parts[:i])
                if enclosing in known and enclosing not in inside and enclosing != name:
                    runs[name].append(Edge(enclosing, f"{edge.where} (runs its __init__)", False))
    return names, runs


def cycles(graph: dict[str, list[Edge]]) -> list[tuple[set[str], list[Edge]]]:
    """Each set of modules that import each other in a circle (a strongly connected
    component), with one shortest cycle through it, as the edges that close it."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[set[str]] = []

    def visit(start: str) -> None:  # iterative Tarjan: no recursion limit to hit
        work = [(start, iter(graph[start]))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            for edge in edges:
                if edge.target not in index:
                    index[edge.target] = low[edge.target] = len(index)
                    stack.append(edge.target)
                    on_stack.add(edge.target)
                    work.append((edge.target, iter(graph[edge.target])))
                    break
                if edge.target in on_stack:
                    low[node] = min(low[node], index[edge.target])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = set()
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.add(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        components.append(component)

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return [(component, _shortest_cycle(graph, component)) for component in components]


def _shortest_cycle(graph: dict[str, list[Edge]], component: set[str]) -> list[Edge]:
    start = min(component)
    paths: dict[str, list[Edge]] = {start: []}
    todo = [start]
    while todo:  # breadth first, inside the component, back to start
        node = todo.pop(0)
        for edge in graph[node]:
            if edge.target == start:
                return [*paths[node], edge]
            if edge.target in component and edge.target not in paths:
                paths[edge.target] = [*paths[node], edge]
                todo.append(edge.target)
    raise AssertionError("a strongly connected component without a cycle")


def describe(start: str, cycle: list[Edge]) -> str:
    steps = [start]
    for edge in cycle:
        kind = " (TYPE_CHECKING)" if edge.type_only else ""
        steps.append(f"  -> {edge.target}   [{edge.where}{kind}]")
    return "\n".join(steps)


def problems(package: Path) -> list[str]:
    found = []
    for label, graph in zip(("names", "runs"), graphs(package), strict=True):
        for circle, cycle in cycles(graph):
            start = min(circle)
            found.append(
                f"import cycle ({label} graph; {len(circle)} modules in the circle: "
                f"{', '.join(sorted(circle))}), for instance:\n{describe(start, cycle)}"
            )
    return found


def test_there_are_packages_to_check():
    assert len(PACKAGES) >= 6 and all(p.is_dir() for p in PACKAGES)


@pytest.mark.parametrize("package", PACKAGES, ids=lambda p: p.name)
def test_no_import_cycle(package):
    found = problems(package)
    assert not found, "\n\n".join(found)


# -- the check can fail --------------------------------------------------------------------
def make_package(root: Path, files: dict[str, str]) -> Path:
    for relative, source in files.items():
        path = root / "pkg" / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(source))
    return root / "pkg"


def test_a_late_import_inside_a_function_is_still_a_cycle(tmp_path):
    package = make_package(
        tmp_path,
        {
            "__init__.py": "",
            "a.py": "from pkg.b import g\n",
            "b.py": "def g():\n    from pkg.a import f\n    return f\n",
        },
    )
    [found] = [p for p in problems(package) if "names graph" in p]
    assert "pkg.a\n  -> pkg.b   [" in found and "-> pkg.a   [" in found and "b.py:2" in found


def test_a_type_checking_import_is_a_cycle_of_the_names_graph_only(tmp_path):
    package = make_package(
        tmp_path,
        {
            "__init__.py": "",
            "a.py": "from pkg.b import g\n",
            "b.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.a import f\n",
        },
    )
    found = problems(package)
    assert len(found) == 1 and "names graph" in found[0] and "(TYPE_CHECKING)" in found[0]


def test_a_package_init_that_imports_its_importer_back_is_a_cycle(tmp_path):
    # ctx names only sub.leaf, but importing it runs sub/__init__, which needs ctx.
    package = make_package(
        tmp_path,
        {
            "__init__.py": "",
            "ctx.py": "from pkg.sub.leaf import Leaf\n",
            "sub/__init__.py": "from pkg.sub.user import User\n",
            "sub/leaf.py": "class Leaf: ...\n",
            "sub/user.py": "from pkg.ctx import Leaf\n",
        },
    )
    found = problems(package)
    assert len(found) == 1 and "runs graph" in found[0] and "runs its __init__" in found[0]


def test_a_package_importing_its_own_submodules_is_no_cycle(tmp_path):
    package = make_package(
        tmp_path,
        {
            "__init__.py": "from pkg.sub import thing\n",
            "sub/__init__.py": "from pkg.sub.leaf import thing\n",
            "sub/leaf.py": "from pkg.other import helper\nthing = helper\n",
            "other.py": "helper = 1\n",
        },
    )
    assert problems(package) == []
