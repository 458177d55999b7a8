"""`sync`: bring the Chroma index in line with the stores; `docs ingest`: load documents into pgvector."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from knowledge_engine.cli.common import (
    AgentOpt,
    ConfigOpt,
    JsonOpt,
    WorkspaceOpt,
    fail,
    load_cfg,
    open_engine,
    print_json,
    progress_bar,
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
        with progress_bar("syncing", json) as progress:
            task = progress.add_task("sync", total=None)

            def tick(done: int, total: int) -> None:
                progress.update(task, completed=done, total=total)

            report = _rebuild(engine, ws, tick) if rebuild else engine.sync(ws, progress=tick)
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


def _rebuild(engine: Any, ws: Any, tick: Any) -> Any:
    """--rebuild also works when the index was built with another model (the normal open refuses it)."""
    from knowledge_engine.index import sync as sync_mod
    from knowledge_engine.index.chroma import ChromaIndex

    index = ChromaIndex.for_rebuild(ws.folder, ws.agent_id, engine.config, engine.embedder)
    msgs = ws.messages.iter() if (ws.folder / "messages.sqlite3").exists() else iter(())
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
        report = ingest_with_config(cfg, paths, collection)
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
