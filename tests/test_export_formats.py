"""export in every format, the offline html graph, and the jsonl round trip through import."""

from __future__ import annotations

import csv
import io
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from knowledge_engine.config import load_config
from knowledge_engine.model.records import Entity, Fact, fact_id
from knowledge_engine.store.workspace import Workspace
from tests.test_cli_support import cli, workspace_copy


@pytest.fixture
def ws(tmp_path: Path) -> str:
    return str(workspace_copy("sample", tmp_path))


def _export(ws: str, fmt: str, *extra: str) -> str:
    code, out, err = cli("export", "-w", ws, "--format", fmt, *extra)
    assert code == 0, err
    return out


def _dump(folder: str) -> tuple[dict[str, dict], dict[str, dict], dict[str, dict]]:
    ents = {e["id"]: e for e in json.loads(cli("entities", "-w", folder, "--json", "--limit", "0")[1])}
    facts = {
        f["id"]: f for f in json.loads(cli("facts", "-w", folder, "--json", "--history", "--limit", "0")[1])
    }
    msgs = {m["id"]: m for m in json.loads(cli("messages", "-w", folder, "--json", "--limit", "0")[1])}
    return ents, facts, msgs


def test_jsonl_round_trip_restores_everything(ws: str, tmp_path: Path) -> None:
    out = tmp_path / "export.jsonl"
    code, _, err = cli("export", "-w", ws, "--format", "jsonl", "--output", str(out))
    assert code == 0, err
    kinds = [json.loads(line)["kind"] for line in out.read_text().splitlines()]
    assert kinds[0] == "meta" and {"entity", "fact", "message"} <= set(kinds)
    target = tmp_path / "restored"
    code, res, err = cli("import", str(out), "-w", str(target), "--json")
    assert code == 0, err
    assert json.loads(res)["messages"] == 50
    assert _dump(str(target)) == _dump(ws)


def test_import_reports_bad_lines_and_keeps_the_rest(ws: str, tmp_path: Path) -> None:
    good = _export(ws, "jsonl", "--no-messages").splitlines()
    broken = tmp_path / "broken.jsonl"
    broken.write_text("\n".join([good[0], "{not json", '{"kind": "fact", "id": 3}', *good[1:]]) + "\n")
    code, res, _ = cli("import", str(broken), "-w", str(tmp_path / "t"), "--json")
    report = json.loads(res)
    assert code == 3 and report["skipped"] == 2  # a partial restore is no success
    assert report["errors"][0].startswith("line 2:") and report["errors"][1].startswith("line 3:")
    assert report["facts"] == sum(1 for line in good if '"kind":"fact"' in line)


def test_csv_facts_and_entities(ws: str) -> None:
    rows = list(csv.DictReader(io.StringIO(_export(ws, "csv"))))
    assert rows and {"subject", "predicate", "object", "relevance"} <= set(rows[0])
    assert any(r["object"] == "Helix Robotics" and r["predicate"] == "works-at" for r in rows)
    assert all(r["sources"] and r["source"] in r["sources"].split() for r in rows)  # every tier that saw it
    ents = list(csv.DictReader(io.StringIO(_export(ws, "csv", "--what", "entities"))))
    assert any(e["value"] == "Maya" and e["type"] == "person" for e in ents)


def test_graph_formats(ws: str) -> None:
    root = ET.fromstring(_export(ws, "graphml"))
    ns = {"g": "http://graphml.graphdrawing.org/xmlns"}
    nodes = root.findall(".//g:node", ns)
    edges = root.findall(".//g:edge", ns)
    assert nodes and edges
    node_ids = {n.get("id") for n in nodes}
    assert all(e.get("source") in node_ids and e.get("target") in node_ids for e in edges)
    assert "person:maya" in node_ids
    dot = _export(ws, "dot")
    assert dot.startswith("digraph") and '"person:maya" -> ' in dot and 'label="works-at"' in dot
    mermaid = _export(ws, "mermaid")
    assert mermaid.startswith("flowchart LR") and '|"works-at"|' in mermaid
    history = _export(ws, "dot", "--history")
    assert "style=dashed" in history and "style=dashed" not in dot


def test_html_is_one_offline_file_with_the_graph(ws: str, tmp_path: Path) -> None:
    out = tmp_path / "graph.html"
    code, _, err = cli("export", "-w", ws, "--format", "html", "-o", str(out))
    assert code == 0, err
    page = out.read_text()
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", page)  # nothing fetched from anywhere
    assert "<script src" not in page and "@import" not in page
    data = json.loads(re.search(r'<script id="data" type="application/json">(.*?)</script>', page, re.S)[1])
    labels = {n["label"] for n in data["nodes"]}
    assert {"Maya", "Helix Robotics"} <= labels
    assert any(e["p"] == "works-at" for e in data["edges"])
    assert {"person", "organization"} <= {n["type"] for n in data["nodes"]}
    assert 'id="q"' in page and 'id="r"' in page  # entity filter and minimum relevance
    assert "function showFacts" in page  # click a node to see its facts


def test_html_escapes_hostile_names(tmp_path: Path) -> None:
    folder = tmp_path / "hostile"
    ws = Workspace(folder, load_config({}))
    evil = "</script><script>alert(1)</script>"
    ws.entities.table.put(Entity(id="person:evil", type="person", value=evil))
    ws.facts.table.put(
        Fact(
            id=fact_id(evil, "knows", "Bob"),
            subject=evil,
            predicate="knows",
            object="Bob",
            subject_id="person:evil",
        )
    )
    ws.close()
    page = _export(str(folder), "html")
    assert evil not in page and page.count("</script>") == 2
    assert "alert(1)" in page  # still shown, as data


def test_bad_format_is_a_clear_error(ws: str) -> None:
    code, _, err = cli("export", "-w", ws, "--format", "pdf")
    assert code != 0 and "--format" in err


def _sync_work(folder: str) -> dict[str, int]:
    code, out, err = cli("sync", "-w", folder, "--json")
    assert code == 0, err
    kinds = json.loads(out)["per_kind"]
    return {k: kinds[k]["embedded"] + kinds[k]["updated"] + kinds[k]["deleted"] for k in kinds}


def test_import_indexes_what_it_restored(ws: str, tmp_path: Path) -> None:
    """A restored workspace is searchable by meaning at once, as after `ingest`; `--no-sync` leaves
    the index to a later sync."""
    out = tmp_path / "export.jsonl"
    assert cli("export", "-w", ws, "--format", "jsonl", "--output", str(out))[0] == 0
    code, res, err = cli("import", str(out), "-w", str(tmp_path / "restored"), "--json")
    assert code == 0, err
    report = json.loads(res)
    assert report["index"]["embedded"] == report["facts"] + report["messages"]
    assert _sync_work(str(tmp_path / "restored")) == {"facts": 0, "messages": 0}
    code, res, err = cli("import", str(out), "-w", str(tmp_path / "later"), "--json", "--no-sync")
    assert code == 0 and json.loads(res)["index"] is None, err
    assert _sync_work(str(tmp_path / "later")) == {"facts": report["facts"], "messages": report["messages"]}
