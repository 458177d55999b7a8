"""A message log that cannot be written (a read-only backup folder, another user's file) can be inspected.

Before, the log was always opened read-write, so `stats`, `messages`, `search` and `show` failed on a
read-only copy with "cannot open message log ...: Permission denied". Now it is opened read-only
(store/messages.py); a command that writes still stops with one clear error, and nothing is written.

The commands run in a child process that cannot write the copy. As an ordinary user, mode bits do
that. As root they do not (CAP_DAC_OVERRIDE writes anything, and the owner may chmod its files back):
then the copy is given to another user (nobody) and the child runs without CAP_DAC_OVERRIDE and
CAP_FOWNER (util-linux `setpriv`), so the kernel refuses its writes as it would a user's.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_cli_support import workspace_copy

NOBODY = 65534
ROOT_DIR = Path(__file__).resolve().parents[1]


def _unwritable(folder: Path, file_mode: int) -> None:
    """Folders r-x, files `file_mode`; owned by another user when we are root."""
    for path in [folder, *folder.rglob("*")]:
        path.chmod(0o555 if path.is_dir() else file_mode)
        if os.geteuid() == 0:
            os.chown(path, NOBODY, NOBODY, follow_symlinks=False)


def _restore(folder: Path) -> None:
    """Writable again, so pytest can remove the temporary folder."""
    for path in [folder, *folder.rglob("*")]:
        if os.geteuid() == 0:
            os.chown(path, 0, 0, follow_symlinks=False)
        path.chmod(0o700 if path.is_dir() else 0o600)


def _prefix() -> list[str]:
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root without util-linux setpriv: no way to make a folder unwritable")
    return [setpriv, "--bounding-set=-dac_override,-fowner"]


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    cmd = [*_prefix(), sys.executable, "-m", "knowledge_engine.cli.app", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=ROOT_DIR)


def _snapshot(folder: Path) -> dict[str, tuple[int, int]]:
    return {str(p.relative_to(folder)): (p.stat().st_size, p.stat().st_mtime_ns) for p in folder.rglob("*")}


@pytest.mark.parametrize(
    "file_mode",
    [0o444, 0o666],
    ids=["read-only files", "writable file in a read-only folder"],  # the second: SQLite cannot add -shm
)
def test_read_commands_inspect_a_log_that_cannot_be_written(tmp_path: Path, file_mode: int) -> None:
    ws = workspace_copy("sample", tmp_path)
    new = '{"id": "n1", "text": "I adopted a cat named Miso.", "role": "user"}\n'
    (tmp_path / "new.jsonl").write_text(new)
    _unwritable(ws, file_mode)
    before = _snapshot(ws)
    try:
        probe = _cli("ingest", str(tmp_path / "new.jsonl"), "-w", str(ws))
        stats = _cli("stats", "-w", str(ws), "--json")
        listed = _cli("messages", "-w", str(ws), "--session", "s1", "--json")
        found = _cli("search", "Lisbon", "-w", str(ws), "--no-semantic", "--json")
        shown = _cli("show", "Maya", "-w", str(ws), "--json")
    finally:
        after = _snapshot(ws)
        _restore(ws)
    for done in (stats, listed, found, shown):
        assert done.returncode == 0, done.stderr
        assert "message log" not in done.stderr
    assert json.loads(stats.stdout)["messages"] == 50
    assert {m["session"] for m in json.loads(listed.stdout)} == {"s1"}
    assert any("Lisbon" in m["text"] for m in json.loads(found.stdout)["messages"])
    assert json.loads(shown.stdout)["messages"]  # the entity's evidence, read from the log
    # a writing command: the clear error, exit 4, as when the log could not be opened at all
    assert probe.returncode == 4, probe.stderr
    assert "cannot write message log" in probe.stderr and "read-only" in probe.stderr
    assert after == before  # nothing written: no -wal or -shm file, no journal, no store file


def test_the_child_really_cannot_write(tmp_path: Path) -> None:
    """The premise of the test above, checked: the same child process fails to create a file there."""
    folder = tmp_path / "ro"
    folder.mkdir()
    _unwritable(folder, 0o444)
    try:
        code = "import pathlib, sys; pathlib.Path(sys.argv[1], 'x').write_text('x')"
        done = subprocess.run([*_prefix(), sys.executable, "-c", code, str(folder)], capture_output=True)
    finally:
        _restore(folder)
    assert done.returncode != 0 and b"PermissionError" in done.stderr
    assert not (folder / "x").exists()
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700


_CHILD = """
import sys
from datetime import UTC, datetime
from knowledge_engine.model.records import Message
from knowledge_engine.store.messages import MessageLog, MessageLogError

log = MessageLog(sys.argv[1])
msg = Message(id="late", text="Written once the folder is writable.", role="user",
              timestamp=datetime(2026, 1, 1, tzinfo=UTC))
try:
    log.append_many([msg])
except MessageLogError as exc:
    print("refused:", exc, flush=True)
print("read:", log.count(), "read_only:", log.read_only is not None, flush=True)
sys.stdin.readline()  # the parent makes the folder writable meanwhile
print("added:", log.append_many([msg]), "read_only:", log.read_only is not None, flush=True)
log.close()
"""


def test_a_read_only_log_refuses_writes_then_takes_them_once_writable(tmp_path: Path) -> None:
    """A host started on a folder it cannot write reads the log, refuses each write with the cause,
    and writes again once the folder's mode is fixed, without a restart."""
    ws = workspace_copy("sample", tmp_path)
    _unwritable(ws, 0o444)
    cmd = [*_prefix(), sys.executable, "-c", _CHILD, str(ws)]
    try:
        with subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True) as child:
            assert child.stdin is not None and child.stdout is not None
            refused, state = child.stdout.readline(), child.stdout.readline()
            for path in [ws, *ws.rglob("*")]:
                path.chmod(0o777 if path.is_dir() else 0o666)
            child.stdin.write("go\n")
            child.stdin.flush()
            added = child.stdout.readline()
            assert child.wait(timeout=120) == 0
    finally:
        _restore(ws)
    assert refused.startswith("refused: cannot write message log") and "read-only here" in refused
    assert state.split() == ["read:", "50", "read_only:", "True"]
    assert added.split() == ["added:", "1", "read_only:", "False"]
