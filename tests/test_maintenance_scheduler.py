"""In-process scheduler (one per process, stopped within the gateway_stop budget) and the daemon."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from knowledge_engine.config import load_config
from knowledge_engine.host import HookRunner, PluginApi
from knowledge_engine.maintenance import read_runs, run_job
from knowledge_engine.maintenance.runs import job_running_elsewhere, maintenance_dir, read_history, try_lock
from knowledge_engine.maintenance.scheduler import (
    STAGGER_S,
    MaintenanceScheduler,
    job_plan,
    new_background_scheduler,
    process_scheduler,
    reset_process_scheduler,
)
from knowledge_engine.plugin import register
from knowledge_engine.store.workspace import Workspace
from tests.test_maintenance_jobs import engine_ws, make_store, relevances

ROOT = Path(__file__).resolve().parent.parent


def plugin_config(root: Path, **maintenance: Any) -> dict[str, Any]:
    return {"workspaceTemplate": "{workspaceDir}/ke", "workspaceRoot": str(root / "agents"),
            "embeddings": {"enabled": False}, "retrieval": {"enabled": False},
            "storage": {"writeDebounceMs": 50}, "maintenance": {"startupDelaySeconds": 3600, **maintenance}}


async def start_sessions(hooks: HookRunner, root: Path, agents: int, sessions: int) -> None:
    for a in range(agents):
        for s in range(sessions):
            ctx = {"agentId": f"a{a}", "sessionKey": f"agent:a{a}:s{s}", "workspaceDir": str(root / f"a{a}")}
            await hooks.run("session_start", {"sessionId": f"a{a}-{s}", "sessionKey": ctx["sessionKey"]}, ctx)


def scheduler_threads() -> int:
    return sum(1 for t in threading.enumerate() if t.name.startswith("APScheduler"))


@pytest.fixture(autouse=True)
def own_process_scheduler() -> Iterator[None]:
    """Each test starts with no engine on the process's scheduler and leaves none: an engine another
    test left attached would keep the scheduler running and add its jobs to the counts here."""
    for engine in reset_process_scheduler():
        engine.stop(60)
    yield
    for engine in reset_process_scheduler():
        engine.stop(60)


@pytest.fixture
def stop_all() -> Iterator[list[Any]]:
    """Engines a test started are stopped even when it fails (the scheduler is process-wide)."""
    engines: list[Any] = []
    yield engines
    for e in engines:
        e.stop(60)


def test_one_scheduler_per_process_however_many_registrations_and_sessions(
    tmp_path: Path, stop_all: list[Any]
) -> None:
    cfg = plugin_config(tmp_path)
    apis = [PluginApi("knowledge-engine", cfg) for _ in range(5)]
    plugins = [register(api) for api in apis]
    other = PluginApi("knowledge-engine", {**cfg, "workspaceRoot": str(tmp_path / "other")})
    plugins.append(register(other))  # a second configuration: a second engine, the same scheduler
    stop_all.extend({id(p.engine): p.engine for p in plugins if p}.values())
    sched = process_scheduler()
    for api in [*apis, other]:
        asyncio.run(start_sessions(HookRunner(api.registrations), tmp_path, agents=3, sessions=4))
    assert process_scheduler() is sched
    assert scheduler_threads() == 1
    plan = job_plan(load_config(cfg))
    jobs = sched.scheduler.get_jobs()
    assert len(jobs) == 3 * len(plan)  # three workspaces, each job once, despite 24 session starts
    assert len({j.id for j in jobs}) == len(jobs)
    for j in jobs:
        assert j.coalesce is True and j.max_instances == 1 and j.misfire_grace_time == 3600
    decay = next(j for j in jobs if j.id.startswith("decay@"))
    assert decay.trigger.interval == timedelta(hours=24)
    hooks = HookRunner(apis[0].registrations)
    asyncio.run(hooks.run("gateway_stop", {"reason": "test"}, {}))
    asyncio.run(HookRunner(other.registrations).run("gateway_stop", {"reason": "test"}, {}))
    assert sched.scheduler.get_jobs() == [] and not sched.scheduler.running
    plugin = register(PluginApi("knowledge-engine", cfg))  # the host starts again: a fresh scheduler
    assert plugin is not None
    stop_all.append(plugin.engine)
    assert process_scheduler() is not sched and process_scheduler().scheduler.running


def test_a_reset_hands_back_the_attached_engines_and_the_next_use_starts_afresh(
    tmp_path: Path, stop_all: list[Any]
) -> None:
    """What the suite uses so that an engine one test left running cannot keep another's scheduler up."""
    plugin = register(PluginApi("left-running", plugin_config(tmp_path)))
    assert plugin is not None
    stop_all.append(plugin.engine)
    plugin.engine.workspace("a0", str(tmp_path / "a0"))  # its jobs go on the process's scheduler
    sched = process_scheduler()
    assert sched.engines() == [plugin.engine] and sched.scheduler.get_jobs()
    assert reset_process_scheduler() == [plugin.engine]
    assert not sched.scheduler.running
    fresh = process_scheduler()
    assert fresh is not sched and fresh.engines() == [] and fresh.scheduler.get_jobs() == []
    assert plugin.engine.stop(60)  # an engine stopped after the reset leaves cleanly
    assert fresh.scheduler.running  # and does not touch the new scheduler
    fresh.shutdown()


def wait_for(predicate: Any, timeout_s: float = 60) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.01)
    return False


def test_in_process_jobs_run_and_are_recorded(tmp_path: Path, stop_all: list[Any]) -> None:
    api = PluginApi("knowledge-engine", plugin_config(tmp_path, startupDelaySeconds=0))
    plugin = register(api)
    assert plugin is not None
    stop_all.append(plugin.engine)
    asyncio.run(start_sessions(HookRunner(api.registrations), tmp_path, agents=1, sessions=1))
    folder = tmp_path / "a0" / "ke"
    assert wait_for(lambda: {"decay", "prune", "compact"} <= set(read_runs(folder)))
    assert {r["status"] for r in read_runs(folder).values()} == {"ok"}


def test_gateway_stop_cancels_a_waiting_job_and_shuts_the_scheduler_down(
    tmp_path: Path, stop_all: list[Any]
) -> None:
    api = PluginApi("knowledge-engine", plugin_config(tmp_path, startupDelaySeconds=0))
    plugin = register(api)
    assert plugin is not None
    stop_all.append(plugin.engine)
    folder = tmp_path / "a0" / "ke"
    with try_lock(maintenance_dir(folder) / "meta.lock") as got:  # another process is mid-update
        assert got
        asyncio.run(start_sessions(HookRunner(api.registrations), tmp_path, agents=1, sessions=1))
        sched = process_scheduler()
        # watch the scheduler, not the job's lock: probing the lock could itself make the job skip
        assert wait_for(lambda: sched.running(plugin.engine) >= 1)
        stopper = threading.Thread(
            target=lambda: asyncio.run(HookRunner(api.registrations).run("gateway_stop", {}, {})))
        stopper.start()
        stopper.join(30)
        assert not stopper.is_alive()
    assert read_runs(folder)["decay"]["status"] == "cancelled"
    assert not sched.scheduler.running and sched.running() == 0


def test_stopping_waits_only_its_budget_for_a_job_that_cannot_stop(
    tmp_path: Path, stop_all: list[Any]
) -> None:
    api = PluginApi("knowledge-engine", plugin_config(tmp_path, startupDelaySeconds=0))
    plugin = register(api)
    assert plugin is not None
    stop_all.append(plugin.engine)
    engine = plugin.engine
    ws = engine.workspace("a0", str(tmp_path / "a0"))
    sched = process_scheduler()
    with ws.facts.table.mutex:  # the job blocks inside the store, where no stop request reaches it
        # a quick job (e.g. llm_retry) may run and finish first: wait until one is really stuck
        def stuck() -> bool:
            if sched.running(engine) < 1:
                return False
            time.sleep(0.6)
            return sched.running(engine) >= 1

        assert wait_for(stuck)
        idle = sched.engine_stopping(engine, 0.3)
        assert idle is False and not sched.scheduler.running  # gave up waiting; scheduler down
    assert wait_for(lambda: sched.running(engine) == 0)  # the job then finished on its own thread


def test_missed_runs_coalesce_into_one(workspace: Path) -> None:
    """As after a suspend: three prune runs (every 72 s) were missed, all within the misfire grace time."""
    engine, _ws = engine_ws(workspace, maintenance={"pruneIntervalHours": 0.02})
    sched = MaintenanceScheduler(new_background_scheduler(), startup_delay_s=-(150 + STAGGER_S))
    sched.attach(engine)
    sched.scheduler.start()
    try:
        assert wait_for(lambda: {"decay", "prune", "compact"} <= set(read_runs(workspace)))
        assert sched.wait_idle(30)
        time.sleep(0.5)  # uncoalesced, the other two missed runs would have been submitted at the same moment
        assert [h["job"] for h in read_history(workspace)].count("prune") == 1
        job = next(j for j in sched.jobs_for(workspace) if j.id.startswith("prune@"))
        assert job.next_run_time > datetime.now(UTC) + timedelta(seconds=30)
    finally:
        engine.stop(5)
    assert not sched.scheduler.running


# --------------------------------------------------------------------------- the standalone daemon
def daemon_config(tmp_path: Path, **extra: Any) -> Path:
    cfg = {"embeddings": {"enabled": False}, "storage": {"maxFacts": 1_000_000}, **extra}
    path = tmp_path / f"daemon-{len(list(tmp_path.glob('daemon-*')))}.json"
    path.write_text(json.dumps(cfg))
    return path


def start_daemon(folder: Path, cfg: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "knowledge_engine.cli.app", "maintain", "--daemon", "-w", str(folder),
         "-c", str(cfg)],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )


STORE_JOBS = ("decay", "prune", "compact")


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL])
def test_a_signal_during_a_run_leaves_a_valid_store_and_the_next_run_completes(
    tmp_path: Path, sig: signal.Signals
) -> None:
    folder = tmp_path / "ws"
    n = 40_000
    make_store(folder, n, last_decay_at=datetime.now(UTC) - timedelta(days=1, hours=1))
    proc = start_daemon(folder, daemon_config(tmp_path))
    try:
        assert wait_for(lambda: any(job_running_elsewhere(folder, j) for j in STORE_JOBS), 120), proc.stderr
        os.kill(proc.pid, sig)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == (0 if sig == signal.SIGTERM else -signal.SIGKILL), err
    if sig == signal.SIGTERM:
        assert "maintenance daemon stopped" in out
    engine, ws = engine_ws(folder)
    assert len(ws.facts) == n  # the store loads, nothing lost
    rec = run_job(engine, ws, "decay")
    assert rec["status"] == "ok"
    assert relevances(folder) == {0.98}  # exactly one interval in total, however the signal fell
    assert run_job(engine, ws, "compact")["status"] == "ok"
    engine.stop(5)
    assert len(Workspace(folder, engine.config).facts) == n


def overlaps(history: list[dict[str, Any]]) -> list[tuple[str, int, int]]:
    """Pairs of successful runs of one job, by different processes, whose time spans overlap."""
    spans: dict[str, list[tuple[float, float, int]]] = {}
    for h in history:
        if h["status"] != "ok":
            continue
        start = datetime.fromisoformat(h["started_at"]).timestamp()
        spans.setdefault(h["job"], []).append((start, start + h["duration_ms"] / 1000, h["pid"]))
    bad = []
    for job, runs in spans.items():
        for i, (s1, e1, p1) in enumerate(runs):
            for s2, e2, p2 in runs[i + 1:]:
                if p1 != p2 and s1 < e2 - 0.005 and s2 < e1 - 0.005:
                    bad.append((job, p1, p2))
    return bad


def both_ran(folder: Path) -> bool:
    history = read_history(folder)
    return len({h["pid"] for h in history}) == 2 and len(history) >= 12


@pytest.mark.slow
def test_two_daemons_on_one_workspace_never_run_the_same_job_at_once(tmp_path: Path) -> None:
    folder = tmp_path / "ws"
    make_store(folder, 15_000, last_decay_at=datetime.now(UTC))
    cfg = daemon_config(tmp_path, decay={"intervalHours": 0.0004},
                        maintenance={"pruneIntervalHours": 0.0003, "compactIntervalHours": 0.0004})
    procs = [start_daemon(folder, cfg) for _ in range(2)]
    try:
        assert wait_for(lambda: both_ran(folder), 180)
    finally:
        for p in procs:
            p.send_signal(signal.SIGTERM)
        for p in procs:
            p.communicate(timeout=120)
    assert [p.returncode for p in procs] == [0, 0]
    history = read_history(folder)
    assert {h["job"] for h in history} >= set(STORE_JOBS)
    assert overlaps(history) == []
    assert len(Workspace(folder, load_config({})).facts) == 15_000
