"""`edit`: an operator corrects a fact or merges two entities; the change is recorded with source `manual`."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

import typer

from knowledge_engine.cli.common import (
    AgentOpt,
    ConfigOpt,
    JsonOpt,
    WorkspaceOpt,
    fail,
    fail_if_unwritten,
    open_workspace,
    parse_time,
    print_json,
    say,
)
from knowledge_engine.model.records import Evidence, Fact, fact_id, utcnow
from knowledge_engine.observe import counters
from knowledge_engine.store.workspace import Workspace


def correct_fact(
    ws: Workspace,
    fid: str,
    object_: str | None = None,
    valid_from: Any = None,
    valid_until: Any = None,
    clear_until: bool = False,
) -> Fact:
    """A corrected object makes a new manual fact and supersedes the old one (history kept);
    validity edits change the fact in place. Both are marked source `manual`."""
    ws.refresh()
    fact = ws.facts.get(fid)
    if fact is None:
        raise KeyError(fid)
    now = utcnow()
    if object_ is not None and object_.strip() and object_.strip() != fact.object:
        obj_ent = ws.entities.resolve(object_)
        new, _ = ws.facts.add(
            fact.subject,
            fact.predicate,
            object_.strip(),
            source="manual",
            confidence=1.0,
            valid_at=valid_from or fact.valid_at,
            subject_id=fact.subject_id,
            object_id=obj_ent.id if obj_ent else None,
            evidence=[
                Evidence(message_id=e.message_id, session=e.session, role=e.role, timestamp=e.timestamp)
                for e in fact.evidence
            ],
            now=now,
        )
        new.source = "manual"
        new.confidence = 1.0
        new.invalid_at = None
        new.superseded_by = None
        if fact.invalid_at is None and new.id != fact.id:
            fact.invalid_at = valid_from or now
            fact.superseded_by = new.id
            fact.updated_at = now
            ws.facts.table.put(fact)
        fact = new
    if valid_from is not None:
        fact.valid_at = valid_from
    if valid_until is not None:
        fact.invalid_at = valid_until
    elif clear_until:
        fact.invalid_at = None
        fact.superseded_by = None
    fact.source = "manual"
    fact.updated_at = now
    ws.facts.table.put(fact)
    ws.flush()
    return fact


def edit(
    workspace: WorkspaceOpt = None,
    config: ConfigOpt = None,
    agent: AgentOpt = None,
    fact: Annotated[str | None, typer.Option(help="The fact id to correct.")] = None,
    object_: Annotated[
        str | None,
        typer.Option("--object", help="The right object; the old fact is kept as superseded history."),
    ] = None,
    valid_from: Annotated[str | None, typer.Option(help="When the fact became true (ISO).")] = None,
    valid_until: Annotated[str | None, typer.Option(help="When it stopped being true (ISO).")] = None,
    still_valid: Annotated[
        bool, typer.Option("--still-valid", help="Mark the fact as true now (clears valid-until).")
    ] = False,
    merge: Annotated[
        list[str] | None,
        typer.Option(
            metavar="ENTITY",
            help="Merge two entities: --merge KEEP --merge DROP "
            "(names or ids); DROP becomes an alias of KEEP.",
        ),
    ] = None,
    json: JsonOpt = False,
) -> None:
    """Correct a fact (object, validity) or merge two entities; recorded with source `manual`."""
    ws = open_workspace(workspace, config, agent)
    if merge:
        _merge(ws, merge, json)
        return
    if not fact:
        fail(
            "give --fact ID (with --object/--valid-from/--valid-until/--still-valid) "
            "or --merge KEEP --merge DROP"
        )
    if object_ is None and valid_from is None and valid_until is None and not still_valid:
        fail("nothing to change: give --object, --valid-from, --valid-until or --still-valid")
    lo, hi = parse_time(valid_from, "--valid-from"), parse_time(valid_until, "--valid-until")
    _check_edit(ws, fact, object_, lo, hi, still_valid)
    try:
        out = correct_fact(ws, fact, object_, lo, hi, still_valid)
    except KeyError:
        fail(f"no fact {fact!r}")
    fail_if_unwritten(
        ws, ws.folder, "the edit is not saved: run the same command again once the folder can be written"
    )
    reindex(ws, {fact, out.id})
    ws.close()
    if json:
        print_json(out.model_dump(mode="json"))
    else:
        say(f"{out.id}: {out.subject} {out.predicate} {out.object} (manual)")


def _check_edit(
    ws: Workspace, fid: str, object_: str | None, lo: datetime | None, hi: datetime | None, still_valid: bool
) -> None:
    """Refuse an edit that would store a contradiction (an empty object, a validity that ends before
    it starts) instead of writing it."""
    if object_ is not None and not object_.strip():
        fail("--object is empty: give the right value (to remove the fact: forget --fact ID)")
    if still_valid and hi is not None:
        fail("--still-valid and --valid-until contradict each other: give one")
    found = ws.facts.get(fid)
    if found is None:
        return  # said by the edit itself
    start = lo or found.valid_at
    kept_end = None if still_valid or object_ is not None else found.invalid_at  # a new object: a new fact
    end = hi or kept_end
    if start is not None and end is not None and end < start:
        fail(f"the fact would stop being true ({end.date()}) before it became true ({start.date()})")


def _merge(ws: Workspace, names: list[str], json: bool) -> None:
    if len(names) != 2:
        fail("--merge takes exactly two entities: --merge KEEP --merge DROP")
    ws.refresh()
    keep, drop = (ws.entities.get(n) or ws.entities.resolve(n) for n in names)
    if keep is None or drop is None:
        fail(f"no entity {names[0] if keep is None else names[1]!r}")
    if keep.id == drop.id:
        fail("both names are the same entity")
    touched: set[str] = set()
    moved = 0
    for f in list(ws.facts.all()):
        if drop.id in (f.subject_id, f.object_id):
            touched.update((f.id, _repoint(ws, f, drop.id, keep.id, keep.value)))
            moved += 1
    merged = ws.entities.merge_into(keep.id, drop.id)
    ws.flush()
    fail_if_unwritten(
        ws, ws.folder, "the merge is not saved: run the same command again once the folder can be written"
    )
    reindex(ws, touched)
    ws.close()
    if json:
        print_json({"entity": merged.model_dump(mode="json") if merged else None, "facts_moved": moved})
    else:
        say(f"merged {drop.value} into {keep.value}; {moved} facts now point to {keep.id}")


def _repoint(ws: Workspace, f: Fact, old: str, new: str, value: str) -> str:
    """A fact about the dropped entity is re-keyed to the kept one (its id follows its new text);
    returns the id it now has."""
    subj = value if f.subject_id == old else f.subject
    obj = value if f.object_id == old else f.object
    now = utcnow()
    moved = f.model_copy(
        update={
            "id": fact_id(subj, f.predicate, obj),
            "subject": subj,
            "object": obj,
            "subject_id": new if f.subject_id == old else f.subject_id,
            "object_id": new if f.object_id == old else f.object_id,
            "updated_at": now,
        }
    )
    if moved.id != f.id:
        ws.facts.forget(f.id)
    existing = ws.facts.get(moved.id)
    if existing is not None and existing.id != f.id:
        existing.evidence = (existing.evidence + moved.evidence)[-ws.config.storage.max_evidence :]
        existing.updated_at = now
        ws.facts.table.put(existing)
    else:
        ws.facts.table.put(moved)
    return moved.id


def reindex(ws: Workspace, fact_ids: set[str]) -> None:
    """Bring the edited facts' vectors in line at once, as a sync would: without this a corrected
    fact is found only by its words until the next sync. A failure keeps the edit (it is stored)
    and says how to catch up."""
    if not ws.config.embeddings.enabled:
        return
    from knowledge_engine.index.embeddings import make_embedder
    from knowledge_engine.index.sync import index_facts
    from knowledge_engine.index.vector_index import open_vector_index

    found = {i: ws.facts.get(i) for i in sorted(fact_ids)}
    current = [f for f in found.values() if f is not None]
    gone = [i for i, f in found.items() if f is None]
    try:
        embedder = make_embedder(ws.config.embeddings)
        index = open_vector_index(ws.folder, ws.agent_id, ws.config, embedder, create=False)
        if index.count("facts") == 0:
            return  # never synced: the first sync embeds every fact anyway
        with index.lock:
            index_facts(index, current, gone)
    except Exception as exc:
        counters.inc("cli.edit.reindex_failed")
        say(
            f"warning: the edit is stored, but the vector index was not updated ({type(exc).__name__}); "
            "run `knowledge-engine sync` to catch up",
            err=True,
        )
