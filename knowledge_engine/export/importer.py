"""Restore a JSON Lines export into a workspace (records merged by id; a newer record on disk wins)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import orjson
from pydantic import ValidationError

from knowledge_engine.model.records import Entity, Fact, Message
from knowledge_engine.observe import counters, emit
from knowledge_engine.store.workspace import Workspace

_BATCH = 1000


@dataclass
class ImportReport:
    entities: int = 0
    facts: int = 0
    messages: int = 0
    skipped: int = 0
    errors: list[str] = field(default_factory=list)  # "line N: reason", never the line's content


def import_jsonl(ws: Workspace, path: Path) -> ImportReport:
    """Read an export line by line; a bad line is reported by number and skipped."""
    report = ImportReport()
    msgs: list[Message] = []
    ws.refresh()
    with path.open("rb") as fh:
        for n, raw in enumerate(fh, 1):
            if not raw.strip():
                continue
            try:
                _one(ws, orjson.loads(raw), report, msgs)
            except (orjson.JSONDecodeError, ValidationError, ValueError, TypeError) as exc:
                report.skipped += 1
                counters.inc("import.bad_line")
                if len(report.errors) < 100:
                    report.errors.append(f"line {n}: {_why(exc)}")
            if len(msgs) >= _BATCH:
                report.messages += ws.messages.append_many(msgs)
                msgs = []
    if msgs:
        report.messages += ws.messages.append_many(msgs)
    ws.entities.reindex()
    ws.flush()
    emit(
        "import",
        entities=report.entities,
        facts=report.facts,
        messages=report.messages,
        skipped=report.skipped,
    )
    return report


KINDS = ("meta", "entity", "fact", "message")
NOT_EXPORT = 'no "kind": not a record of `export --format jsonl` (a transcript goes in with `ingest`)'


def looks_like_export(path: Path) -> bool:
    """Whether the first record is an export's (a transcript or a CSV is refused before anything is made)."""
    with path.open("rb") as fh:
        for raw in fh:
            if raw.strip():
                try:
                    rec = orjson.loads(raw)
                except orjson.JSONDecodeError:
                    return False
                return isinstance(rec, dict) and rec.get("kind") in KINDS
    return True  # an empty file imports nothing


def _why(exc: Exception) -> str:
    """A bad line's reason, without its content (a value pydantic would quote stays out)."""
    if isinstance(exc, orjson.JSONDecodeError):
        return "not valid JSON"
    if isinstance(exc, ValidationError):
        first = exc.errors()[0]
        return f"{'.'.join(str(p) for p in first['loc']) or 'record'}: {first['msg']}"
    return str(exc) if isinstance(exc, ValueError) else type(exc).__name__


def _one(ws: Workspace, rec: object, report: ImportReport, msgs: list[Message]) -> None:
    if not isinstance(rec, dict):
        raise ValueError("not an object")
    if "kind" not in rec:
        raise ValueError(NOT_EXPORT)
    kind = rec.pop("kind", None)
    if kind == "entity":
        ws.entities.table.put(Entity.model_validate(rec))
        report.entities += 1
    elif kind == "fact":
        ws.facts.table.put(Fact.model_validate(rec))
        report.facts += 1
    elif kind == "message":
        msgs.append(Message.model_validate(rec))
    elif kind != "meta":
        raise ValueError(f"unknown kind (one of {', '.join(KINDS)})")
