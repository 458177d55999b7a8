"""On the postgres backend, a server that does not answer is one error line, not a traceback."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

import pytest


def _closed_port() -> int:
    with socket.socket() as s:  # bound then closed: nothing listens there
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


@pytest.mark.parametrize("command", [["stats"], ["entities"]])
def test_unreachable_store_is_a_clear_error(tmp_path: Path, command: list[str]) -> None:
    url = f"postgresql://ke:s3cretpw@127.0.0.1:{_closed_port()}/knowledge"
    cfg = {
        "workspace": str(tmp_path / "{agentId}"),
        "storage": {"backend": "postgres", "postgres": {"url": url, "connectTimeoutMs": 300}},
    }
    (tmp_path / "main").mkdir()
    (tmp_path / "cfg.json").write_text(json.dumps(cfg))
    exe = Path(sys.executable).parent / "knowledge-engine"
    proc = subprocess.run(
        [str(exe), *command, "--config", str(tmp_path / "cfg.json"), "--agent", "main"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 4, proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr
    assert "error: cannot reach the PostgreSQL store at 127.0.0.1:" in proc.stderr
    assert "storage.postgres.url" in proc.stderr
    assert "s3cretpw" not in proc.stderr + proc.stdout
