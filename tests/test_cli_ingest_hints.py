"""`ingest` says what to change when a line is shaped like another chat log's, not only what pydantic saw."""

from __future__ import annotations

import json
from pathlib import Path

from knowledge_engine.ingest.transcript import TranscriptReport, read_transcript
from tests.test_cli_support import cli

LINES = [
    '[{"id": "a", "role": "user", "text": "a whole JSON array"}]',
    '"just a string"',
    '{"id": "m3", "role": "user", "content": "OpenAI-style key"}',
    '{"messageId": "m4", "role": "user", "text": "host-style id"}',
    '{"id": "m5", "role": "user"}',
    '{"id": "m6", "role": "user", "text": "I live in Oslo"}',
]
EXPECTED = [
    'line 1: a JSON array, not an object: a transcript has one {"id", "role", "text", ...} object a line',
    'line 2: a JSON string, not an object: a transcript has one {"id", "role", "text", ...} object a line',
    "line 3: text: Field required (this line has 'content': name it 'text')",
    "line 4: id: Field required (this line has 'messageId': name it 'id')",
    "line 5: text: Field required",
]


def test_bad_lines_say_what_to_change(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text("\n".join(LINES) + "\n")
    report = TranscriptReport()
    assert [m.id for m in read_transcript(path, report)] == ["m6"]  # the rest is still read
    assert report.errors == EXPECTED


def test_ingest_lists_the_hints_and_exits_3(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text("\n".join(LINES[:5]) + "\n")
    code, out, err = cli("ingest", "-w", str(tmp_path / "ws"), str(path), "--json")
    assert code == 3, err
    assert json.loads(out)["errors"] == EXPECTED
