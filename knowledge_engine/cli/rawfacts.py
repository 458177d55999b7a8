"""`facts` over the raw store file: filter and sort plain dicts, build records only for the rows shown.

Why: building all 100k `Fact` records (pydantic) takes seconds, most of a listing's time, when
the command prints 200. The filters and orderings are those of `FactStore.query` plus the CLI's
own (tier, session, time, sort); tests check both paths return the same facts.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter, ValidationError

from knowledge_engine.config import EngineConfig
from knowledge_engine.model.records import Fact, canonical
from knowledge_engine.observe import counters

Raw = dict[str, Any]
FACTS: TypeAdapter[list[Fact]] = TypeAdapter(list[Fact])
# the store omits None fields (older files: every default-valued field): a missing key means the default
DEFAULTS: dict[str, Any] = {
    name: f.default
    for name, f in Fact.model_fields.items()
    if f.default_factory is None and not f.is_required()
}


def _get(f: Raw, key: str) -> Any:
    return f.get(key, DEFAULTS.get(key))


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _dt(value: Any) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        dt = datetime.fromisoformat(value)
    except ValueError:
        return None
    return dt if dt.tzinfo else dt.replace(tzinfo=UTC)


def _ts(value: Any) -> float:
    dt = _dt(value)
    return (dt or _EPOCH).timestamp()


def _num(value: Any, default: float) -> float:
    return float(value) if isinstance(value, int | float) else default


SORT_KEYS: dict[str, Callable[[Raw], Any]] = {
    "relevance": lambda f: (-_num(_get(f, "relevance"), 1.0), -_ts(_get(f, "last_accessed"))),
    "confidence": lambda f: (-_num(_get(f, "confidence"), 0.5), -_num(_get(f, "relevance"), 1.0)),
    "created": lambda f: -_ts(_get(f, "created_at")),
    "accessed": lambda f: -_ts(_get(f, "last_accessed")),
    "valid-from": lambda f: -_ts(_get(f, "valid_at") or _get(f, "created_at")),
    "subject": lambda f: (str(f.get("subject", "")).lower(), str(f.get("predicate", ""))),
}


def load_raw(folder: Path) -> list[Raw]:
    from knowledge_engine.cli.common import readable_store
    from knowledge_engine.store.persistence import read_json_document

    with readable_store():
        doc = read_json_document(folder / "facts.json", "facts") or {}
    items = doc.get("facts")
    return [r for r in items if isinstance(r, dict)] if isinstance(items, list) else []


def entity_store(folder: Path, cfg: EngineConfig) -> Any:
    """The entity store alone (listing entities needs no fact store)."""
    from knowledge_engine.store.entities import EntityStore
    from knowledge_engine.store.persistence import WorkspaceLock

    store = EntityStore(folder, WorkspaceLock(folder / ".store.lock"), cfg.storage, cfg.facts.fuzzy_threshold)
    store.load()
    if store.table.unreadable is not None:
        from knowledge_engine.cli.common import refuse_unreadable

        refuse_unreadable(store.table.unreadable)
    return store


def resolve_entity(folder: Path, cfg: EngineConfig, entity: str) -> str:
    """An entity name or id -> its id (loads only the entity store)."""
    store = entity_store(folder, cfg)
    found = store.get(entity) or store.resolve(entity)
    return found.id if found else entity


def _matches(f: Raw, q: dict[str, Any]) -> bool:
    if not q["history"] and _get(f, "invalid_at") is not None:
        return False
    if _num(_get(f, "relevance"), 1.0) < q["min_relevance"]:
        return False
    subj, obj = str(f.get("subject", "")), str(f.get("object", ""))
    if q["subject"] and canonical(subj) != q["subject"] and _get(f, "subject_id") != q["subject_raw"]:
        return False
    if q["predicate"] and _get(f, "predicate") != q["predicate"]:
        return False
    if q["object"] and canonical(obj) != q["object"] and _get(f, "object_id") != q["object_raw"]:
        return False
    ent = q["entity"]
    if (
        ent
        and ent not in (_get(f, "subject_id"), _get(f, "object_id"))
        and canonical(ent) not in (canonical(subj), canonical(obj))
    ):
        return False
    if q["tier"] and _get(f, "source") != q["tier"]:
        return False
    if q["session"] and not any(
        isinstance(e, dict) and e.get("session") == q["session"] for e in _get(f, "evidence") or []
    ):
        return False
    if q["since"] or q["until"]:
        when = _dt(_get(f, "valid_at")) or _dt(_get(f, "created_at")) or _EPOCH
        if (q["since"] and when < q["since"]) or (q["until"] and when >= q["until"]):
            return False
    return True


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
    q = {
        "subject": canonical(subject) if subject else None,
        "subject_raw": subject,
        "object": canonical(object_) if object_ else None,
        "object_raw": object_,
        "predicate": predicate,
        "entity": resolve_entity(folder, cfg, entity) if entity else None,
        "tier": tier,
        "session": session,
        "since": since,
        "until": until,
        "history": history,
        "min_relevance": min_relevance,
    }
    raw = load_raw(folder)
    if _only_validity(q):  # the common listing: skip the per-field checks
        rows = raw if history else [f for f in raw if f.get("invalid_at") is None]
    else:
        rows = [f for f in raw if _matches(f, q)]
    if sort == "relevance" and limit:
        rows = _top_by_relevance(rows, limit)
    rows.sort(key=SORT_KEYS["relevance"])  # the store's order first, so ties break the same way
    if sort != "relevance":
        rows.sort(key=SORT_KEYS[sort])
    shown = rows[:limit] if limit else rows
    try:
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


def _only_validity(q: dict[str, Any]) -> bool:
    return q["min_relevance"] <= 0 and not any(
        q[k] for k in ("subject", "object", "predicate", "entity", "tier", "session", "since", "until")
    )


def _top_by_relevance(rows: list[Raw], limit: int) -> list[Raw]:
    """The rows that can be in the first `limit` by relevance (ties at the cut kept), so the full sort
    key (which parses a timestamp) runs on a few hundred rows instead of 100k."""
    if len(rows) <= limit:
        return rows
    rels = [r if type(r) is float else _num(r, 1.0) for r in (f.get("relevance", 1.0) for f in rows)]
    cut = heapq.nlargest(limit, rels)[-1]
    return [f for f, r in zip(rows, rels, strict=True) if r >= cut]
