"""`search` (keyword + semantic arms over facts and messages) and `context` (what the hook would inject)."""

from __future__ import annotations

import asyncio
import sys
from typing import Annotated, Any

import typer

from knowledge_engine.cli.common import (
    AgentOpt,
    ConfigOpt,
    JsonOpt,
    WorkspaceOpt,
    counted,
    creatable_folder,
    err_console,
    fail,
    load_cfg,
    open_engine,
    parse_time,
    print_json,
    resolve_folder,
    table,
    when,
)

NoSemanticOpt = Annotated[
    bool, typer.Option("--no-semantic", help="Keyword arms only: do not load the embedder.")
]


def _engine(workspace: Any, config: Any, agent: Any, no_semantic: bool) -> tuple[Any, Any]:
    engine, ws = open_engine(workspace, config, agent)
    engine.index_read_only = True  # an inspection never creates Chroma collections
    if no_semantic:
        engine.config.embeddings.enabled = False
    # an inspection must not change the store: the retriever's access boost is never written (see _discard)
    engine.config.storage.write_debounce_ms = 3_600_000
    return engine, ws


def _discard(engine: Any, ws: Any) -> None:
    """Drop the in-memory access boosts the retriever applied, then stop without writing them."""
    ws.facts.load()
    engine.stop(timeout_s=5)


def search(
    query: Annotated[str, typer.Argument(help="What to look for, in plain words.")],
    workspace: WorkspaceOpt = None,
    config: ConfigOpt = None,
    agent: AgentOpt = None,
    limit: Annotated[int, typer.Option(min=1, help="At most this many facts and this many messages.")] = 10,
    no_semantic: NoSemanticOpt = False,
    json: JsonOpt = False,
) -> None:
    """Search facts and messages: keyword and semantic arms fused by rank, with each arm's score.

    Rows are in rank order: facts answering the relation the question asks about (arm `relation`)
    first, then by fused score."""
    from knowledge_engine.model.retrieval import RetrievalRequest
    from knowledge_engine.retrieve.sources.local import LocalSource

    if not query.strip():
        fail("the query is empty")
    engine, ws = _engine(workspace, config, agent, no_semantic)
    try:
        items = LocalSource(engine, ws).search_sync(RetrievalRequest(query=query, agent_id=ws.agent_id))
    finally:
        engine.stop(timeout_s=5)  # the sources alone change nothing (the access boost is the retriever's)
    facts = [i for i in items if i.kind == "fact"][:limit]
    memory = [i for i in items if i.kind == "memory"][:limit]
    if json:
        print_json({"facts": [_item(i) for i in facts], "messages": [_item(i) for i in memory]})
        return
    table(
        counted(len(facts), "fact"),
        ["id", "fact", "score", "arms"],
        [[i.id, i.text, f"{i.score:.4f}", _arms(i.scores)] for i in facts],
    )
    table(
        counted(len(memory), "message"),
        ["id", "time", "text", "score", "arms"],
        [
            [
                i.id,
                when(i.timestamp),
                i.text,
                f"{i.score:.4f}",
                _arms(i.scores),
            ]
            for i in memory
        ],
    )


def _item(i: Any) -> dict[str, Any]:
    return {
        "id": i.id,
        "kind": i.kind,
        "text": i.text,
        "score": i.score,
        "scores": i.scores,
        "timestamp": i.timestamp,
        "session": i.session,
        "speaker": i.speaker,
        "message_ids": i.message_ids,
    }


def _arms(scores: dict[str, float]) -> str:
    return ", ".join(f"{k}={v:.3f}" for k, v in scores.items())


def context(
    query: Annotated[str, typer.Argument(help="The user's next message.")],
    workspace: WorkspaceOpt = None,
    config: ConfigOpt = None,
    agent: AgentOpt = None,
    at: Annotated[
        str | None,
        typer.Option(
            help="Reference 'now' (ISO) for time words like 'last week'; default: the newest stored message."
        ),
    ] = None,
    no_semantic: NoSemanticOpt = False,
    json: JsonOpt = False,
) -> None:
    """Print exactly the block the before_prompt_build hook would inject for QUERY (stdout, verbatim),
    and its provenance (stderr). A message the hook skips ("thanks!") prints why and nothing else."""
    from knowledge_engine.retrieve.retriever import retriever_for, turn_query
    from knowledge_engine.store.backend import is_shared

    if not query.strip():
        fail("the query is empty")
    ref = parse_time(at, "--at")
    cfg = load_cfg(config)
    folder = creatable_folder(resolve_folder(cfg, workspace, agent))  # a file is a typo, not a first turn
    text, skipped = turn_query({"prompt": query}, None, cfg)  # the hook's own rules; the cache is per process
    if skipped:
        _print_context("", None, skipped, f"skipped ({skipped}): the hook injects nothing for this", json)
        return
    if not folder.is_dir() and not is_shared(cfg.storage):  # a first turn: nothing (not created here)
        _print_context("", None, None, f"workspace {folder} does not exist: nothing is stored yet", json)
        return
    engine, ws = _engine(workspace, config, agent, no_semantic)
    try:
        retriever = retriever_for(engine, ws)
        retriever.wait_ready()  # its own start-up (embedder, Chroma) must not time the question out
        block, provenance = asyncio.run(retriever.context(text, reference_time=ref))
    finally:
        _discard(engine, ws)
    _print_context(block, provenance, None, None if block else "nothing would be injected", json)


def _print_context(block: str, provenance: Any, skipped: str | None, note: str | None, json: bool) -> None:
    """JSON for scripts; else the block verbatim on stdout (no console wrapping: it is the exact text
    the model would see) and the notes and provenance on stderr."""
    if json:
        print_json({"block": block, "provenance": provenance, "skipped": skipped, "note": note})
        return
    if block:
        sys.stdout.write(block + "\n")
        sys.stdout.flush()
    if note:
        err_console.print(f"({note})", markup=False, highlight=False, soft_wrap=True)
    if provenance is not None:
        err_console.rule("provenance")
        err_console.print_json(data=provenance, default=str)
