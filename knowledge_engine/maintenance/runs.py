"""Running one maintenance job safely and recording it.

Why this shape:
- A job already running elsewhere (the plugin and a cron run or daemon on one workspace) is
  skipped, not run twice: a per-job lock file in `<workspace>/maintenance/`, taken with a
  non-blocking flock, which the kernel releases when a process dies, so a crash never leaves
  a stale lock.
- Store jobs change `facts.json` meta (`last_decay_at`, the run records). A table writes its
  whole meta when it changed any key, so every meta change happens under one blocking meta
  lock, right after a refresh from disk, and is flushed before the lock is released.
- Every run goes to `maintenance/runs.json` ({job: last record}, tiny, rewritten under a lock)
  and one line of `maintenance/history.jsonl` (bounded). Rewriting a 70 MB facts file just to
  note "sync: nothing to do" would cost seconds at 100k facts, so the records reach the facts
  meta key `maintenance_runs` (what `stats` shows) with the next store flush: every decay,
  every prune that removed something and every compact (the last job of a full run).
Records hold counts, times and error categories only, never text.

With the shared store (`storage.backend = postgres`) the nodes of one agent are on several machines:
the job lock and the meta lock are PostgreSQL advisory locks keyed by job and agent (see pglocks),
so `maintain --once` from cron on every node runs each job on one node at a time and the others
skip it ("running elsewhere", counted). The last run of each job is a row of `ke_meta` (kind
`maintenance`) that every node reads; the history stays in the local folder.
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import time
from collections.abc import Iterable
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from knowledge_engine.fsio import write_atomic
from knowledge_engine.maintenance.jobs import JOB_ORDER, JOBS, Cancelled, RunContext, SkipJob
from knowledge_engine.maintenance.locks import DIR, maintenance_dir, store_jobs_lock, try_lock, wait_lock
from knowledge_engine.model.records import utcnow
from knowledge_engine.observe import counters, emit, failure
from knowledge_engine.store.backend import is_shared

if TYPE_CHECKING:
    from knowledge_engine.config import PostgresStorageConfig
    from knowledge_engine.engine import KnowledgeEngine
    from knowledge_engine.store.workspace import Workspace

log = logging.getLogger("knowledge_engine.maintenance")

RUNS_FILE = "runs.json"
HISTORY_FILE = "history.jsonl"
META_KEY = "maintenance_runs"
HISTORY_KEEP = 500  # lines kept when the history is trimmed
HISTORY_MAX_BYTES = 256 * 1024
SKIPPED_ELSEWHERE = "running elsewhere"
RUNS_KIND = "maintenance"  # ke_meta kind of the shared store's run records (key: the job)

Record = dict[str, Any]


def job_lock(folder: Path, job: str) -> contextlib.AbstractContextManager[bool]:
    return try_lock(maintenance_dir(folder) / f"{job}.lock")


def job_running_elsewhere(folder: Path, job: str) -> bool:
    """True while some process holds the job's lock (for status and tests)."""
    with job_lock(folder, job) as got:
        return not got


def workspace_job_lock(ws: Workspace, job: str) -> contextlib.AbstractContextManager[bool]:
    """The job's lock for this workspace: its lock file, or the agent's advisory lock on the shared store."""
    if is_shared(ws.config.storage):
        from knowledge_engine.maintenance import pglocks

        return pglocks.try_lock(ws.config.storage.postgres, job, ws.agent_id)
    return job_lock(ws.folder, job)


# --------------------------------------------------------------------------- records
def read_shared_runs(cfg: PostgresStorageConfig, agent: str) -> dict[str, Record]:
    """{job: last run record} of an agent on the shared store, whichever node ran it."""
    from knowledge_engine.store.postgres.connect import connection

    with connection(cfg) as conn:
        rows = conn.execute(
            "SELECT key, value FROM ke_meta WHERE agent = %s AND kind = %s", (agent, RUNS_KIND)
        ).fetchall()
    return {str(k): v for k, v in rows if isinstance(v, dict)}


def save_shared_run(cfg: PostgresStorageConfig, agent: str, record: Record) -> None:
    """Store `record` as its job's last run on the shared store, keeping the time of the last success."""
    from psycopg.types.json import Jsonb

    from knowledge_engine.store.postgres.connect import connection

    with connection(cfg) as conn, conn.transaction():
        row = conn.execute(
            "SELECT value FROM ke_meta WHERE agent = %s AND kind = %s AND key = %s FOR UPDATE",
            (agent, RUNS_KIND, record["job"]),
        ).fetchone()
        prev = row[0] if row and isinstance(row[0], dict) else {}
        if record["status"] != "ok" and prev.get("last_ok_at"):
            record = {**record, "last_ok_at": prev["last_ok_at"]}
        conn.execute(
            "INSERT INTO ke_meta (agent, kind, key, value) VALUES (%s, %s, %s, %s)"
            " ON CONFLICT (agent, kind, key) DO UPDATE SET value = EXCLUDED.value",
            (agent, RUNS_KIND, record["job"], Jsonb(record)),
        )


def read_runs(folder: Path) -> dict[str, Record]:
    """{job: last run record} of a workspace (the live copy; `stats` shows the facts-meta mirror)."""
    try:
        data = orjson.loads((folder / DIR / RUNS_FILE).read_bytes())
    except (FileNotFoundError, orjson.JSONDecodeError):
        return {}
    return data if isinstance(data, dict) else {}


def read_history(folder: Path) -> list[Record]:
    out: list[Record] = []
    try:
        lines = (folder / DIR / HISTORY_FILE).read_bytes().splitlines()
    except FileNotFoundError:
        return out
    for line in lines:
        with contextlib.suppress(orjson.JSONDecodeError):
            out.append(orjson.loads(line))
    return out


def save_run(folder: Path, record: Record) -> None:
    """Store `record` as its job's last run (keeping the time of the last success) and in the history."""
    d = maintenance_dir(folder)
    with wait_lock(d / "runs.lock", 30):
        runs = read_runs(folder)
        prev = runs.get(record["job"], {})
        if record["status"] != "ok" and prev.get("last_ok_at"):
            record = {**record, "last_ok_at": prev["last_ok_at"]}
        runs[record["job"]] = record
        write_atomic(d / RUNS_FILE, orjson.dumps(runs, option=orjson.OPT_INDENT_2))
        _append_history(d / HISTORY_FILE, record)


def _append_history(path: Path, record: Record) -> None:
    with open(path, "ab", opener=lambda p, f: os.open(p, f, 0o600)) as fh:
        fh.write(orjson.dumps(record) + b"\n")
    if path.stat().st_size > HISTORY_MAX_BYTES:
        lines = path.read_bytes().splitlines()[-HISTORY_KEEP:]
        write_atomic(path, b"\n".join(lines) + b"\n")


def _record(job: str, ctx: RunContext, t0: float, status: str, changed: dict[str, int] | None = None,
            error: str | None = None, reason: str | None = None) -> Record:
    started = utcnow() - timedelta(seconds=time.perf_counter() - t0)
    rec: Record = {
        "job": job, "status": status, "started_at": started.isoformat(),
        "duration_ms": round((time.perf_counter() - t0) * 1000, 1), "changed": changed or {},
        "pid": os.getpid(),
    }
    if status == "ok":
        rec["last_ok_at"] = rec["started_at"]
    if error:
        rec["error"] = error
    if reason:
        rec["reason"] = reason
    return rec


# --------------------------------------------------------------------------- running
def run_job(engine: KnowledgeEngine, ws: Workspace, name: str, ctx: RunContext | None = None) -> Record:
    """Run one job unless it is running elsewhere; never raises, always records."""
    spec = JOBS[name]
    ctx = ctx or RunContext()
    t0 = time.perf_counter()
    try:
        with workspace_job_lock(ws, name) as got:
            if not got:
                rec = _record(name, ctx, t0, "skipped", reason=SKIPPED_ELSEWHERE)
                counters.inc("maintenance.skipped_running_elsewhere")
                log.info("maintenance job %s skipped: running elsewhere", name)
            else:
                _note_interrupted(ws, name)
                _mark_running(ws.folder, name)
                rec = _guarded(engine, ws, spec.name, spec.store, ctx, t0)
            _save_quietly(ws, rec)
            if got:
                _unmark(ws.folder, name)
    except Exception as exc:  # the shared store's lock could not be taken (database down): recorded
        counters.inc("maintenance.failed")
        log.error("maintenance job %s could not take its lock (%s)", name, failure(exc))
        rec = _record(name, ctx, t0, "error", error=failure(exc))
        _save_quietly(ws, rec)
    emit("maintenance.run", job=name, status=rec["status"], duration_ms=rec["duration_ms"],
         error=rec.get("error"), changed=rec["changed"])
    return rec


def _guarded(
    engine: KnowledgeEngine, ws: Workspace, name: str, store: bool, ctx: RunContext, t0: float
) -> Record:
    try:
        ctx.check()
        if store:
            return _run_store_job(engine, ws, name, ctx, t0)
        return _record(name, ctx, t0, "ok", JOBS[name].fn(ws, engine, ctx))
    except SkipJob as exc:
        return _record(name, ctx, t0, "skipped", reason=str(exc))
    except Cancelled:
        return _record(name, ctx, t0, "cancelled", reason="process stopping")
    except Exception as exc:  # a job failure is recorded and retried next time, never raised into the host
        counters.inc("maintenance.failed")
        log.error("maintenance job %s failed in %s (%s)", name, ws.folder, failure(exc))
        return _record(name, ctx, t0, "error", error=failure(exc))



def _run_store_job(engine: KnowledgeEngine, ws: Workspace, name: str, ctx: RunContext, t0: float) -> Record:
    """Refresh, change, flush, all under the meta lock: no meta key is ever written from a stale copy."""
    timeout = engine.config.maintenance.lock_timeout_seconds
    with store_jobs_lock(ws.folder, ws.config.storage, ws.agent_id, timeout, ctx):
        ws.refresh()
        changed = JOBS[name].fn(ws, engine, ctx)
        rec = _record(name, ctx, t0, "ok", changed)
        force = name == "compact"
        if force or ws.facts.table.has_changes or ws.entities.table.has_changes:
            if not is_shared(ws.config.storage):  # the shared store keeps run records in their own rows
                ws.facts.table.set_meta(META_KEY, {**read_runs(ws.folder), name: rec})
            ws.entities.table.flush(force=force)
            ws.facts.table.flush(force=force)
    rec["duration_ms"] = round((time.perf_counter() - t0) * 1000, 1)
    return rec


# --------------------------------------------------------------------------- interrupted runs
# A run killed mid-job (kill -9, a crash, the host stopped hard) records nothing at its end. Its job
# writes a marker when it starts and removes it once its record is saved; a marker whose job lock is
# free was left by a process that died, and is recorded as an "interrupted" run (by the next run of
# the job, and shown by `stats` before that).
INTERRUPTED = "interrupted"
INTERRUPTED_REASON = "the process stopped before the job ended (killed or crashed)"


def _marker(folder: Path, job: str) -> Path:
    return maintenance_dir(folder) / f"{job}.running"


def _mark_running(folder: Path, job: str) -> None:
    started = {"job": job, "started_at": utcnow().isoformat(), "pid": os.getpid()}
    try:
        write_atomic(_marker(folder, job), orjson.dumps(started))
    except OSError as exc:  # no marker: a kill goes unrecorded, as before; the job still runs
        log.warning("could not mark the %s run as started (%s)", job, failure(exc))


def _unmark(folder: Path, job: str) -> None:
    with contextlib.suppress(OSError):
        _marker(folder, job).unlink(missing_ok=True)


def interrupted_run(folder: Path, job: str, last: Record | None) -> Record | None:
    """The run a dead process left unfinished, as a record, or None. The caller holds the job's lock
    or has checked that nobody does; `last` is the job's last record (a marker of a run whose record
    was saved just before a kill is no interruption)."""
    try:
        started = orjson.loads(_marker(folder, job).read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return None
    if not isinstance(started, dict) or not isinstance(started.get("started_at"), str):
        return None
    if last and str(last.get("started_at", "")) >= started["started_at"]:
        return None
    return {
        "job": job, "status": INTERRUPTED, "started_at": started.get("started_at"), "duration_ms": None,
        "changed": {}, "pid": started.get("pid"), "reason": INTERRUPTED_REASON,
    }


def interrupted_runs(folder: Path, last: dict[str, Record]) -> dict[str, Record]:
    """{job: interrupted record} for the markers no live process holds (what `stats` shows)."""
    out: dict[str, Record] = {}
    for marker in sorted((folder / DIR).glob("*.running")):
        job = marker.name.removesuffix(".running")
        try:
            alive = job not in JOBS or job_running_elsewhere(folder, job)
        except OSError:  # a read-only copy: its lock cannot be tried, so whether it runs is unknown
            continue
        rec = None if alive else interrupted_run(folder, job, last.get(job))
        if rec is not None:
            out[job] = rec
    return out


def _note_interrupted(ws: Workspace, job: str) -> None:
    """Record the run a dead process left unfinished, if any (this process holds the job's lock)."""
    try:
        shared = is_shared(ws.config.storage)
        last = read_shared_runs(ws.config.storage.postgres, ws.agent_id) if shared else read_runs(ws.folder)
    except Exception:  # the shared store is down: the job's own run records that soon enough
        return
    rec = interrupted_run(ws.folder, job, last.get(job))
    if rec is not None:
        counters.inc("maintenance.interrupted")
        log.warning("maintenance job %s: the run started at %s did not end", job, rec["started_at"])
        _save_quietly(ws, rec)
        emit("maintenance.run", job=job, status=INTERRUPTED, duration_ms=None, error=None, changed={})


def _save_quietly(ws: Workspace, rec: Record) -> None:
    try:
        if is_shared(ws.config.storage):
            rec["node"] = socket.gethostname()  # which machine of the cluster ran it (stats on any node)
            save_shared_run(ws.config.storage.postgres, ws.agent_id, rec)
            _append_history(maintenance_dir(ws.folder) / HISTORY_FILE, rec)
        else:
            save_run(ws.folder, rec)
    except Exception as exc:  # a disk or database error must not escape a job run (it is counted)
        counters.inc("maintenance.record_failed")
        log.error("could not record the %s run in %s (%s)", rec["job"], ws.folder, failure(exc))


def run_all(engine: KnowledgeEngine, ws: Workspace, names: Iterable[str] = JOB_ORDER,
            ctx: RunContext | None = None) -> list[Record]:
    """The jobs in `names` once, in JOB_ORDER; stops early when the context is cancelled."""
    ctx = ctx or RunContext()
    wanted = set(names)
    out: list[Record] = []
    for name in JOB_ORDER:
        if name not in wanted:
            continue
        if ctx.cancel.is_set():
            break
        out.append(run_job(engine, ws, name, ctx))
    return out
