"""forget reaches records kept in quarantine (stored verbatim because they failed validation)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.test_cli_support import SECRET, SECRET_FIRST, cli, workspace_copy


def _quarantine_a_record_naming(folder: Path, name: str, n: int) -> dict:
    doc = json.loads((folder / "facts.json").read_text())
    bad = {"id": f"f-quarantined0000{n}", "subject": name, "predicate": "likes", "object": "tea",
           "confidence": "very"}
    doc["facts"].append(bad)
    (folder / "facts.json").write_text(json.dumps(doc))
    return bad


def test_forget_removes_a_quarantined_record_naming_the_entity(tmp_path: Path) -> None:
    ws = workspace_copy("secret", tmp_path)
    other = _quarantine_a_record_naming(ws, "Somebody Else", 1)
    _quarantine_a_record_naming(ws, SECRET, 2)
    assert cli("stats", "-w", str(ws), "--json")[0] == 0  # loads: both bad records go to quarantine
    args = ("--entity", SECRET, "--also", SECRET_FIRST, "-w", str(ws), "--yes", "--json")
    code, out, err = cli("forget", *args)
    assert code == 0, err
    assert json.loads(out)["remaining"] == []
    low = SECRET_FIRST.lower().encode()
    assert [p.name for p in ws.rglob("*") if p.is_file() and low in p.read_bytes().lower()] == []
    # the record that does not name the entity stays in quarantine: forget removes only what it must
    doc = json.loads((ws / "facts.json").read_text())
    assert [q["subject"] for q in doc.get("quarantined", [])] == [other["subject"]]
