"""Integrity checks of a workspace, and the repairs that are safe to make automatically.

Checked: every store file parses and its records validate (schema), facts point at entities that
exist (subject_id, object_id, superseded_by), evidence points at stored messages, validity
intervals are ordered, and the vector index (Chroma, or pgvector on the shared store) is in step with
the stores (drift).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import orjson

from knowledge_engine.model.records import utcnow
from knowledge_engine.observe import emit
from knowledge_engine.store.backend import is_shared
from knowledge_engine.store.table import RecordTable
from knowledge_engine.store.workspace import Workspace


@dataclass
class Problem:
    kind: str  # schema, dangling_entity, dangling_fact, missing_evidence, bad_interval, index_drift
    id: str
    detail: str
    repairable: bool = False
    warning: bool = False  # reported, but does not fail validation (e.g. retention removed evidence)
    ref: str | None = None


@dataclass
class ValidationReport:
    problems: list[Problem] = field(default_factory=list)
    repaired: dict[str, int] = field(default_factory=dict)
    checked: dict[str, int] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not any(not p.warning for p in self.problems)

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "checked": self.checked,
            "repaired": self.repaired,
            "problems": [p.__dict__ for p in self.problems],
        }


def _schema(ws: Workspace, report: ValidationReport) -> None:
    for table in (ws.facts.table, ws.entities.table):
        if table.unreadable is not None:
            report.problems.append(Problem("schema", table.name, table.unreadable.reason))
            continue
        if table.invalid_records:
            report.problems.append(
                Problem(
                    "schema",
                    table.name,
                    f"{table.invalid_records} records failed validation; they are kept in "
                    + _quarantine_place(table)
                    + " (fix them there and run validate --repair to restore them)",
                )
            )
        if not isinstance(table, RecordTable):
            continue  # the shared store: no file to check
        for aside in sorted(table.path.parent.glob(table.path.name + ".corrupt-*")):
            report.problems.append(
                Problem(
                    "schema",
                    aside.name,
                    "a corrupt copy was set aside (kept for you to inspect)",
                    warning=True,
                )
            )
        if not table.path.exists():
            if table.path.with_name(table.path.name + ".bak").exists():
                report.problems.append(
                    Problem("schema", table.path.name, "missing; the last good copy (.bak) was loaded", True)
                )
            continue
        try:
            doc = orjson.loads(table.path.read_bytes())
        except (OSError, orjson.JSONDecodeError):
            report.problems.append(
                Problem("schema", table.path.name, "not valid JSON (the backup is in use)")
            )
            continue
        if not isinstance(doc, dict) or not isinstance(doc.get(table.key), list):
            report.problems.append(Problem("schema", table.path.name, f"no '{table.key}' list"))


def _quarantine_place(table: object) -> str:
    if isinstance(table, RecordTable):
        return "the file's 'quarantined' list"
    return "the database's ke_quarantine table (this agent's rows of this kind)"


def _references(ws: Workspace, report: ValidationReport, check_evidence: bool) -> None:
    ents = {e.id for e in ws.entities.all()}
    facts = ws.facts.all()
    fact_ids = {f.id for f in facts}
    evidence: dict[str, list[str]] = {}
    for f in facts:
        for key in ("subject_id", "object_id"):
            ref = getattr(f, key)
            if ref is not None and ref not in ents:
                report.problems.append(Problem("dangling_entity", f.id, f"{key} -> missing entity", True))
        if f.superseded_by is not None and f.superseded_by not in fact_ids:
            report.problems.append(Problem("dangling_fact", f.id, "superseded_by -> missing fact", True))
        if f.valid_at and f.invalid_at and f.invalid_at < f.valid_at:
            report.problems.append(Problem("bad_interval", f.id, "valid until is before valid from"))
        for ev in f.evidence:
            evidence.setdefault(ev.message_id, []).append(f.id)
    report.checked.update(facts=len(facts), entities=len(ents))
    if not check_evidence or not ws.has_message_log or not ws.config.memory.enabled:
        return
    ids = list(evidence)
    found = {m.id for m in ws.messages.get_many(ids)}
    report.checked["evidence_messages"] = len(ids)
    for mid in ids:
        if mid not in found:
            for fid in evidence[mid][:1]:
                report.problems.append(
                    Problem(
                        "missing_evidence",
                        fid,
                        "evidence message not in the log (retention or forget removed it)",
                        True,
                        warning=True,
                        ref=mid,
                    )
                )


def _drift(ws: Workspace, report: ValidationReport) -> None:
    from knowledge_engine.index.sync import workspace_status

    try:
        st = workspace_status(ws)
    except Exception as exc:
        report.problems.append(
            Problem("index_drift", "chroma", f"index cannot be opened ({type(exc).__name__})", True)
        )
        return
    report.checked["indexed"] = st.get("synced", 0)
    where = "pgvector" if is_shared(ws.config.storage) else "Chroma"
    for kind in ("facts", "messages"):
        counts = st.get(kind) or {}
        if counts.get("stale"):  # vectors of records the stores no longer hold (forgotten, pruned)
            report.problems.append(
                Problem(
                    "index_drift",
                    kind,
                    f"{counts['stale']} records in {where} the stores no longer hold",
                    True,
                )
            )
        if counts.get("waiting"):  # the normal state between a change (ingest, forget, edit) and a sync
            detail = f"{counts['waiting']} records waiting for the next sync (the host's, or `sync`)"
            report.problems.append(Problem("index_drift", kind, detail, True, warning=True))


def validate(ws: Workspace, check_index: bool = True, check_evidence: bool = True) -> ValidationReport:
    report = ValidationReport()
    _schema(ws, report)
    _references(ws, report, check_evidence)
    if check_index and ws.config.embeddings.enabled:
        _drift(ws, report)
    emit("validate", problems=len(report.problems))
    return report


def repair(ws: Workspace, report: ValidationReport, engine: Any = None) -> dict[str, int]:
    """Dangling entity refs -> None, dangling supersession cleared, lost evidence dropped, index re-synced."""
    ws.refresh()
    fixed = {"entity_refs": 0, "superseded_by": 0, "evidence": 0, "index": 0}
    fixed["quarantine_restored"] = sum(t.restore_quarantined() for t in (ws.facts.table, ws.entities.table))
    if fixed["quarantine_restored"]:
        ws.entities.reindex()
    ents = {e.id for e in ws.entities.all()}
    fact_ids = {f.id for f in ws.facts.all()}
    missing_msgs = {p.ref for p in report.problems if p.kind == "missing_evidence"}
    now = utcnow()
    for f in ws.facts.all():
        changed = False
        for key in ("subject_id", "object_id"):
            if getattr(f, key) is not None and getattr(f, key) not in ents:
                setattr(f, key, None)
                fixed["entity_refs"] += 1
                changed = True
        if f.superseded_by is not None and f.superseded_by not in fact_ids:
            f.superseded_by = None
            fixed["superseded_by"] += 1
            changed = True
        kept = [e for e in f.evidence if e.message_id not in missing_msgs]
        if len(kept) != len(f.evidence):
            fixed["evidence"] += len(f.evidence) - len(kept)
            f.evidence = kept
            changed = True
        if changed:
            f.updated_at = now
            ws.facts.table.put(f)
    for table in (ws.facts.table, ws.entities.table):
        # a missing store file is rewritten from the backup that was loaded (the shared store has no file)
        if isinstance(table, RecordTable) and not table.path.exists():
            table.flush(force=True)
            fixed["store_files"] = fixed.get("store_files", 0) + 1
    ws.flush()
    if engine is not None and any(p.kind == "index_drift" for p in report.problems):
        rebuild = any(p.id == "chroma" for p in report.problems)
        fixed["index"] = engine.sync(ws, rebuild=rebuild).upserted
    report.repaired = fixed
    return fixed
