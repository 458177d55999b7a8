"""The code the README and docs/ show runs as shown.

A block preceded by `<!-- example: PATH -->` must be exactly the file PATH (a runnable file under
`examples/`), and every Python block that looks runnable (`asyncio.run(`, a quoted hook run) must be
marked so. Each example then runs in a fresh interpreter and its output is checked.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
MARKED = re.compile(r"<!-- example: (?P<path>\S+) -->\n```\w*\n(?P<body>.*?)^```", re.S | re.M)
FENCED = re.compile(r"^```(?P<lang>\w*)\n(?P<body>.*?)^```", re.S | re.M)
RUNNABLE = re.compile(r"asyncio\.run\(|await runner\.run\w*\([\"{]")
TIMEOUT_S = 300  # spaCy workers start in 2-3 s on an idle machine; generous for a loaded one


def _marked() -> list[tuple[Path, str, str]]:
    return [(doc, m["path"], m["body"]) for doc in DOCS for m in MARKED.finditer(doc.read_text())]


def _run(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    return subprocess.run(
        list(args), cwd=cwd, env=env, capture_output=True, text=True, timeout=TIMEOUT_S, check=False
    )


def test_marked_blocks_are_the_example_files() -> None:
    blocks = _marked()
    files = {f"examples/{f.name}" for f in (ROOT / "examples").iterdir() if f.is_file()}
    assert {p for _, p, _ in blocks} == files, "every example is shown in a doc, and every shown file exists"
    for doc, path, body in blocks:
        differs = f"{doc.name}: the block marked {path} differs from the file (run scripts/sync_examples.py)"
        assert body == (ROOT / path).read_text(), differs


def test_runnable_python_blocks_are_marked_examples() -> None:
    marked = {body for _, _, body in _marked()}
    for doc in DOCS:
        for m in FENCED.finditer(doc.read_text()):
            if m["lang"] == "python" and RUNNABLE.search(m["body"]):
                assert m["body"] in marked, f"{doc.name}: a runnable Python block is not an example file"


def test_message_log_example_prints_what_its_comments_say(tmp_path: Path) -> None:
    proc = _run(sys.executable, "examples/message_log.py", str(tmp_path))
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = proc.stdout.splitlines()
    assert lines[:6] == ["True", "False", "2", "['m3', 'm1']", "['m3', 'm2']", "2"], lines
    assert lines[6].startswith("[('m1', ") and lines[6].count("('m") == 1, lines
    assert (tmp_path / "messages.sqlite3").is_file()


@pytest.mark.slow
def test_plugin_example_injects_the_fact_on_its_first_prompt(tmp_path: Path) -> None:
    proc = _run(sys.executable, "examples/plugin_example.py", str(tmp_path))
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = proc.stdout
    assert out.startswith("<<<knowledge-engine:BEGIN nonce="), out
    assert "| moved-to | Lisbon" in out and "I moved to Lisbon" in out, out
    assert (tmp_path / "knowledge-engine" / "facts.json").is_file()


@pytest.mark.slow
def test_host_contract_example_prints_the_injected_block(tmp_path: Path) -> None:
    proc = _run(sys.executable, "examples/host_contract.py", str(tmp_path))
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.startswith("<<<knowledge-engine:BEGIN nonce="), proc.stdout
    assert "Dana | moved-to | Lisbon" in proc.stdout, proc.stdout


@pytest.mark.slow
def test_cli_tour_runs_every_command(tmp_path: Path) -> None:
    """The README's CLI block, as written: every command exits 0 (set -e) on the sample conversation."""
    env = {**os.environ, "TMPDIR": str(tmp_path)}  # its mktemp folders go where pytest cleans up
    proc = subprocess.run(
        ["bash", "-x", "examples/cli_tour.sh"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S * 2,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    out = " ".join((proc.stdout + proc.stderr).split())  # rich wraps long lines; notes may go to stderr
    assert "Maya works-at Helix Robotics GmbH (manual)" in out, out[-4000:]
    # every sample message comes back; entity and fact counts follow the extraction rules, so only their scale
    imported = re.search(r"imported (\d+) entities, (\d+) facts, (\d+) messages", out)
    assert imported is not None, out[-4000:]
    entities, facts, messages = map(int, imported.groups())
    assert messages == 50 and entities >= 30 and facts >= 10, imported.group(0)
    assert "(html, " in out and "(jsonl, " in out, out[-4000:]  # the two exports were written
    ran = [line for line in proc.stderr.splitlines() if line.startswith("+ knowledge-engine ")]
    script = (ROOT / "examples" / "cli_tour.sh").read_text().splitlines()
    assert len(ran) == sum(line.startswith("knowledge-engine ") for line in script) == 16, ran


COLD_TURN = """
import asyncio, sys
from knowledge_engine.host import HookRunner, PluginApi
from knowledge_engine.plugin import register

async def main(agent_dir):
    api = PluginApi("knowledge-engine", {"extraction": {"llm": {"enabled": False}}})
    register(api)
    runner = HookRunner(api.registrations)
    agent = {"agentId": "main", "workspaceDir": agent_dir, "sessionKey": "agent:main:chat"}
    await runner.run("session_start", {"sessionId": "s1", "sessionKey": "agent:main:chat"}, agent)
    await runner.run("message_received", {"from": "u1", "content": "I moved to Lisbon", "messageId": "m1",
                                          "sessionKey": "agent:main:chat"}, {"channelId": "web"})
    result = await runner.run("before_prompt_build", {"prompt": "Where do I live?", "messages": []}, agent)
    print((result or {}).get("appendSystemContext", "(nothing injected)"))
    await runner.run("gateway_stop", {"reason": "shutdown"}, {})

asyncio.run(main(sys.argv[1]))
"""


@pytest.mark.slow
@pytest.mark.xfail(
    reason="a race in a fresh process: 'Where do I live?' shares no word with 'I moved to Lisbon', so only "
    "the vector arm finds it; the live indexer (index/live.py, tests/test_index_live.py) embeds it moments "
    "after it is stored, but the very first prompt, asked at once while the model loads, may search first. "
    "The examples wait for the engine instead",
    strict=False,
)
def test_a_fresh_process_recalls_its_first_message_on_the_next_prompt(tmp_path: Path) -> None:
    """The README's original order, without the wait: what a host sees on its very first turns."""
    proc = _run(sys.executable, "-c", COLD_TURN, str(tmp_path))
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "I moved to Lisbon" in proc.stdout, proc.stdout


@pytest.mark.slow
def test_sidecar_example_answers_as_the_docs_show(tmp_path: Path) -> None:
    """docs/sidecar.md's curl session: a message in, drain, the next prompt's block out, SIGTERM exit 0."""
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    proc = subprocess.Popen(
        ["bash", "examples/sidecar.sh"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group: nothing outlives the test
    )
    try:
        out, err = proc.communicate(timeout=TIMEOUT_S)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
    logs = "".join(p.read_text() for p in tmp_path.glob("*/sidecar.log"))
    assert proc.returncode == 0, err[-3000:] + logs[-3000:]
    lines = out.splitlines()
    assert json.loads(lines[0])["status"] == "ok"
    assert lines[1:3] == ['{"result":null}', '{"drained":true,"pending":0}'], out
    block = json.loads(lines[3])["result"]["appendSystemContext"]
    assert block.startswith("<<<knowledge-engine:BEGIN nonce=") and "Globex Corporation" in block, block
    assert "sidecar.stopped" in logs and "Traceback" not in logs
