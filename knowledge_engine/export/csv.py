"""CSV export of facts (or entities), for spreadsheets."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator

from knowledge_engine.store.workspace import Workspace

FACT_COLUMNS = [
    "id",
    "subject",
    "predicate",
    "object",
    "subject_id",
    "object_id",
    "source",
    "sources",
    "confidence",
    "relevance",
    "valid_at",
    "invalid_at",
    "superseded_by",
    "created_at",
    "evidence",
]
ENTITY_COLUMNS = [
    "id",
    "type",
    "value",
    "aliases",
    "count",
    "importance",
    "first_seen",
    "last_seen",
    "sources",
]


def _row(values: list[object]) -> str:
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerow(["" if v is None else v for v in values])
    return buf.getvalue()


def facts_csv(ws: Workspace) -> Iterator[str]:
    yield _row(list(FACT_COLUMNS))
    for f in ws.facts.all():
        d = f.model_dump(mode="json")
        d["evidence"] = " ".join(e.message_id for e in f.evidence)
        d["sources"] = " ".join(f.seen_by)
        yield _row([d[c] for c in FACT_COLUMNS])


def entities_csv(ws: Workspace) -> Iterator[str]:
    yield _row(list(ENTITY_COLUMNS))
    for e in ws.entities.all():
        d = e.model_dump(mode="json")
        d["aliases"] = "; ".join(e.aliases)
        d["sources"] = " ".join(e.sources)
        yield _row([d[c] for c in ENTITY_COLUMNS])
