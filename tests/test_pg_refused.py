"""A PostgreSQL store that refuses the connection is said at once, with why (new-user pass 3, issue 17).

`migrate` (and every command on the postgres backend) against a stopped server waited for the pool's
whole connect timeout while psycopg's pool logged libpq's text twice a second, then ended in
"cannot reach the PostgreSQL store at ...: PoolTimeout", which says nothing of what to fix. Now one
direct connection comes first and its failure is named: refused, no socket, no such database, no such role.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

import psycopg
import pytest
from typer.testing import CliRunner

from knowledge_engine.cli.app import app
from knowledge_engine.config import PostgresStorageConfig
from knowledge_engine.store.postgres.connect import StoreDatabaseError, pool
from tests.test_cli_migrate import make_workspace

PASSWORD = "s3cret-pw-never-shown"


def _closed_port() -> int:
    with socket.socket() as s:  # bound then closed: nothing listens there
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


def _socket_dir(pg_url: str) -> str:
    return str(psycopg.conninfo.conninfo_to_dict(pg_url)["host"])


def _cases(pg_url: str, tmp_path: Path) -> list[tuple[str, str]]:
    host = _socket_dir(pg_url) if pg_url else str(tmp_path)
    return [
        (f"postgresql://ke:{PASSWORD}@127.0.0.1:{_closed_port()}/knowledge", "connection refused"),
        (f"postgresql://ke:{PASSWORD}@/knowledge?host={tmp_path}", "no server socket at that path"),
        (f"postgresql://postgres:{PASSWORD}@/no_such_db_here?host={host}", "no such database"),
        (f"postgresql://no_such_role:{PASSWORD}@/postgres?host={host}", "no such role"),
    ]


def test_migrate_to_a_refusing_server_says_why(tmp_path: Path, pg_url: str) -> None:
    make_workspace(tmp_path / "ws")
    for url, reason in _cases(pg_url, tmp_path):
        args = ["migrate", "--from", str(tmp_path / "ws"), "--to", url, "--agent", "a"]
        out = CliRunner().invoke(app, args)
        assert out.exit_code != 0, out.output
        assert "cannot reach the PostgreSQL store at" in out.output and reason in out.output, out.output
        assert "PoolTimeout" not in out.output and PASSWORD not in out.output


def test_the_pool_is_not_made_for_a_refusing_server(
    tmp_path: Path, pg_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    url, reason = _cases(pg_url, tmp_path)[0]
    with pytest.raises(StoreDatabaseError, match=reason):
        pool(PostgresStorageConfig(url=url))
    # no retry loop logging libpq's text (host and port) twice a second
    assert not [r for r in caplog.records if r.name.startswith("psycopg")]


@pytest.mark.parametrize("command", [["facts"], ["show", "person:alice"], ["context", "Where do I live?"]])
def test_commands_on_a_refusing_server_name_the_server(tmp_path: Path, command: list[str]) -> None:
    """Exit 4 and the server's reason, as `stats`; not 'cannot open workspace <a throwaway folder>'."""
    url, reason = _cases("", tmp_path)[0]
    cfg = tmp_path / "cfg.json"
    cfg.write_text(json.dumps({"storage": {"backend": "postgres", "postgres": {"url": url}},
                               "workspace": str(tmp_path / "node" / "{agentId}")}))  # fmt: skip
    exe = Path(sys.executable).parent / "knowledge-engine"
    proc = subprocess.run([str(exe), *command, "--config", str(cfg), "--agent", "main"],
                          capture_output=True, text=True, timeout=120, check=False)  # fmt: skip
    assert proc.returncode == 4, proc.stderr[-2000:]
    assert "error: cannot reach the PostgreSQL store at 127.0.0.1:" in proc.stderr and reason in proc.stderr
    assert "ke-node-" not in proc.stderr and "Traceback" not in proc.stderr and PASSWORD not in proc.stderr
