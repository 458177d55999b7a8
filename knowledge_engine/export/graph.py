"""The entity-relation graph every graph format draws: entities are nodes, facts are labelled edges.

Superseded facts are drawn only with `include_history`; otherwise they are kept aside in
`Graph.history` (no new nodes) so that the html graph can still show a fact's history over time.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from knowledge_engine.model.records import Entity, Fact, canonical


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
    valid_from: str | None = None  # ISO date: valid_at, else when it was recorded
    valid_to: str | None = None  # ISO date it stopped being true (superseded)


@dataclass
class Graph:
    nodes: dict[str, Node] = field(default_factory=dict)
    edges: list[Edge] = field(default_factory=list)
    history: list[Edge] = field(default_factory=list)  # superseded facts not drawn as edges


def _day(value: datetime | None) -> str | None:
    return value.date().isoformat() if value is not None else None


def _edge(f: Fact, source: str, target: str) -> Edge:
    return Edge(
        f.id,
        source,
        target,
        f.predicate,
        round(f.relevance, 3),
        f.invalid_at is None,
        f.text(),
        _day(f.valid_at or f.created_at),
        _day(f.invalid_at),
    )


def _value_id(name: str) -> str:
    return "value:" + canonical(name).replace(" ", "-")


def _node_for(g: Graph, ent_id: str | None, name: str, by_id: dict[str, Entity]) -> str:
    ent = by_id.get(ent_id or "")
    if ent is not None:
        if ent.id not in g.nodes:
            g.nodes[ent.id] = Node(ent.id, ent.value, ent.type, ent.importance, ent.count)
        return ent.id
    nid = _value_id(name)
    g.nodes.setdefault(nid, Node(nid, name, "value", 0.3, 0))
    return nid


def build(entities: list[Entity], facts: list[Fact], include_history: bool = False) -> Graph:
    """Every entity is a node (even without facts); a fact's object that is no entity becomes a value node."""
    by_id = {e.id: e for e in entities}
    g = Graph()
    for e in sorted(entities, key=lambda e: -e.count):
        g.nodes[e.id] = Node(e.id, e.value, e.type, e.importance, e.count)
    aside: list[Fact] = []
    for f in facts:
        if f.invalid_at is not None and not include_history:
            aside.append(f)
            continue
        s = _node_for(g, f.subject_id, f.subject, by_id)
        t = _node_for(g, f.object_id, f.object, by_id)
        g.edges.append(_edge(f, s, t))
    for f in aside:  # endpoints by id only: history adds no nodes to the drawn graph
        s = f.subject_id if f.subject_id in by_id else _value_id(f.subject)
        t = f.object_id if f.object_id in by_id else _value_id(f.object)
        g.history.append(_edge(f, s or "", t or ""))
    return g
