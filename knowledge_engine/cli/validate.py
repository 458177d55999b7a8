"""`validate`: integrity of a workspace; exits 1 with the list of problems; `--repair` fixes what it can."""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from knowledge_engine.cli.common import (
    AgentOpt,
    ConfigOpt,
    JsonOpt,
    WorkspaceOpt,
    counted,
    fail_if_unwritten,
    load_cfg,
    open_engine,
    open_workspace,
    print_json,
    resolve_folder,
    say,
    table,
)
from knowledge_engine.store.backend import is_shared

if TYPE_CHECKING:
    from knowledge_engine.validate import ValidationReport


@contextlib.contextmanager
def local_folder(
    workspace: Path | None, config: Path | None, agent: str | None
) -> Iterator[tuple[Path | None, str | None]]:
    """(--workspace, --agent) to open. On the shared store the records are in the database and the
    folder only holds this machine's journal and caches, so a node without one (as `stats`) checks
    through a throwaway folder, removed afterwards: validate makes no folder. Files: unchanged (a
    missing folder is refused by open_workspace, a typo must not make an empty store)."""
    cfg = load_cfg(config)
    if not is_shared(cfg.storage):
        yield workspace, agent
        return
    folder = resolve_folder(cfg, workspace, agent)
    if folder.is_dir():
        yield workspace, agent
        return
    with tempfile.TemporaryDirectory(prefix="ke-validate-") as tmp:
        yield Path(tmp), agent  # no --agent: `default`, as the missing folder would give


def validate(
    workspace: WorkspaceOpt = None,
    config: ConfigOpt = None,
    agent: AgentOpt = None,
    repair: Annotated[
        bool,
        typer.Option(
            "--repair",
            help="Fix what can be fixed: dangling references are "
            "cleared, missing evidence dropped, the vector index (Chroma or pgvector) re-synced.",
        ),
    ] = False,
    no_index: Annotated[
        bool, typer.Option("--no-index", help="Skip the vector index drift check (no embedder, faster).")
    ] = False,
    json: JsonOpt = False,
) -> None:
    """Check schema, references (facts -> entities, evidence -> messages) and vector index drift; exit 1
    if bad. On the postgres backend no local folder is needed (the records are in the database)."""
    with local_folder(workspace, config, agent) as (folder, agent_id):
        report = _check(folder, config, agent_id, repair, no_index)
    if json:
        print_json(report.to_dict())
    else:
        if report.repaired:
            say("repaired: " + ", ".join(f"{k}={n}" for k, n in report.repaired.items()))  # one line
        if report.problems:
            table(
                counted(len(report.problems), "problem"),
                ["kind", "id", "detail", "fixable", "severity"],
                [
                    [
                        p.kind,
                        p.id,
                        p.detail,
                        "yes" if p.repairable else "no",
                        "warning" if p.warning else "error",
                    ]
                    for p in report.problems[:500]
                ],
            )
        else:
            say(f"ok: {', '.join(f'{n} {k}' for k, n in report.checked.items())} checked")
    if not report.ok:
        raise typer.Exit(1)


def _check(
    workspace: Path | None, config: Path | None, agent: str | None, repair: bool, no_index: bool
) -> ValidationReport:
    """Validate (and with `repair`, fix, then validate again) the workspace the options name."""
    from knowledge_engine import validate as v

    engine = None
    if repair and not no_index:
        engine, ws = open_engine(workspace, config, agent)
    else:
        ws = open_workspace(workspace, config, agent)
    report = v.validate(ws, check_index=not no_index)
    if repair and report.problems:
        v.repair(ws, report, engine)
        repaired = report.repaired
        report = v.validate(ws, check_index=not no_index)
        report.repaired = repaired
    if engine is not None:
        engine.stop(timeout_s=10)
    else:
        ws.close()
    fail_if_unwritten(
        ws,
        ws.folder,
        "the repairs are not saved (a check of what is in memory would pass). Fix that and run validate "
        "--repair again",
    )
    return report
