"""Disk errors during a flush: a child process under RLIMIT_FSIZE (SIGXFSZ ignored, so writes raise OSError).

Asserted: the store file on disk stays the last good version, the error is logged once with a clear
message however often the flush is retried, the changes stay in memory, and they are written as soon
as the disk accepts writes again.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

from knowledge_engine.config import load_config
from knowledge_engine.store.workspace import Workspace

CHILD = textwrap.dedent(
    """
    import json, logging, resource, signal, sys
    from pathlib import Path
    from knowledge_engine.config import load_config
    from knowledge_engine.observe import counters
    from knowledge_engine.store.workspace import Workspace

    records = []
    class Keep(logging.Handler):
        def emit(self, record):
            records.append((record.levelname, record.getMessage()))
    logging.getLogger().addHandler(Keep())
    logging.getLogger().setLevel(logging.DEBUG)

    folder = Path(sys.argv[1])
    ws = Workspace(folder, load_config({"storage": {"writeDebounceMs": 0}}))
    for i in range(5):
        ws.facts.add(f"Person {i}", "works-at", f"Org {i}")
    assert ws.flush()
    good = (folder / "facts.json").read_bytes()

    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (len(good) + 100, hard))
    for i in range(5, 200):
        ws.facts.add(f"Person {i}", "works-at", f"Org {i}")
    failed = [ws.flush() for _ in range(4)]
    after_failure = (folder / "facts.json").read_bytes()
    in_memory = len(ws.facts)
    leftovers = [p.name for p in folder.iterdir() if p.name.endswith(".tmp")]

    resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))  # the disk recovers
    recovered = ws.flush()
    print(json.dumps({
        "failed": failed, "unchanged": after_failure == good, "in_memory": in_memory,
        "recovered": recovered, "flush_errors_counted": counters.get("store.flush_errors"),
        "leftover_tmp": leftovers, "logs": records,
    }))
    """
)


def test_flush_under_a_file_size_limit_keeps_the_old_file_and_writes_once_the_disk_recovers(
    workspace: Path, tmp_path: Path
) -> None:
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    done = subprocess.run([sys.executable, str(script), str(workspace)], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["failed"] == [False, False, False, False]
    assert out["unchanged"], "the last good file must survive a failed write"
    assert out["in_memory"] == 200
    assert out["recovered"] is True
    assert out["flush_errors_counted"] == 4
    assert out["leftover_tmp"] == [], "a failed write must not leave its temp file behind"
    errors = [msg for level, msg in out["logs"] if level == "ERROR"]
    assert len(errors) == 1, errors
    assert "could not write the store" in errors[0] and "retried" in errors[0]
    assert "(OSError: File too large)" in errors[0]  # the system's reason, not the bare class
    assert any("recovered after 4 failed attempts" in msg for _, msg in out["logs"])
    ws = Workspace(workspace, load_config({}))
    assert len(ws.facts) == 200


def test_a_store_written_before_the_failure_loads_even_if_the_process_dies_while_the_disk_is_full(
    workspace: Path, tmp_path: Path
) -> None:
    """The same child, killed (no recovery): only the last good version is on disk, and it loads."""
    script = tmp_path / "child.py"
    script.write_text(CHILD.replace("resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))", "sys.exit(3)"))
    done = subprocess.run([sys.executable, str(script), str(workspace)], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 3, done.stderr[-2000:]
    ws = Workspace(workspace, load_config({}))
    assert len(ws.facts) == 5
    assert not list(workspace.glob("*.corrupt-*"))
