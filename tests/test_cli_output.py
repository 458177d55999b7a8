"""How the CLI prints (issue 18): tables readable at 80 columns, each search arm's own score,
--version, export --json."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from knowledge_engine import __version__
from knowledge_engine.cli import common
from tests.test_cli_support import cli, workspace_copy


@pytest.fixture
def ws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setattr(common.console, "_width", 80)  # what a default terminal (or a pipe) gets
    return str(workspace_copy("sample", tmp_path))


def _whole(out: str, word: str) -> bool:
    """`word` printed unbroken: between spaces or line ends, on one line."""
    return re.search(rf"(?:^|\s){re.escape(word)}(?:\s|$)", out, re.M) is not None


def _table(*args: str) -> str:
    code, out, err = cli(*args)
    assert code == 0, err
    assert max(len(line) for line in out.splitlines()) <= 80, out
    return out


def _json(*args: str) -> object:
    code, out, err = cli(*args, "--json")
    assert code == 0, err
    return json.loads(out)


def test_tables_keep_identifiers_and_predicates_whole_at_80_columns(ws: str) -> None:
    facts = _json("facts", "-w", ws, "--history")
    out = _table("facts", "-w", ws, "--history")
    for f in facts:
        assert _whole(out, f["id"]) and _whole(out, f["predicate"]) and _whole(out, f["source"]), f
    for header in ("id", "subject", "predicate", "object", "tier", "conf", "rel", "valid"):
        assert _whole(out, header), out
    assert "(evidence left out at this width: see --json)" in out  # rather than words broken
    out = _table("entities", "-w", ws)
    ents = _json("entities", "-w", ws)
    assert all(_whole(out, e["type"]) for e in ents)
    # all but the longest ids (a URL's, an e-mail's) whole, though those make the table too wide
    assert max(len(e["id"]) for e in ents) > 40
    assert all(_whole(out, e["id"]) for e in ents if len(e["id"]) <= 24)
    out = _table("messages", "-w", ws, "--limit", "10")
    for m in _json("messages", "-w", ws, "--limit", "10"):
        assert _whole(out, m["id"]) and _whole(out, m["role"]) and _whole(out, m["session"])
        assert m["timestamp"][:10] in out
    maya = _json("show", "Maya", "-w", ws)
    out = _table("show", "Maya", "-w", ws)
    for f in maya["facts"]:
        assert _whole(out, f["id"]) and _whole(out, f["predicate"]), f
    out = _table("search", "Where does Maya work?", "-w", ws, "--no-semantic")
    found = _json("search", "Where does Maya work?", "-w", ws, "--no-semantic")
    assert all(_whole(out, i["id"]) for i in found["facts"] + found["messages"])
    out = _table("stats", "-w", ws)
    assert _whole(out, "entities_by_type.organization")


def test_search_shows_each_arms_own_score(ws: str) -> None:
    found = _json("search", "Where does Maya work?", "-w", ws)
    facts = found["facts"]
    vector = [f["scores"]["vector"] for f in facts if "vector" in f["scores"]]
    keyword = [f["scores"]["keyword"] for f in facts if "keyword" in f["scores"]]
    assert len(set(vector)) > 1 and all(-1.0 <= v <= 1.0 for v in vector)  # cosines, one per fact
    assert keyword and all(0 < k <= 1.0 for k in keyword)  # shared terms / sqrt(fact terms)
    helix = next(f for f in facts if "Helix" in f["text"])
    arms = {k: v for k, v in helix["scores"].items() if k in ("entity", "keyword", "vector")}
    assert len(arms) >= 2 and len(set(arms.values())) == len(arms), helix  # not one number for all
    out = _table("search", "Where does Maya work?", "-w", ws)
    assert f"vector={helix['scores']['vector']:.3f}" in out


def test_version() -> None:
    code, out, _ = cli("--version")
    assert code == 0 and out.strip() == f"knowledge-engine {__version__}"


def test_export_json_describes_the_written_file(ws: str, tmp_path: Path) -> None:
    target = tmp_path / "backup.jsonl"
    data = _json("export", "-w", ws, "-o", str(target))
    assert data == {"output": str(target), "format": "jsonl", "bytes": target.stat().st_size}
    assert target.read_bytes().count(b"\n") > 10
    code, out, err = cli("export", "-w", ws, "--json")
    assert code == 2 and out == "" and "--output" in err


def test_messages_about_files_keep_a_long_path_on_one_line(ws: str, tmp_path: Path) -> None:
    target = tmp_path / ("deep-" * 20) / "backup.jsonl"
    target.parent.mkdir()
    code, _, err = cli("export", "-w", ws, "-o", str(target))
    assert code == 0 and f"wrote {target} (jsonl, " in err, err  # copyable, not folded at 80 columns
