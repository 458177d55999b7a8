#!/usr/bin/env python3
"""Prints the internal import graph of knowledge_engine and the import circles in it.

Reads the source with `ast` (nothing is imported), so it also sees imports inside functions and
under `if TYPE_CHECKING:`. Every edge has a kind: `module` (runs at import time), `function`
(runs when the function is called) or `type` (only for the type checker). A circle is a strongly
connected component of the graph (two or more modules that reach each other, or a module that
imports itself); all three kinds count, because a function-level or type-only import that closes a
circle is still two modules that cannot be understood, tested or moved apart.

`from pkg import name` points at `pkg.name` when that is a module, else at `pkg` (its __init__).
A package's __init__ is not counted as imported by every import of one of its modules: Python runs
it first, and a package that re-exports its modules is not a circle.

Usage: import_graph.py [--json] [--fail-on-cycle] [--root DIR]
With --json the last line is one JSON object: {"modules": [...], "edges": [...], "cycles": [[...]]}.
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import orjson

PACKAGE = "knowledge_engine"
DEFAULT_ROOT = Path(__file__).resolve().parent.parent / PACKAGE


@dataclass(frozen=True, order=True)
class Edge:
    source: str
    target: str
    kind: str  # "module" | "function" | "type"
    line: int


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def discover(root: Path) -> dict[str, Path]:
    """Every module of the package, by dotted name."""
    return {module_name(p, root): p for p in sorted(root.rglob("*.py"))}


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.AST) -> Iterator[tuple[ast.Import | ast.ImportFrom, str]]:
    """Each import statement with its kind, found by walking the tree with the enclosing context."""

    def walk(node: ast.AST, kind: str) -> Iterator[tuple[ast.Import | ast.ImportFrom, str]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import | ast.ImportFrom):
                yield child, kind
            elif isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                yield from walk(child, "type" if kind == "type" else "function")
            elif isinstance(child, ast.If) and _is_type_checking(child.test):
                for stmt in child.body:
                    yield from walk(ast.Module(body=[stmt], type_ignores=[]), "type")
                for stmt in child.orelse:
                    yield from walk(ast.Module(body=[stmt], type_ignores=[]), kind)
            else:
                yield from walk(child, kind)

    yield from walk(tree, "module")


def _base(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    """The absolute module a `from ... import` names (relative imports resolved)."""
    if node.level == 0:
        return node.module or ""
    parts = module.split(".")
    keep = len(parts) - node.level + (1 if is_package else 0)
    base = ".".join(parts[:keep])
    return f"{base}.{node.module}" if node.module else base


def _resolve(name: str, modules: dict[str, Path]) -> str | None:
    """The most specific known module that `name` (a dotted path) lies in."""
    while name:
        if name in modules:
            return name
        name = name.rpartition(".")[0]
    return None


def edges_of(module: str, path: Path, modules: dict[str, Path]) -> list[Edge]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    is_package = path.name == "__init__.py"
    found: list[Edge] = []
    for node, kind in _imports(tree):
        if isinstance(node, ast.Import):
            targets = [_resolve(alias.name, modules) for alias in node.names]
        else:
            base = _base(module, is_package, node)
            targets = [_resolve(f"{base}.{alias.name}", modules) for alias in node.names]
        for target in targets:
            if target is not None and target != module:
                found.append(Edge(module, target, kind, node.lineno))
    return found


def build(root: Path = DEFAULT_ROOT) -> tuple[list[str], list[Edge]]:
    """All modules and all internal import edges (one per import statement and target)."""
    modules = discover(root)
    edges = sorted({e for name, path in modules.items() for e in edges_of(name, path, modules)})
    return sorted(modules), edges


def cycles(modules: list[str], edges: list[Edge], kinds: frozenset[str] | None = None) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan), each sorted, biggest first."""
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for e in edges:
        if kinds is None or e.kind in kinds:
            graph[e.source].add(e.target)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
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
                found.append(sorted(component))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10 * len(modules) + 100))
    for m in modules:
        if m not in index:
            visit(m)
    return sorted(found, key=lambda c: (-len(c), c))


def short(name: str) -> str:
    return name.removeprefix(PACKAGE + ".")


def render_text(modules: list[str], edges: list[Edge], found: list[list[str]]) -> str:
    by_source: dict[str, list[Edge]] = {}
    for e in edges:
        by_source.setdefault(e.source, []).append(e)
    lines = []
    for m in modules:
        targets = sorted({(short(e.target), e.kind) for e in by_source.get(m, [])})
        shown = ", ".join(t if k == "module" else f"{t} ({k})" for t, k in targets)
        lines.append(f"{short(m) or PACKAGE} -> {shown}" if shown else f"{short(m) or PACKAGE}")
    lines.append("")
    lines.append(f"{len(modules)} modules, {len(edges)} edges, {len(found)} circle(s)")
    for i, component in enumerate(found, 1):
        lines.append(f"circle {i}: " + ", ".join(short(m) for m in component))
        for e in edges:
            if e.source in component and e.target in component:
                lines.append(f"  {short(e.source)} -> {short(e.target)} ({e.kind}, line {e.line})")
    return "\n".join(lines)


def as_json(modules: list[str], edges: list[Edge], found: list[list[str]]) -> bytes:
    return orjson.dumps(
        {
            "modules": modules,
            "edges": [{"from": e.source, "to": e.target, "kind": e.kind, "line": e.line} for e in edges],
            "cycles": found,
        }
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--json", action="store_true", help="last line: one JSON object")
    parser.add_argument("--fail-on-cycle", action="store_true", help="exit 1 when there is a circle")
    parser.add_argument("--root", type=Path, default=DEFAULT_ROOT, help="the package directory")
    args = parser.parse_args(argv)
    modules, edges = build(args.root)
    found = cycles(modules, edges)
    if args.json:
        sys.stdout.buffer.write(as_json(modules, edges, found) + b"\n")
    else:
        print(render_text(modules, edges, found))
    return 1 if args.fail_on_cycle and found else 0


if __name__ == "__main__":
    sys.exit(main())
