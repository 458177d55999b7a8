"""`knowledge-engine serve` start-up refusals, stale sockets, and SIGTERM/SIGINT: drain, flush, exit 0."""

from __future__ import annotations

import signal
import socket
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from knowledge_engine.config import load_config
from knowledge_engine.store.workspace import Workspace
from tests.sidecar_process import Sidecar, run_serve, sidecar_config, start_sidecar, wait_for

pytestmark = pytest.mark.slow  # real processes and spaCy: outside the fast loop

SESSION = "agent:main:chat"
TOKEN = "another-token-for-lifecycle-tests-0123456789"


def post_messages(sc: Sidecar, tag: str, n: int) -> list[str]:
    ids = []
    for i in range(n):
        mid = f"{tag}-{i}"
        event = {"from": "u1", "content": f"Note {i}: Priya works at Initech. Mail priya{i}@initech.example.",
                 "messageId": mid, "sessionKey": SESSION, "timestamp": "2025-03-01T09:00:00Z"}
        assert sc.hook("message_received", event, {"channelId": "webchat"}) is None
        ids.append(mid)
    return ids


def stored(root: Path, ids: list[str]) -> tuple[set[str], set[str]]:
    """(message ids in the message log, email values in entities.json) of agent `main`, read from disk."""
    cfg = load_config(sidecar_config(root))
    ws = Workspace(root / "agents" / "main", cfg, "main")
    try:
        messages = {m.id for m in ws.messages.get_many(ids)}
        emails = {e.value for e in ws.entities.all() if e.type == "email"}
    finally:
        ws.close()
    return messages, emails


# --------------------------------------------------------------------------- refusals (no engine starts)


@pytest.mark.parametrize(
    ("args", "token", "needle"),
    [
        (["--port", "0"], None, "KNOWLEDGE_ENGINE_SIDECAR_TOKEN"),
        (["--port", "0", "--host", "0.0.0.0"], TOKEN, "loopback"),
        (["--port", "0", "--socket", "/tmp/x.sock"], TOKEN, "not both"),
        (["--log-level", "chatty"], None, "--log-level"),
    ],
)
def test_bad_arguments_exit_2_with_a_clear_message(
    tmp_path: Path, args: list[str], token: str | None, needle: str
) -> None:
    done = run_serve(tmp_path, [*args], token=token)
    assert done.returncode == 2, done.stderr
    assert needle in done.stderr and done.stdout == ""
    if token:
        assert token not in done.stderr + done.stdout


def test_a_bad_config_exits_2_naming_the_key_before_any_socket_exists(tmp_path: Path) -> None:
    sock = tmp_path / "run" / "ke.sock"
    done = run_serve(tmp_path, ["--socket", str(sock)], config={"retrieval": {"budgetMss": 5}})
    assert done.returncode == 2
    assert "budgetMss" in done.stderr and "budgetMs" in done.stderr
    assert not sock.exists()


def test_a_path_that_is_not_a_socket_is_never_replaced(tmp_path: Path) -> None:
    target = tmp_path / "important.txt"
    target.write_text("keep me")
    done = run_serve(tmp_path, ["--socket", str(target)], config=sidecar_config(tmp_path))
    assert done.returncode == 1 and "not a socket" in done.stderr
    assert target.read_text() == "keep me"


# --------------------------------------------------------------------------- stale and live sockets


def test_stale_socket_is_replaced_and_a_live_one_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "ke.sock"
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(str(path))  # a crashed sidecar's leftover: the file exists, nobody listens
    stale.close()
    sc = start_sidecar(tmp_path, sidecar_config(tmp_path), socket=path, token=TOKEN)
    try:
        assert sc.call("GET", "/health")[0] == 200
        assert sc.call("GET", "/health", auth=False)[0] == 401  # a token is optional on a socket, but holds
        second = run_serve(tmp_path, ["--socket", str(path)], config=sidecar_config(tmp_path))
        assert second.returncode == 1 and "another process is listening" in second.stderr
        assert sc.call("GET", "/health")[0] == 200  # the first one still owns its socket
    finally:
        code = sc.terminate(signal.SIGINT)
    assert code == 0
    assert not path.exists()  # removed at exit


# --------------------------------------------------------------------------- SIGTERM


def test_sigterm_flushes_what_was_accepted_and_exits_0(tmp_path: Path) -> None:
    """No /drain: the stores are written only by the stop (the debounce is a minute)."""
    cfg = sidecar_config(tmp_path, storage={"writeDebounceMs": 60000})
    sc = start_sidecar(tmp_path, cfg, socket=tmp_path / "ke.sock")
    sc.wait_ready()
    ids = post_messages(sc, "term", 5)
    assert not (tmp_path / "agents" / "main" / "entities.json").exists()
    assert sc.terminate(signal.SIGTERM) == 0
    messages, emails = stored(tmp_path, ids)
    assert messages == set(ids)
    assert {f"priya{i}@initech.example" for i in range(5)} <= emails
    assert not (tmp_path / "ke.sock").exists()
    assert "sidecar.stopped" in sc.stderr() and "Initech" not in sc.stderr()


def template_config(root: Path) -> dict[str, object]:
    """The default workspaceTemplate ({workspaceDir}/...): message hooks carry no workspaceDir, so the
    plugin may hold their messages until an agent hook names the folder (else workspaceRoot/<agent>,
    the same folder as sidecar_config's fixed one for agent `main`)."""
    cfg = sidecar_config(root, storage={"writeDebounceMs": 60000}, workspaceRoot=str(root / "agents"))
    del cfg["workspace"]
    return cfg


@pytest.mark.parametrize("layout", ["fixed workspace", "workspace template"])
def test_sigterm_right_after_accepting_loses_nothing(tmp_path: Path, layout: str) -> None:
    """SIGTERM while spaCy may still be loading and the plugin may still hold messages: each accepted
    message is either flushed at the stop or parked on disk and processed by the next sidecar."""
    if layout == "fixed workspace":
        cfg = sidecar_config(tmp_path, storage={"writeDebounceMs": 60000})
    else:
        cfg = template_config(tmp_path)
    sc = start_sidecar(tmp_path, cfg, socket=tmp_path / "ke.sock")
    ids = post_messages(sc, "early", 20)  # acknowledged with 200, probably before spaCy is loaded
    assert sc.terminate(signal.SIGTERM) == 0
    assert "sidecar.stopped" in sc.stderr()

    again = start_sidecar(tmp_path, cfg, socket=tmp_path / "ke.sock", name="again")
    try:
        # the workspace opens (and replays what was parked) on the agent's first message
        again.hook("before_prompt_build", {"prompt": "hello there, anything new?", "messages": []},
                   {"agentId": "main", "sessionKey": SESSION})
        ids += post_messages(again, "again", 1)
        wait_for(lambda: again.call("POST", "/drain", {"timeoutMs": 60000})[1]["drained"], 180, "drain")
    finally:
        assert again.terminate() == 0
    messages, emails = stored(tmp_path, ids)
    assert messages == set(ids)
    assert {f"priya{i}@initech.example" for i in range(20)} <= emails


# ------------------------------------------------------------- the host stops, the sidecar does not


def test_gateway_stop_flushes_but_the_sidecar_keeps_ingesting(tmp_path: Path) -> None:
    """A sidecar outlives its host (spawn: false, plugin replacement): the host's gateway_stop must not
    stop the engine under it, or every message acknowledged afterwards is silently lost."""
    cfg = sidecar_config(tmp_path, storage={"writeDebounceMs": 60000})
    runtime_dir = tmp_path / "xdg"
    runtime_dir.mkdir(mode=0o700)
    sc = start_sidecar(tmp_path, cfg, default_socket=True, env={"XDG_RUNTIME_DIR": str(runtime_dir)})
    try:
        assert sc.socket == runtime_dir / "knowledge-engine" / "sidecar.sock"  # the documented default
        assert stat.S_IMODE(sc.socket.parent.stat().st_mode) == 0o700
        sc.wait_ready()
        ids = post_messages(sc, "before", 2)
        assert sc.hook("gateway_stop", {"reason": "shutdown"}, {"port": 18789}) is None
        messages, _ = stored(tmp_path, ids)
        assert messages == set(ids)  # gateway_stop flushed what was accepted before it
        ids += post_messages(sc, "after", 2)
        assert sc.call("POST", "/drain", {"timeoutMs": 60000})[1] == {"drained": True, "pending": 0}
        messages, _ = stored(tmp_path, ids)
        assert messages == set(ids)
    finally:
        assert sc.terminate() == 0


def test_drain_hands_over_messages_the_plugin_still_holds(tmp_path: Path) -> None:
    """With the default workspaceTemplate the plugin may hold messages (not yet queued) until an agent
    hook names the folder; /drain must not answer drained while they sit there."""
    sc = start_sidecar(tmp_path, template_config(tmp_path), socket=tmp_path / "ke.sock")
    try:
        sc.wait_ready()
        ids = post_messages(sc, "held", 3)
        assert sc.call("POST", "/drain", {"timeoutMs": 60000})[1] == {"drained": True, "pending": 0}
        assert stored(tmp_path, ids)[0] == set(ids)
        later = post_messages(sc, "later", 1)  # the engine still accepts after the drain
        assert sc.call("POST", "/drain", {"timeoutMs": 60000})[1] == {"drained": True, "pending": 0}
        assert stored(tmp_path, later)[0] == set(later)
    finally:
        assert sc.terminate() == 0


def test_an_orphaned_sidecar_flushes_and_exits_when_its_parent_is_gone(tmp_path: Path) -> None:
    """A gateway killed with SIGKILL cannot stop its sidecar: `--parent-pid` makes the sidecar notice."""
    parent = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    try:
        cfg = sidecar_config(tmp_path, storage={"writeDebounceMs": 60000})
        sc = start_sidecar(tmp_path, cfg, socket=tmp_path / "ke.sock",
                           extra_args=["--parent-pid", str(parent.pid)])
        sc.wait_ready()
        ids = post_messages(sc, "orphan", 3)
        assert sc.proc.poll() is None  # the parent lives: the sidecar serves on
    finally:
        parent.kill()
        parent.wait()
    assert sc.proc.wait(timeout=120) == 0
    messages, emails = stored(tmp_path, ids)
    assert messages == set(ids)
    assert {f"priya{i}@initech.example" for i in range(3)} <= emails
    assert "parent process" in sc.stderr() and not (tmp_path / "ke.sock").exists()
