"""When maintenance runs: one APScheduler per process, interval jobs per open workspace.

The vainplex plugin started a new set of timers on every session_start and never stopped
them. Here the plugin attaches its engine to the process's single scheduler (however many
times the host re-registers the plugin or opens sessions), each workspace gets its jobs once,
and the engine's stop removes them, asks a running job to stop at a safe point, waits briefly
and shuts the scheduler down when no engine is left: all inside the gateway_stop budget.
The standalone daemon uses the same class with a BlockingScheduler.
"""

from __future__ import annotations

import logging
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from apscheduler.executors.pool import ThreadPoolExecutor
from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.schedulers.base import STATE_STOPPED, BaseScheduler
from apscheduler.triggers.interval import IntervalTrigger

from knowledge_engine.maintenance.jobs import RunContext
from knowledge_engine.maintenance.runs import Record, run_job
from knowledge_engine.observe import counters, emit

if TYPE_CHECKING:
    from knowledge_engine.config import EngineConfig
    from knowledge_engine.engine import KnowledgeEngine
    from knowledge_engine.store.workspace import Workspace

log = logging.getLogger("knowledge_engine.maintenance")

STAGGER_S = 7.0  # jobs of one workspace do not all start in the same second (0.5 s apart, in order, at once)


def job_plan(config: EngineConfig) -> list[tuple[str, float]]:
    """(job, interval in seconds) for a workspace under this configuration."""
    m = config.maintenance
    plan: list[tuple[str, float]] = []
    if config.decay.enabled:
        plan.append(("decay", config.decay.interval_hours * 3600))
    plan.append(("prune", m.prune_interval_hours * 3600))
    if config.memory.enabled and (config.memory.retention_days or config.memory.max_messages):
        plan.append(("retention", m.retention_interval_hours * 3600))
    if config.extraction.llm.enabled:
        plan.append(("llm_retry", m.llm_retry_interval_minutes * 60))
    if config.embeddings.enabled:
        plan.append(("sync", config.embeddings.sync_interval_minutes * 60))
    plan.append(("compact", m.compact_interval_hours * 3600))
    return plan


class MaintenanceScheduler:
    """Per-workspace interval jobs on one APScheduler; engines attach and detach."""

    def __init__(self, scheduler: BaseScheduler, startup_delay_s: float | None = None) -> None:
        self.scheduler = scheduler
        self.startup_delay_s = startup_delay_s
        self._lock = threading.RLock()
        self._engines: dict[int, KnowledgeEngine] = {}
        self._cancel: dict[int, threading.Event] = {}
        self._folders: dict[Path, int] = {}  # workspace folder -> engine key that owns its jobs
        self._running: dict[int, int] = {}
        self._idle = threading.Condition(self._lock)
        self.closed = False  # shut down for good (a BlockingScheduler not started yet is STOPPED too)

    # ------------------------------------------------------------------ engines and workspaces
    def attach(self, engine: KnowledgeEngine) -> None:
        """Idempotent: the engine's open and future workspaces get their jobs (once each)."""
        key = id(engine)
        with self._lock:
            if key in self._engines:
                return
            self._engines[key] = engine
            self._cancel[key] = threading.Event()
            hooks = engine.lifecycle_hooks
            if self not in hooks:
                hooks.append(self)
        for ws in engine.workspaces():
            self.workspace_opened(engine, ws)

    def workspace_opened(self, engine: KnowledgeEngine, ws: Workspace) -> None:
        """Engine hook: add the workspace's jobs unless it already has them."""
        key = id(engine)
        with self._lock:
            if key not in self._engines or ws.folder in self._folders or self.closed:
                return
            self._folders[ws.folder] = key
            delay = engine.config.maintenance.startup_delay_seconds if self.startup_delay_s is None \
                else self.startup_delay_s
            first = datetime.now(UTC) + timedelta(seconds=delay)
            for i, (name, seconds) in enumerate(job_plan(engine.config)):
                self.scheduler.add_job(
                    self._run, IntervalTrigger(seconds=seconds, timezone=UTC), args=(key, ws, name),
                    id=f"{name}@{ws.folder}", name=f"{name} {ws.agent_id}", replace_existing=True,
                    coalesce=True, max_instances=1,
                    misfire_grace_time=engine.config.maintenance.misfire_grace_seconds,
                    next_run_time=first + timedelta(seconds=i * (STAGGER_S if delay else 0.5)),
                )
        emit("maintenance.scheduled", jobs=len(job_plan(engine.config)), workspaces=len(self._folders))

    def jobs_for(self, folder: Path) -> list[Any]:
        return [j for j in self.scheduler.get_jobs() if j.id.endswith(f"@{folder}")]

    # ------------------------------------------------------------------ running
    def _run(self, key: int, ws: Workspace, name: str) -> Record | None:
        """The job's record (APScheduler hands it to listeners as the event's retval), None if not run."""
        with self._lock:
            engine = self._engines.get(key)
            cancel = self._cancel.get(key)
            if engine is None or cancel is None or cancel.is_set() or engine._stopped:
                return None
            self._running[key] = self._running.get(key, 0) + 1
        try:
            return run_job(engine, ws, name, RunContext(cancel=cancel))
        except Exception as exc:  # run_job records its own failures; this is a last guard for the thread
            counters.inc("maintenance.failed")
            log.error("maintenance job %s crashed (%s)", name, type(exc).__name__)
            return None
        finally:
            with self._lock:
                self._running[key] -= 1
                self._idle.notify_all()

    def engines(self) -> list[KnowledgeEngine]:
        """The engines attached now (each leaves through its own stop)."""
        with self._lock:
            return list(self._engines.values())

    def running(self, engine: KnowledgeEngine | None = None) -> int:
        with self._lock:
            if engine is None:
                return sum(self._running.values())
            return self._running.get(id(engine), 0)

    # ------------------------------------------------------------------ stopping
    def engine_stopping(self, engine: KnowledgeEngine, timeout_s: float) -> bool:
        """Engine hook: drop its jobs, stop its running job at a safe point, wait at most timeout_s.

        Returns True when no job of the engine is still running. The last engine out shuts the
        scheduler down without waiting (a job still running finishes on its own thread).
        """
        key = id(engine)
        deadline = time.monotonic() + timeout_s
        with self._lock:
            if key not in self._engines:
                return True
            self._cancel[key].set()
            for folder in [f for f, k in self._folders.items() if k == key]:
                del self._folders[folder]
                for job in self.jobs_for(folder):
                    job.remove()
            while self._running.get(key, 0) and (left := deadline - time.monotonic()) > 0:
                self._idle.wait(left)
            idle = not self._running.get(key, 0)
            del self._engines[key]
            last = not self._engines
        if last:
            self.shutdown()
        emit("maintenance.stopped", idle=idle, engines_left=len(self._engines))
        return idle

    def shutdown(self) -> None:
        self.closed = True
        if self.scheduler.state != STATE_STOPPED:
            self.scheduler.shutdown(wait=False)

    def wait_idle(self, timeout_s: float) -> bool:
        deadline = time.monotonic() + timeout_s
        with self._lock:
            while self.running() and (left := deadline - time.monotonic()) > 0:
                self._idle.wait(left)
            return not self.running()

    def cancel_all(self) -> None:
        with self._lock:
            for ev in self._cancel.values():
                ev.set()


# --------------------------------------------------------------------------- the process's one scheduler
_PROCESS_LOCK = threading.Lock()
_PROCESS: MaintenanceScheduler | None = None


def new_background_scheduler() -> BackgroundScheduler:
    return BackgroundScheduler(timezone=UTC, executors={"default": ThreadPoolExecutor(2)},
                               job_defaults={"coalesce": True, "max_instances": 1})


def process_scheduler() -> MaintenanceScheduler:
    """The single in-process scheduler, started on first use (again after a gateway stop)."""
    global _PROCESS
    with _PROCESS_LOCK:
        if _PROCESS is None or _PROCESS.closed or _PROCESS.scheduler.state == STATE_STOPPED:
            sched = new_background_scheduler()
            sched.start()
            _PROCESS = MaintenanceScheduler(sched)
        return _PROCESS


def reset_process_scheduler() -> list[KnowledgeEngine]:
    """Shut the process's scheduler down and forget it; returns the engines that were still attached.

    For harnesses that run many hosts in one process (the test suite): a host never needs it, since
    the last engine's stop shuts the scheduler down. The returned engines keep running, without
    maintenance, until they are stopped; the next attach starts a fresh scheduler.
    """
    global _PROCESS
    with _PROCESS_LOCK:
        sched, _PROCESS = _PROCESS, None
    if sched is None:
        return []
    engines = sched.engines()
    sched.cancel_all()
    sched.shutdown()
    return engines


def attach(engine: KnowledgeEngine) -> MaintenanceScheduler | None:
    """Plugin entry: run this engine's maintenance in-process (when enabled). Never raises."""
    if not engine.config.maintenance.enabled:
        return None
    try:
        sched = process_scheduler()
        sched.attach(engine)
        return sched
    except Exception as exc:
        counters.inc("maintenance.attach_failed")
        log.error("in-process maintenance could not start (%s); run `knowledge-engine maintain` instead",
                  type(exc).__name__)
        return None
