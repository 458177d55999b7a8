"""`facts` over the raw store file: the fact query runs on plain dicts; records only for the rows shown.

Why: building all 100k `Fact` records (pydantic) takes seconds, most of a listing's time, when
the command prints 200. The filters and orderings are not copied here: `store.factquery` runs them
on either shape, the same code `FactStore.query` runs on records.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter, ValidationError

from knowledge_engine.config import EngineConfig
from knowledge_engine.gcpause import gc_paused
from knowledge_engine.model.records import Fact
from knowledge_engine.observe import counters
from knowledge_engine.store import factquery
from knowledge_engine.store.factquery import FactQuery

Raw = dict[str, Any]
FACTS: TypeAdapter[list[Fact]] = TypeAdapter(list[Fact])


def load_raw(folder: Path) -> list[Raw]:
    from knowledge_engine.cli.common import readable_store
    from knowledge_engine.store.persistence import read_json_document

    with readable_store():
        doc = read_json_document(folder / "facts.json", "facts") or {}
    items = doc.get("facts")
    return [r for r in items if isinstance(r, dict)] if isinstance(items, list) else []


def entity_store(folder: Path, cfg: EngineConfig, agent: str = "default") -> Any:
    """The entity store alone (listing entities needs no fact store); `agent` picks the rows of the
    shared store (see `store_agent`)."""
    from knowledge_engine.store.entities import EntityStore
    from knowledge_engine.store.persistence import WorkspaceLock

    lock = WorkspaceLock(folder / ".store.lock")
    store = EntityStore(folder, lock, cfg.storage, cfg.facts.fuzzy_threshold, agent)
    store.load()
    if store.table.unreadable is not None:
        from knowledge_engine.cli.common import refuse_unreadable

        refuse_unreadable(store.table.unreadable)
    return store


def store_agent(folder: Path, cfg: EngineConfig, agent: str | None) -> str:
    """The agent whose rows a listing reads: on the shared store the folder holds no records, so the
    agent picks them (--agent, else the one the folder's index names); files need none."""
    from knowledge_engine.cli.common import agent_of
    from knowledge_engine.store.backend import is_shared

    return agent_of(folder, cfg, agent) if is_shared(cfg.storage) else "default"


def resolve_entity(folder: Path, cfg: EngineConfig, entity: str) -> str:
    """An entity name or id -> its id (loads only the entity store)."""
    store = entity_store(folder, cfg)
    found = store.get(entity) or store.resolve(entity)
    return found.id if found else entity


def select(
    folder: Path,
    cfg: EngineConfig,
    *,
    subject: str | None = None,
    entity: str | None = None,
    predicate: str | None = None,
    object_: str | None = None,
    tier: str | None = None,
    session: str | None = None,
    since: datetime | None = None,
    until: datetime | None = None,
    history: bool = False,
    min_relevance: float = 0.0,
    sort: str = "relevance",
    limit: int = 200,
) -> list[Fact]:
    query = FactQuery(
        subject=subject,
        predicate=predicate,
        object_=object_,
        entity=resolve_entity(folder, cfg, entity) if entity else None,
        tier=tier,
        session=session,
        since=since,
        until=until,
        history=history,
        min_relevance=min_relevance,
    )
    shown = factquery.select(load_raw(folder), query, sort, limit)
    try:
        with gc_paused():  # up to 100k records at once: see gcpause
            return FACTS.validate_python(shown)
    except ValidationError:
        return _valid_only(shown)


def _valid_only(rows: list[Raw]) -> list[Fact]:
    """The rows that are valid records; the others are reported (the store quarantines them)."""
    out: list[Fact] = []
    for r in rows:
        try:
            out.append(Fact.model_validate(r))
        except ValidationError:
            counters.inc("cli.invalid_facts_hidden")
    from knowledge_engine.cli.common import err_console

    err_console.print(
        f"warning: {len(rows) - len(out)} fact record(s) in facts.json failed validation and are not "
        "listed; the store keeps them in quarantine (see `knowledge-engine validate`)",
        highlight=False,
        soft_wrap=True,
    )
    return out
