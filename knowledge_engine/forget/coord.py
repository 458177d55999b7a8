"""`forget` and the host that owns a workspace's pending work: a forget that reports success is final.

Why: one process owns a workspace's ingest journal, spill files and LLM inbox (it holds
`.ingest.lock`, see journal.py), and keeps the workspace's records in memory. A CLI that rewrote
those files under it, or deleted records it still holds, would be undone by its next flush or
replay. So the CLI asks the owner: it writes a request to `forget-requests/<id>.json` (0600; it
names what to forget, so it lives only until acknowledged) and waits. The owner's `ForgetWatcher`
picks it up within a fraction of a second, and under the workspace's write lock installs a
`Gate` (messages pending now can never bring the name back), redacts its journal, queue, spill
files, LLM queue, inbox and parked batches, removes the records from its stores, writes them, and
acknowledges with `<id>.done` (counts only). When no process owns the workspace, the CLI takes the
lock itself and does the same to the files. Either way the CLI then cleans the message log, the
indexes and backups and scans every file.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import threading
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import orjson

from knowledge_engine.extract.inbox import INBOX_NAME
from knowledge_engine.forget.stores import (
    ForgetPlan,
    ForgetReport,
    _remove_from_stores,
    _rewrite_json,
    apply,
    plan_terms,
    session_facts,
    store_jobs_held,
)
from knowledge_engine.fsio import write_atomic
from knowledge_engine.ingest.journal import JOURNAL_NAME, LOCK_NAME
from knowledge_engine.ingest.redact import (
    FORGOTTEN_LINE,
    ForgetRequest,
    Gate,
    Redactor,
    Tally,
    batch_files,
    message_line,
    rewrite_batch_file,
    rewrite_jsonl,
)
from knowledge_engine.observe import counters, emit
from knowledge_engine.store import sessions
from knowledge_engine.store.backend import is_shared
from knowledge_engine.store.workspace import Workspace

log = logging.getLogger("knowledge_engine.forget.stores")

REQUESTS_DIR = "forget-requests"
POLL_S = 0.2  # how often a host looks for requests (one directory stat per owned workspace)
SPILL_NAMES = ("ingest-spill.jsonl", "ingest-spill.jsonl.work")
Mode = Literal["this process", "host", "host_timeout", "host_failed"]


# ---------------------------------------------------------------------------------------------- owner lock


def try_own(folder: Path) -> int | None:
    """The lock on the workspace's pending work, if no live process holds it (the fd to close), else None."""
    try:
        fd = os.open(folder / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    return fd


def release(fd: int | None) -> None:
    if fd is not None:
        with contextlib.suppress(OSError):
            os.close(fd)  # closing the descriptor releases the lock


# ---------------------------------------------------------------------------------------------- CLI side


def request_for(plan: ForgetPlan) -> ForgetRequest:
    return ForgetRequest(
        id=uuid.uuid4().hex,
        terms=plan.terms,
        entity_ids=plan.entities,
        fact_ids=plan.facts,
        message_ids=plan.message_ids(),
        session=plan.session,
        delete_messages=plan.delete_matching,
    )


def forget_final(ws: Workspace, plan: ForgetPlan, wait_s: float = 60.0) -> ForgetReport:
    """Forget everywhere, pending work included; the report says who applied it to pending work."""
    req = request_for(plan)
    mode, tally, fd = coordinate(ws.folder, req, wait_s)
    if is_shared(ws.config.storage):  # batches any node parked live in the database: rewritten here too
        from knowledge_engine.store.postgres.parked import PgParked

        tally.add(PgParked(ws.config.storage.postgres, ws.agent_id).forget(Redactor(req), None))
    try:
        report = apply(ws, plan, stores_done=lambda: release(fd))
    finally:
        release(fd)
    report.pending_by = mode
    report.pending = tally
    emit(
        "forget.pending",
        by=mode,
        examined=tally.examined,
        redacted=tally.redacted,
        dropped=tally.dropped,
        files_removed=tally.files_removed,
    )
    return report


def coordinate(folder: Path, req: ForgetRequest, wait_s: float) -> tuple[Mode, Tally, int | None]:
    """Apply the request to pending work: through the owning host, or here when none is alive.

    Returns who did it, the counts, and (when done here) the lock still held, so no host starts
    replaying the journal before the stores are cleaned too.
    """
    fd = try_own(folder)
    if fd is not None:
        return "this process", forget_files(folder, Redactor(req)), fd
    reqdir = folder / REQUESTS_DIR
    reqdir.mkdir(mode=0o700, exist_ok=True)
    path = reqdir / f"{req.id}.json"
    write_atomic(path, req.model_dump_json().encode())
    done = reqdir / f"{req.id}.done"
    deadline = time.monotonic() + wait_s
    while True:
        if done.exists():
            tally = _read_done(done)
            return ("host", tally, None) if tally is not None else ("host_failed", Tally(), None)
        fd = try_own(folder)
        if fd is not None:  # the host died (or stopped) before taking it up
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
            with contextlib.suppress(FileNotFoundError):
                done.unlink()
            return "this process", forget_files(folder, Redactor(req)), fd
        if time.monotonic() >= deadline:
            with contextlib.suppress(FileNotFoundError):
                path.unlink()  # withdrawn; if the host already took it, it finishes and removes it
            counters.inc("forget.host_timeout")
            return "host_timeout", Tally(), None
        time.sleep(POLL_S)


def _read_done(done: Path) -> Tally | None:
    """The host's answer: its counts, or None when it could not apply the request."""
    try:
        body = orjson.loads(done.read_bytes())
    except (OSError, orjson.JSONDecodeError):
        body = {}
    with contextlib.suppress(FileNotFoundError):
        done.unlink()
    if not isinstance(body, dict) or body.get("error"):
        counters.inc("forget.host_failed")
        return None
    return Tally.model_validate(body.get("pending", {}) if isinstance(body, dict) else {})


def forget_files(folder: Path, redactor: Redactor) -> Tally:
    """No process owns the pending work (we hold its lock): rewrite its files, forgotten messages dropped.

    Requests left by a host that died before answering are removed too (they hold the names).
    """
    tally = Tally()
    for name in (JOURNAL_NAME, *SPILL_NAMES):
        tally.add(rewrite_jsonl(folder / name, redactor))
    tally.add(rewrite_jsonl(folder / "llm-pending" / INBOX_NAME, redactor))
    for path in batch_files(folder / "llm-pending"):
        tally.add(rewrite_batch_file(path, redactor))
    sessions.remove(folder)  # whom a he/she meant: the next host starts without it (it may name them)
    reqdir = folder / REQUESTS_DIR
    if reqdir.is_dir():
        for stale in reqdir.iterdir():
            with contextlib.suppress(FileNotFoundError):
                stale.unlink()
    return tally


# ---------------------------------------------------------------------------------------------- host side


def apply_on_host(engine: Any, ws: Workspace, req: ForgetRequest) -> Tally:
    """The owner applies a forget to everything it holds; returns counts of pending work changed.

    All of it runs under the workspace's write lock, which `Workspace.apply()` holds while it adds a
    message's records (no extraction slips between the gate, the redaction, the removal and the
    write), and under the lock of maintenance store jobs (no decay writes back a copy read before).
    The gate stays, so a message that was pending now is filtered whenever it is applied.
    """
    folder = ws.folder
    redactor = Redactor(req)
    gate = Gate(redactor)
    tally = Tally()
    with store_jobs_held(ws), ws.write_lock:
        ws.gates.append(gate)
        if engine.queue.journal is not None:

            def edit(lines: list[bytes]) -> list[bytes]:
                return [message_line(x, redactor, tally, gate.watch, True) or FORGOTTEN_LINE for x in lines]

            engine.journal.edit_lines(folder, edit)
        tally.add(engine.queue.forget(folder, gate))
        batcher = getattr(engine, "_batchers", {}).get(folder)  # the workspace's LLM tier, if enabled
        if batcher is not None:
            tally.add(batcher.forget(gate))
        engine.forget_session_memory(folder, redactor.names, req.session)
        plan = host_plan(ws, req)
        _remove_from_stores(ws, plan)
        _rewrite_json(ws, plan)
    return tally


def host_plan(ws: Workspace, req: ForgetRequest) -> ForgetPlan:
    """What the host removes from its stores: by name (its newer records too), by id, by session."""
    plan = plan_terms(ws, req.entity_ids, req.terms)
    plan.facts = list(dict.fromkeys([*req.fact_ids, *plan.facts]))
    if req.session is not None:
        plan.facts = list(dict.fromkeys([*plan.facts, *session_facts(ws, req.session)]))
    return plan


@dataclass
class _Watched:
    engine: Any
    ws: Workspace


class ForgetWatcher:
    """Engine lifecycle hook: takes up forget requests for the workspaces this process owns."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._watched: dict[Path, _Watched] = {}
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def workspace_opened(self, engine: Any, ws: Workspace) -> None:
        if engine.queue.journal is None or not engine.journal.claim(ws.folder):
            return  # not the owner of this workspace's pending work
        reqdir = ws.folder / REQUESTS_DIR
        with contextlib.suppress(OSError):  # taken up by an owner that died before answering: again
            for stale in reqdir.glob("*.taken"):
                os.replace(stale, stale.with_suffix(".json"))
        with self._lock:
            self._watched[ws.folder] = _Watched(engine, ws)
            if self._thread is None:  # the thread, not this (hook) thread, applies requests
                self._thread = threading.Thread(target=self._run, name="knowledge-engine-forget", daemon=True)
                self._thread.start()

    def engine_stopping(self, engine: Any, timeout_s: float) -> None:
        """Requests not taken up now are done by the CLI itself once this process has let go."""
        self._stop.set()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout_s)

    def _run(self) -> None:
        while not self._stop.wait(POLL_S):
            with self._lock:
                watched = list(self._watched.values())
            for w in watched:
                try:
                    self.poll(w.engine, w.ws)
                except Exception as exc:  # keep watching; the CLI times out and says so
                    counters.inc("forget.host_errors")
                    log.error("applying a forget request failed: %s", type(exc).__name__)

    def poll(self, engine: Any, ws: Workspace) -> None:
        reqdir = ws.folder / REQUESTS_DIR
        try:
            paths = sorted(reqdir.glob("*.json"))
        except OSError:
            return
        for path in paths:
            taken = path.with_suffix(".taken")
            try:
                os.replace(path, taken)  # the CLI withdraws a request by removing the .json
            except FileNotFoundError:
                continue
            self._answer(engine, ws, taken)

    @staticmethod
    def _answer(engine: Any, ws: Workspace, taken: Path) -> None:
        done = taken.with_suffix(".done")
        try:
            req = ForgetRequest.model_validate_json(taken.read_bytes())
            tally = apply_on_host(engine, ws, req)
            body: dict[str, Any] = {"pending": tally.model_dump()}
            emit("forget.host_applied", examined=tally.examined, redacted=tally.redacted,
                 dropped=tally.dropped)
        except Exception as exc:
            counters.inc("forget.host_errors")
            log.error("applying a forget request failed: %s", type(exc).__name__)
            body = {"error": type(exc).__name__}
        with contextlib.suppress(FileNotFoundError):
            taken.unlink()  # first: the request names what was forgotten, the answer only counts
        write_atomic(done, orjson.dumps(body))
