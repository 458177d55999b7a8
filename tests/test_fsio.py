"""write_atomic: the one temp-file-fsync-replace every whole-file rewrite of the engine uses."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from knowledge_engine.fsio import temp_path, write_atomic


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.glob(".*.tmp"))


@pytest.mark.parametrize("durable", [True, False])
def test_write_replaces_the_whole_file_owner_only(tmp_path: Path, durable: bool) -> None:
    path = tmp_path / "state.json"
    write_atomic(path, b"first", durable=durable)
    write_atomic(path, b"second", durable=durable)
    assert path.read_bytes() == b"second"
    assert mode(path) == 0o600
    assert leftovers(tmp_path) == []
    assert not path.with_name("state.json.bak").exists()  # no backup unless asked


def test_backup_is_the_previous_content_as_a_hard_link(tmp_path: Path) -> None:
    path = tmp_path / "facts.json"
    write_atomic(path, b"v1", backup=True)
    bak = path.with_name("facts.json.bak")
    assert not bak.exists()  # nothing to back up on the first write
    write_atomic(path, b"v2", backup=True)
    assert bak.read_bytes() == b"v1" and path.read_bytes() == b"v2"
    write_atomic(path, b"v3", backup=True)
    assert bak.read_bytes() == b"v2" and bak.stat().st_nlink == 1  # the link moved on with the file
    assert leftovers(tmp_path) == []


def test_a_stale_temp_file_is_reused_owner_only(tmp_path: Path) -> None:
    path = tmp_path / "inbox.jsonl"
    stale = temp_path(path)
    stale.write_bytes(b"text of a killed writer, longer than the new content")
    os.chmod(stale, 0o644)
    write_atomic(path, b"new")
    assert path.read_bytes() == b"new" and mode(path) == 0o600
    assert not stale.exists()


def test_a_failed_write_leaves_the_target_and_no_temp_file(tmp_path: Path) -> None:
    path = tmp_path / "target"
    path.mkdir()
    (path / "keep").write_bytes(b"x")
    with pytest.raises(OSError):
        write_atomic(path, b"data")
    assert (path / "keep").read_bytes() == b"x"
    assert leftovers(tmp_path) == []


def test_temp_file_is_hidden_beside_the_target_and_ends_in_tmp(tmp_path: Path) -> None:
    tmp = temp_path(tmp_path / "journal.jsonl")
    assert tmp.parent == tmp_path and tmp.name.startswith(".journal.jsonl.") and tmp.name.endswith(".tmp")
