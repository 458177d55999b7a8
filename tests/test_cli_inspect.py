"""stats, entities, facts, messages and show on a real workspace built by the engine."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tests.test_cli_support import cli, workspace_copy


@pytest.fixture
def ws(tmp_path: Path) -> str:
    return str(workspace_copy("sample", tmp_path))


def _json(*args: str) -> object:
    code, out, err = cli(*args, "--json")
    assert code == 0, err
    return json.loads(out)


def test_stats_reports_counts_index_state_and_size(ws: str) -> None:
    data = _json("stats", "--workspace", ws)
    assert isinstance(data, dict)
    assert data["messages"] == 50 and data["message_sessions"] == 4
    assert data["entities"] == sum(data["entities_by_type"].values()) > 0
    assert data["facts"] == data["facts_valid"] + data["facts_superseded"]
    assert data["facts_superseded"] >= 1  # the sample moves jobs and cities
    assert sum(data["facts_by_tier"].values()) == data["facts"]
    assert data["chroma"]["indexed_facts"] == data["facts"]
    assert data["chroma"]["indexed_messages"] == 50
    assert data["store_bytes"] > 0 and data["llm_pending_batches"] == 0


def test_stats_says_why_the_index_counts_are_blank_before_a_sync(ws: str, tmp_path: Path) -> None:
    """Blank index counts read as an empty index (new-user pass 3): a host indexes new records live
    before any full sync, so `stats` says so until the first sync, and only then."""
    synced = _json("stats", "--workspace", ws)
    assert isinstance(synced, dict) and "note" not in synced["chroma"]  # the sample is synced
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    data = _json("stats", "--workspace", str(fresh))
    assert isinstance(data, dict) and data["chroma"]["last_sync"] is None
    assert "stats --index" in data["chroma"]["note"]


def test_stats_table_for_people(ws: str) -> None:
    code, out, _ = cli("stats", "-w", ws)
    assert code == 0 and "entities_by_type.person" in out


def test_entities_filter_by_type_and_name(ws: str) -> None:
    people = _json("entities", "-w", ws, "--type", "person")
    assert people and all(e["type"] == "person" for e in people)
    named = _json("entities", "-w", ws, "--name", "maya")
    assert [e["value"] for e in named] == ["Maya"]
    by_name = _json("entities", "-w", ws, "--sort", "name", "--limit", "3")
    assert [e["value"].lower() for e in by_name] == sorted(e["value"].lower() for e in by_name)


def test_facts_filters_history_time_and_sort(ws: str) -> None:
    current = _json("facts", "-w", ws, "--entity", "Maya", "--predicate", "works-at")
    assert [f["object"] for f in current] == ["Helix Robotics"]
    history = _json("facts", "-w", ws, "--entity", "Maya", "--predicate", "works-at", "--history")
    assert {f["object"] for f in history} >= {"Helix Robotics", "Northwind Labs"}
    late = _json("facts", "-w", ws, "--since", "2026-11-01", "--history")
    assert late and all(f["valid_at"] or f["created_at"] >= "2026-11-01" for f in late)
    early = _json("facts", "-w", ws, "--until", "2026-09-03", "--history")
    assert early and not ({f["id"] for f in early} & {f["id"] for f in late})
    s1 = _json("facts", "-w", ws, "--session", "s1", "--history")
    assert s1 and all(any(e["session"] == "s1" for e in f["evidence"]) for f in s1)
    sorted_ = _json("facts", "-w", ws, "--sort", "subject", "--history")
    keys = [(f["subject"].lower(), f["predicate"]) for f in sorted_]
    assert keys == sorted(keys)
    assert len(_json("facts", "-w", ws, "--limit", "2")) == 2


def test_messages_filters(ws: str) -> None:
    s2 = _json("messages", "-w", ws, "--session", "s2", "--limit", "0")
    assert s2 and {m["session"] for m in s2} == {"s2"}
    times = [m["timestamp"] for m in s2]
    assert times == sorted(times, reverse=True)  # newest first
    oldest = _json("messages", "-w", ws, "--sort", "oldest", "--limit", "1")
    assert oldest[0]["id"] == "s1-01"
    maya = _json("messages", "-w", ws, "--speaker", "Maya", "--role", "user", "--limit", "0")
    assert maya and all(m["speaker"] == "Maya" for m in maya)
    window = _json("messages", "-w", ws, "--since", "2026-10-19", "--until", "2026-10-20", "--limit", "0")
    assert window and all(m["timestamp"].startswith("2026-10-19") for m in window)
    hits = _json("messages", "-w", ws, "--text", "Snowflake")
    assert hits and all("snowflake" in m["text"].lower() for m in hits)
    jonas = _json("messages", "-w", ws, "--entity", "Jonas Weber", "--limit", "0")
    assert jonas and all("jonas" in m["text"].lower() for m in jonas)


def test_show_entity_and_fact_with_history(ws: str) -> None:
    ent = _json("show", "Maya", "-w", ws)
    assert ent["kind"] == "entity" and ent["entity"]["id"] == "person:maya"
    assert ent["facts"] and ent["messages"]
    old = next(f for f in ent["facts"] if f["object"] == "Northwind Labs" and f["predicate"] == "works-at")
    fact = _json("show", old["id"], "-w", ws)
    assert fact["kind"] == "fact" and fact["fact"]["invalid_at"] is not None
    assert [f["object"] for f in fact["history"]][-1] == "Helix Robotics"
    assert any("Northwind" in m["text"] for m in fact["messages"])
    code, out, _ = cli("show", old["id"], "-w", ws)
    assert code == 0 and "history" in out


def test_errors_are_clear_and_non_zero(tmp_path: Path, ws: str) -> None:
    code, _, err = cli("stats", "-w", str(tmp_path / "nope"))
    assert code != 0 and "does not exist" in err
    assert not (tmp_path / "nope").exists()  # never creates an empty store on a typo
    code, _, err = cli("facts", "-w", ws, "--since", "yesterday")
    assert code != 0 and "ISO 8601" in err
    code, _, err = cli("show", "no-such-thing", "-w", ws)
    assert code != 0 and "no fact or entity" in err
    code, _, err = cli("stats")
    assert code != 0 and "--workspace" in err
    code, _, err = cli("facts", "-w", ws, "--sort", "bogus")
    assert code != 0 and "--sort" in err


def test_config_and_agent_resolve_the_workspace(tmp_path: Path, ws: str) -> None:
    cfg = tmp_path / "config.json"
    cfg.write_text(json.dumps({"workspace": str(Path(ws).parent / "ws-{agentId}")}))
    data = _json("stats", "--config", str(cfg), "--agent", "sample")
    assert data["messages"] == 50


def test_stats_shows_the_last_maintenance_runs(ws: str) -> None:
    code, _, err = cli("maintain", "-w", ws, "--once", "--json")
    assert code == 0, err
    data = _json("stats", "-w", ws)
    assert {"decay", "prune", "compact"} <= set(data["maintenance"])
    assert data["maintenance"]["decay"]["status"] == "ok"
    code, out, _ = cli("stats", "-w", ws)
    assert "maintenance.decay" in out and "ok at" in out


@pytest.mark.parametrize(
    "filters",
    [
        {},
        {"history": True, "sort": "subject", "limit": 0},
        {"entity": "Maya", "history": True, "limit": 0},
        {"entity": "person:maya", "predicate": "works-at", "history": True},
        {"subject": "maya", "sort": "created"},
        {"object_": "Berlin", "history": True, "sort": "valid-from"},
        {"tier": "spacy", "session": "s3", "history": True, "sort": "confidence"},
        {"since": "2026-10-01", "until": "2026-11-01", "history": True, "sort": "accessed"},
        {"min_relevance": 0.5, "limit": 3},
    ],
)
def test_raw_listing_matches_the_store_query(ws: str, filters: dict) -> None:
    """`facts` filters the raw file for speed; it must return what the store's query returns."""
    from knowledge_engine.cli import rawfacts
    from knowledge_engine.cli.inspect import select_facts
    from knowledge_engine.config import load_config
    from knowledge_engine.store.workspace import Workspace

    cfg = load_config({})
    store = Workspace(Path(ws), cfg)
    expected = select_facts(store, **filters)
    raw_filters = dict(filters)
    for key in ("since", "until"):
        if key in raw_filters:
            raw_filters[key] = datetime.fromisoformat(raw_filters[key]).replace(tzinfo=UTC)
    got = rawfacts.select(Path(ws), cfg, **raw_filters)
    assert [f.id for f in got] == [f.id for f in expected]
    assert got == expected


def test_stats_quick_counts_match_the_parsed_store(ws: str) -> None:
    """`stats` counts from the file's bytes; the figures must equal those of the loaded records."""
    from knowledge_engine.cli import status
    from knowledge_engine.config import load_config
    from knowledge_engine.store.workspace import Workspace

    folder = Path(ws)
    first = _json("facts", "-w", ws)[0]["id"]
    cli("edit", "-w", ws, "--fact", first, "--object", 'a "quoted" \\ value')
    quick = status.folder_status(folder, load_config({}))
    # the fast path ran
    assert status._quick_scan(folder / "facts.json", status._FACT_TIER, "spacy") is not None
    full = Workspace(folder, load_config({})).stats()
    for key in ("entities", "entities_by_type", "facts", "facts_valid", "facts_superseded", "facts_by_tier"):
        assert quick[key] == full[key], key
    (folder / "facts.json").write_bytes(b'{"facts": []}')  # not the store's own layout: parsed properly
    assert status._quick_scan(folder / "facts.json", status._FACT_TIER, "spacy") is None
    assert status.folder_status(folder, load_config({}))["facts"] == 0
