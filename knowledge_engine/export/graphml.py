"""GraphML export (Gephi, yEd, networkx)."""

from __future__ import annotations

from xml.sax.saxutils import quoteattr

from knowledge_engine.export.graph import Graph

_KEYS = [
    ("label", "node", "string"),
    ("type", "node", "string"),
    ("importance", "node", "double"),
    ("predicate", "edge", "string"),
    ("relevance", "edge", "double"),
    ("valid", "edge", "boolean"),
]


def _clean(text: str) -> str:
    """XML 1.0 forbids most control characters even escaped."""
    return "".join(c for c in text if c in "\t\n\r" or ord(c) >= 0x20)


def _data(key: str, value: object) -> str:
    return f'<data key="{key}">{quoteattr(_clean(str(value)))[1:-1]}</data>'


def render(g: Graph) -> str:
    out = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<graphml xmlns="http://graphml.graphdrawing.org/xmlns">',
    ]
    out += [f'  <key id="{k}" for="{f}" attr.name="{k}" attr.type="{t}"/>' for k, f, t in _KEYS]
    out.append('  <graph id="knowledge" edgedefault="directed">')
    for n in g.nodes.values():
        out.append(
            f"    <node id={quoteattr(_clean(n.id))}>{_data('label', n.label)}{_data('type', n.type)}"
            f"{_data('importance', n.importance)}</node>"
        )
    for e in g.edges:
        out.append(
            f"    <edge id={quoteattr(e.id)} source={quoteattr(_clean(e.source))} "
            f"target={quoteattr(_clean(e.target))}>{_data('predicate', e.predicate)}"
            f"{_data('relevance', e.relevance)}{_data('valid', str(e.valid).lower())}</edge>"
        )
    out += ["  </graph>", "</graphml>", ""]
    return "\n".join(out)
