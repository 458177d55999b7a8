"""Maintenance across nodes on the shared store (issue 17): one node at a time per job and agent.

Every lock here is a PostgreSQL advisory lock taken by a real other session (this process's own
connection, or another process) on the session server, as a second gateway node would.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from knowledge_engine.cli.app import app
from knowledge_engine.config import PostgresStorageConfig, load_config
from knowledge_engine.engine import KnowledgeEngine
from knowledge_engine.forget.stores import store_jobs_held
from knowledge_engine.maintenance import pglocks, run_job
from knowledge_engine.maintenance.runs import SKIPPED_ELSEWHERE, read_shared_runs
from knowledge_engine.observe import counters
from tests.fixtures.postgres import database_fixture, store_config, store_config_file

AGENT = "team-bot"


url = database_fixture("ke_pg_maintenance")


def _wait(cond: Callable[[], bool], deadline_s: float = 60) -> bool:
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.05)
    return cond()


def _maintain(tmp_path: Path, url: str, folder: Path, job: str, agent: str = AGENT) -> Any:
    folder.mkdir(parents=True, exist_ok=True)
    config = store_config_file(tmp_path, url)
    args = ["maintain", "--once", "--job", job, "-w", str(folder), "-c", str(config)]
    return CliRunner().invoke(app, [*args, "--agent", agent, "--json"])


def test_a_job_another_node_is_running_is_skipped_counted_and_seen_by_every_node(
    tmp_path: Path, url: str
) -> None:
    pg = PostgresStorageConfig(url=url)
    before = counters.get("maintenance.skipped_running_elsewhere")
    with pglocks.try_lock(pg, "decay", AGENT) as got:  # node A is running decay for the agent
        assert got
        busy = _maintain(tmp_path, url, tmp_path / "node-b", "decay")
        other_agent = _maintain(tmp_path, url, tmp_path / "node-b2", "decay", agent="other-bot")
        other_job = _maintain(tmp_path, url, tmp_path / "node-b3", "prune")
    assert busy.exit_code == 0, busy.output  # as the file backend's lock-busy case: not a failure
    [rec] = json.loads(busy.stdout)
    assert rec["status"] == "skipped" and rec["reason"] == SKIPPED_ELSEWHERE
    assert counters.get("maintenance.skipped_running_elsewhere") == before + 1
    assert json.loads(other_agent.stdout)[0]["status"] == "ok"  # another agent is not held up
    assert json.loads(other_job.stdout)[0]["status"] == "ok"  # nor another job of the same agent
    assert read_shared_runs(pg, AGENT)["decay"]["status"] == "skipped"

    done = _maintain(tmp_path, url, tmp_path / "node-c", "decay")  # free again: any node runs it
    assert json.loads(done.stdout)[0]["status"] == "ok", done.output
    runs = read_shared_runs(pg, AGENT)  # one record per job of the agent, whichever node ran it
    assert runs["decay"]["status"] == "ok" and runs["prune"]["status"] == "ok"
    assert runs["decay"]["node"] == socket.gethostname()  # which machine ran it
    assert read_shared_runs(pg, "other-bot")["decay"]["status"] == "ok"


HOLDER = """
import sys
from knowledge_engine.config import PostgresStorageConfig
from knowledge_engine.maintenance import pglocks
with pglocks.try_lock(PostgresStorageConfig(url=sys.argv[1]), sys.argv[2], sys.argv[3]) as got:
    print("held" if got else "busy", flush=True)
    sys.stdin.readline()
"""


def test_a_node_killed_mid_job_leaves_no_stale_lock(tmp_path: Path, url: str) -> None:
    pg = PostgresStorageConfig(url=url)
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, url, "compact", AGENT],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        assert pglocks.held_elsewhere(pg, "compact", AGENT)
        os.kill(holder.pid, signal.SIGKILL)
        holder.wait(30)
    finally:
        if holder.poll() is None:
            holder.kill()
    # the server ends the dead node's session and with it the lock
    assert _wait(lambda: not pglocks.held_elsewhere(pg, "compact", AGENT))
    engine = KnowledgeEngine(load_config(store_config(url)))
    ws = engine.open_workspace(tmp_path / "node-d", AGENT)
    try:
        assert run_job(engine, ws, "compact")["status"] == "ok"
    finally:
        engine.stop(10)


def test_forget_and_store_jobs_share_the_agents_store_lock_across_nodes(tmp_path: Path, url: str) -> None:
    cfg = store_config(url)
    cfg["maintenance"] = {"lockTimeoutSeconds": 0.3}
    engine = KnowledgeEngine(load_config(cfg))
    ws = engine.open_workspace(tmp_path / "node-e", AGENT)
    pg = PostgresStorageConfig(url=url)
    try:
        with pglocks.wait_lock(pg, "meta", AGENT, 5):  # another node is inside a store job
            with pytest.raises(TimeoutError), store_jobs_held(ws):
                pass
            rec = run_job(engine, ws, "decay")  # a store job waits on the same lock, then records why
            assert rec["status"] == "error" and rec["error"] == "TimeoutError"
        with store_jobs_held(ws):  # released: forget gets it at once
            pass
        assert run_job(engine, ws, "decay")["status"] == "ok"
    finally:
        engine.stop(10)


def test_the_lock_ids_are_the_same_on_every_node_and_differ_per_job_and_agent() -> None:
    code = "from knowledge_engine.maintenance.pglocks import lock_id; print(lock_id('decay', 'team-bot'))"
    other = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert int(other.stdout) == pglocks.lock_id("decay", AGENT)  # not Python's per-process hash()
    ids = {pglocks.lock_id(j, a) for j in ("decay", "prune", "meta") for a in (AGENT, "other-bot")}
    assert len(ids) == 6


def test_cron_on_two_nodes_at_once_runs_the_job_on_one_and_skips_it_on_the_other(
    tmp_path: Path, url: str
) -> None:
    """Node A's decay holds the job lock while it waits for the agent's store lock (held here, as by a
    forget elsewhere); node B's cron run of the same job meanwhile skips it. Then A finishes."""
    pg = PostgresStorageConfig(url=url)
    cfg = store_config(url)
    cfg["maintenance"] = {"lockTimeoutSeconds": 120}
    path = tmp_path / "slow.json"
    path.write_text(json.dumps(cfg))
    (tmp_path / "node-a").mkdir()
    args = ["maintain", "--once", "--job", "decay", "-c", str(path), "--agent", "cron-bot", "--json"]
    with pglocks.wait_lock(pg, "meta", "cron-bot", 5):
        node_a = subprocess.Popen(
            [sys.executable, "-m", "knowledge_engine.cli.app", *args, "-w", str(tmp_path / "node-a")],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        try:
            assert _wait(
                lambda: pglocks.held_elsewhere(pg, "decay", "cron-bot") or node_a.poll() is not None, 120
            )
            assert node_a.poll() is None, node_a.communicate()
            node_b = _maintain(tmp_path, url, tmp_path / "node-b", "decay", agent="cron-bot")
        except BaseException:
            node_a.kill()
            raise
    out, err = node_a.communicate(timeout=120)
    assert node_b.exit_code == 0 and json.loads(node_b.stdout)[0]["reason"] == SKIPPED_ELSEWHERE
    assert node_a.returncode == 0, err
    assert json.loads(out)[0]["status"] == "ok"
    assert read_shared_runs(pg, "cron-bot")["decay"]["status"] == "ok"  # A's record came last
