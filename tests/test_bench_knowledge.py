"""The knowledge bench (scripts/bench/knowledge.py): its matching rule, and one small story end to end.

Checks the scoring and the JSON shape, never the engine's figures (those are for the bench to print).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from scripts.bench import knowledge as kb

USER = "Ana Lima"


def _fact(
    subject: str, predicate: str, obj: str, valid: bool = True, tiers: tuple[str, ...] = ("spacy",)
) -> kb.FactView:
    return kb.FactView(subject, predicate, obj, valid, frozenset(tiers))


def _row(subject: str, relation: str, obj: str, status: str = "current", *accept: str) -> dict[str, Any]:
    return {
        "subject": subject,
        "relation": relation,
        "object": obj,
        "status": status,
        "accept_objects": list(accept),
    }


def test_a_current_row_needs_a_valid_fact_in_the_present_form() -> None:
    row = _row("user", "employer", "Northwind Labs", "current", "Northwind")
    assert kb.row_satisfied(row, [_fact(USER, "works-at", "Northwind Labs")], USER)
    assert kb.row_satisfied(
        row, [_fact("Ana", "works-for", "northwind")], USER
    )  # first name, accepted spelling
    assert kb.row_satisfied(row, [_fact("user", "works-at", "Northwind Labs")], USER)  # no name known
    assert not kb.row_satisfied(row, [_fact(USER, "works-at", "Northwind Labs", valid=False)], USER)
    assert not kb.row_satisfied(row, [_fact(USER, "worked-at", "Northwind Labs")], USER)
    assert not kb.row_satisfied(row, [_fact(USER, "likes", "Northwind Labs")], USER)
    assert not kb.row_satisfied(row, [_fact("Tom", "works-at", "Northwind Labs")], USER)
    assert not kb.row_satisfied(row, [_fact(USER, "works-at", "Northwinds")], USER)  # whole words only


def test_a_superseded_row_needs_the_old_fact_kept_in_history() -> None:
    row = _row("user", "lives_in", "Porto", "superseded")
    assert not kb.row_satisfied(row, [], USER)  # never extracted
    assert not kb.row_satisfied(row, [_fact(USER, "lives-in", "Porto")], USER)  # still shown as current
    assert kb.row_satisfied(row, [_fact(USER, "lives-in", "Porto", valid=False)], USER)
    assert kb.row_satisfied(row, [_fact(USER, "lived-in", "Porto")], USER)


def test_status_misses_tell_an_ended_current_row_from_an_old_row_never_ended() -> None:
    truth = [
        _row("user", "employer", "Northwind"),  # ended: only an invalid fact
        _row("user", "lives_in", "Porto", "superseded"),  # still current
        _row("user", "employer", "Acme", "superseded"),  # satisfied: no miss
        _row("user", "car", "Golf"),  # never extracted: no status miss
    ]
    facts = [
        _fact(USER, "works-at", "Northwind", valid=False),
        _fact(USER, "lives-in", "Porto"),
        _fact(USER, "worked-at", "Acme"),
    ]
    rows = [kb.row_satisfied(r, facts, USER) for r in truth]
    assert kb.status_misses(truth, rows, facts, USER) == {"employer": [1, 0], "lives_in": [0, 1]}


def test_inverse_and_named_subjects() -> None:
    child = _row("user", "child", "Leo")
    assert kb.row_satisfied(child, [_fact(USER, "has-son", "Leo")], USER)
    assert kb.row_satisfied(child, [_fact("Leo", "has-mother", "Ana")], USER)
    spouse = _row("user", "spouse", "Tom Reyes", "current", "Tom")
    assert kb.row_satisfied(spouse, [_fact("Tom", "is-married-to", USER)], USER)
    school = _row("Leo", "child_school", "Riverside Primary")
    assert kb.row_satisfied(school, [_fact("Leo", "starts-at", "Riverside Primary School")], USER)
    assert not kb.row_satisfied(school, [_fact(USER, "starts-at", "Riverside Primary")], USER)


def test_precision_counts_truth_and_also_true_rows() -> None:
    story = {
        "user": USER,
        "truth": [_row("user", "employer", "Acme")],
        "also_true": [{"subject": "user", "relation": "likes", "object": "jazz"}],
    }
    assert kb.fact_correct(_fact(USER, "works-at", "Acme"), story)
    assert kb.fact_correct(_fact(USER, "worked-at", "Acme", valid=False), story)  # true once, still correct
    assert kb.fact_correct(_fact(USER, "loves", "jazz"), story)
    assert not kb.fact_correct(_fact(USER, "is-a", "friends"), story)


def test_known_facts_section_and_answers() -> None:
    block = (
        "## Retrieved Knowledge\nnotice\n\n### Known Facts\n"
        "- Ana Lima | works-at | Acme (valid 2026-01-02 to now; evidence: m1; id f-0123abcd)\n\n"
        "### Conversation Memory\n- [2026-01-02 Ana Lima #m2] I moved to Porto.\n"
    )
    section = kb.known_facts_section(block)
    assert "Acme" in section and "Porto" not in section
    assert kb._FACT_ID_RE.findall(section) == ["f-0123abcd"]
    assert kb.answered(section, ["acme"]) and not kb.answered(section, ["Porto"])
    assert kb.known_facts_section("### Conversation Memory\n- x\n") == ""


def _story() -> dict[str, Any]:
    msgs = [
        ("user", "Hi! I work at Northwind Labs as a data engineer."),
        ("assistant", "Nice to meet you. How do you like it there?"),
        ("user", "It's great. I live in Lisbon, near the river."),
        ("assistant", "Lisbon is lovely. Anything I can help with today?"),
    ]
    return {
        "id": "mini",
        "user": USER,
        "messages": [
            {"session": 1, "timestamp": f"2026-03-02T10:0{i}:00Z", "role": role, "text": text}
            for i, (role, text) in enumerate(msgs)
        ],
        "truth": [
            _row("user", "employer", "Northwind Labs", "current", "Northwind"),
            _row("user", "lives_in", "Lisbon"),
            _row("user", "pet", "Rex"),  # never said: not satisfied
            _row("user", "employer", "Globex", "superseded"),  # never said: not satisfied
        ],
        "also_true": [],
        "questions": [
            {
                "question": "Where do I work?",
                "answers": ["Northwind"],
                "about_past": False,
                "subject": "user",
                "relation": "employer",
            },
            {
                "question": "What is my dog called?",
                "answers": ["Rex"],
                "about_past": False,
                "subject": "user",
                "relation": "pet",
            },
        ],
    }


@pytest.mark.slow
def test_one_story_through_the_engine(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "mini"
    folder.mkdir()
    (folder / "mini.json").write_text(json.dumps(_story()))
    kb.main(["--stories", str(folder), "--json", "--detail", "--no-embeddings"])
    out = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert set(out) >= {"llm", "embeddings", "elapsed_s", "total", "parts", "stories", "detail"}
    assert set(out["parts"]) == {"mini"}
    story = out["stories"]["mini"]
    assert story["part"] == "mini" and story["truth_rows"] == 4 and story["questions"] == 2
    assert set(story["tiers"]) == {"regex", "spacy", "llm", "all"}
    total = out["total"]
    for key in (
        "accuracy",
        "current_accuracy",
        "superseded_accuracy",
        "answered_facts_share",
        "answered_strict_share",
        "answered_block_share",
    ):
        assert total[key] is None or 0.0 <= total[key] <= 1.0
    rows = out["detail"]["mini"]["rows"]
    assert "ok user employer Northwind Labs [current]" in rows
    assert "ok user lives_in Lisbon [current]" in rows
    assert "NO user pet Rex [current]" in rows
    assert "NO user employer Globex [superseded]" in rows
    assert story["satisfied"] == 2 and story["current_satisfied"] == 2 and story["superseded_satisfied"] == 0
    assert total["tiers"]["spacy"]["rows_found"] == 2
    assert story["answered_facts"] >= 1 and story["answered_strict"] <= story["answered_facts"]
    assert story["answerable_store"] == 1  # Northwind is stored; the dog was never said


def test_the_bundled_stories_are_well_formed() -> None:
    """Shape only (counts and vocabulary): the held-out texts are not printed or read further here."""
    stories = kb.load_stories(kb.STORIES)
    parts = [p for p, _ in stories]
    assert parts.count("tune") >= 3 and parts.count("heldout") >= 3
    assert sum(len(s["messages"]) for _, s in stories) >= 250
    for _, s in stories:
        assert 40 <= len(s["messages"]) <= 60
        assert 12 <= len(s["truth"]) <= 20 and 6 <= len(s["questions"]) <= 10


def _score(satisfied: int, rows: int, answered: int, spacy_facts: int, spacy_correct: int) -> dict[str, Any]:
    tier = {"facts": spacy_facts, "correct": spacy_correct, "rows_found": satisfied}
    return {
        "part": "tune",
        "satisfied": satisfied,
        "truth_rows": rows,
        "current_satisfied": satisfied,
        "current_rows": rows,
        "superseded_satisfied": 0,
        "superseded_rows": 0,
        "answered_facts": answered,
        "answered_strict": answered,
        "questions": 4,
        "tiers": {"spacy": tier},
    }


def test_folds_give_each_story_left_out_and_the_mean_over_stories() -> None:
    out = {"stories": {"a": _score(1, 4, 2, 2, 1), "b": _score(3, 4, 4, 0, 0), "h": {"part": "heldout"}}}
    result = kb.folds(out)
    assert set(result["folds"]) == {"a", "b"}  # held-out stories are never a fold
    assert result["folds"]["a"]["accuracy"] == 0.25 and result["folds"]["b"]["q_facts"] == 1.0
    assert result["mean"]["accuracy"] == 0.5  # macro: (0.25 + 0.75) / 2
    assert result["mean"]["spacy_p"] == 0.5  # b has no spaCy facts, so no precision: not in the mean
    assert result["mean"]["old"] is None


def test_folds_never_open_the_held_out_part(tmp_path: Path) -> None:
    (tmp_path / "tune").mkdir()
    (tmp_path / "heldout").mkdir()
    (tmp_path / "tune" / "a.json").write_text(json.dumps(_story()))
    (tmp_path / "heldout" / "b.json").write_text("not json: would fail if opened")
    assert [p for p, _ in kb.load_stories(tmp_path, skip=("heldout",))] == ["tune"]
    with pytest.raises(json.JSONDecodeError):
        kb.load_stories(tmp_path)


def test_entities_are_scored_by_the_types_their_relations_give() -> None:
    from knowledge_engine.model.records import Entity

    story = {
        "truth": [
            _row("user", "employer", "Copperleaf Energy"),
            _row("user", "lives_in", "Leeds"),
            _row("user", "car", "Skoda Octavia"),
            _row("user", "pet", "Mochi"),
            _row("Mochi", "age", "7"),  # a pet's row: Mochi is no person
            _row("Sam", "employer", "Leeds General Infirmary"),
            _row("user", "job_title", "data analyst"),  # a value, not an entity
        ],
        "also_true": [],
    }
    assert kb.expected_entities(story) == {
        "Copperleaf Energy": "organization",
        "Leeds": "location",
        "Skoda Octavia": "product",
        "Sam": "person",
        "Leeds General Infirmary": "organization",
    }
    entities = [
        Entity(id="e1", type="organization", value="Copperleaf Energy", aliases=["Copperleaf"]),
        Entity(id="e2", type="person", value="Leeds"),  # found, typed wrong
        Entity(id="e3", type="product", value="Skoda Octavia estate"),
        Entity(id="e4", type="product", value="Octavia"),  # the same car twice
        Entity(id="e5", type="organization", value="Leeds General Infirmary"),
        Entity(id="e6", type="concept", value="Dear Gareth"),
    ]
    assert kb.score_entities(story, entities) == {
        "entities": 6,
        "entity_names": 5,
        "entity_found": 4,  # Sam was never stored
        "entity_typed": 3,
        "entity_doubled": 1,
    }


def test_tune_only_never_opens_the_held_out_part_and_set_reaches_the_engine_config(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "tune").mkdir()
    (tmp_path / "heldout").mkdir()
    (tmp_path / "tune" / "a.json").write_text(json.dumps(_story()))
    (tmp_path / "heldout" / "b.json").write_text("not json: would fail if opened")
    kb.main(
        [
            "--stories",
            str(tmp_path),
            "--tune-only",
            "--json",
            "--no-embeddings",
            "--set",
            "extraction.spacy.truecase=true",
        ]
    )
    out = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert set(out["parts"]) == {"tune"}
    assert out["overrides"] == {"extraction.spacy.truecase": True}
    cfg = kb.plugin_config(
        tmp_path, None, True, {"extraction.spacy.truecase": True, "retrieval.cacheTtlMs": 5}
    )
    assert cfg["extraction"]["spacy"] == {"truecase": True}
    assert cfg["extraction"]["llm"] == {"enabled": False}  # the bench's own keys stay beside an override
    assert cfg["retrieval"]["cacheTtlMs"] == 5
