"""The demo writes where it says, and `stats` on the folder above a workspace says where it is."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from knowledge_engine.model.records import Message
from knowledge_engine.store.messages import MessageLog
from tests.test_cli_support import cli


def _stats(folder: Path) -> dict[str, object]:
    code, out, err = cli("stats", "-w", str(folder), "--json")
    assert code == 0, err
    data = json.loads(out)
    assert isinstance(data, dict)
    return data


def test_stats_on_the_folder_above_a_workspace_names_the_workspace(tmp_path: Path) -> None:
    ws = tmp_path / "knowledge"  # as the demo's demo-workspace/knowledge was
    ws.mkdir()
    with MessageLog(ws) as log:
        log.append(Message(id="m1", text="I moved to Lisbon", session="s1"))
    (tmp_path / "notes").mkdir()  # a folder without store files is not suggested
    above = _stats(tmp_path)
    assert above["messages"] == 0
    assert above["hint"] == f"no workspace files in {tmp_path}; did you mean {ws}?"
    code, out, _ = cli("stats", "-w", str(tmp_path))
    assert code == 0 and "did you mean" in out
    inside = _stats(ws)
    assert "hint" not in inside and inside["messages"] == 1


def test_stats_on_an_empty_folder_has_no_hint(tmp_path: Path) -> None:
    assert "hint" not in _stats(tmp_path)


@pytest.mark.slow
def test_demo_stores_in_the_folder_it_names(tmp_path: Path) -> None:
    folder = tmp_path / "demo-workspace"
    exe = Path(sys.executable).parent / "knowledge-engine"
    proc = subprocess.run(
        [str(exe), "demo", "--workspace", str(folder), "--ollama", "http://127.0.0.1:9"],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = " ".join(proc.stdout.split())  # rich wraps long lines
    assert f"Stored in {folder} (facts.json" in out, out
    assert f"knowledge-engine stats -w {folder}" in out, out
    data = _stats(folder)
    assert "hint" not in data
    assert isinstance(data["facts"], int) and data["facts"] > 0
    assert isinstance(data["messages"], int) and data["messages"] > 0
    assert isinstance(data["entities"], int)
    assert ("(the 40 most mentioned shown)" in out) == (data["entities"] > 40), out
    assert "Running the sample conversation through the hooks" in out
    begin = next(line for line in proc.stdout.splitlines() if line.startswith("<<<knowledge-engine:BEGIN"))
    assert begin.endswith(">>>")  # the block is printed verbatim, not re-wrapped at the console's width
    assert any(line.startswith("Retrieved reference material") and line.endswith("may contain.")
               for line in proc.stdout.splitlines()), proc.stdout  # fmt: skip


def test_demo_refuses_a_folder_it_did_not_make(tmp_path: Path) -> None:
    """`demo --workspace` pointed at a real workspace (or any non-empty folder) must not wipe it."""
    folder = tmp_path / "agent-main"
    folder.mkdir()
    (folder / "notes.txt").write_text("keep me")
    code, out, err = cli("demo", "-w", str(folder), "--ollama", "http://127.0.0.1:9")
    assert code == 1, out
    assert "was not made by the demo" in " ".join(err.split()), err
    assert (folder / "notes.txt").read_text() == "keep me"
    assert sorted(p.name for p in folder.iterdir()) == ["notes.txt"]


def test_demo_recreates_a_folder_it_made(tmp_path: Path) -> None:
    from knowledge_engine.cli.demo import DEMO_MARKER, fresh_demo_folder

    first = fresh_demo_folder(tmp_path / "demo-workspace")
    (first / "facts.json").write_text("{}")  # what a previous run left
    again = fresh_demo_folder(first)
    assert sorted(p.name for p in again.iterdir()) == [DEMO_MARKER]
    empty = tmp_path / "empty"
    empty.mkdir()
    assert (fresh_demo_folder(empty) / DEMO_MARKER).is_file()


def test_the_look_around_hint_is_a_command_that_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from knowledge_engine.cli.demo import _cli_name

    monkeypatch.setattr(sys, "argv", [".venv/bin/knowledge-engine", "demo"])  # as ./scripts/demo runs it
    monkeypatch.setenv("PATH", str(tmp_path))  # a fresh shell: the venv is not on PATH
    assert _cli_name() == ".venv/bin/knowledge-engine"
    (tmp_path / "knowledge-engine").write_text("#!/bin/sh\n")
    (tmp_path / "knowledge-engine").chmod(0o755)
    assert _cli_name() == "knowledge-engine"  # on PATH: the short name
