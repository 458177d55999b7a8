"""scripts/import_graph.py finds import circles, and the package has none among the modules untangled in
issue 16 (LLM clients and their factory, the spaCy tier and its workers, ranking and its boosts)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scripts.import_graph import build, cycles, main

UNTANGLED = (
    "knowledge_engine.extract.spacy_ner",
    "knowledge_engine.extract.workers",
    "knowledge_engine.extract.workers_child",
    "knowledge_engine.llm.client",
    "knowledge_engine.llm.factory",
    "knowledge_engine.llm.http",
    "knowledge_engine.llm.ollama",
    "knowledge_engine.llm.openai_compat",
    "knowledge_engine.retrieve.feedback",
    "knowledge_engine.retrieve.fuse",
    "knowledge_engine.retrieve.rank",
    "knowledge_engine.retrieve.temporal",
)


def _package(root: Path, files: dict[str, str]) -> Path:
    pkg = root / "knowledge_engine"
    for name, text in files.items():
        path = pkg / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return pkg


def test_the_checker_sees_every_kind_of_import(tmp_path: Path) -> None:
    pkg = _package(
        tmp_path,
        {
            "__init__.py": "",
            "a.py": "from knowledge_engine.b import thing\n",
            # function level, through `from package import module`
            "b.py": "def f():\n    from knowledge_engine import c\n",
            # type only, relative
            "c.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .a import x\n",
            "sub/__init__.py": "",
            "sub/d.py": "from ..a import y\nimport knowledge_engine.sub.e\n",
            "sub/e.py": "import os\n",
        },
    )
    modules, edges = build(pkg)
    kinds = {
        (e.source.removeprefix("knowledge_engine."), e.target.removeprefix("knowledge_engine."), e.kind)
        for e in edges
    }
    assert kinds == {
        ("a", "b", "module"),
        ("b", "c", "function"),
        ("c", "a", "type"),
        ("sub.d", "a", "module"),
        ("sub.d", "sub.e", "module"),
    }
    assert cycles(modules, edges) == [["knowledge_engine.a", "knowledge_engine.b", "knowledge_engine.c"]]
    assert cycles(modules, edges, frozenset({"module", "function"})) == []


def test_json_output_is_one_object_on_the_last_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pkg = _package(
        tmp_path,
        {"__init__.py": "", "a.py": "import knowledge_engine.b\n", "b.py": "import knowledge_engine.a\n"},
    )
    assert main(["--json", "--root", str(pkg), "--fail-on-cycle"]) == 1
    report = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert report["modules"] == ["knowledge_engine", "knowledge_engine.a", "knowledge_engine.b"]
    assert {(e["from"], e["to"], e["kind"]) for e in report["edges"]} == {
        ("knowledge_engine.a", "knowledge_engine.b", "module"),
        ("knowledge_engine.b", "knowledge_engine.a", "module"),
    }
    assert report["cycles"] == [["knowledge_engine.a", "knowledge_engine.b"]]


def test_no_import_circle_runs_through_the_untangled_modules() -> None:
    modules, edges = build()
    assert set(UNTANGLED) <= set(modules)
    tangled = [c for c in cycles(modules, edges) if set(c) & set(UNTANGLED)]
    assert tangled == []


def test_the_package_has_no_import_circle_at_all() -> None:
    """Module-level, function-level and type-only imports together: a new circle fails here with its
    members; `.venv/bin/python scripts/import_graph.py` prints the edges that close it."""
    assert cycles(*build()) == []
