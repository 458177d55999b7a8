"""Progress bars of long commands: drawn on an interactive stderr, never when piped or with --json."""

from __future__ import annotations

import os
import pty
import re
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.test_cli_support import workspace_copy

ROOT = Path(__file__).resolve().parents[1]
HELPER = """
import sys
from knowledge_engine.cli.common import progress
with progress("counting sheep", quiet="--json" in sys.argv) as task:
    task.update(0, 7)
    for _ in range(7):
        task.advance()
print("shown" if task.shown else "hidden")
"""


def run_with_tty_stderr(args: list[str], deadline_s: float = 300.0) -> tuple[int, str, str]:
    """Run `args` with stdout piped and stderr on a pseudo-terminal: (exit code, stdout, stderr)."""
    master, slave = pty.openpty()
    env = {**os.environ, "COLUMNS": "100", "TERM": "xterm"}
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=slave, cwd=ROOT, env=env)
    os.close(slave)
    chunks: list[bytes] = []
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        ready, _, _ = select.select([master], [], [], 0.5)
        if ready:
            try:
                data = os.read(master, 65536)
            except OSError:  # the child closed its end
                break
            if not data:
                break
            chunks.append(data)
        elif proc.poll() is not None:
            break
    os.close(master)
    out = proc.stdout.read() if proc.stdout else b""
    code = proc.wait(timeout=60)
    return code, out.decode(), b"".join(chunks).decode(errors="replace")


def run_piped(args: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, capture_output=True, text=True, cwd=ROOT, timeout=300, check=False)


def test_progress_draws_on_a_terminal_only() -> None:
    code, out, err = run_with_tty_stderr([sys.executable, "-c", HELPER])
    assert code == 0 and out.strip() == "shown"
    assert "counting sheep" in err and "7/7" in err
    piped = run_piped([sys.executable, "-c", HELPER])
    assert piped.stdout.strip() == "hidden" and piped.stderr == ""


def test_progress_is_off_with_json_even_on_a_terminal() -> None:
    code, out, err = run_with_tty_stderr([sys.executable, "-c", HELPER, "--json"])
    assert code == 0 and out.strip() == "hidden"
    assert "counting sheep" not in err


@pytest.mark.slow
def test_sync_shows_its_progress_on_a_terminal_and_stays_quiet_when_piped(tmp_path: Path) -> None:
    ws = str(workspace_copy("sample", tmp_path))
    cmd = [sys.executable, "-m", "knowledge_engine.cli.app", "sync", "-w", ws, "--rebuild"]
    code, out, err = run_with_tty_stderr(cmd)
    assert code == 0, err
    assert "embedding" in err and re.search(r"(\d+)/\1", err), err  # the bar reached done == total
    assert "sync done" in out
    piped = run_piped(cmd)
    assert piped.returncode == 0 and "embedding" not in piped.stderr and "━" not in piped.stderr
    code, out, err = run_with_tty_stderr([*cmd, "--json"])
    assert code == 0 and "embedding" not in err and out.lstrip().startswith("{")
