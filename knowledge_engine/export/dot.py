"""Graphviz DOT export (`dot -Tsvg knowledge.dot > knowledge.svg`)."""

from __future__ import annotations

from knowledge_engine.export.graph import Graph

COLORS = {
    "person": "#4e79a7",
    "organization": "#f28e2b",
    "location": "#59a14f",
    "product": "#b07aa1",
    "date": "#9c755f",
    "money": "#edc948",
    "email": "#76b7b2",
    "url": "#76b7b2",
    "concept": "#ff9da7",
    "unknown": "#bab0ac",
    "value": "#dddddd",
}


def _q(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ") + '"'


def render(g: Graph) -> str:
    out = [
        "digraph knowledge {",
        "  rankdir=LR;",
        '  node [shape=box, style="rounded,filled", fontname="Helvetica"];',
    ]
    for n in g.nodes.values():
        out.append(f"  {_q(n.id)} [label={_q(n.label)}, fillcolor={_q(COLORS.get(n.type, '#cccccc'))}];")
    for e in g.edges:
        style = "" if e.valid else ", style=dashed"
        out.append(f"  {_q(e.source)} -> {_q(e.target)} [label={_q(e.predicate)}{style}];")
    out.append("}")
    return "\n".join(out) + "\n"
