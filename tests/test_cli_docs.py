"""`docs ingest` through the CLI into a real PostgreSQL + pgvector, embedding with the configured provider."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest

from tests.fixtures.postgres import PgHandle
from tests.test_cli_support import cli


@pytest.mark.slow
def test_docs_ingest_stores_chunks(pg_server: PgHandle, tmp_path: Path) -> None:
    table = f"docs_{uuid.uuid4().hex[:10]}"
    cfg = tmp_path / "config.json"
    cfg.write_text(
        json.dumps(
            {
                "pgvector": {
                    "enabled": True,
                    "url": pg_server.url,
                    "table": table,
                    "dimensions": 384,
                    "collections": ["manuals"],
                }
            }
        )
    )
    doc = tmp_path / "runbook.md"
    doc.write_text("# Runbook\n\n" + "\n\n".join(f"Step {i}: the deploy needs approval." for i in range(5)))
    code, out, err = cli(
        "docs", "ingest", str(doc), "--collection", "manuals", "--config", str(cfg), "--json"
    )
    assert code == 0, err
    report = json.loads(out)
    assert report["added"] == ["runbook.md"] and report["chunks_inserted"] >= 1
    with pg_server.connect() as conn:
        rows = conn.execute(f"SELECT collection, file_name FROM {table}").fetchall()
    assert rows and set(rows) == {("manuals", "runbook.md")}
    code, out, _ = cli("docs", "ingest", str(doc), "--collection", "manuals", "--config", str(cfg), "--json")
    assert code == 0 and json.loads(out)["unchanged"] == ["runbook.md"]


def test_docs_ingest_errors(tmp_path: Path) -> None:
    code, _, err = cli("docs", "ingest", str(tmp_path / "missing.md"), "--collection", "c")
    assert code != 0 and "not found" in err
    doc = tmp_path / "a.md"
    doc.write_text("hello")
    code, _, err = cli("docs", "ingest", str(doc), "--collection", "c")
    assert code != 0 and "pgvector.url" in err
