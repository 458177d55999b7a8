"""The html export's inline JavaScript really runs: layout, filters, click-to-see-facts (node, stub DOM)."""
# ruff: noqa: E501  (the JavaScript harness is kept compact)

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

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
  if (!els[id]) els[id] = {id, value: id === "r" ? "0" : "", checked: true, textContent: id === "data" ? data : "",
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
const fire = (id, type) => el(id).listeners[type].forEach(f => f({}));
const out = {nodes: g.nodes.length, finite: g.nodes.every(n => isFinite(n.x) && isFinite(n.y)),
  spread: Math.max(...g.nodes.map(n => Math.hypot(n.x, n.y))), counts: el("counts").textContent};
el("q").value = "maya"; fire("q", "input");
out.filtered = el("counts").textContent; out.shownLabels = g.nodes.filter(n => n.show).map(n => n.label);
el("q").value = ""; el("r").value = "1.01"; fire("r", "input"); out.minRel = el("counts").textContent;
const maya = g.nodes.findIndex(n => n.label === "Maya"); g.select(maya);
out.selected = el("sel").textContent; out.facts = el("facts").innerHTML;
console.log(JSON.stringify(out));
"""


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_graph_lays_out_filters_and_shows_facts(tmp_path: Path) -> None:
    ws = workspace_copy("sample", tmp_path)
    page = tmp_path / "graph.html"
    assert cli("export", "-w", str(ws), "--format", "html", "-o", str(page))[0] == 0
    harness = tmp_path / "harness.js"
    harness.write_text(HARNESS)
    res = subprocess.run([NODE, str(harness), str(page)], capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["finite"] and out["spread"] > 50  # the force layout moved nodes apart
    total = re.match(r"(\d+) of (\d+) entities", out["counts"])
    assert total and total[1] == total[2]
    shown = int(re.match(r"(\d+) of", out["filtered"])[1])
    assert 1 < shown < int(total[2]) and "Maya" in out["shownLabels"]  # Maya and her neighbours only
    assert "Helix Robotics" in out["shownLabels"]
    assert out["minRel"].startswith("0 of")  # no fact reaches relevance 1.01
    assert out["selected"] == "Maya (person)" and "Maya works at Helix Robotics" in out["facts"]
