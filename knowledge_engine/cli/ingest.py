"""`ingest`: backfill a workspace from a transcript through the same pipeline as the hooks."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from knowledge_engine.cli.common import (
    AgentOpt,
    ConfigOpt,
    JsonOpt,
    WorkspaceOpt,
    agent_of,
    check_readable,
    err_console,
    fail,
    load_cfg,
    print_json,
    progress_bar,
    resolve_folder,
)
from knowledge_engine.engine import KnowledgeEngine
from knowledge_engine.transcript import TranscriptReport, count_lines, read_transcript


def ingest(
    transcript: Annotated[
        Path,
        typer.Argument(help="JSONL file: one {id, role, text, timestamp?, session?, speaker?} per line."),
    ],
    workspace: WorkspaceOpt = None,
    config: ConfigOpt = None,
    agent: AgentOpt = None,
    json: JsonOpt = False,
) -> None:
    """Backfill a workspace from a transcript; bad lines are reported with their number and skipped."""
    cfg = load_cfg(config)
    folder = resolve_folder(cfg, workspace, agent)
    if not transcript.is_file():
        fail(f"transcript {transcript} not found")
    engine = KnowledgeEngine(cfg, ingest_owner=False)  # a host may be running on this workspace
    ws = engine.open_workspace(folder, agent_of(folder, cfg, agent))
    check_readable(ws)  # a store file that is not the engine's: a clear error, not a memory-only ingest
    report = TranscriptReport()
    total = count_lines(transcript)
    batch = []
    with progress_bar("ingesting", json) as progress:
        task = progress.add_task("ingest", total=total)
        for msg in read_transcript(transcript, report):
            batch.append(msg)
            if len(batch) >= 256:
                engine.ingest(ws, batch)
                progress.advance(task, len(batch))
                batch = []
        if batch:
            engine.ingest(ws, batch)
            progress.advance(task, len(batch))
    engine.flush(timeout_s=60)
    engine.stop(timeout_s=30)
    result = {
        "workspace": str(folder),
        "messages": report.read,
        "skipped_lines": len(report.errors),
        "errors": report.errors[:100],
        "entities": len(ws.entities),
        "facts": len(ws.facts),
    }
    if json:
        print_json(result)
    else:
        for e in report.errors[:20]:
            err_console.print(f"[yellow]skipped[/] {e}")
        err_console.print(
            f"ingested {report.read} messages into {folder}: "
            f"{len(ws.entities)} entities, {len(ws.facts)} facts"
        )
