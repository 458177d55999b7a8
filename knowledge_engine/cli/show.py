"""`show ID`: one entity or one fact with everything that explains it."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from knowledge_engine.cli.common import (
    AgentOpt,
    ConfigOpt,
    JsonOpt,
    WorkspaceOpt,
    fail,
    has_messages,
    open_workspace,
    print_json,
    say,
    table,
    when,
)
from knowledge_engine.model.records import Entity, Fact, Message
from knowledge_engine.store.workspace import Workspace


def _messages(ws: Workspace, ids: list[str]) -> list[Message]:
    return ws.messages.get_many(ids) if ids and has_messages(ws) else []


def entity_detail(ws: Workspace, ent: Entity, limit: int = 50) -> dict[str, Any]:
    facts = ws.facts.query(entity=ent.id, include_history=True)
    ids = [m.message_id for m in ent.mentions][-limit:]
    return {
        "kind": "entity",
        "entity": ent.model_dump(mode="json"),
        "facts": [f.model_dump(mode="json") for f in facts],
        "messages": [m.model_dump(mode="json") for m in _messages(ws, ids)],
    }


def fact_detail(ws: Workspace, fact: Fact) -> dict[str, Any]:
    ids = [e.message_id for e in fact.evidence]
    return {
        "kind": "fact",
        "fact": fact.model_dump(mode="json"),
        "history": [f.model_dump(mode="json") for f in ws.facts.history(fact.id)],
        "messages": [m.model_dump(mode="json") for m in _messages(ws, ids)],
    }


def find(ws: Workspace, ident: str) -> dict[str, Any] | None:
    """A fact id, an entity id, or an entity name (resolved like the extractor does)."""
    fact = ws.facts.get(ident)
    if fact is not None:
        return fact_detail(ws, fact)
    ent = ws.entities.get(ident) or ws.entities.resolve(ident)
    return entity_detail(ws, ent) if ent is not None else None


def show(
    ident: Annotated[
        str,
        typer.Argument(
            metavar="ID", help="A fact id (f-...), an entity id (person:maya-chen) or an entity name."
        ),
    ],
    workspace: WorkspaceOpt = None,
    config: ConfigOpt = None,
    agent: AgentOpt = None,
    json: JsonOpt = False,
) -> None:
    """Show one entity (aliases, facts, evidence messages) or one fact (history chain, evidence)."""
    ws = open_workspace(workspace, config, agent)
    data = find(ws, ident)
    if data is None:
        fail(f"no fact or entity {ident!r} in {ws.folder}")
    if json:
        print_json(data)
        return
    if data["kind"] == "entity":
        e = data["entity"]
        say(
            (e["value"], "bold"),
            f" ({e['type']}, {e['id']}): seen in {e['count']} messages, importance {e['importance']:.2f}",
        )
        say("aliases: ", ", ".join(e["aliases"]) or "-")
        _facts_table("facts", data["facts"])
    else:
        f = data["fact"]
        say(
            (f"{f['subject']} {f['predicate']} {f['object']}", "bold"),
            f" ({f['id']}, tier {f['source']}, confidence {f['confidence']:.2f},"
            f" relevance {f['relevance']:.2f})",
        )
        _facts_table("history (oldest first)", data["history"])
    table(
        "evidence messages",
        ["id", "time", "speaker", "text"],
        [[m["id"], when(m["timestamp"]), m["speaker"] or m["role"], m["text"]] for m in data["messages"]],
    )


def _facts_table(title: str, rows: list[dict[str, Any]]) -> None:
    """One fact a row: the triple as one text column (wraps between words, so at 80 columns the
    predicate stays whole), its validity span and what replaced it."""
    table(
        title,
        ["id", "fact", "valid", "superseded by"],
        [
            [f["id"], f"{f['subject']} {f['predicate']} {f['object']}", _span(f), f["superseded_by"]]
            for f in rows
        ],
    )


def _span(f: dict[str, Any]) -> str:
    start, end = when(f["valid_at"]), when(f["invalid_at"])
    if end:
        return f"{start} to {end}" if start else f"until {end}"
    return f"since {start}" if start else "yes"
