"""The load benchmark in a shortened form: nothing accepted is dropped or lost under a stream with bursts.

Runs scripts/bench/load.py in a child process (its own engine and counters) for a few seconds
with several agents, a burst, and before_prompt_build firing concurrently. Asserts counts only
(dropped == 0, processed == accepted == sent, every message in the log); the latency and RSS
figures are printed, not asserted. The full run (200 msg/s for 60 s, bursts of 2,000) is the
benchmark itself: `.venv/bin/python scripts/bench/load.py`.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_short_load_run_loses_nothing(tmp_path: Path) -> None:
    args = [
        "--duration",
        "4",
        "--rate",
        "60",
        "--agents",
        "3",
        "--burst",
        "150",
        "--burst-every",
        "1.5",
        "--hook-callers",
        "2",
        "--hook-interval",
        "0.1",
        "--workspace-root",
        str(tmp_path),
    ]
    proc = subprocess.run(
        [sys.executable, "scripts/bench/load.py", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    print(
        {
            k: result[k]
            for k in (
                "sent",
                "processed",
                "queue_high_water",
                "hook_p50_ms",
                "hook_p95_ms",
                "hook_p99_ms",
                "rss_start_mb",
                "rss_end_mb",
            )
        }
    )
    assert result["bursts"] >= 1 and result["sent"] >= 150
    assert result["dropped"] == 0 and result["failed"] == 0 and result["hook_errors"] == 0
    assert result["accepted"] == result["sent"]
    assert result["processed"] == result["accepted"]  # after the flush, every accepted message was extracted
    assert result["stored_messages"] == result["sent"]  # and is in its agent's message log
    assert result["flushed"] is True
    assert result["hook_calls"] > 0
