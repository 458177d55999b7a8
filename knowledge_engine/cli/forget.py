"""`forget`: remove a fact, an entity, messages, a session or a filtered set from every index, for good."""

from __future__ import annotations

from typing import Annotated

import typer

from knowledge_engine.cli.common import (
    AgentOpt,
    ConfigOpt,
    JsonOpt,
    WorkspaceOpt,
    console,
    counted,
    fail,
    open_workspace,
    print_json,
    say,
    table,
)
from knowledge_engine.forget.coord import forget_final
from knowledge_engine.forget.stores import (
    ForgetError,
    ForgetPlan,
    plan_entity,
    plan_fact,
    plan_messages,
    plan_session,
)
from knowledge_engine.store.workspace import Workspace

EXIT_REMAINING = 3  # a forgotten name is still in some file
EXIT_NOT_FINAL = 5  # the host owning pending work did not confirm: it may still bring the name back


def _plan(
    ws: Workspace,
    fact: str | None,
    entity: str | None,
    message: list[str] | None,
    session: str | None,
    predicate: str | None,
    subject: str | None,
    below: float | None,
    delete_messages: bool,
    also: list[str],
) -> ForgetPlan:
    chosen = [x for x in (fact, entity, message, session) if x]
    if len(chosen) > 1:
        fail("give one of --fact, --entity, --message, --session (or only filters)")
    try:
        if fact:
            return plan_fact(ws, fact)
        if entity:
            return plan_entity(ws, entity, delete_messages, also)
        if message:
            return plan_messages(ws, message)
        if session:
            return plan_session(ws, session)
    except ForgetError as exc:
        fail(str(exc))
    if predicate is None and subject is None and below is None:
        fail(
            "say what to forget: --fact ID, --entity NAME, --message ID, --session KEY, "
            "or filters (--predicate, --subject, --below-relevance)"
        )
    from knowledge_engine.model.records import canonical

    ids = [
        f.id
        for f in ws.facts.all()
        if (predicate is None or f.predicate == predicate)
        and (subject is None or canonical(f.subject) == canonical(subject) or f.subject_id == subject)
        and (below is None or f.relevance < below)
    ]
    return ForgetPlan(facts=ids)


_NOUNS = {
    "facts": ("fact", "facts"),
    "entities": ("entity", "entities"),
    "aliases_removed": ("alias", "aliases"),
}


def _counted_part(key: str, n: int) -> str:
    """'1 entity', '4 messages redacted' for the confirmation question (it said '1 entities')."""
    if key.startswith("messages_"):
        return f"{counted(n, 'message')} {key.removeprefix('messages_')}"
    one, many = _NOUNS.get(key, (key, key))
    return counted(n, one, many) + (" removed" if key == "aliases_removed" else "")


def forget(
    workspace: WorkspaceOpt = None,
    config: ConfigOpt = None,
    agent: AgentOpt = None,
    fact: Annotated[str | None, typer.Option(help="Forget this fact id.")] = None,
    entity: Annotated[
        str | None,
        typer.Option(
            help="Forget this entity (name or id), every fact naming it, and "
            "redact the messages mentioning it."
        ),
    ] = None,
    message: Annotated[
        list[str] | None, typer.Option(metavar="ID", help="Forget this message id (repeatable).")
    ] = None,
    session: Annotated[
        str | None, typer.Option(help="Forget every message of this session and facts only it supports.")
    ] = None,
    predicate: Annotated[str | None, typer.Option(help="Filter: facts with this predicate.")] = None,
    subject: Annotated[str | None, typer.Option(help="Filter: facts about this subject.")] = None,
    below_relevance: Annotated[
        float | None, typer.Option(min=0.0, max=1.0, help="Filter: facts below this relevance (0..1).")
    ] = None,
    also: Annotated[
        list[str] | None,
        typer.Option(
            metavar="NAME",
            help="With --entity: another name for it to remove too (a first name, a nickname).",
        ),
    ] = None,
    delete_messages: Annotated[
        bool,
        typer.Option(
            "--delete-messages",
            help="With --entity: delete the messages mentioning it instead of redacting the name.",
        ),
    ] = False,
    wait: Annotated[
        float,
        typer.Option(
            metavar="SECONDS",
            help="How long to wait for a running host to apply the forget to its pending work.",
        ),
    ] = 60.0,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Only show what would be forgotten.")] = False,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation.")] = False,
    json: JsonOpt = False,
) -> None:
    """Forget for good: removes from facts, entities, the message log and Chroma, rewrites backups and
    vacuums the databases, so no byte of it stays in the workspace."""
    ws = open_workspace(workspace, config, agent)
    plan = _plan(
        ws, fact, entity, message, session, predicate, subject, below_relevance, delete_messages, also or []
    )
    summary = plan.summary()
    if dry_run or plan.empty:
        if json:
            print_json({"dry_run": True, **summary, "ids": plan.to_dict()})
        else:
            table(
                "would forget" if not plan.empty else "nothing matches",
                ["what", "count"],
                [[k, v] for k, v in summary.items()],
            )
        return
    if not yes:
        what = ", ".join(_counted_part(k, v) for k, v in summary.items() if v)
        try:
            agreed = typer.confirm(f"Forget {what}? This cannot be undone", err=True)
        except typer.Abort:  # nothing to answer with (stdin closed, a script): it said only "Aborted!"
            fail("nothing forgotten: no answer to the question (stdin is closed); pass --yes in a script", 1)
        if not agreed:
            fail("nothing forgotten", 1)
    try:
        report = forget_final(ws, plan, wait)
    except TimeoutError:  # a maintenance store job (decay, prune, compact) kept the store past the timeout
        fail(
            "not final: a maintenance job is rewriting the store (its lock stayed held for "
            "maintenance.lockTimeoutSeconds); the stores were not changed. Run forget again.",
            EXIT_NOT_FINAL,
        )
    except OSError as exc:  # a store file could not be rewritten (disk full, a folder in its way)
        ws.closed = True  # no retry of the same write at exit
        fail(
            f"not final: {exc.filename or ws.folder} could not be written ({type(exc).__name__}: "
            f"{exc.strerror}), so the forgotten content may still be in the store files. Fix that and "
            "run forget again.",
            EXIT_NOT_FINAL,
        )
    ws.close()
    summary = report.plan
    if json:
        print_json(
            {
                "dry_run": False,
                **summary,
                "chroma_deleted": report.chroma_deleted,
                "chroma_queue_scrubbed": report.chroma_scrubbed,
                "chroma_rebuilt": report.chroma_rebuilt,
                "files_removed": report.files_removed,
                "remaining": report.remaining,
                "wal_truncated": report.wal_truncated,
                "tables_rewritten": report.vacuumed,
                "pending_applied_by": report.pending_by,
                "pending": report.pending.model_dump(),
                "final": report.final,
            }
        )
    else:
        table(
            "forgotten",
            ["what", "count"],
            [[k, v] for k, v in summary.items()]
            + [
                ["chroma records", report.chroma_deleted],
                ["chroma vectors rewritten", report.chroma_rebuilt],
                ["stale copies removed", len(report.files_removed)],
                ["pending messages redacted", report.pending.redacted],
                ["pending messages dropped", report.pending.dropped],
            ],
        )
        if report.pending_by in ("host_timeout", "host_failed"):
            why = (
                f"did not confirm within {wait:g} s"
                if report.pending_by == "host_timeout"
                else "could not apply it (see its log)"
            )
            say(
                ("not final:", "red"),
                f" the host running on this workspace {why}; what it still holds may "
                "bring the forgotten content back. The stores and indexes were cleaned: run forget again.",
                err=True,
            )
        if report.remaining:
            say(("still found in:", "yellow"), " ", ", ".join(report.remaining), err=True)
        elif report.final:
            console.print(
                "no file in the workspace contains the forgotten names any more" if plan.terms else "done"
            )
    if report.pending_by in ("host_timeout", "host_failed"):
        raise typer.Exit(EXIT_NOT_FINAL)
    if report.remaining:
        raise typer.Exit(EXIT_REMAINING)
