"""Read-only commands: stats, entities, facts. They never load spaCy or an embedder."""

from __future__ import annotations

from typing import Annotated

import typer

from knowledge_engine.cli.common import (
    AgentOpt,
    ConfigOpt,
    JsonOpt,
    WorkspaceOpt,
    existing_folder,
    load_cfg,
    print_json,
    resolve_folder,
    table,
)
from knowledge_engine.store.workspace import Workspace


def open_ws(workspace: WorkspaceOpt, config: ConfigOpt, agent: AgentOpt) -> Workspace:
    cfg = load_cfg(config)
    folder = existing_folder(resolve_folder(cfg, workspace, agent))
    return Workspace(folder, cfg)


def stats(workspace: WorkspaceOpt = None, config: ConfigOpt = None, agent: AgentOpt = None, json: JsonOpt = False) -> None:
    """Counts of what a workspace holds: entities by type, facts by tier and validity, messages."""
    from knowledge_engine.cli.status import workspace_status

    ws = open_ws(workspace, config, agent)
    data = workspace_status(ws)
    if json:
        print_json(data)
        return
    rows = [[k, v] for k, v in data.items() if not isinstance(v, dict)]
    for k, v in data.items():
        if isinstance(v, dict):
            rows.extend([f"{k}.{kk}", vv] for kk, vv in v.items())
    table(f"knowledge in {ws.folder}", ["what", "value"], rows)


def entities(
    workspace: WorkspaceOpt = None, config: ConfigOpt = None, agent: AgentOpt = None,
    type_: Annotated[str | None, typer.Option("--type", help="Only this type (person, organization, ...).")] = None,
    limit: Annotated[int, typer.Option(help="At most this many rows.")] = 200,
    json: JsonOpt = False,
) -> None:
    """List entities, most mentioned first."""
    ws = open_ws(workspace, config, agent)
    ents = [e for e in ws.entities.all() if type_ is None or e.type == type_]
    ents.sort(key=lambda e: (-e.count, e.value.lower()))
    ents = ents[:limit]
    if json:
        print_json([e.model_dump(mode="json") for e in ents])
        return
    table(f"{len(ents)} entities", ["id", "type", "value", "count", "aliases", "last seen"],
          [[e.id, e.type, e.value, e.count, ", ".join(e.aliases[:4]), e.last_seen.date()] for e in ents])


def facts(
    workspace: WorkspaceOpt = None, config: ConfigOpt = None, agent: AgentOpt = None,
    subject: Annotated[str | None, typer.Option(help="Only facts about this subject.")] = None,
    entity: Annotated[str | None, typer.Option(help="Only facts mentioning this entity (name or id).")] = None,
    predicate: Annotated[str | None, typer.Option(help="Only this predicate (kebab-case).")] = None,
    history: Annotated[bool, typer.Option("--history", help="Include superseded facts.")] = False,
    min_relevance: Annotated[float, typer.Option(help="Hide facts below this relevance.")] = 0.0,
    limit: Annotated[int, typer.Option(help="At most this many rows.")] = 200,
    json: JsonOpt = False,
) -> None:
    """List facts with tier, confidence, relevance, validity and evidence message ids."""
    ws = open_ws(workspace, config, agent)
    ent_id = None
    if entity:
        found = ws.entities.get(entity) or ws.entities.resolve(entity)
        ent_id = found.id if found else entity
    rows = ws.facts.query(subject=subject, predicate=predicate, entity=ent_id, include_history=history,
                          min_relevance=min_relevance, limit=limit)
    if json:
        print_json([f.model_dump(mode="json") for f in rows])
        return
    table(f"{len(rows)} facts", ["id", "subject", "predicate", "object", "tier", "conf", "rel", "valid", "evidence"], [
        [f.id, f.subject, f.predicate, f.object, f.source, f"{f.confidence:.2f}", f"{f.relevance:.2f}",
         "yes" if f.invalid_at is None else f"until {f.invalid_at.date()}",
         ", ".join(e.message_id for e in f.evidence[-3:])]
        for f in rows
    ])
