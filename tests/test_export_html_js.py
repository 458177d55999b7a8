"""The html export's inline JavaScript really runs: layout, filters, the unconnected-values toggle,
labels that do not overlap, click-to-see the fact history (node, stub DOM)."""
# ruff: noqa: E501  (the JavaScript harness is kept compact)

from __future__ import annotations

import json
import re
import shutil
import subprocess
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from knowledge_engine.config import load_config
from knowledge_engine.model.records import Entity, Fact, fact_id
from knowledge_engine.store.workspace import Workspace
from tests.test_cli_support import cli, workspace_copy

NODE = shutil.which("node")

# A minimal DOM: elements keep value/textContent/innerHTML and their listeners; the canvas context
# accepts every drawing call. requestAnimationFrame is driven by the harness, one frame at a time.
HARNESS = r"""
const fs = require("fs");
const page = fs.readFileSync(process.argv[2], "utf8");
const data = page.match(/<script id="data" type="application\/json">([\s\S]*?)<\/script>/)[1];
const code = page.match(/<script>([\s\S]*?)<\/script>/)[1];
const els = {};
function el(id) {
  if (!els[id]) els[id] = {id, value: id === "r" ? "0" : "", checked: id !== "all", textContent: id === "data" ? data : "",
    innerHTML: "", listeners: {}, addEventListener(t, f) { (this.listeners[t] = this.listeners[t] || []).push(f); },
    insertAdjacentHTML(_, h) { this.innerHTML += h; },
    getBoundingClientRect() { return {left: 0, top: 0, width: 800, height: 600}; },
    getContext() { return new Proxy({}, {get: (t, k) => k in t ? t[k] : () => {}, set: (t, k, v) => { t[k] = v; return true; }}); }};
  return els[id];
}
const frames = [];
global.window = {addEventListener() {}};
global.document = {getElementById: el};
global.devicePixelRatio = 1;
global.requestAnimationFrame = f => frames.push(f);
eval(code);
for (let i = 0; i < 300 && frames.length; i++) frames.shift()();
const g = window.knowledgeGraph;
const fire = (id, type) => (el(id).listeners[type] || []).forEach(f => f({}));
const shown = () => g.nodes.filter(n => n.show);
const out = {nodes: g.nodes.length, finite: g.nodes.every(n => isFinite(n.x) && isFinite(n.y)),
  spread: Math.max(...g.nodes.map(n => Math.hypot(n.x, n.y))), counts: el("counts").textContent,
  shownTypes: shown().map(n => n.type),
  isolatedShown: shown().filter(n => !g.edges.some(e => g.nodes[e.s] === n || g.nodes[e.t] === n)).map(n => n.type), hiddenTypes: g.nodes.filter(n => !n.show).map(n => n.type),
  minGap: Math.min(...shown().flatMap((a, i) => shown().slice(i + 1).map(b => Math.hypot(a.x - b.x, a.y - b.y)))),
  labels: (g.labels ? g.labels() : []).filter(b => b.kind === "node")};
el("all").checked = true; fire("all", "change"); out.all = el("counts").textContent;
el("all").checked = false; fire("all", "change");
el("q").value = "maya"; fire("q", "input");
out.filtered = el("counts").textContent; out.shownLabels = g.nodes.filter(n => n.show).map(n => n.label);
el("q").value = ""; el("r").value = "1.01"; fire("r", "input"); out.minRel = el("counts").textContent;
const who = process.argv[3] || "Maya";
const maya = g.nodes.findIndex(n => n.label === who); g.select(maya);
out.selected = el("sel").textContent; out.facts = el("facts").innerHTML;
console.log(JSON.stringify(out));
"""


def _run(tmp_path: Path, ws: Path, who: str = "Maya") -> dict[str, Any]:
    page = tmp_path / "graph.html"
    assert cli("export", "-w", str(ws), "--format", "html", "-o", str(page))[0] == 0
    harness = tmp_path / "harness.js"
    harness.write_text(HARNESS)
    res = subprocess.run(
        [NODE or "node", str(harness), str(page), who], capture_output=True, text=True, timeout=60
    )
    assert res.returncode == 0, res.stderr
    return dict(json.loads(res.stdout))


def _overlap(a: dict[str, float], b: dict[str, float]) -> bool:
    return (
        a["x"] < b["x"] + b["w"]
        and b["x"] < a["x"] + a["w"]
        and a["y"] < b["y"] + b["h"]
        and b["y"] < a["y"] + a["h"]
    )


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_graph_lays_out_filters_and_shows_facts(tmp_path: Path) -> None:
    out = _run(tmp_path, workspace_copy("sample", tmp_path))
    assert out["finite"] and out["spread"] > 50  # the force layout moved nodes apart
    total = re.match(r"(\d+) of (\d+) entities", out["counts"])
    assert total and int(total[1]) < int(total[2])  # unconnected values hidden by default
    assert out["all"].startswith(f"{total[2]} of {total[2]} entities")  # the toggle shows them all
    shown = int(re.match(r"(\d+) of", out["filtered"])[1])
    assert 1 < shown < int(total[2]) and "Maya" in out["shownLabels"]  # Maya and her neighbours only
    assert "Helix Robotics" in out["shownLabels"]
    assert out["minRel"].startswith("0 of")  # no fact reaches relevance 1.01
    assert out["selected"].startswith("Maya (person)") and "Maya works at Helix Robotics" in out["facts"]


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_default_view_is_people_places_organisations_with_their_relations(tmp_path: Path) -> None:
    out = _run(tmp_path, workspace_copy("sample", tmp_path))
    assert {"person", "organization", "location"} <= set(out["shownTypes"])
    assert (
        "date" in out["hiddenTypes"] and "date" not in out["shownTypes"]
    )  # the sample's dates are unconnected
    assert set(out["isolatedShown"]) <= {"person", "organization", "location", "product"}
    assert "money" in out["hiddenTypes"] and "unknown" in out["hiddenTypes"]
    assert not {"person", "organization", "location", "product"} & set(out["hiddenTypes"])


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_nodes_keep_apart_and_labels_do_not_overlap(tmp_path: Path) -> None:
    out = _run(tmp_path, workspace_copy("sample", tmp_path))
    assert out["minGap"] > 20  # collision: no two shown nodes piled on each other
    boxes = out["labels"]
    assert {"Maya", "Helix Robotics"} <= {b["text"] for b in boxes}
    assert len(boxes) >= 0.8 * len(out["shownTypes"])  # most shown nodes keep their label
    assert not [(a["text"], b["text"]) for i, a in enumerate(boxes) for b in boxes[i + 1 :] if _overlap(a, b)]


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_click_shows_the_fact_history_with_superseded_facts(tmp_path: Path) -> None:
    out = _run(tmp_path, workspace_copy("sample", tmp_path))
    facts = out["facts"]
    assert "<b>works-at</b>" in facts  # grouped by relation
    now = facts.index("Maya works at Helix Robotics")
    old = facts.index("Maya works at Northwind Labs")
    assert now < old  # current first, then what it replaced
    assert re.search(
        # "my last day there was October 9" (the sample's session 3) ends the job on that day
        r'class="old"><span>Maya works at Northwind Labs</span> <small>[^<]*\u2192 2026-10-09, superseded',
        facts,
    )
    assert re.search(r"Maya works at Helix Robotics</span> <small>\d{4}-\d\d-\d\d \u2192 now", facts)


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_fact_history_escapes_hostile_text(tmp_path: Path) -> None:
    folder = tmp_path / "hostile"
    ws = Workspace(folder, load_config({}))
    evil = '<img src=x onerror="alert(1)">'
    ws.entities.table.put(Entity(id="person:bob", type="person", value="Bob"))
    for obj, gone in ((evil, datetime(2026, 1, 2, tzinfo=UTC)), ("Acme", None)):
        ws.facts.table.put(
            Fact(
                id=fact_id("Bob", "works-at", obj),
                subject="Bob",
                predicate="works-at",
                object=obj,
                subject_id="person:bob",
                invalid_at=gone,
            )
        )
    ws.close()
    out = _run(tmp_path, folder, who="Bob")
    assert "<img" not in out["facts"] and "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;" in out["facts"]
    assert "2026-01-02, superseded" in out["facts"]
