"""A folder of other files named as the workspace (`-w .` in a project, a home directory) is refused,
and left exactly as it was: opening it used to make it owner-only and leave a store in it (in CI, the
fuzz test's `-w .` made the checkout 0700 and locked PostgreSQL's user out of the venv's pgvector)."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from tests.test_cli_support import cli, workspace_copy

READERS = [
    ("validate",),
    ("facts",),
    ("search", "bike"),
    ("decay",),
    ("prune",),
    ("maintain", "--once"),
    ("entities",),
    ("messages",),
    ("sync",),
    ("compact",),
]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir(mode=0o755)
    folder.chmod(0o755)
    (folder / "notes.txt").write_text("my own file\n")
    (folder / "src").mkdir()
    return folder


def _listing(folder: Path) -> tuple[int, list[str]]:
    return stat.S_IMODE(folder.stat().st_mode), sorted(p.name for p in folder.iterdir())


@pytest.mark.parametrize("command", READERS, ids=lambda c: c[0])
def test_a_command_on_a_folder_of_other_files_fails_and_changes_nothing(
    project: Path, command: tuple[str, ...]
) -> None:
    before = _listing(project)
    code, _, err = cli(command[0], "-w", str(project), *command[1:])
    assert code != 0
    assert "is not a workspace" in err and "facts.json" in err
    assert _listing(project) == before


def test_ingest_into_a_folder_of_other_files_is_refused(project: Path, tmp_path: Path) -> None:
    transcript = tmp_path / "t.jsonl"
    transcript.write_text('{"role": "user", "text": "I work at Acme."}\n')
    before = _listing(project)
    code, _, err = cli("ingest", "-w", str(project), str(transcript))
    assert code != 0 and "is not a workspace" in err
    assert _listing(project) == before


def test_stats_only_reads_so_it_answers_but_changes_nothing(project: Path) -> None:
    before = _listing(project)
    code, out, err = cli("stats", "-w", str(project), "--json")
    assert code == 0, err
    assert '"messages": 0' in out
    assert _listing(project) == before


def test_the_refusal_names_a_workspace_inside_the_folder(project: Path) -> None:
    ws = workspace_copy("sample", project)
    code, _, err = cli("facts", "-w", str(project))
    assert code != 0 and "is not a workspace" in err
    assert f"did you mean {ws}?" in " ".join(err.split())


def test_an_empty_folder_and_a_real_workspace_still_open(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    code, _, err = cli("facts", "-w", str(empty))
    assert code == 0, err
    ws = workspace_copy("sample", tmp_path)
    (ws / "notes.txt").write_text("a file of the user's beside the store is fine\n")
    code, out, err = cli("facts", "-w", str(ws), "--json")
    assert code == 0, err
    assert "works-at" in out
