"""LightRAG's context string parsed into its parts, and a balanced pick of them within a budget.

With `only_need_context`, LightRAG 1.5.7 answers its `kg_query_context` template: headings
("Knowledge Graph Data (Entity):", "... (Relationship):", "Document Chunks ...:",
"Reference Document List ...:"), each over a fenced block of JSON lines ({entity, type,
description, ...}, {entity1, entity2, description, ...}, {reference_id, content}) or, for the
references, `[n] path` lines. In hybrid mode the chunks start about 70 % into the string, so a
plain cut keeps only entity descriptions; picking from every part keeps the evidence.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

GRAPH_SEP = "<SEP>"  # LightRAG joins merged descriptions and file paths with it
LINE_CAP = 300  # one entity or relation line; one merged description must not eat the budget
MIN_CLIP = 100  # a cut part shorter than this is noise, not evidence
ENTITY_SHARE = 0.25  # of the budget, first pass; chunks get the rest, then leftovers go back
RELATION_SHARE = 0.25

_HEADINGS = (
    ("entities", re.compile(r"^-*\s*Knowledge Graph Data \(Entity\)", re.I)),
    ("relations", re.compile(r"^-*\s*Knowledge Graph Data \(Relationship\)", re.I)),
    ("chunks", re.compile(r"^-*\s*Document Chunks", re.I)),
    ("references", re.compile(r"^-*\s*Reference Document List", re.I)),
)
_REF_LINE = re.compile(r"^\[([^\]]{1,40})\]\s+(.+)$")
TITLES = {"entities": "Entities:", "relations": "Relations:", "chunks": "Document chunks:"}


@dataclass
class GraphContext:
    """The parts of one context string, in LightRAG's (relevance) order."""

    entities: list[str] = field(default_factory=list)  # compact lines
    relations: list[str] = field(default_factory=list)
    chunks: list[tuple[str, str]] = field(default_factory=list)  # (reference_id, content)
    references: list[tuple[str, str]] = field(default_factory=list)  # (reference_id, file_path)

    def __bool__(self) -> bool:
        return bool(self.entities or self.relations or self.chunks)


def _blocks(text: str) -> dict[str, list[str]]:
    """Lines of the fenced block under each known heading (a JSON line never starts with ```)."""
    out: dict[str, list[str]] = {}
    kind: str | None = None
    inside = False
    for line in text.splitlines():
        stripped = line.strip()
        if inside:
            if stripped.startswith("```"):
                inside, kind = False, None
            elif kind is not None and stripped:
                out.setdefault(kind, []).append(stripped)
            continue
        if stripped.startswith("```"):
            inside = True
            continue
        kind = next((k for k, rx in _HEADINGS if rx.match(stripped)), kind)
    return out


def _record(line: str) -> dict[str, object] | None:
    try:
        value = json.loads(line)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _field(rec: dict[str, object], *keys: str) -> str:
    for key in keys:
        value = rec.get(key)
        if isinstance(value, str | int | float) and str(value).strip():
            return " / ".join(p.strip() for p in str(value).split(GRAPH_SEP) if p.strip())
    return ""


def _clip(text: str, cap: int) -> str:
    text = " ".join(text.split())
    if len(text) <= cap:
        return text
    cut = text[: cap - 2]
    space = cut.rfind(" ")
    return (cut[:space] if space > cap // 2 else cut).rstrip() + " …"


def parse_context(text: str) -> GraphContext:
    """The parts of a LightRAG context string; empty when it is not in the template's shape."""
    blocks = _blocks(text)
    ctx = GraphContext()
    for rec in filter(None, map(_record, blocks.get("entities", []))):
        name, desc = _field(rec, "entity", "entity_name"), _field(rec, "description")
        kind = _field(rec, "type", "entity_type")
        if name:
            ctx.entities.append(_clip(f"{name}{f' ({kind})' if kind else ''}: {desc or '?'}", LINE_CAP))
    for rec in filter(None, map(_record, blocks.get("relations", []))):
        src, tgt = _field(rec, "entity1", "src_id"), _field(rec, "entity2", "tgt_id")
        if src and tgt:
            desc = _field(rec, "description") or _field(rec, "keywords") or "related"
            ctx.relations.append(_clip(f"{src} -- {tgt}: {desc}", LINE_CAP))
    for rec in filter(None, map(_record, blocks.get("chunks", []))):
        content = _field(rec, "content")
        if content:
            ctx.chunks.append((_field(rec, "reference_id"), " ".join(content.split())))
    for line in blocks.get("references", []):
        m = _REF_LINE.match(line)
        if m and m.group(2).strip():
            ctx.references.append((m.group(1).strip(), m.group(2).strip()))
    return ctx


def _chunk_line(ref_id: str, content: str) -> str:
    return f"[{ref_id}] {content}" if ref_id else content


class _Picker:
    """Whole lines per part while they fit; the first line that does not fit may be cut."""

    def __init__(self, lines: dict[str, list[str]]) -> None:
        self.lines = lines
        self.next = dict.fromkeys(lines, 0)
        self.picked: dict[str, list[str]] = {k: [] for k in lines}
        self.used = 0

    def take(self, kind: str, room: int) -> None:
        spent = 0
        while self.next[kind] < len(self.lines[kind]):
            line = self.lines[kind][self.next[kind]]
            head = 0 if self.picked[kind] else len(TITLES[kind]) + 1
            cost = head + len(line) + 3  # "- " and the newline
            if spent + cost > room:
                fits = room - spent - head - 3
                if fits >= MIN_CLIP:
                    self._add(kind, _clip(line, fits), head + fits + 3)
                return
            self._add(kind, line, cost)
            spent += cost

    def _add(self, kind: str, line: str, cost: int) -> None:
        self.picked[kind].append(line)
        self.next[kind] += 1
        self.used += cost


def compose(ctx: GraphContext, budget: int | None = None) -> tuple[str, list[str]]:
    """A readable selection of `ctx` in about `budget` characters (None: everything) and the
    reference ids its chunks cite. Entities and relations first get a quarter each, the chunks
    (the evidence) all the rest, and what the chunks leave goes back to entities and relations."""
    lines = {
        "entities": ctx.entities,
        "relations": ctx.relations,
        "chunks": [_chunk_line(r, c) for r, c in ctx.chunks],
    }
    picker = _Picker(lines)
    if budget is None:
        for kind in lines:
            picker.take(kind, 1 << 62)
    else:
        picker.take("entities", int(budget * ENTITY_SHARE))
        picker.take("relations", int(budget * RELATION_SHARE))
        picker.take("chunks", budget - picker.used)
        picker.take("entities", budget - picker.used)
        picker.take("relations", budget - picker.used)
    parts = [
        "\n".join([TITLES[kind], *(f"- {line}" for line in picker.picked[kind])])
        for kind in lines
        if picker.picked[kind]
    ]
    cited = [r for r, _ in ctx.chunks[: len(picker.picked["chunks"])] if r]
    return "\n".join(parts), list(dict.fromkeys(cited))
