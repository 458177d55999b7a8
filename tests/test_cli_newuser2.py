"""Frictions a second new-user pass met (bad input, odd files, read-only places), each pinned down."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from tests.test_cli_support import cli


def _regex_only(tmp_path: Path) -> str:
    """A config without spaCy or the embedder: these tests are about the CLI, not extraction."""
    cfg = tmp_path / "config.json"
    cfg.write_text(
        json.dumps({"extraction": {"spacy": {"enabled": False}}, "embeddings": {"enabled": False}})
    )
    return str(cfg)


def test_ingest_keeps_a_line_cut_inside_an_emoji_and_says_where_a_broken_line_breaks(tmp_path: Path) -> None:
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(
        # what Node's JSON.stringify writes for a string sliced inside an emoji: valid JSON, a lone surrogate
        '{"id": "m1", "role": "user", "text": "I adopted a cat named Biscuit \\ud83d"}\n'
        '{"id": "m2", "role": "user", "text": "a line cut short\n'
        '{"id": "m3", "role": "user", "text": "trailing comma",}\n'
    )
    ws = tmp_path / "ws"
    code, out, err = cli(
        "ingest", "-w", str(ws), "--config", _regex_only(tmp_path), str(transcript), "--json"
    )
    assert code == 3, err  # ingested, lines skipped
    result = json.loads(out)
    assert result["messages"] == 1
    assert result["errors"] == [
        "line 2: not valid JSON (unexpected end of data at column 55)",
        "line 3: not valid JSON (trailing comma is not allowed at column 54)",
    ]
    db = sqlite3.connect(ws / "messages.sqlite3")
    try:
        assert db.execute("SELECT text FROM messages WHERE id = 'm1'").fetchone() == (
            "I adopted a cat named Biscuit \ufffd",
        )
    finally:
        db.close()
