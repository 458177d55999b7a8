"""`decay`, `prune`, `compact` (one job each) and `maintain --once | --daemon` (every job).

Safe next to a running host: a job the plugin (or another cron run) is running on the same
workspace is skipped and recorded as "running elsewhere"; store changes merge with the host's.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC
from typing import Annotated, Any

import typer

from knowledge_engine.cli.common import (
    AgentOpt,
    ConfigOpt,
    JsonOpt,
    WorkspaceOpt,
    fail,
    open_engine,
    print_json,
    table,
)
from knowledge_engine.maintenance.jobs import JOB_ORDER, RunContext
from knowledge_engine.maintenance.runs import Record, run_all

ONCE_HELP = "Run every job once and exit (for cron or a systemd timer); exits 1 if a job failed."
DAEMON_HELP = "Keep running the jobs on their schedules until SIGTERM/SIGINT, then flush and exit 0."
JOB_HELP = f"With --once: only this job (repeatable): {', '.join(JOB_ORDER)}."


def _show(records: list[Record], json: bool) -> None:
    """Print the records; exit 1 when a job failed (cron and systemd then report it)."""
    if json:
        print_json(records)
    else:
        rows = [[r["job"], r["status"], r["duration_ms"], _changed(r), r.get("error") or r.get("reason")]
                for r in records]
        table("maintenance", ["job", "status", "ms", "changed", "note"], rows)
    if any(r["status"] == "error" for r in records):
        raise typer.Exit(1)


def _changed(rec: Record) -> str:
    return ", ".join(f"{k}={v}" for k, v in rec["changed"].items())


@contextmanager
def _stop_on_signals(cancel: threading.Event) -> Iterator[None]:
    """SIGTERM/SIGINT ask the running job to stop at its next safe point instead of killing it mid-write."""
    previous = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGINT)}
    in_main = threading.current_thread() is threading.main_thread()
    if in_main:
        for s in previous:
            signal.signal(s, lambda *_: cancel.set())
    try:
        yield
    finally:
        if in_main:
            for s, h in previous.items():
                signal.signal(s, h)


def _run(names: Any, workspace: Any, config: Any, agent: Any) -> list[Record]:
    """The jobs once; a signal (even while the store is still loading) stops at the next safe point."""
    ctx = RunContext()
    with _stop_on_signals(ctx.cancel):
        engine, ws = open_engine(workspace, config, agent)
        try:
            return run_all(engine, ws, names, ctx)
        finally:
            engine.stop(timeout_s=30)


def _one(name: str, workspace: Any, config: Any, agent: Any, json: bool) -> None:
    _show(_run([name], workspace, config, agent), json)


def decay(workspace: WorkspaceOpt = None, config: ConfigOpt = None, agent: AgentOpt = None,
          json: JsonOpt = False) -> None:
    """Apply relevance decay for every whole interval elapsed since the last one (catches up exactly)."""
    _one("decay", workspace, config, agent, json)


def prune(workspace: WorkspaceOpt = None, config: ConfigOpt = None, agent: AgentOpt = None,
          json: JsonOpt = False) -> None:
    """Drop facts above storage.maxFacts and entities above maxEntities, least relevant first."""
    _one("prune", workspace, config, agent, json)


def compact(workspace: WorkspaceOpt = None, config: ConfigOpt = None, agent: AgentOpt = None,
            json: JsonOpt = False) -> None:
    """Rewrite the store files (trim evidence, drop old deletion markers) and VACUUM the message log."""
    _one("compact", workspace, config, agent, json)


def maintain(
    workspace: WorkspaceOpt = None, config: ConfigOpt = None, agent: AgentOpt = None,
    once: Annotated[bool, typer.Option("--once", help=ONCE_HELP)] = False,
    daemon: Annotated[bool, typer.Option("--daemon", help=DAEMON_HELP)] = False,
    job: Annotated[list[str] | None, typer.Option("--job", metavar="JOB", help=JOB_HELP)] = None,
    json: JsonOpt = False,
) -> None:
    """Run the maintenance jobs: decay, prune, compact, Chroma sync, message retention, LLM retry.

    --once suits cron or a systemd timer; --daemon keeps them on their schedules. Safe while the host
    runs: a job it is running right now is skipped (recorded as "running elsewhere"). See `stats`.
    """
    if once == daemon:
        fail("give exactly one of --once or --daemon")
    unknown = sorted(set(job or ()) - set(JOB_ORDER))
    if unknown:
        fail(f"unknown job {', '.join(unknown)}; jobs: {', '.join(JOB_ORDER)}")
    if daemon and job:
        fail("--job works with --once only: --daemon runs every job on its schedule")
    if daemon:
        _daemon(workspace, config, agent)
        return
    _show(_run(job or JOB_ORDER, workspace, config, agent), json)


def _daemon(workspace: Any, config: Any, agent: Any) -> None:
    """BlockingScheduler in the foreground; a signal stops scheduling, lets the running job reach a safe
    point (or abandons it after maintenance.stopGraceSeconds), flushes and exits 0."""
    from apscheduler.events import EVENT_JOB_EXECUTED
    from apscheduler.executors.pool import ThreadPoolExecutor
    from apscheduler.schedulers.blocking import BlockingScheduler

    from knowledge_engine.maintenance.scheduler import MaintenanceScheduler

    sched = MaintenanceScheduler(
        BlockingScheduler(timezone=UTC, executors={"default": ThreadPoolExecutor(1)},
                          job_defaults={"coalesce": True, "max_instances": 1}),
        startup_delay_s=0,
    )
    stopping = threading.Event()

    def stop_when_started() -> None:
        for _ in range(200):  # a signal just before start(): shut down once it runs (no-op if never started)
            if sched.scheduler.running:
                break
            time.sleep(0.05)
        sched.shutdown()

    def on_signal(signum: int, _frame: Any) -> None:
        if not stopping.is_set():
            stopping.set()
            sched.cancel_all()
            threading.Thread(target=stop_when_started, name="maintenance-stop", daemon=True).start()

    signal.signal(signal.SIGTERM, on_signal)  # before the (slow) store load: a stop then is clean too
    signal.signal(signal.SIGINT, on_signal)
    engine, ws = open_engine(workspace, config, agent)
    sched.attach(engine)
    sched.scheduler.add_listener(_print_run, EVENT_JOB_EXECUTED)
    print(f"maintenance daemon running for {ws.folder} (pid {os.getpid()})", flush=True)
    print(f"jobs: {_plan(engine.config)}; one line per run below (also in `stats`)", flush=True)
    if not stopping.is_set():
        sched.scheduler.start()  # returns once a signal shut it down
    idle = sched.wait_idle(engine.config.maintenance.stop_grace_seconds)
    stopper = threading.Thread(target=engine.stop, args=(10.0,), name="maintenance-flush", daemon=True)
    stopper.start()
    stopper.join(15)
    print("maintenance daemon stopped" + ("" if idle else " (a running job was abandoned)"), flush=True)
    if not idle or stopper.is_alive():
        os._exit(0)  # the abandoned job's thread would hold the interpreter open; files are atomic
    raise typer.Exit(0)


def _plan(config: Any) -> str:
    """'decay every 24 h, prune every 6 h, sync every 15 min, ...': what the daemon will do, and when."""
    from knowledge_engine.maintenance.scheduler import job_plan

    def every(seconds: float) -> str:
        return f"{seconds / 3600:g} h" if seconds >= 3600 else f"{seconds / 60:g} min"

    return ", ".join(f"{name} every {every(seconds)}" for name, seconds in job_plan(config))


def _print_run(event: Any) -> None:
    """One line per finished job on stdout (a journal under systemd): without it the daemon said nothing
    between its start and its stop. Counts and reasons only, as the run records."""
    rec = event.retval
    if not isinstance(rec, dict):
        return
    note = rec.get("error") or rec.get("reason") or _changed(rec)
    print(f"{rec['started_at'][:19]}Z {rec['job']} {rec['status']} {rec['duration_ms']} ms"
          + (f": {note}" if note else ""), flush=True)


def register(app: typer.Typer) -> None:
    """Called by cli/app.py."""
    for fn in (decay, prune, compact, maintain):
        app.command(rich_help_panel="Maintain")(fn)
