"""`ingest`: backfill a workspace from a transcript through the same pipeline as the hooks.

Exit codes: 0 every line ingested; 1 the transcript cannot be read (not found, a directory, not in
its encoding) or a bad option; 3 ingested, but some lines were skipped (not a message, or an id
already stored with a different text), each reported with its line number; 4 a store file is not the
engine's; 130 stopped by Ctrl-C after the current chunk (what was read is stored). LLM batches left
parked (`--no-wait-llm`, `--llm-timeout`) are said, not an error: they are on disk and delivered later.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any

import typer

from knowledge_engine.cli.common import (
    EXIT_SKIPPED,
    AgentOpt,
    ConfigOpt,
    JsonOpt,
    WorkspaceOpt,
    agent_of,
    check_readable,
    counted,
    creatable_folder,
    err_console,
    fail,
    fail_if_unwritten,
    load_cfg,
    make_folder,
    print_json,
    progress,
    resolve_folder,
)
from knowledge_engine.engine import KnowledgeEngine
from knowledge_engine.ingest.backfill import Backfill, LlmOutcome
from knowledge_engine.ingest.transcript import (
    TranscriptError,
    TranscriptInfo,
    TranscriptReport,
    inspect_transcript,
    json_array_items,
    read_numbered,
)
from knowledge_engine.store.backend import is_shared

CHUNK = 256
EXIT_INTERRUPTED = 130  # as a shell reports a command ended by Ctrl-C
RETRY_HINT = "delivered by `knowledge-engine maintain --once --job llm_retry` or the next start"
NO_WAIT_HELP = "Do not wait for the LLM tier: its batches are parked on disk and delivered later."
TIMEOUT_HELP = "Wait at most this many seconds for the LLM tier (default: until it is done), then park."


def ingest(
    transcript: Annotated[
        Path,
        typer.Argument(help="JSONL file: one {id, role, text, timestamp?, session?, speaker?} per line."),
    ],
    workspace: WorkspaceOpt = None,
    config: ConfigOpt = None,
    agent: AgentOpt = None,
    no_wait_llm: Annotated[bool, typer.Option("--no-wait-llm", help=NO_WAIT_HELP)] = False,
    llm_timeout: Annotated[
        float | None, typer.Option("--llm-timeout", min=0, metavar="SECONDS", help=TIMEOUT_HELP)
    ] = None,
    json: JsonOpt = False,
) -> None:
    """Backfill a workspace from a transcript; bad lines are reported with their number and skipped.

    Exit 0: all ingested; 1: the transcript cannot be read; 3: some lines skipped (listed); 4: a store
    file is not the engine's; 130: stopped by Ctrl-C (what was read is stored; run it again to finish).
    """
    cfg = load_cfg(config)
    folder = creatable_folder(resolve_folder(cfg, workspace, agent))
    try:
        info = inspect_transcript(transcript)
    except TranscriptError as exc:
        fail(str(exc))
    items = json_array_items(transcript, info.codec)
    if items is not None:  # refused before anything is created
        fail(
            f"transcript {transcript} is one JSON array ({items} items), not JSONL (one message object a "
            f"line): convert it first, e.g. `jq -c '.[]' {transcript} > {_converted(transcript)}`"
        )
    make_folder(folder)
    engine = KnowledgeEngine(cfg, ingest_owner=False)  # a host may be running on this workspace
    ws = engine.open_workspace(folder, agent_of(folder, cfg, agent))
    check_readable(ws)  # a store file that is not the engine's: a clear error, not a memory-only ingest
    run = Backfill(engine, ws)
    report = TranscriptReport()
    with progress("ingesting", total=info.lines, quiet=json) as task, _stop_on_ctrl_c() as stop:
        chunk: list[Any] = []
        for numbered in read_numbered(transcript, report):
            chunk.append(numbered)
            if len(chunk) >= CHUNK:
                run.add(chunk)
                task.update(report.read + len(report.errors))
                chunk = []
                if stop.is_set():
                    break
        else:
            if chunk:
                run.add(chunk)
            task.update(info.lines)
    interrupted = stop.is_set()
    waited = _wait_llm(run, 0.0 if no_wait_llm or interrupted else llm_timeout, json)
    engine.flush(timeout_s=60)
    engine.stop(timeout_s=30)
    result = _result(folder, transcript, info, report, run, run.llm_outcome(waited))
    result["interrupted"] = interrupted
    if json:
        print_json(result)
    else:
        _print(result, report, run)
    if interrupted:
        fail(
            f"interrupted (Ctrl-C) after {report.read + len(report.errors)} of {info.lines} lines; what was "
            "read is stored. Run the same ingest again to finish: stored lines are recognised",
            EXIT_INTERRUPTED,
        )
    fail_if_unwritten(
        ws,
        folder,
        "the entities and facts of this run are not saved. Its messages are in the message log: run the "
        "same ingest again once the folder can be written, and they are extracted again",
    )
    if report.errors or run.tally.conflicts:
        raise typer.Exit(EXIT_SKIPPED)


def _converted(path: Path) -> Path:
    """Where the suggested conversion writes: never the file it reads (`> same.jsonl` would empty it)."""
    if path.suffix == ".jsonl":
        return path.with_name(f"{path.stem}.lines.jsonl")
    return path.with_suffix(".jsonl")


@contextlib.contextmanager
def _stop_on_ctrl_c() -> Iterator[threading.Event]:
    """The first Ctrl-C ends the read after the current chunk, which is stored and counted; the second
    aborts. Without it, Ctrl-C unwound through the worker threads and the process died with a C++
    'terminate called without an active exception' and no summary."""
    stop = threading.Event()
    if threading.current_thread() is not threading.main_thread():
        yield stop
        return

    def on_interrupt(_signum: int, _frame: Any) -> None:
        if stop.is_set():
            raise KeyboardInterrupt
        stop.set()
        err_console.print("stopping after this chunk (Ctrl-C again to abort)", soft_wrap=True)

    previous = signal.signal(signal.SIGINT, on_interrupt)
    try:
        yield stop
    finally:
        signal.signal(signal.SIGINT, previous)


def _wait_llm(run: Backfill, timeout: float | None, quiet: bool) -> bool:
    """The LLM tier's batches answered (a bar of its messages), or parked at the timeout or on Ctrl-C."""
    if run.engine.llm_batcher(run.ws) is None:
        return True
    if timeout == 0:
        return run.wait_llm(0.0)
    try:
        with progress("LLM tier: messages answered", quiet=quiet) as task:
            return run.wait_llm(timeout, task.update if task.shown else None)
    except KeyboardInterrupt:  # what is left is parked and said, like with --llm-timeout
        return run.wait_llm(0.0)


def _result(
    folder: Path,
    transcript: Path,
    info: TranscriptInfo,
    report: TranscriptReport,
    run: Backfill,
    llm: LlmOutcome | None,
) -> dict[str, Any]:
    t = run.tally
    llm_part = (
        None
        if llm is None
        else {
            "waited": llm.waited,
            "delivered_batches": llm.delivered_batches,
            "delivered_messages": llm.delivered_messages,
            "pending_batches": llm.pending_batches,
            "failed_batches": llm.failed_batches,
            "failed_calls": llm.failed_calls,
        }
    )
    return {
        "workspace": str(folder),
        "transcript": {"path": str(transcript), "encoding": info.encoding, "lines": info.lines},
        "messages": t.new + t.already_stored,
        "messages_new": t.new,
        "messages_already_stored": t.already_stored,
        "messages_conflicting": len(t.conflicts),
        "conflicts": [{"line": c.line, "id": c.id, "first_line": c.first_line} for c in t.conflicts[:100]],
        "skipped_lines": len(report.errors) + len(t.conflicts),
        "errors": report.errors[:100],
        **run.added(),
        "llm": llm_part,
    }


def _say(text: str) -> None:
    err_console.print(text, soft_wrap=True)  # one line per message, whatever the terminal width


def _print(result: dict[str, Any], report: TranscriptReport, run: Backfill) -> None:
    for e in report.errors[:20]:
        _say(f"skipped {e}")
    for c in run.tally.conflicts[:20]:
        _say(f"skipped {c.describe()}")
    hidden = max(0, len(report.errors) - 20) + max(0, len(run.tally.conflicts) - 20)
    if hidden > 0:
        _say(f"... and {hidden} more skipped lines (all of them with --json)")
    r = result
    line = (
        f"ingested {counted(r['messages'], 'message')} from {r['transcript']['path']} "
        f"({r['transcript']['encoding']}) into {r['workspace']}: {r['messages_new']} new, "
        f"{r['messages_already_stored']} already stored"
    )
    if r["skipped_lines"]:
        conflicting = r["messages_conflicting"]
        line += f"; {counted(r['skipped_lines'], 'line')} skipped ({conflicting} with a conflicting id)"
    _say(line)
    _say(
        f"added {counted(r['entities_added'], 'entity', 'entities')} and {counted(r['facts_added'], 'fact')} "
        f"(the workspace now holds {counted(r['entities_total'], 'entity', 'entities')}, "
        f"{counted(r['facts_total'], 'fact')})"
    )
    llm = r["llm"]
    if llm is not None:
        failed = f"; {llm['failed_calls']} calls failed (see the log)" if llm["failed_calls"] else ""
        _say(
            f"LLM tier: {llm['delivered_batches']} batches delivered ({llm['delivered_messages']} messages)"
            + failed
        )
        shared = is_shared(run.ws.config.storage)  # parked as rows any node sends, not as this node's files
        if llm["pending_batches"]:
            where = "in the shared database" if shared else f"in {r['workspace']}/llm-pending"
            _say(
                f"LLM tier: {llm['pending_batches']} batches parked {where}, "
                f"{RETRY_HINT} of the host or of `ingest`"
            )
        if llm["failed_batches"]:
            _say(
                f"LLM tier: {llm['failed_batches']} messages set aside after unusable answers "
                + ("(ke_parked rows with state 'failed')" if shared else "(llm-pending/*.failed)")
            )
