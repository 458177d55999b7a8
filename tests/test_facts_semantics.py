"""Fact-store semantics (issue 14): supersession by predicate family, dates decide the order, every tier
that saw a fact is kept."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from knowledge_engine.config import ConfigError, load_config
from knowledge_engine.model.extraction import Extraction, FactCandidate
from knowledge_engine.model.records import Evidence, Message, fact_id
from knowledge_engine.store.factquery import FactQuery, get, select
from knowledge_engine.store.facts import FactStore
from knowledge_engine.store.persistence import WorkspaceLock
from knowledge_engine.store.workspace import Workspace
from knowledge_engine.validate import validate


def make_store(folder: Path, **overrides: object) -> FactStore:
    cfg = load_config(overrides)  # type: ignore[arg-type]
    store = FactStore(folder, WorkspaceLock(folder / ".lock"), cfg.storage, cfg.decay, cfg.facts)
    store.load()
    return store


def day(month: int, d: int = 1, year: int = 2025) -> datetime:
    return datetime(year, month, d, 12, tzinfo=UTC)


def ev(mid: str, when: datetime) -> Evidence:
    return Evidence(message_id=mid, session="s1", role="user", timestamp=when)


def current(store: FactStore, subject: str) -> set[tuple[str, str]]:
    return {(f.predicate, f.object) for f in store.query(subject=subject)}


# ---------------------------------------------------------------------- families


def test_a_move_ends_the_old_home_but_not_the_job(workspace: Path) -> None:
    store = make_store(workspace)
    home, _ = store.add("Ines", "lives-in", "Porto", evidence=[ev("m1", day(1))])
    store.add("Ines", "works-at", "Farfetch", evidence=[ev("m2", day(2))])
    moved, _ = store.add("Ines", "moved-to", "Ghent", evidence=[ev("m3", day(5))])
    assert home.invalid_at == day(5) and home.superseded_by == moved.id
    assert current(store, "Ines") == {("moved-to", "Ghent"), ("works-at", "Farfetch")}
    # the history of the home follows the family, not the one predicate
    assert [f.object for f in store.history(moved.id)] == ["Porto", "Ghent"]


def test_pay_after_tax_and_the_salary_are_two_values_neither_ends_the_other(workspace: Path) -> None:
    store = make_store(workspace)
    store.add("Ro", "has-salary", "£29,970", evidence=[ev("m1", day(1))])
    store.add("Ro", "has-take-home-pay", "£1,862", evidence=[ev("m2", day(2))])
    store.add("Ro", "has-take-home-pay", "£2,080", evidence=[ev("m3", day(5))])  # ends the older take-home
    assert current(store, "Ro") == {("has-salary", "£29,970"), ("has-take-home-pay", "£2,080")}


def test_a_new_job_in_other_words_ends_the_old_one(workspace: Path) -> None:
    store = make_store(workspace)
    store.add("Ravi", "works-at", "Ocado", evidence=[ev("m1", day(1))])
    store.add("Ravi", "got-job-at", "Monzo", evidence=[ev("m2", day(3))])
    assert current(store, "Ravi") == {("got-job-at", "Monzo")}
    store.add("Ravi", "employed-by", "Wise", evidence=[ev("m3", day(7))])
    assert current(store, "Ravi") == {("employed-by", "Wise")}
    assert len(store.query(subject="Ravi", include_history=True)) == 3


def test_the_same_place_in_two_predicates_is_one_truth(workspace: Path) -> None:
    store = make_store(workspace)
    store.add("Kim", "moved-to", "Leeds", evidence=[ev("m1", day(2))])
    store.add("Kim", "lives-in", "Leeds", evidence=[ev("m2", day(6))])
    assert current(store, "Kim") == {("moved-to", "Leeds"), ("lives-in", "Leeds")}


def test_another_subjects_fact_never_supersedes(workspace: Path) -> None:
    store = make_store(workspace)
    store.add("user", "works-at", "Hargreaves Design", subject_id="person:user", evidence=[ev("m1", day(1))])
    store.add("Tom", "got-job-at", "city library", subject_id="person:tom", evidence=[ev("m2", day(4))])
    assert current(store, "user") == {("works-at", "Hargreaves Design")}
    assert current(store, "Tom") == {("got-job-at", "city library")}


def test_multi_valued_predicates_stay_outside_families(workspace: Path) -> None:
    store = make_store(workspace)
    store.add("Ana", "has-kid", "Leo", evidence=[ev("m1", day(1))])
    store.add("Ana", "has-kid", "Mia", evidence=[ev("m2", day(2))])
    store.add("Ana", "lived-in", "Madrid", evidence=[ev("m3", day(3))])
    store.add("Ana", "lived-in", "Lyon", evidence=[ev("m4", day(4))])
    assert len(store.query(subject="Ana")) == 4


# ---------------------------------------------------------------------- nested places, one message


def test_two_values_said_in_one_message_are_both_current(workspace: Path) -> None:
    store = make_store(workspace)
    store.add("Maya", "lives-in", "Lisbon", evidence=[ev("m0", day(1))])
    # "we live in Bristol, in Clifton": both from one message, neither ends the other
    city, _ = store.add("Maya", "lives-in", "Bristol", evidence=[ev("m1", day(3))])
    district, _ = store.add("Maya", "lives-in", "Clifton", evidence=[ev("m1", day(3))])
    assert city.invalid_at is None and district.invalid_at is None
    assert current(store, "Maya") == {("lives-in", "Bristol"), ("lives-in", "Clifton")}
    # said together once, they stay compatible when one of them is said again later
    store.add("Maya", "lives-in", "Clifton", evidence=[ev("m2", day(5))])
    assert city.invalid_at is None
    # a real move ends both
    store.add("Maya", "moved-to", "Cardiff", evidence=[ev("m3", day(9))])
    assert current(store, "Maya") == {("moved-to", "Cardiff")}


def test_a_place_stored_as_inside_the_other_coexists_with_it(workspace: Path) -> None:
    store = make_store(workspace)
    store.add("Kreuzberg", "is-in", "Berlin", evidence=[ev("m0", day(1))])
    store.add("Jonas", "lives-in", "Berlin", evidence=[ev("m1", day(2))])
    store.add("Jonas", "lives-in", "Kreuzberg", evidence=[ev("m2", day(4))])
    assert current(store, "Jonas") == {("lives-in", "Berlin"), ("lives-in", "Kreuzberg")}
    store.add("Jonas", "lives-in", "Hamburg", evidence=[ev("m3", day(6))])
    assert current(store, "Jonas") == {("lives-in", "Hamburg")}


def test_a_place_written_with_its_city_coexists_with_the_city(workspace: Path) -> None:
    store = make_store(workspace)
    store.add("Lea", "lives-in", "Lyon", evidence=[ev("m1", day(2))])
    store.add("Lea", "lives-in", "Croix-Rousse, Lyon", evidence=[ev("m2", day(4))])
    assert current(store, "Lea") == {("lives-in", "Lyon"), ("lives-in", "Croix-Rousse, Lyon")}


# ---------------------------------------------------------------------- valid_at decides the order


def test_a_fact_valid_before_the_current_one_goes_to_history(workspace: Path) -> None:
    store = make_store(workspace)
    now_job, _ = store.add(
        "Sam", "works-at", "Stripe", valid_at=day(3, year=2024), evidence=[ev("m1", day(2))]
    )
    # said later, but true since earlier: older news, not the current truth
    old_job, _ = store.add(
        "Sam", "works-at", "Shopify", valid_at=day(6, year=2022), evidence=[ev("m2", day(4))]
    )
    assert now_job.invalid_at is None
    assert old_job.invalid_at == now_job.valid_at and old_job.superseded_by == now_job.id
    assert current(store, "Sam") == {("works-at", "Stripe")}


def test_a_dated_fact_older_than_an_undated_current_one_goes_to_history(workspace: Path) -> None:
    store = make_store(workspace)
    home, _ = store.add("Eli", "lives-in", "Oslo", evidence=[ev("m1", day(5))])  # said in May
    # in November: "we moved to Bergen last March" -> valid from March, before Oslo was said
    bergen, _ = store.add("Eli", "moved-to", "Bergen", valid_at=day(3), evidence=[ev("m2", day(11))])
    assert home.invalid_at is None
    assert bergen.invalid_at == day(5) and bergen.superseded_by == home.id
    # a later-dated one does supersede
    store.add("Eli", "moved-to", "Tromso", valid_at=day(10), evidence=[ev("m3", day(11, 20))])
    assert current(store, "Eli") == {("moved-to", "Tromso")}
    assert home.invalid_at == day(10)


def test_a_future_start_ends_the_current_job_at_its_date(workspace: Path) -> None:
    store = make_store(workspace)
    old, _ = store.add("Noor", "works-at", "Deliveroo", evidence=[ev("m1", day(1))])
    new, _ = store.add("Noor", "starts-at", "Wise", valid_at=day(6, 8), evidence=[ev("m2", day(5, 20))])
    assert old.invalid_at == day(6, 8) and old.superseded_by == new.id
    assert new.valid_at == day(6, 8)


# ---------------------------------------------------------------------- config


def test_families_are_configurable_and_the_legacy_key_still_loads(workspace: Path) -> None:
    cfg = load_config(
        {
            "facts": {
                "predicateFamilies": {"pet": ["has-dog", "adopted-dog"]},
                "singleValuedPredicates": ["drives", "has-dog"],
            }
        }
    )
    fam = cfg.facts.family_of()
    assert fam["has-dog"] == "pet" and fam["adopted-dog"] == "pet" and fam["drives"] == "drives"
    assert "lives-in" not in fam  # the families given replace the defaults
    store = make_store(
        workspace,
        facts={
            "predicateFamilies": {"pet": ["has-dog", "adopted-dog"]},
            "singleValuedPredicates": ["drives"],
        },
    )
    store.add("Lu", "has-dog", "Rex", evidence=[ev("m1", day(1))])
    store.add("Lu", "adopted-dog", "Bo", evidence=[ev("m2", day(2))])
    store.add("Lu", "drives", "Golf", evidence=[ev("m3", day(3))])
    store.add("Lu", "drives", "Polo", evidence=[ev("m4", day(4))])
    store.add("Lu", "lives-in", "Graz", evidence=[ev("m5", day(5))])
    store.add("Lu", "lives-in", "Linz", evidence=[ev("m6", day(6))])
    assert current(store, "Lu") == {
        ("adopted-dog", "Bo"),
        ("drives", "Polo"),
        ("lives-in", "Graz"),
        ("lives-in", "Linz"),
    }


def test_the_default_families_cover_the_old_single_valued_list() -> None:
    fam = load_config({}).facts.family_of()
    old = [
        "works-at",
        "works-as",
        "lives-in",
        "is-married-to",
        "has-role",
        "has-manager",
        "is-named",
        "is-aged",
    ]
    assert all(p in fam for p in [*old, "has-job"])
    assert fam["moved-to"] == fam["lives-in"] and fam["got-job-at"] == fam["works-at"]


def test_a_predicate_in_two_families_is_rejected() -> None:
    with pytest.raises(ConfigError, match="two families"):
        load_config({"facts": {"predicateFamilies": {"a": ["works-at"], "b": ["works-at"]}}})


# ---------------------------------------------------------------------- every tier that saw a fact


def test_a_fact_confirmed_by_the_llm_keeps_both_tiers(workspace: Path) -> None:
    store = make_store(workspace)
    fact, _ = store.add(
        "Maya", "works-at", "Helix", source="spacy", confidence=0.6, evidence=[ev("m1", day(1))]
    )
    fact.relevance = 0.5
    again, status = store.add(
        "Maya", "works-at", "Helix", source="llm", confidence=0.9, evidence=[ev("m1", day(1))]
    )
    assert again is fact and status == "reinforced"
    assert fact.source == "llm" and fact.sources == ["spacy", "llm"] and fact.confidence == 0.9
    assert [(e.message_id, e.tiers) for e in fact.evidence] == [("m1", ["llm", "spacy"])]
    assert fact.relevance == 0.5  # one message, seen twice: not a second observation
    # a replay of either is idempotent
    store.add("Maya", "works-at", "Helix", source="spacy", evidence=[ev("m1", day(1))])
    assert fact.sources == ["spacy", "llm"] and len(fact.evidence) == 1
    # a later message by the regex tier adds its tier and its evidence
    store.add("Maya", "works-at", "Helix", source="regex", evidence=[ev("m2", day(2))])
    assert fact.source == "llm" and fact.sources == ["spacy", "llm", "regex"]
    assert [(e.message_id, e.tiers) for e in fact.evidence] == [("m1", ["llm", "spacy"]), ("m2", ["regex"])]


def test_a_late_llm_confirmation_does_not_bring_back_a_superseded_fact(workspace: Path) -> None:
    store = make_store(workspace)
    old, _ = store.add("Maya", "lives-in", "Lisbon", source="spacy", evidence=[ev("m1", day(1))])
    store.add("Maya", "lives-in", "Berlin", source="spacy", evidence=[ev("m2", day(4))])
    # the LLM batch for m1 arrives after m2 was stored
    store.add("Maya", "lives-in", "Lisbon", source="llm", evidence=[ev("m1", day(1))])
    assert old.invalid_at == day(4) and "llm" in old.sources
    assert current(store, "Maya") == {("lives-in", "Berlin")}


def test_workspace_apply_records_each_tier_on_the_fact_and_its_evidence(workspace: Path) -> None:
    ws = Workspace(workspace, load_config({"storage": {"writeDebounceMs": 0}}))
    msg = Message(id="m1", text="I work at Helix Robotics.", speaker="Maya", timestamp=day(2))
    cand = {"subject": "Maya", "predicate": "works-at", "object": "Helix Robotics", "subject_type": "person"}
    ws.apply(msg, [Extraction(message_id="m1", facts=[FactCandidate(tier="spacy", confidence=0.6, **cand)])])
    ws.apply(msg, [Extraction(message_id="m1", facts=[FactCandidate(tier="llm", confidence=0.9, **cand)])])
    ws.flush()
    (fact,) = ws.facts.all()
    assert fact.source == "llm" and fact.sources == ["spacy", "llm"]
    assert fact.evidence[0].tiers == ["llm", "spacy"]
    stored = json.loads((workspace / "facts.json").read_text())["facts"][0]
    assert stored["sources"] == ["spacy", "llm"] and stored["evidence"][0]["tiers"] == ["llm", "spacy"]
    ws.close()


def test_a_store_written_before_sources_loads_and_validates(workspace: Path) -> None:
    old = {
        "id": fact_id("Maya", "works-at", "Northwind Labs"),
        "subject": "Maya",
        "predicate": "works-at",
        "object": "Northwind Labs",
        "source": "spacy",
        "confidence": 0.6,
        "relevance": 1.0,
        "created_at": "2025-01-02T10:00:00Z",
        "last_accessed": "2025-01-02T10:00:00Z",
        "valid_at": None,
        "invalid_at": None,
        "superseded_by": None,
        "evidence": [
            {"message_id": "m1", "session": "s1", "role": "user", "timestamp": "2025-01-02T10:00:00Z"}
        ],
        "updated_at": "2025-01-02T10:00:00Z",
    }
    (workspace / "facts.json").write_text(json.dumps({"schema": 1, "meta": {}, "facts": [old]}))
    cfg = load_config({"storage": {"writeDebounceMs": 0}, "memory": {"enabled": False}})
    ws = Workspace(workspace, cfg)
    (fact,) = ws.facts.all()
    assert fact.sources == [] and fact.seen_by == ["spacy"]
    report = validate(ws, check_index=False)
    assert report.ok, report.problems
    # the next confirmation fills the list from the old source
    again, _ = ws.facts.add(
        "Maya", "works-at", "Northwind Labs", source="llm", evidence=[Evidence(message_id="m9")]
    )
    assert again.id == fact.id and again.sources == ["spacy", "llm"] and again.source == "llm"
    ws.close()


def test_a_tier_filter_finds_every_fact_that_tier_saw(workspace: Path) -> None:
    store = make_store(workspace)
    both, _ = store.add("Maya", "works-at", "Helix", source="spacy", evidence=[ev("m1", day(1))])
    store.add("Maya", "works-at", "Helix", source="llm", evidence=[ev("m1", day(1))])
    store.add("Maya", "likes", "jazz", source="spacy", evidence=[ev("m2", day(2))])
    raw = [f.model_dump(mode="json") for f in store.all()]
    for rows in (store.all(), raw):
        spacy = select(rows, FactQuery(tier="spacy"), "subject", 0)  # type: ignore[arg-type]
        llm = select(rows, FactQuery(tier="llm"), "subject", 0)  # type: ignore[arg-type]
        assert len(spacy) == 2 and [get(f, "id") for f in llm] == [both.id]


def test_a_childs_new_school_and_a_new_car_end_the_old_ones(workspace: Path) -> None:
    store = make_store(workspace)
    store.add("Noah", "attends", "Hillcrest Nursery", evidence=[ev("m1", day(1))])
    store.add("Noah", "attends", "Oakfield Primary", valid_at=day(9, 2), evidence=[ev("m2", day(8))])
    store.add("Dee", "has-girlfriend", "Ola", evidence=[ev("m3", day(1))])
    store.add("Dee", "is-engaged-to", "Ola", evidence=[ev("m4", day(6))])
    store.add("Dee", "drives", "Fiat Panda", evidence=[ev("m5", day(2))])
    store.add("Dee", "drives", "Kia Niro", evidence=[ev("m6", day(7))])
    assert current(store, "Noah") == {("attends", "Oakfield Primary")}
    assert current(store, "Dee") == {
        ("has-girlfriend", "Ola"),
        ("is-engaged-to", "Ola"),
        ("drives", "Kia Niro"),
    }


# ---------------------------------------------------------------------- explicit endings


def test_an_explicit_ending_ends_the_current_fact_it_names(workspace: Path) -> None:
    store = make_store(workspace)
    job, _ = store.add("Maya", "works-at", "Northwind Labs", evidence=[ev("m1", day(1))])
    home, _ = store.add("Maya", "lives-in", "Lisbon", evidence=[ev("m2", day(1))])
    # "I no longer work at Northwind": the short name ends the long one, at the date the sentence gave
    ending, _ = store.add(
        "Maya", "worked-at", "Northwind", valid_at=day(3, 9), evidence=[ev("m3", day(3, 20))], ends=True
    )
    assert job.invalid_at == day(3, 9) and job.superseded_by == ending.id
    assert home.invalid_at is None  # a job's ending says nothing of the home
    assert current(store, "Maya") == {("lives-in", "Lisbon"), ("worked-at", "Northwind")}


def test_a_leaving_said_ahead_ends_the_job_or_school_but_never_a_home(workspace: Path) -> None:
    store = make_store(workspace)
    job, _ = store.add("Tom", "works-at", "Acme", evidence=[ev("m1", day(1))])
    home, _ = store.add("Tom", "lives-in", "London", evidence=[ev("m2", day(1))])
    school, _ = store.add("Leo", "attends", "Riverside", evidence=[ev("m3", day(1))])
    # "Tom is leaving Acme at the end of June", "Leo leaves Riverside in July"
    store.add("Tom", "leaves", "Acme", valid_at=day(6, 30), evidence=[ev("m4", day(5))], ends=True)
    store.add("Leo", "leaves", "Riverside", valid_at=day(7, 20), evidence=[ev("m5", day(5))], ends=True)
    # "Tom is leaving London on Friday for a conference": a trip, the home stays
    store.add("Tom", "leaves", "London", valid_at=day(5, 9), evidence=[ev("m6", day(5, 6))], ends=True)
    assert job.invalid_at == day(6, 30) and school.invalid_at == day(7, 20)
    assert home.invalid_at is None


def test_an_ending_said_in_a_present_wording_is_history_itself(workspace: Path) -> None:
    """ "my ex-husband Mark", "Gareth was my manager": the extractor says is-married-to / has-manager with
    an ending; the fact is history (kept, never current), whether it was current before or is new."""
    store = make_store(workspace)
    spouse, _ = store.add("Maya", "is-married-to", "Mark", evidence=[ev("m1", day(1))])
    store.add("Maya", "is-married-to", "Mark", evidence=[ev("m2", day(4))], ends=True)
    assert spouse.invalid_at == day(4)
    boss, _ = store.add("Maya", "has-manager", "Gareth", evidence=[ev("m3", day(5))], ends=True)
    assert boss.invalid_at == day(5)
    assert current(store, "Maya") == set()
    # an ending dated before the fact began (a date the store cannot place earlier) ends it as it began
    late, _ = store.add("Ana", "has-partner", "Tyler", evidence=[ev("m4", day(6))])
    store.add("Ana", "has-partner", "Tyler", valid_at=day(2), evidence=[ev("m5", day(7))], ends=True)
    assert late.invalid_at is not None and late.invalid_at >= day(2)


def test_a_past_fact_said_without_an_ending_leaves_the_current_one(workspace: Path) -> None:
    store = make_store(workspace)
    job, _ = store.add("Maya", "works-at", "Northwind", evidence=[ev("m1", day(1))])
    # "I worked at Northwind yesterday on the report": it held then, and still does
    store.add("Maya", "worked-at", "Northwind", evidence=[ev("m2", day(3))])
    # an ending that names another employer ends nothing current
    store.add("Maya", "left", "Acme", evidence=[ev("m3", day(4))], ends=True)
    assert job.is_valid
    assert ("works-at", "Northwind") in current(store, "Maya")


def test_leaving_a_city_ends_the_home_and_selling_the_car_ends_it(workspace: Path) -> None:
    store = make_store(workspace)
    home, _ = store.add("Tom", "lives-in", "Leeds", evidence=[ev("m1", day(1))])
    car, _ = store.add("Tom", "drives", "2019 Golf", evidence=[ev("m2", day(1))])
    store.add("Tom", "moved-out-of", "Leeds", evidence=[ev("m3", day(5))], ends=True)
    store.add("Tom", "sold", "Golf", evidence=[ev("m4", day(6))], ends=True)
    assert home.invalid_at == day(5) and car.invalid_at == day(6)
    assert [f.object for f in store.history(home.id)] == ["Leeds"]  # kept in history, not forgotten


def test_moving_from_a_city_ends_the_home_there(workspace: Path) -> None:
    store = make_store(workspace)
    home, _ = store.add("Tom", "lives-in", "Derby", evidence=[ev("m1", day(1))])
    store.add("Tom", "moved-from", "Derby", evidence=[ev("m2", day(5))], ends=True)  # "we moved from Derby"
    assert home.invalid_at == day(5)


def test_an_ending_older_than_the_current_fact_leaves_it(workspace: Path) -> None:
    store = make_store(workspace)
    # back at Northwind since May; an old message replayed late says "I left Northwind" in March
    job, _ = store.add("Maya", "works-at", "Northwind", evidence=[ev("m2", day(5))])
    store.add("Maya", "left", "Northwind", evidence=[ev("m1", day(3))], ends=True)
    assert job.is_valid


# ---------------------------------------------------------------------- districts and cities


def test_a_district_home_stays_beside_its_city_until_the_city_changes(workspace: Path) -> None:
    store = make_store(workspace)
    store.add("Kreuzberg", "is-a", "district", evidence=[ev("a1", day(1))])
    store.add("Maya", "moved-to", "Berlin", evidence=[ev("m1", day(2))])
    store.add("Maya", "moves-to", "Kreuzberg", evidence=[ev("m2", day(3))])  # "we found a flat in Kreuzberg"
    store.add("Maya", "lives-in", "Berlin", evidence=[ev("m3", day(5))])  # "I live in Berlin now"
    assert current(store, "Maya") == {
        ("moved-to", "Berlin"),
        ("moves-to", "Kreuzberg"),
        ("lives-in", "Berlin"),
    }
    store.add("Neukolln", "is-a", "district", evidence=[ev("a2", day(6))])
    store.add("Maya", "moves-to", "Neukolln", evidence=[ev("m4", day(7))])  # a new district ends the old one
    assert {o for _, o in current(store, "Maya")} == {"Berlin", "Neukolln"}
    store.add("Maya", "lives-in", "Hamburg", evidence=[ev("m5", day(9))])  # another city: both end
    assert current(store, "Maya") == {("lives-in", "Hamburg")}


def test_a_move_to_a_city_ends_a_district_with_no_city_known(workspace: Path) -> None:
    store = make_store(workspace)
    store.add("Clifton", "is-a", "district", evidence=[ev("a1", day(1))])
    store.add("Ann", "lives-in", "Clifton", evidence=[ev("m1", day(1))])
    store.add("Ann", "lives-in", "Bristol", evidence=[ev("m2", day(2))])  # says nothing against Clifton
    assert {o for _, o in current(store, "Ann")} == {"Clifton", "Bristol"}
    store.add("Ann", "moved-to", "Leeds", evidence=[ev("m3", day(4))])
    assert current(store, "Ann") == {("moved-to", "Leeds")}


def test_a_place_learned_to_be_a_district_gives_back_the_city_it_ended(workspace: Path) -> None:
    store = make_store(workspace)
    city, _ = store.add("Maya", "moved-to", "Berlin", evidence=[ev("m1", day(2))])
    store.add("Maya", "moves-to", "Kreuzberg", evidence=[ev("m2", day(3))])
    assert not city.is_valid  # nothing said yet that Kreuzberg is inside a city
    store.add("Kreuzberg", "is-a", "district", evidence=[ev("a1", day(3))])  # "Kreuzberg is a lively area"
    assert city.is_valid and city.superseded_by is None
    assert {o for _, o in current(store, "Maya")} == {"Berlin", "Kreuzberg"}


def test_without_districts_cities_still_supersede_and_a_restatement_ends_nothing(workspace: Path) -> None:
    store = make_store(workspace)
    store.add("Ines", "lives-in", "Porto", evidence=[ev("m1", day(1))])
    store.add("Ines", "lives-in", "Lisbon", evidence=[ev("m2", day(2))])
    assert current(store, "Ines") == {("lives-in", "Lisbon")}
    # two values said together (both current), then one of them said again: the other stays
    store.add("Ines", "lives-in", "Bristol", evidence=[ev("m3", day(3))])
    store.add("Ines", "lives-in", "Clifton", evidence=[ev("m3", day(3))])
    store.add("Ines", "lives-in", "Bristol", evidence=[ev("m4", day(5))])
    assert {o for _, o in current(store, "Ines")} == {"Bristol", "Clifton"}


def test_a_last_day_said_after_the_next_job_moves_the_end_earlier(workspace: Path) -> None:
    store = make_store(workspace)
    old, _ = store.add("Maya", "works-at", "Northwind Labs", evidence=[ev("m1", day(1))])
    new, _ = store.add("Maya", "works-at", "Helix", evidence=[ev("m2", day(10, 19))])
    assert old.invalid_at == day(10, 19)
    # "I no longer work at Northwind Labs; my last day there was October 9", said after the new job
    store.add(
        "Maya",
        "worked-at",
        "Northwind Labs",
        valid_at=day(10, 9),
        evidence=[ev("m3", day(10, 19))],
        ends=True,
    )
    assert old.invalid_at == day(10, 9) and old.superseded_by == new.id
    assert new.is_valid


def test_quitting_my_job_ends_the_one_current_employer(workspace: Path) -> None:
    store = make_store(workspace)
    job, _ = store.add("Maya", "works-at", "Northwind", evidence=[ev("m1", day(1))])
    car, _ = store.add("Maya", "has-car", "Skoda Fabia", evidence=[ev("m2", day(1))])
    store.add("Maya", "left", "job", evidence=[ev("m3", day(4))], ends=True)  # "I quit my job!"
    store.add("Maya", "sold", "car", evidence=[ev("m4", day(5))], ends=True)  # "we sold the car"
    assert job.invalid_at == day(4) and car.invalid_at == day(5)
    # with two current jobs, "my job" names neither
    a, _ = store.add("Tom", "works-at", "Tesco", evidence=[ev("t1", day(1))])
    b, _ = store.add("Tom", "works-at", "Aldi", evidence=[ev("t1", day(1))])
    store.add("Tom", "quit", "job", evidence=[ev("t2", day(3))], ends=True)
    assert a.is_valid and b.is_valid


# ---------------------------------------------------------------------- a job's title, pay and manager


def test_a_new_employer_ends_the_old_jobs_title_and_pay(workspace: Path) -> None:
    store = make_store(workspace)
    store.add("Jo", "works-at", "Quokka Labs", evidence=[ev("m1", day(1))])
    title, _ = store.add("Jo", "has-role", "Software Tester", evidence=[ev("m1", day(1))])
    pay, _ = store.add("Jo", "has-salary", "$92,000", evidence=[ev("m2", day(2))])
    boss, _ = store.add("Jo", "has-manager", "Dave", evidence=[ev("m2", day(2))])
    store.add("Jo", "lives-in", "Perth", evidence=[ev("m2", day(2))])
    store.add("Jo", "works-at", "Quokka Labs", evidence=[ev("m3", day(3))])  # the old job said again
    new_job, _ = store.add("Jo", "works-at", "Fernhill Digital", evidence=[ev("m4", day(6))])
    for old in (title, pay):
        assert old.invalid_at == day(6) and old.superseded_by == new_job.id
    # a manager is no term of the job: a new employer fact may be a site or a client, the boss the same
    assert boss.invalid_at is None
    assert current(store, "Jo") == {
        ("works-at", "Fernhill Digital"),
        ("lives-in", "Perth"),
        ("has-manager", "Dave"),
    }
    # each keeps its history: the old title is a superseded row, not a lost one
    assert {f.object for f in store.query(subject="Jo", predicate="has-role", include_history=True)} == {
        "Software Tester"
    }


def test_the_new_jobs_terms_told_with_its_name_or_after_the_old_job_stay(workspace: Path) -> None:
    store = make_store(workspace)
    store.add("Priya", "works-at", "Fernhill", evidence=[ev("m1", day(1))])
    store.add("Priya", "has-role", "data analyst", evidence=[ev("m1", day(1))])
    store.add("Priya", "has-salary", "£48,000", evidence=[ev("m2", day(2))])
    # an offer that names the new firm, with its title; then pay told with no firm named
    store.add("Priya", "has-offer-from", "Copperleaf", evidence=[ev("m3", day(3))])
    store.add("Priya", "has-role", "Senior Data Scientist", evidence=[ev("m3", day(3))])
    store.add("Priya", "works-at", "Fernhill", evidence=[ev("m4", day(4))])  # "still at Fernhill till June"
    store.add("Priya", "has-salary", "£61,000", evidence=[ev("m5", day(5))])
    store.add("Priya", "works-at", "Copperleaf", evidence=[ev("m6", day(8))])
    assert current(store, "Priya") == {
        ("works-at", "Copperleaf"),
        ("has-offer-from", "Copperleaf"),
        ("has-role", "Senior Data Scientist"),
        ("has-salary", "£61,000"),
    }


def test_the_same_employer_said_again_or_another_subjects_job_ends_nothing(workspace: Path) -> None:
    store = make_store(workspace)
    store.add("Ana", "works-at", "Aviva", evidence=[ev("m1", day(1))])
    store.add("Ana", "has-role", "actuary", evidence=[ev("m1", day(1))])
    store.add("Ana", "works-at", "Aviva", evidence=[ev("m2", day(4))])
    store.add("Sam", "works-at", "Leeds General Infirmary", evidence=[ev("m3", day(5))])
    store.add("Sam", "works-at", "St James's", evidence=[ev("m4", day(6))])
    assert current(store, "Ana") == {("works-at", "Aviva"), ("has-role", "actuary")}


def test_a_job_left_ends_its_title_and_pay_but_not_a_new_one_said_with_the_leaving(workspace: Path) -> None:
    store = make_store(workspace)
    store.add("Eamon", "works-at", "ESB", evidence=[ev("m1", day(1))])
    title, _ = store.add("Eamon", "has-role", "district supervisor", evidence=[ev("m1", day(1))])
    pay, _ = store.add("Eamon", "has-salary", "€58,000", evidence=[ev("m2", day(2))])
    store.add("Eamon", "retired-from", "ESB", evidence=[ev("m3", day(5))], ends=True)
    assert title.invalid_at == day(5) and pay.invalid_at == day(5)
    assert current(store, "Eamon") == {("retired-from", "ESB")}
    # a title told with the leaving is the next one: "I quit Monzo, I'm a freelance designer now"
    store.add("Ciara", "works-at", "Monzo", evidence=[ev("m4", day(1))])
    store.add("Ciara", "has-role", "designer", evidence=[ev("m4", day(1))])
    store.add("Ciara", "quit", "Monzo", evidence=[ev("m5", day(6))], ends=True)
    store.add("Ciara", "has-role", "freelance designer", evidence=[ev("m5", day(6))])
    assert current(store, "Ciara") == {("has-role", "freelance designer"), ("quit", "Monzo")}
