"""Read-only listing commands: stats, entities, facts, messages. They never load spaCy or an embedder."""

from __future__ import annotations

import unicodedata
from typing import Annotated, Any, get_args

import typer

from knowledge_engine.cli.common import (
    AgentOpt,
    ConfigOpt,
    JsonOpt,
    WorkspaceOpt,
    counted,
    fail,
    open_workspace,
    parse_time,
    print_json,
    say,
    table,
    when,
)
from knowledge_engine.model.records import Entity, Fact, Role, SourceTier
from knowledge_engine.store import factquery
from knowledge_engine.store.backend import is_shared
from knowledge_engine.store.factquery import FactQuery
from knowledge_engine.store.messages import MESSAGES_FILE
from knowledge_engine.store.workspace import Workspace

LimitOpt = Annotated[int, typer.Option(min=0, help="At most this many rows (0 = no limit).")]
SinceOpt = Annotated[str | None, typer.Option(help="Only from this ISO time on (e.g. 2026-03-01).")]
UntilOpt = Annotated[str | None, typer.Option(help="Only before this ISO time.")]

FACT_SORTS = factquery.SORTS
ENTITY_SORTS = ("count", "importance", "last-seen", "first-seen", "name")
TIERS: tuple[str, ...] = get_args(SourceTier)
ROLES: tuple[str, ...] = get_args(Role)


def open_ws(workspace: WorkspaceOpt, config: ConfigOpt, agent: AgentOpt) -> Workspace:
    return open_workspace(workspace, config, agent)


def stats(
    workspace: WorkspaceOpt = None,
    config: ConfigOpt = None,
    agent: AgentOpt = None,
    json: JsonOpt = False,
    index: Annotated[
        bool,
        typer.Option(
            "--index",
            help="Also count records not yet synced to Chroma (opens Chroma and the embedder: slower).",
        ),
    ] = False,
) -> None:
    """What a workspace holds: entities by type, facts by tier and validity, messages, pending LLM
    batches, Chroma sync state, size on disk and the last maintenance runs."""
    from knowledge_engine.cli.common import load_cfg, readable_store
    from knowledge_engine.cli.status import folder_status, stats_for

    unreachable = None
    if index:
        ws = open_ws(workspace, config, agent)
        data = folder_status(ws.folder, ws.config, ws.agent_id)
        data["chroma_pending"], unreachable = _index_pending(ws)
    else:
        cfg = load_cfg(config)
        with readable_store():
            data = stats_for(cfg, workspace, agent)
    if json:
        print_json(data)
        if unreachable:
            fail(unreachable)
        return
    rows: list[list[Any]] = []
    for k, v in data.items():
        if isinstance(v, dict):
            rows.extend([f"{k}.{kk}", _short(vv)] for kk, vv in v.items())
        else:
            rows.append([k, v])
    table(f"knowledge in {data['workspace']}", ["what", "value"], rows)
    if unreachable:  # the store counts above still hold; the exit code tells a script the index part failed
        fail(unreachable)


def _index_pending(ws: Workspace) -> tuple[dict[str, Any], str | None]:
    """Records not in step with Chroma, or (the error, a one-line message) when the index cannot be read:
    a Chroma server that is down is a state to report, not a traceback."""
    from knowledge_engine.index.sync import workspace_status

    try:
        return workspace_status(ws), None
    except Exception as exc:  # ChromaUnavailableError, IndexMismatchError, a server lost mid-read
        detail = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        return {"error": detail}, f"the Chroma index cannot be read: {detail}"


def _short(value: Any) -> Any:
    if isinstance(value, dict) and "status" in value and "started_at" in value:  # a maintenance run record
        changed = ", ".join(f"{k}={v}" for k, v in (value.get("changed") or {}).items())
        note = value.get("reason") or value.get("error") or changed
        when = str(value["started_at"])[:19]
        took = f" ({value['duration_ms']} ms)" if value.get("duration_ms") is not None else ""
        return f"{value['status']} at {when}{took} {note}".strip()
    if isinstance(value, dict):
        return ", ".join(f"{k}={v}" for k, v in value.items() if not isinstance(v, dict | list))
    return value


def _entity_key(sort: str) -> Any:
    keys = {
        "count": lambda e: (-e.count, e.value.lower()),
        "importance": lambda e: (-e.importance, -e.count),
        "last-seen": lambda e: -e.last_seen.timestamp(),
        "first-seen": lambda e: e.first_seen.timestamp(),
        "name": lambda e: e.value.lower(),
    }
    if sort not in keys:
        fail(f"--sort must be one of {', '.join(ENTITY_SORTS)}")
    return keys[sort]


def _folded(text: str) -> str:
    """NFKC and case-folded: "Inês" typed decomposed (as macOS terminals send it) finds the stored "Inês",
    as `show` and `facts` do."""
    return unicodedata.normalize("NFKC", text).casefold()


def select_entities(
    store: Any,
    type_: str | None = None,
    name: str | None = None,
    since: str | None = None,
    until: str | None = None,
    min_importance: float = 0.0,
    sort: str = "count",
    limit: int = 200,
) -> list[Entity]:
    lo, hi = parse_time(since, "--since"), parse_time(until, "--until")
    needle = _folded(name) if name else None
    key = _entity_key(sort)
    out = []
    for e in store.all():
        if type_ and e.type != type_:
            continue
        if needle and needle not in _folded(e.value) and not any(needle in _folded(a) for a in e.aliases):
            continue
        if (lo and e.last_seen < lo) or (hi and e.first_seen >= hi) or e.importance < min_importance:
            continue
        out.append(e)
    out.sort(key=key)
    return out[:limit] if limit else out


def entities(
    workspace: WorkspaceOpt = None,
    config: ConfigOpt = None,
    agent: AgentOpt = None,
    type_: Annotated[
        str | None, typer.Option("--type", help="Only this type (person, organization, ...).")
    ] = None,
    name: Annotated[str | None, typer.Option(help="Only names or aliases containing this text.")] = None,
    since: SinceOpt = None,
    until: UntilOpt = None,
    min_importance: Annotated[
        float, typer.Option(min=0.0, max=1.0, help="Hide entities below this importance (0..1).")
    ] = 0.0,
    sort: Annotated[str, typer.Option(help=f"Order: {', '.join(ENTITY_SORTS)}.")] = "count",
    limit: LimitOpt = 200,
    json: JsonOpt = False,
) -> None:
    """List entities (most mentioned first), filtered by type, name, time seen and importance."""
    from knowledge_engine.cli.common import load_cfg, node_folder
    from knowledge_engine.cli.rawfacts import entity_store, store_agent

    cfg = load_cfg(config)
    folder = node_folder(cfg, workspace, agent)
    store = entity_store(folder, cfg, store_agent(folder, cfg, agent))
    ents = select_entities(store, type_, name, since, until, min_importance, sort, limit)
    if not ents and type_:
        _no_such_type(store, type_)
    if json:
        print_json([e.model_dump(mode="json") for e in ents])
        return
    table(
        counted(len(ents), "entity", "entities"),
        ["id", "type", "value", "count", "aliases", "last seen"],
        [[e.id, e.type, e.value, e.count, ", ".join(e.aliases[:4]), e.last_seen.date()] for e in ents],
    )


def _no_such_type(store: Any, type_: str) -> None:
    """A --type no entity has (a typo, a plural) is said on stderr with the types there are."""
    types = sorted({e.type for e in store.all()})
    if type_ not in types:
        listed = ", ".join(types) if types else "none: the workspace has no entities"
        say(f"note: no entity has type {type_!r}; types here: {listed}", err=True)


def _check_choice(option: str, value: str | None, choices: tuple[str, ...]) -> None:
    if value is not None and value not in choices:
        fail(f"{option} must be one of {', '.join(choices)}")


def _check_sort(sort: str) -> str:
    if sort not in FACT_SORTS:
        fail(f"--sort must be one of {', '.join(FACT_SORTS)}")
    return sort


def resolve_entity_id(ws: Workspace, entity: str) -> str:
    found = ws.entities.get(entity) or ws.entities.resolve(entity)
    return found.id if found else entity


def select_facts(
    ws: Workspace,
    subject: str | None = None,
    entity: str | None = None,
    predicate: str | None = None,
    object_: str | None = None,
    tier: str | None = None,
    session: str | None = None,
    since: str | None = None,
    until: str | None = None,
    history: bool = False,
    min_relevance: float = 0.0,
    sort: str = "relevance",
    limit: int = 200,
) -> list[Fact]:
    """The fact query over the loaded records (`facts` runs the same query over the raw file)."""
    query = FactQuery(
        subject=subject,
        predicate=predicate,
        object_=object_,
        entity=resolve_entity_id(ws, entity) if entity else None,
        tier=tier,
        session=session,
        since=parse_time(since, "--since"),
        until=parse_time(until, "--until"),
        history=history,
        min_relevance=min_relevance,
    )
    return factquery.select(ws.facts.table, query, _check_sort(sort), limit)


def facts(
    workspace: WorkspaceOpt = None,
    config: ConfigOpt = None,
    agent: AgentOpt = None,
    subject: Annotated[str | None, typer.Option(help="Only facts about this subject.")] = None,
    entity: Annotated[
        str | None, typer.Option(help="Only facts mentioning this entity (name or id).")
    ] = None,
    predicate: Annotated[
        str | None, typer.Option(help="Only this predicate (kebab-case, e.g. works-at).")
    ] = None,
    object_: Annotated[str | None, typer.Option("--object", help="Only facts with this object.")] = None,
    tier: Annotated[
        str | None, typer.Option(help="Only facts this tier saw (regex, spacy, llm, manual, import).")
    ] = None,
    session: Annotated[str | None, typer.Option(help="Only facts with evidence from this session.")] = None,
    since: SinceOpt = None,
    until: UntilOpt = None,
    history: Annotated[bool, typer.Option("--history", help="Include superseded facts.")] = False,
    min_relevance: Annotated[
        float, typer.Option(min=0.0, max=1.0, help="Hide facts below this relevance (0..1).")
    ] = 0.0,
    sort: Annotated[str, typer.Option(help=f"Order: {', '.join(FACT_SORTS)}.")] = "relevance",
    limit: LimitOpt = 200,
    json: JsonOpt = False,
) -> None:
    """List facts with tier, confidence, relevance, validity and evidence message ids."""
    from knowledge_engine.cli import rawfacts
    from knowledge_engine.cli.common import load_cfg, node_folder

    cfg = load_cfg(config)
    folder = node_folder(cfg, workspace, agent)
    _check_sort(sort)
    _check_choice("--tier", tier, TIERS)  # a typo matched nothing and printed "0 facts"
    if is_shared(cfg.storage):  # no facts.json to read raw: the records come from the database
        ws = open_workspace(workspace, config, agent)
        try:
            shared = select_facts(ws, subject, entity, predicate, object_, tier, session, since, until,
                                  history, min_relevance, sort, limit)  # fmt: skip
        finally:
            ws.close()
        _print_facts(shared, json)
        return
    rows = rawfacts.select(
        folder,
        cfg,
        subject=subject,
        entity=entity,
        predicate=predicate,
        object_=object_,
        tier=tier,
        session=session,
        since=parse_time(since, "--since"),
        until=parse_time(until, "--until"),
        history=history,
        min_relevance=min_relevance,
        sort=sort,
        limit=limit,
    )
    _print_facts(rows, json)


def _print_facts(rows: list[Fact], json: bool) -> None:
    if json:
        from knowledge_engine.cli.common import print_raw_json
        from knowledge_engine.cli.rawfacts import FACTS

        print_raw_json(
            FACTS.dump_json(rows, indent=2)
        )  # pydantic-core serialises 100k facts in well under 1 s
        return
    table(
        counted(len(rows), "fact"),
        ["id", "subject", "predicate", "object", "tier", "conf", "rel", "valid", "evidence"],
        [
            [
                f.id,
                f.subject,
                f.predicate,
                f.object,
                f.source,
                f"{f.confidence:.2f}",
                f"{f.relevance:.2f}",
                "yes" if f.invalid_at is None else f"until {f.invalid_at.date()}",
                ", ".join(e.message_id for e in f.evidence[-3:]),
            ]
            for f in rows
        ],
        optional=("evidence",),
    )


def messages(
    workspace: WorkspaceOpt = None,
    config: ConfigOpt = None,
    agent: AgentOpt = None,
    session: Annotated[str | None, typer.Option(help="Only this session key.")] = None,
    role: Annotated[str | None, typer.Option(help="Only this role (user, assistant).")] = None,
    speaker: Annotated[
        str | None, typer.Option(help="Only this speaker (any letter case or Unicode form).")
    ] = None,
    entity: Annotated[
        str | None, typer.Option(help="Only messages an entity (name or id) was seen in.")
    ] = None,
    text: Annotated[
        str | None, typer.Option(help="Keyword search (BM25) instead of listing by time.")
    ] = None,
    since: SinceOpt = None,
    until: UntilOpt = None,
    sort: Annotated[str, typer.Option(help="Order by time: newest or oldest.")] = "newest",
    limit: LimitOpt = 50,
    json: JsonOpt = False,
) -> None:
    """List stored conversation messages, newest first, filtered by session, role, speaker, entity, time."""
    from knowledge_engine.cli.common import load_cfg, node_folder
    from knowledge_engine.cli.rawfacts import store_agent

    cfg = load_cfg(config)
    folder = node_folder(cfg, workspace, agent)
    _check_choice("--role", role, ROLES)  # a typo matched nothing and printed "0 messages"
    if sort not in ("newest", "oldest"):
        fail("--sort must be newest or oldest")
    lo, hi = parse_time(since, "--since"), parse_time(until, "--until")
    who = store_agent(folder, cfg, agent)
    wanted = _entity_messages(folder, cfg, entity, who) if entity else None
    rows: list[Any] = []
    if is_shared(cfg.storage) or (folder / MESSAGES_FILE).exists():  # never creates an empty log file
        from knowledge_engine.store.backend import message_log

        log = message_log(cfg, folder, who)
        try:
            rows = _select_messages(log, session, role, speaker, wanted, text, lo, hi, sort, limit)
        finally:
            log.close()
    if json:
        print_json([m.model_dump(mode="json") for m in rows])
        return
    table(
        counted(len(rows), "message"),
        ["id", "time", "session", "role", "speaker", "text"],
        [
            [
                m.id,
                when(m.timestamp),
                m.session,
                m.role,
                m.speaker,
                m.text if len(m.text) <= 160 else m.text[:157] + "...",
            ]
            for m in rows
        ],
    )


def _entity_messages(folder: Any, cfg: Any, entity: str, agent: str) -> set[str]:
    """Ids of the messages an entity was seen in (loads only the entity store: no facts, no log)."""
    from knowledge_engine.cli.rawfacts import entity_store

    store = entity_store(folder, cfg, agent)
    ent = store.get(entity) or store.resolve(entity)
    if ent is None:
        fail(f"no entity {entity!r}")
    return {m.message_id for m in ent.mentions}


def _select_messages(
    log: Any,
    session: Any,
    role: Any,
    speaker: Any,
    wanted: set[str] | None,
    text: Any,
    lo: Any,
    hi: Any,
    sort: str,
    limit: int,
) -> list[Any]:
    filtered = speaker is not None or wanted is not None
    if text:
        pool = max(limit, 1) * 4 if filtered else (limit or 1000)
        found: Any = [
            m for m, _ in log.search(text, limit=pool, session=session, role=role, since=lo, until=hi)
        ]
    else:
        order = "desc" if sort == "newest" else "asc"
        found = log.iter(
            since=lo,
            until=hi,
            session=session,
            role=role,
            order=order,
            limit=None if filtered else (limit or None),
        )
    out = []
    who = _folded(speaker) if speaker else None  # "maya" or a decomposed "Inês" finds the speaker too
    for m in found:
        if (who and _folded(m.speaker or "") != who) or (wanted is not None and m.id not in wanted):
            continue
        out.append(m)
        if limit and len(out) >= limit:
            break
    return out
