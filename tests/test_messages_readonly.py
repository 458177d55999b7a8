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
