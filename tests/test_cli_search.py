"""search (keyword + semantic arms) and context (the hook's exact block) on a real workspace."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.test_cli_support import cli, workspace_copy


@pytest.fixture
def ws(tmp_path: Path) -> str:
    return str(workspace_copy("sample", tmp_path))


def test_search_returns_facts_and_messages_with_arm_scores(ws: str) -> None:
    code, out, err = cli("search", "Where does Maya work?", "-w", ws, "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["facts"] and data["messages"]
    top = data["facts"][0]
    assert "Maya" in top["text"] and "rrf" in top["scores"]
    assert any("vector" in f["scores"] for f in data["facts"])  # the semantic arm ran
    assert any("bm25" in m["scores"] for m in data["messages"])
    assert any("Helix" in f["text"] for f in data["facts"])


def test_search_keyword_only_does_not_need_the_embedder(ws: str) -> None:
    code, out, _ = cli("search", "Snowflake migration", "-w", ws, "--json", "--no-semantic")
    assert code == 0
    data = json.loads(out)
    assert data["messages"] and all("vector" not in m["scores"] for m in data["messages"])
    assert any("Snowflake" in m["text"] for m in data["messages"])


def test_context_prints_the_injected_block_and_changes_nothing(ws: str) -> None:
    before = (Path(ws) / "facts.json").read_bytes()
    code, out, err = cli("context", "Where does Maya work now?", "-w", ws, "--json")
    assert code == 0, err
    data = json.loads(out)
    assert "Helix Robotics" in data["block"] and "knowledge-engine:BEGIN" in data["block"]
    ids = [i["id"] for i in data["provenance"]["items"]]
    assert ids and all(i in data["block"] for i in ids if i.startswith("f-"))
    assert (Path(ws) / "facts.json").read_bytes() == before  # an inspection never boosts relevance on disk


def test_context_table_and_empty_query(ws: str) -> None:
    code, out, err = cli("context", "Tell me about Inês", "-w", ws)
    assert code == 0 and "Inês" in out and "provenance" in err
    code, _, err = cli("search", "   ", "-w", ws)
    assert code != 0 and "empty" in err


def test_context_applies_the_hooks_skip_rules(ws: str) -> None:
    for message, reason in (("hi", "short"), ("thanks!", "acknowledgement")):
        code, out, err = cli("context", message, "-w", ws, "--json")
        assert code == 0, err
        data = json.loads(out)
        assert data["block"] == "" and data["skipped"] == reason, data
        code, out, err = cli("context", message, "-w", ws)
        assert code == 0 and out == "" and f"skipped ({reason})" in err


def test_context_prints_the_block_verbatim_when_piped(ws: str) -> None:
    code, out, _ = cli("context", "Where does Maya work now?", "-w", ws, "--json")
    block = json.loads(out)["block"]
    assert max(len(line) for line in block.splitlines()) > 80  # long lines that a console would re-wrap
    code, out, err = cli("context", "Where does Maya work now?", "-w", ws)
    assert code == 0, err
    # stdout is exactly the injected text (each run fences it with a fresh nonce); provenance on stderr
    assert _nonce(out) == _nonce(block + "\n")
    assert "provenance" in err


def test_context_on_a_missing_workspace_knows_nothing(tmp_path: Path) -> None:
    missing = tmp_path / "not-yet"
    code, out, err = cli("context", "Where does Maya work now?", "-w", str(missing), "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["block"] == "" and data["skipped"] is None and "does not exist" in data["note"]
    code, out, err = cli("context", "Where does Maya work now?", "-w", str(missing))
    assert code == 0 and out == "" and "does not exist" in err
    assert not missing.exists()  # an inspection never creates a workspace


def _nonce(text: str) -> str:
    return re.sub(r"nonce=[0-9a-f]+", "nonce=N", text)
