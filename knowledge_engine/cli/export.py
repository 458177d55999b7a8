"""`export` to jsonl, csv, graphml, dot, mermaid or one self-contained html graph; `import` jsonl."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Annotated

import typer

from knowledge_engine.cli.common import (
    EXIT_SKIPPED,
    AgentOpt,
    ConfigOpt,
    JsonOpt,
    WorkspaceOpt,
    check_readable,
    creatable_folder,
    fail,
    fail_if_unwritten,
    load_cfg,
    make_folder,
    open_workspace,
    print_json,
    resolve_folder,
    say,
)
from knowledge_engine.export import FORMATS
from knowledge_engine.store.workspace import Workspace


def _chunks(ws: Workspace, fmt: str, what: str, history: bool, with_messages: bool) -> Iterable[bytes]:
    if fmt == "jsonl":
        from knowledge_engine.export.jsonl import lines

        return (line + b"\n" for line in lines(ws, with_messages))
    if fmt == "csv":
        from knowledge_engine.export.csv import entities_csv, facts_csv

        rows = entities_csv(ws) if what == "entities" else facts_csv(ws)
        return (r.encode() for r in rows)
    from knowledge_engine.export import dot, graphml, html, mermaid
    from knowledge_engine.export.graph import build

    g = build(ws.entities.all(), ws.facts.all(), include_history=history)
    render = {"graphml": graphml.render, "dot": dot.render, "mermaid": mermaid.render}
    text = html.render(g, f"knowledge of {ws.folder.name}") if fmt == "html" else render[fmt](g)
    return [text.encode()]


def export(
    workspace: WorkspaceOpt = None,
    config: ConfigOpt = None,
    agent: AgentOpt = None,
    format_: Annotated[str, typer.Option("--format", "-f", help=f"One of: {', '.join(FORMATS)}.")] = "jsonl",
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Write here instead of to stdout.")
    ] = None,
    what: Annotated[str, typer.Option(help="csv only: facts or entities.")] = "facts",
    history: Annotated[
        bool, typer.Option("--history", help="Graphs: also draw superseded facts (dashed).")
    ] = False,
    no_messages: Annotated[
        bool, typer.Option("--no-messages", help="jsonl: leave the message log out.")
    ] = False,
    json: Annotated[
        bool,
        typer.Option("--json", help="With --output: print what was written as JSON instead of a line."),
    ] = False,
) -> None:
    """Export what the agent knows; `--format html` writes one offline file with an interactive graph."""
    if format_ not in FORMATS:
        fail(f"--format must be one of {', '.join(FORMATS)}")
    if what not in ("facts", "entities"):
        fail("--what must be facts or entities")
    if json and output is None:
        fail("--json needs --output: without it, stdout carries the export itself", 2)
    ws = open_workspace(workspace, config, agent)
    chunks = _chunks(ws, format_, what, history, not no_messages)
    if output is None:
        for c in chunks:
            sys.stdout.buffer.write(c)
        sys.stdout.flush()
        return
    tmp = output.with_name(output.name + ".part")
    try:  # owner-only, as the workspace's own files: an export holds everything the agent knows
        tmp.unlink(missing_ok=True)  # a leftover of a killed run keeps its mode otherwise
        with open(tmp, "wb", opener=lambda p, flags: os.open(p, flags, 0o600)) as fh:
            for c in chunks:
                fh.write(c)
        tmp.replace(output)
    except OSError as exc:
        fail(f"cannot write {output}: {exc.strerror or type(exc).__name__}")
    size = output.stat().st_size
    if json:
        print_json({"output": str(output), "format": format_, "bytes": size})
    else:
        say(f"wrote {output} ({format_}, {size} bytes)", err=True)


def import_(
    file: Annotated[
        Path, typer.Argument(metavar="FILE.jsonl", help="An export made with `export --format jsonl`.")
    ],
    workspace: WorkspaceOpt = None,
    config: ConfigOpt = None,
    agent: AgentOpt = None,
    no_sync: Annotated[
        bool,
        typer.Option(
            "--no-sync",
            help="Leave the vector index to a later `sync` (search finds the restored records "
            "by their words only until then).",
        ),
    ] = False,
    json: JsonOpt = False,
) -> None:
    """Restore a jsonl export into a workspace (created if missing), then index it for search; bad lines
    are reported and skipped."""
    from knowledge_engine.export.importer import import_jsonl, looks_like_export
    from knowledge_engine.store.workspace import Workspace, safe_agent_id

    if not file.is_file():
        fail(f"{file} not found")
    if not looks_like_export(file):
        fail(
            f"{file} is not a jsonl export: its first line is not a record of `export --format jsonl` "
            "(a transcript goes in with `ingest`); nothing was imported"
        )
    cfg = load_cfg(config)
    folder = make_folder(creatable_folder(resolve_folder(cfg, workspace, agent)))
    ws = Workspace(folder, cfg, safe_agent_id(agent or "default"))
    check_readable(ws)
    report = import_jsonl(ws, file)
    agent_id = ws.agent_id
    ws.close()
    fail_if_unwritten(
        ws, folder, "the records are not restored. Fix that and run the import again (records merge by id)"
    )
    index = None
    if cfg.embeddings.enabled and not no_sync and (report.facts or report.messages):
        from knowledge_engine.cli.sync import sync_folder

        index = sync_folder(folder, cfg, agent_id, quiet=json)
    if json:
        print_json({**report.__dict__, "index": index})
    else:
        for e in report.errors[:20]:
            say(("skipped", "yellow"), " ", e, err=True)
        say(
            f"imported {report.entities} entities, {report.facts} facts, {report.messages} messages",
            " into ",
            folder,
            err=True,
        )
        if index is not None:
            say(f"indexed {index['embedded']} records for search ({index['duration_ms']:.0f} ms)", err=True)
    if report.errors:  # as `ingest`: a script must not take a partial restore for a whole one
        raise typer.Exit(EXIT_SKIPPED)
