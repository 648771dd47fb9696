"""The package's import graph: no cycles (function-level imports included), no private names across packages."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

import tokenomics

SRC = Path(tokenomics.__file__).resolve().parent


def _modules() -> dict[str, tuple[Path, bool]]:
    out = {}
    for path in sorted(SRC.rglob("*.py")):
        parts = list(path.relative_to(SRC.parent).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        out[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    return out


MODULES = _modules()


@functools.cache  # each module parsed once per run, not once per test
def _imports(name: str) -> tuple[tuple[str, tuple[str, ...], int, bool], ...]:
    """(target module, names, line, inside a function) of every tokenomics import of a module."""
    path, is_package = MODULES[name]
    package = name if is_package else name.rpartition(".")[0]
    found: list[tuple[str, tuple[str, ...], int, bool]] = []

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                continue  # annotations only: never imported at run time
            nested = in_function or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
            if isinstance(child, ast.Import):
                found.extend((a.name, (), child.lineno, in_function) for a in child.names
                             if a.name.split(".")[0] == "tokenomics")
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    parts = package.split(".")[: len(package.split(".")) - child.level + 1]
                    base = ".".join([*parts, *([child.module] if child.module else [])])
                if base.split(".")[0] == "tokenomics":
                    names = tuple(a.name for a in child.names)
                    found.append((base, names, child.lineno, in_function))
            visit(child, nested)

    visit(ast.parse(path.read_text(encoding="utf-8")), False)
    return tuple(found)


def _graph(*, function_level: bool = True) -> dict[str, set[str]]:
    """Module -> modules it imports (``from pkg import mod`` counts as importing ``pkg.mod``)."""
    graph: dict[str, set[str]] = {name: set() for name in MODULES}
    for name in MODULES:
        for base, names, _, in_function in _imports(name):
            if in_function and not function_level:
                continue
            targets = [f"{base}.{n}" for n in names if f"{base}.{n}" in MODULES]
            if len(targets) < len(names) or not names:
                targets.append(base)
            graph[name].update(t for t in targets if t in MODULES and t != name)
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            connect(v)
    return out


def test_the_graph_sees_the_package():
    graph = _graph()
    assert len(MODULES) > 30
    assert "tokenomics.chain" in graph["tokenomics.outputs.compare"]
    assert "tokenomics.catalog" in graph["tokenomics.chain"]


def test_cycle_detection_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


PENDING_LAZY_EDGES: dict[tuple[str, str], str] = {}
"""Function-level imports that still close a cycle, each with the change that removes it (none left)."""


def _function_level_edges() -> set[tuple[str, str]]:
    graph_edges = set()
    for name in MODULES:
        for base, names, _, in_function in _imports(name):
            if in_function:
                graph_edges.update((name, t) for t in [base, *(f"{base}.{n}" for n in names)] if t in MODULES)
    return graph_edges


def test_no_import_cycles_at_module_level():
    assert _cycles(_graph(function_level=False)) == []


def test_no_import_cycles_function_level_imports_included():
    # a function-level import that closes a cycle only hides it: it counts as an edge
    graph = _graph()
    for (src, dst) in PENDING_LAZY_EDGES:
        assert (src, dst) in _function_level_edges(), f"{src} -> {dst} is gone: drop it from PENDING_LAZY_EDGES"
        graph[src].discard(dst)
    assert _cycles(graph) == []


def _subpackage(name: str) -> str:
    parts = name.split(".")
    return parts[1] if len(parts) > 1 else ""


@pytest.mark.parametrize("name", sorted(MODULES))
def test_no_private_name_imported_across_packages(name: str):
    here = _subpackage(name)
    for base, names, line, _ in _imports(name):
        there = _subpackage(base)
        if there.startswith("_") or there == here:
            continue  # root-level private modules (_validate, _numeric, _version) serve the whole package
        private_module = any(part.startswith("_") for part in base.split(".")[2:])
        private_names = [n for n in names if n.startswith("_")]
        assert not private_module, f"{name}:{line} imports the private module {base} of another package"
        assert not private_names, f"{name}:{line} imports private {private_names} from {base}"


def test_version_has_its_own_module():
    from tokenomics._version import __version__

    assert tokenomics.__version__ == __version__
    assert not any(base == "tokenomics" and "__version__" in names
                   for name in MODULES for base, names, _, _ in _imports(name))


LAYERS: dict[str, int] = {
    "<root>": 8, "outputs": 8,  # entry points: the public namespace, compare tables, report, CLI
    "analysis": 7,  # scenario, sweep, sensitivity, Monte Carlo, fleet: built on the chain
    "chain": 6,  # the one evaluation path
    "perf": 5, "curves": 5,  # throughput: projections and measured curves use each other
    "cost": 4,
    "workload": 3, "memory": 3,
    "economics": 2,  # pure kernels
    "catalog": 1,
    "units": 0, "_validate": 0, "_numeric": 0, "precision": 0, "_version": 0,
}
"""Layer of each top-level package or module: imports go to the same layer or below, never up."""


def _layer_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "<root>"


def test_every_package_has_a_layer():
    assert {_layer_of(m) for m in MODULES} <= set(LAYERS)


def test_imports_never_go_up_the_chain():
    # e.g. analysis.montecarlo must not import outputs.compare: analysis sits below the outputs
    upward = sorted(
        f"{src} -> {dst}" for src, targets in _graph().items() for dst in targets
        if LAYERS[_layer_of(dst)] > LAYERS[_layer_of(src)]
    )
    assert upward == []


def test_layer_rule_catches_an_upward_import():
    graph = {"tokenomics.analysis.x": {"tokenomics.outputs.compare"}}
    assert [(s, d) for s, ts in graph.items() for d in ts
            if LAYERS[_layer_of(d)] > LAYERS[_layer_of(s)]] == [("tokenomics.analysis.x", "tokenomics.outputs.compare")]
