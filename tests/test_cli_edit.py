"""edit: correct a fact (object, validity) or merge two entities; recorded with source `manual`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.test_cli_support import cli, workspace_copy


@pytest.fixture
def ws(tmp_path: Path) -> str:
    return str(workspace_copy("sample", tmp_path))


def _facts(ws: str, *args: str) -> list[dict]:
    return json.loads(cli("facts", "-w", ws, "--json", "--limit", "0", *args)[1])


def test_correct_object_supersedes_and_keeps_history(ws: str) -> None:
    old = next(f for f in _facts(ws, "--predicate", "works-at") if f["subject"] == "Maya")
    code, out, err = cli(
        "edit",
        "-w",
        ws,
        "--fact",
        old["id"],
        "--object",
        "Helix Robotics GmbH",
        "--valid-from",
        "2026-10-20",
        "--json",
    )
    assert code == 0, err
    new = json.loads(out)
    assert new["source"] == "manual" and new["object"] == "Helix Robotics GmbH"
    assert new["valid_at"].startswith("2026-10-20")
    current = [f for f in _facts(ws, "--predicate", "works-at") if f["subject"] == "Maya"]
    assert [f["id"] for f in current] == [new["id"]]
    shown = json.loads(cli("show", old["id"], "-w", ws, "--json")[1])
    assert shown["fact"]["superseded_by"] == new["id"]
    assert new["id"] in [f["id"] for f in shown["history"]]


def test_correct_validity_in_place(ws: str) -> None:
    fact = _facts(ws, "--predicate", "lives-in")[0]
    code, out, _ = cli("edit", "-w", ws, "--fact", fact["id"], "--valid-until", "2026-12-01", "--json")
    assert code == 0
    edited = json.loads(out)
    assert edited["id"] == fact["id"] and edited["invalid_at"].startswith("2026-12-01")
    assert edited["source"] == "manual"
    assert fact["id"] not in {f["id"] for f in _facts(ws, "--predicate", "lives-in")}
    code, out, _ = cli("edit", "-w", ws, "--fact", fact["id"], "--still-valid", "--json")
    assert json.loads(out)["invalid_at"] is None


def test_merge_entities_moves_facts(ws: str) -> None:
    before = _facts(ws, "--entity", "Tom")
    assert before
    code, out, err = cli("edit", "-w", ws, "--merge", "Maya", "--merge", "Tom", "--json")
    assert code == 0, err
    merged = json.loads(out)
    assert "Tom" in merged["entity"]["aliases"] and "manual" in merged["entity"]["sources"]
    assert merged["facts_moved"] == len(
        [f for f in before if "person:tom" in (f["subject_id"], f["object_id"])]
    )
    ents = {e["id"] for e in json.loads(cli("entities", "-w", ws, "--json", "--limit", "0")[1])}
    assert "person:tom" not in ents
    assert not [f for f in _facts(ws, "--history") if "person:tom" in (f["subject_id"], f["object_id"])]
    assert cli("validate", "-w", ws, "--no-index")[0] == 0


def test_edit_errors(ws: str) -> None:
    code, _, err = cli("edit", "-w", ws, "--fact", "f-nope", "--object", "x")
    assert code != 0 and "no fact" in err
    code, _, err = cli("edit", "-w", ws, "--merge", "Maya")
    assert code != 0 and "exactly two" in err
    code, _, err = cli("edit", "-w", ws)
    assert code != 0 and "--fact" in err


def _sync_work(ws: str) -> dict[str, int]:
    """What a sync right now would still have to do to the facts' vectors."""
    code, out, err = cli("sync", "-w", ws, "--json")
    assert code == 0, err
    facts = json.loads(out)["per_kind"]["facts"]
    return {k: facts[k] for k in ("embedded", "updated", "deleted")}


def test_edit_keeps_the_vector_index_in_line(ws: str) -> None:
    """A correction is found by meaning at once: the edit writes the vectors a sync would, so the
    next sync has nothing left to do (before, it found the new fact missing and the old one stale)."""
    _sync_work(ws)  # the copy's index, brought in line first
    old = next(f for f in _facts(ws, "--predicate", "works-at") if f["subject"] == "Maya")
    code, out, err = cli("edit", "-w", ws, "--fact", old["id"], "--object", "Helix Robotics GmbH", "--json")
    assert code == 0, err
    assert _sync_work(ws) == {"embedded": 0, "updated": 0, "deleted": 0}
    code, _, err = cli("edit", "-w", ws, "--fact", json.loads(out)["id"], "--valid-until", "2026-12-01")
    assert code == 0, err
    assert _sync_work(ws) == {"embedded": 0, "updated": 0, "deleted": 0}


def test_merge_keeps_the_vector_index_in_line(ws: str) -> None:
    """Merged facts get new ids: the old vectors go, the new ones are written."""
    _sync_work(ws)
    code, _, err = cli("edit", "-w", ws, "--merge", "Maya", "--merge", "Tom")
    assert code == 0, err
    assert _sync_work(ws) == {"embedded": 0, "updated": 0, "deleted": 0}


def test_edit_is_kept_when_the_index_cannot_be_reached(ws: str, tmp_path: Path) -> None:
    """A dead Chroma server does not lose the edit; the user is told how to catch up."""
    cfg = tmp_path / "dead-chroma.json"
    cfg.write_text(json.dumps({"chroma": {"url": "http://127.0.0.1:9"}}))
    old = next(f for f in _facts(ws, "--predicate", "works-at") if f["subject"] == "Maya")
    code, out, err = cli(
        "edit",
        "-w",
        ws,
        "--config",
        str(cfg),
        "--fact",
        old["id"],
        "--object",
        "Helix Robotics GmbH",
        "--json",
    )
    assert code == 0, err
    assert "knowledge-engine sync" in err
    assert json.loads(out)["id"] in {f["id"] for f in _facts(ws, "--predicate", "works-at")}


def test_an_edit_the_store_could_not_write_says_so(ws: str) -> None:
    """A folder where a store write puts its backup link makes every write fail: the edit said
    'stored' and exited 0 while nothing was on disk."""
    old = next(f for f in _facts(ws, "--predicate", "works-at") if f["subject"] == "Maya")
    for name in ("facts", "entities"):
        (Path(ws) / f".{name}.json.bak.tmp" / "x").mkdir(parents=True)
    code, _, err = cli("edit", "-w", ws, "--fact", old["id"], "--object", "Helix Robotics GmbH")
    said = " ".join(err.split())
    assert code == 1 and "could not be written" in said and "the edit is not saved" in said, said
    code, _, err = cli("edit", "-w", ws, "--merge", "Maya", "--merge", "Tom")
    assert code == 1 and "the merge is not saved" in " ".join(err.split())
