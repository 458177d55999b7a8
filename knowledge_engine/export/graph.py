"""The entity-relation graph every graph format draws: entities are nodes, facts are labelled edges."""

from __future__ import annotations

from dataclasses import dataclass, field

from knowledge_engine.store.records import Entity, Fact, canonical


@dataclass
class Node:
    id: str
    label: str
    type: str
    importance: float = 0.5
    count: int = 0


@dataclass
class Edge:
    id: str
    source: str
    target: str
    predicate: str
    relevance: float
    valid: bool
    text: str


@dataclass
class Graph:
    nodes: dict[str, Node] = field(default_factory=dict)
    edges: list[Edge] = field(default_factory=list)


def _node_for(g: Graph, ent_id: str | None, name: str, by_id: dict[str, Entity]) -> str:
    ent = by_id.get(ent_id or "")
    if ent is not None:
        if ent.id not in g.nodes:
            g.nodes[ent.id] = Node(ent.id, ent.value, ent.type, ent.importance, ent.count)
        return ent.id
    nid = "value:" + canonical(name).replace(" ", "-")
    g.nodes.setdefault(nid, Node(nid, name, "value", 0.3, 0))
    return nid


def build(entities: list[Entity], facts: list[Fact], include_history: bool = False) -> Graph:
    """Every entity is a node (even without facts); a fact's object that is no entity becomes a value node."""
    by_id = {e.id: e for e in entities}
    g = Graph()
    for e in sorted(entities, key=lambda e: -e.count):
        g.nodes[e.id] = Node(e.id, e.value, e.type, e.importance, e.count)
    for f in facts:
        if f.invalid_at is not None and not include_history:
            continue
        s = _node_for(g, f.subject_id, f.subject, by_id)
        t = _node_for(g, f.object_id, f.object, by_id)
        g.edges.append(Edge(f.id, s, t, f.predicate, round(f.relevance, 3), f.invalid_at is None, f.text()))
    return g
