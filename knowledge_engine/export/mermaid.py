"""Mermaid flowchart export (renders in GitHub markdown and many wikis)."""

from __future__ import annotations

import re

from knowledge_engine.export.graph import Graph

_UNSAFE = re.compile(r'["\[\]{}()<>|#;`]')


def _label(text: str) -> str:
    return _UNSAFE.sub(" ", text).strip() or "?"


def render(g: Graph) -> str:
    ids = {nid: f"n{i}" for i, nid in enumerate(g.nodes)}
    out = ["flowchart LR"]
    for nid, n in g.nodes.items():
        out.append(f'  {ids[nid]}["{_label(n.label)}"]:::{n.type}')
    for e in g.edges:
        arrow = "-->" if e.valid else "-.->"
        out.append(f'  {ids[e.source]} {arrow}|"{_label(e.predicate)}"| {ids[e.target]}')
    from knowledge_engine.export.dot import COLORS

    out += [f"  classDef {t} fill:{c}" for t, c in COLORS.items()]
    return "\n".join(out) + "\n"
