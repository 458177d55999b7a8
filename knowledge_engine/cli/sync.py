"""`sync`: bring the Chroma index in line with the stores; `docs ingest`: load documents into pgvector."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from knowledge_engine.cli.common import (
    AgentOpt,
    ConfigOpt,
    JsonOpt,
    ProgressTask,
    WorkspaceOpt,
    fail,
    has_messages,
    load_cfg,
    open_engine,
    print_json,
    progress,
    say,
    table,
)


def sync(
    workspace: WorkspaceOpt = None,
    config: ConfigOpt = None,
    agent: AgentOpt = None,
    rebuild: Annotated[
        bool,
        typer.Option(
            "--rebuild",
            help="Drop the index and embed everything again (needed after changing the embedding model).",
        ),
    ] = False,
    json: JsonOpt = False,
) -> None:
    """Embed new or changed facts and messages into Chroma and delete the gone ones (incremental)."""
    engine, ws = open_engine(workspace, config, agent)
    if not engine.config.embeddings.enabled:
        fail("embeddings are disabled in this config (embeddings.enabled = false)")
    try:
        with progress("opening the index", quiet=json) as task:
            report = _run(engine, ws, rebuild, task)
    except Exception as exc:
        engine.stop(timeout_s=5)
        fail(f"sync failed: {exc}")
    engine.stop(timeout_s=10)
    if json:
        print_json(report.to_dict())
        return
    rows = [
        [kind, c["embedded"], c["updated"], c["deleted"], c["unchanged"]]
        for kind, c in report.per_kind.items()
    ]
    table(
        f"sync done in {report.duration_ms:.0f} ms",
        ["kind", "embedded", "updated", "deleted", "unchanged"],
        rows,
    )


def sync_folder(folder: Path, cfg: Any, agent_id: str, quiet: bool) -> dict[str, Any] | None:
    """Index a workspace another command just filled (`import`), with the progress bar `sync` shows.
    None (after a warning that says how to catch up) when the index cannot be reached: what was
    written stays written."""
    from knowledge_engine.engine import KnowledgeEngine

    engine = KnowledgeEngine(cfg, ingest_owner=False)
    try:
        ws = engine.open_workspace(folder, agent_id)
        with progress("opening the index", quiet=quiet) as task:
            report = _run(engine, ws, False, task)
    except Exception as exc:
        engine.stop(timeout_s=5)
        say(
            f"warning: the vector index was not updated ({type(exc).__name__}); "
            "run `knowledge-engine sync` to catch up",
            err=True,
        )
        return None
    engine.stop(timeout_s=10)
    return dict(report.to_dict())


def _run(engine: Any, ws: Any, rebuild: bool, task: ProgressTask) -> Any:
    """Open the index, compare, then embed with a count: each slow step names itself on the bar."""
    from knowledge_engine.index import sync as sync_mod
    from knowledge_engine.index.vector_index import open_vector_index

    # --rebuild opens (and empties) the index even when it was built with another model
    index = (
        open_vector_index(ws.folder, ws.agent_id, engine.config, engine.embedder, rebuild=True)
        if rebuild
        else engine.chroma(ws)
    )
    task.phase("comparing the stores with the index")
    started = False

    def tick(done: int, total: int) -> None:
        nonlocal started
        if not started:
            started = True
            task.phase("embedding" if rebuild else "syncing")
        task.update(done, total)

    msgs = ws.messages.iter() if has_messages(ws) else iter(())
    return sync_mod.sync(index, ws.facts.all(), msgs, tick)


docs_app = typer.Typer(
    help="Documents in the pgvector store (the `pgvector` config section).", no_args_is_help=True
)


@docs_app.command("ingest")
def docs_ingest(
    paths: Annotated[
        list[Path], typer.Argument(help="Files to chunk, embed and store (.txt, .md, .pdf, ...).")
    ],
    collection: Annotated[str, typer.Option(help="Collection name the documents are stored under.")],
    root: Annotated[
        Path | None,
        typer.Option(
            help="Files are named by their path relative to this folder (default: the deepest folder"
            " holding every given file). Keep it the same across runs so names stay stable."
        ),
    ] = None,
    recreate: Annotated[
        bool,
        typer.Option(
            help="If pgvector.table stores vectors of another dimension, drop it and re-create it"
            " (deletes every collection in that table)."
        ),
    ] = False,
    config: ConfigOpt = None,
    json: JsonOpt = False,
) -> None:
    """Chunk, embed and store documents in pgvector (uses pgvector.url and its embeddings settings)."""
    from knowledge_engine.documents.ingest import ingest_with_config

    cfg = load_cfg(config)
    missing = [str(p) for p in paths if not p.exists()]
    if missing:
        fail(f"not found: {', '.join(missing)}")
    try:
        report = ingest_with_config(cfg, paths, collection, root=root, recreate=recreate)
    except ValueError as exc:
        fail(str(exc), 2)
    except Exception as exc:
        fail(f"docs ingest failed: {type(exc).__name__}: {exc}")
    data = report.as_dict()
    if json:
        print_json(data)
        return
    table(
        "documents",
        ["what", "value"],
        [[k, v if not isinstance(v, list | dict) else len(v)] for k, v in data.items()],
    )
