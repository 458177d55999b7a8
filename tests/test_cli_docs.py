"""`docs ingest` through the CLI into a real PostgreSQL + pgvector, embedding with the configured provider."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest

from knowledge_engine.documents.ingest import ensure_schema
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


@pytest.mark.slow
def test_docs_ingest_default_dimensions_root_and_recreate(pg_server: PgHandle, tmp_path: Path) -> None:
    """#18: no pgvector.dimensions needed with the local model; files named under --root; a table
    of another size is a clear error (exit 2) naming the fix, and --recreate applies it."""
    table = f"docs_{uuid.uuid4().hex[:10]}"
    cfg = tmp_path / "config.json"
    cfg.write_text(json.dumps({"pgvector": {"url": pg_server.url, "table": table}}))
    tree = tmp_path / "tree"
    for folder in ("a", "b"):
        (tree / folder).mkdir(parents=True)
        (tree / folder / "README.md").write_text(f"Readme of folder {folder}.", encoding="utf-8")
    args = ["--collection", "manuals", "--config", str(cfg), "--json"]
    code, out, err = cli("docs", "ingest", str(tree / "b" / "README.md"), "--root", str(tree), *args)
    assert code == 0, err
    assert json.loads(out)["added"] == ["b/README.md"]
    code, out, err = cli(
        "docs", "ingest", str(tree / "a" / "README.md"), str(tree / "b" / "README.md"), *args
    )
    assert code == 0, err
    report = json.loads(out)
    assert report["added"] == ["a/README.md"] and report["unchanged"] == ["b/README.md"]

    other = tmp_path / "other.json"
    other.write_text(json.dumps({"pgvector": {"url": pg_server.url, "table": table, "dimensions": 3072}}))
    code, _, err = cli(
        "docs", "ingest", str(tree / "a" / "README.md"), "--collection", "m", "--config", str(other)
    )
    assert code == 2 and "pgvector.dimensions is 3072" in err  # the local model makes 384
    with pg_server.connect() as conn:
        conn.execute(f"DROP TABLE {table}")
        ensure_schema(conn, table, 16)  # a table made for another embedding model
    code, _, err = cli("docs", "ingest", str(tree / "a" / "README.md"), *args)
    assert code == 2 and "vector(16)" in err and "--recreate" in err
    code, out, err = cli("docs", "ingest", str(tree / "a" / "README.md"), "--recreate", *args)
    assert code == 0, err
    assert json.loads(out)["added"] == ["README.md"]  # one file: its own folder is the root
