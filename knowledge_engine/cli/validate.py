"""`validate`: integrity of a workspace; exits 1 with the list of problems; `--repair` fixes what it can."""

from __future__ import annotations

from typing import Annotated

import typer

from knowledge_engine.cli.common import (
    AgentOpt,
    ConfigOpt,
    JsonOpt,
    WorkspaceOpt,
    console,
    open_engine,
    open_workspace,
    print_json,
    table,
)


def validate(
    workspace: WorkspaceOpt = None,
    config: ConfigOpt = None,
    agent: AgentOpt = None,
    repair: Annotated[
        bool,
        typer.Option(
            "--repair",
            help="Fix what can be fixed: dangling references are "
            "cleared, missing evidence dropped, the Chroma index re-synced.",
        ),
    ] = False,
    no_index: Annotated[
        bool, typer.Option("--no-index", help="Skip the Chroma drift check (no embedder, faster).")
    ] = False,
    json: JsonOpt = False,
) -> None:
    """Check schema, references (facts -> entities, evidence -> messages) and Chroma drift; exit 1 if bad."""
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
    if json:
        print_json(report.to_dict())
    else:
        if report.repaired:
            console.print("repaired: " + ", ".join(f"{k}={n}" for k, n in report.repaired.items()))
        if report.problems:
            table(
                f"{len(report.problems)} problems",
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
            console.print(f"ok: {', '.join(f'{n} {k}' for k, n in report.checked.items())} checked")
    if not report.ok:
        raise typer.Exit(1)
