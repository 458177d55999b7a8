"""scripts/import_graph.py finds import circles, and the package has none among the modules untangled in
issue 16 (LLM clients and their factory, the spaCy tier and its workers, ranking and its boosts)."""

from __future__ import annotations

import json
import re
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


# ------------------------------------------------------------------------------------------- layers

GROUND = ("model", "config", "observe", "fsio", "gcpause", "exitwait", "host.types")
STAGES = ("llm", "ingest", "extract", "store", "index", "inject", "retrieve")
TOP = (
    "engine",
    "plugin",
    "host",
    "cli",
    "maintenance",
    "export",
    "forget",
    "validate",
    "transfer",
    "documents",
    "sidecar",
)
# Type-only imports (under `if TYPE_CHECKING:`) of the handles the orchestration passes down: a stage
# may name them in annotations, never use them at run time. Nothing else is excused.
TYPE_ONLY_DOWNWARD = frozenset({"knowledge_engine.engine", "knowledge_engine.store.workspace"})


def floor_of(module: str) -> int:
    """0 for the ground floor, 1.. for the stages in pipeline order, len(STAGES) + 1 for the top.

    A name is matched longest first, so `host.types` is ground floor while the rest of `host` is top.
    The package's own __init__ counts as top. An unplaced module raises: a new top-level module or
    package must be given its floor here (and its line in README's layout map).
    """
    rel = module.removeprefix("knowledge_engine").lstrip(".")
    if rel == "":
        return len(STAGES) + 1
    places = [(g, 0) for g in GROUND] + [(s, i + 1) for i, s in enumerate(STAGES)]
    places += [(t, len(STAGES) + 1) for t in TOP]
    for name, floor in sorted(places, key=lambda p: -len(p[0])):
        if rel == name or rel.startswith(name + "."):
            return floor
    raise LookupError(f"{module} has no floor: add it to GROUND, STAGES or TOP in {__file__}")


def layer_violations(root: Path | None = None) -> list[str]:
    """Every import that goes up: a floor importing a later stage or the top, or anything outside the
    CLI importing the CLI (the CLI is the outermost shell: nothing is built on it)."""
    _, edges = build(root) if root is not None else build()
    found = []
    for e in edges:
        if e.kind == "type" and e.target in TYPE_ONLY_DOWNWARD:
            continue
        up = floor_of(e.target) > floor_of(e.source)
        into_cli = short_name(e.target).startswith("cli") and not short_name(e.source).startswith("cli")
        if up or into_cli:
            found.append(f"{short_name(e.source)} -> {short_name(e.target)} ({e.kind}, line {e.line})")
    return found


def short_name(module: str) -> str:
    return module.removeprefix("knowledge_engine").lstrip(".")


def test_every_module_has_a_floor() -> None:
    modules, _ = build()
    for m in modules:
        floor_of(m)  # raises for an unplaced module


def test_no_module_imports_a_later_stage_or_the_top() -> None:
    """The pipeline's floors, lowest first: the ground floor (model, config, observe, fsio, gcpause,
    host.types: they import nothing above them), then llm < ingest < extract < store < index < inject <
    retrieve, then the orchestration on top (engine, plugin, host, cli, maintenance, export, forget,
    validate, documents, sidecar). A module may import its own floor or any lower one; within the top
    anything but the CLI may be imported (the CLI is the outermost shell).

    inject sits below retrieve, not after it: the budgets are counted in rendered characters, so
    ranking measures items with the renderer (`rank.block_overhead`, `format.render_item`) and the
    retriever renders the block it hands the hook; the renderer needs only `model`. So "retrieve imports
    inject" is the forward direction and inject may import nothing of retrieve.

    The one exception: type-only imports (under TYPE_CHECKING, for annotations) of the engine and the
    workspace, the handles the orchestration passes down (TYPE_ONLY_DOWNWARD). A function-level import
    is not excused: it runs.
    """
    assert layer_violations() == []


def test_the_layer_check_catches_an_upward_import(tmp_path: Path) -> None:
    pkg = _package(
        tmp_path,
        {
            "__init__.py": "",
            "model/__init__.py": "",
            "model/records.py": "",
            "extract/__init__.py": "",
            "extract/batcher.py": "from knowledge_engine.forget import pending\n",
            "forget/__init__.py": "",
            "forget/pending.py": "from knowledge_engine.model import records\n",
            "retrieve/__init__.py": "",
            "retrieve/retriever.py": (  # type-only import of the engine: excused
                "from typing import TYPE_CHECKING\n"
                "if TYPE_CHECKING:\n"
                "    from knowledge_engine.engine import E\n"
            ),
            "engine.py": "",
            "validate.py": "def f():\n    from knowledge_engine.cli import status\n",
            "cli/__init__.py": "",
            "cli/status.py": "from knowledge_engine import validate\n",
        },
    )
    assert layer_violations(pkg) == [
        "extract.batcher -> forget.pending (module, line 1)",
        "validate -> cli.status (function, line 2)",
    ]


# ---------------------------------------------------------------------- the dependency tier's modules

# The spaCy fact rules, in the order their package docstring gives: each module may import only those
# before it, so a rule module never reaches up into the sentence reader that calls it.
DEPENDENCY_LAYERS = (
    "grammar",
    "context",
    "nouns",
    "names",
    "health",
    "family",
    "couples",
    "kid_lists",
    "belongings",
    "homes",
    "work",
    "offers",
    "money",
    "clauses",
    "lines",
    "notes",
    "sentences",
)


def dependency_violations(root: Path | None = None) -> list[str]:
    """Imports between the dependency tier's modules that do not point to an earlier one."""
    prefix = "knowledge_engine.extract.dependency"
    modules, edges = build(root) if root is not None else build()
    inside = [m.removeprefix(prefix + ".") for m in modules if m.startswith(prefix + ".")]
    unplaced = [name for name in inside if name not in DEPENDENCY_LAYERS]
    assert unplaced == [], f"give {unplaced} a place in DEPENDENCY_LAYERS and the package docstring"
    order = {f"{prefix}.{name}": i for i, name in enumerate(DEPENDENCY_LAYERS)}
    order[prefix] = len(DEPENDENCY_LAYERS)  # the package's __init__: the public entry, on top
    return [
        f"{short_name(e.source)} -> {short_name(e.target)} (line {e.line})"
        for e in edges
        if e.source in order and e.target in order and order[e.target] >= order[e.source]
    ]


def test_the_dependency_rules_import_only_earlier_modules() -> None:
    assert dependency_violations() == []
    package = Path(__file__).resolve().parent.parent / "knowledge_engine" / "extract" / "dependency"
    doc = (package / "__init__.py").read_text()
    said = [name for name in re.findall(r"`(\w+)`", doc.split('"""')[1]) if name in DEPENDENCY_LAYERS]
    assert said == list(DEPENDENCY_LAYERS), "the package docstring lists the modules in their order"


def test_the_dependency_layer_check_catches_a_later_import(tmp_path: Path) -> None:
    pkg = _package(
        tmp_path,
        {
            "__init__.py": "",
            "extract/__init__.py": "",
            "extract/dependency/__init__.py": "from knowledge_engine.extract.dependency import sentences\n",
            "extract/dependency/grammar.py": "",
            "extract/dependency/work.py": "from knowledge_engine.extract.dependency.grammar import x\n",
            "extract/dependency/homes.py": "from knowledge_engine.extract.dependency.work import y\n",
            "extract/dependency/sentences.py": "from knowledge_engine.extract.dependency import homes\n",
        },
    )
    assert dependency_violations(pkg) == ["extract.dependency.homes -> extract.dependency.work (line 1)"]
