"""Questions about a subject and a relation get the current fact of that relation first (issue 14).

The reproduction: a user who worked at one company and then at another (the first `works-at`
superseded), moved from one city to another (`moved-to` leaves the old `lives-in` valid), changed
manager, with a husband who changed jobs. Asked "where do I work now?", text similarity alone put
`works-as product designer` and `moved-to Ghent` above the stored, current `works-at` fact, or left
it out of the Known Facts section. Now the facts of the asked subject (I -> the speaker of the
user's messages; "my husband" -> the person the user's partner fact names) and relation (work ->
the employer family, ...) come first, the stale ones are left out, and a question about the past
gets the superseded ones, marked as past.

Facts go in through the store API, the message log holds the conversation they came from, and the
real local embedder and Chroma index feed the vector arm, as in the hook.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from knowledge_engine.config import load_config
from knowledge_engine.engine import KnowledgeEngine
from knowledge_engine.model.records import Evidence
from knowledge_engine.model.retrieval import RetrievalRequest
from knowledge_engine.retrieve.relations import parse_relation
from knowledge_engine.retrieve.retriever import Retriever
from tests import relations_support
from tests.relations_support import Story, story_retriever

T0 = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
# (day, text, facts stated by that message)
STORY: Story = [
    (0, "Hi, I'm Maya. I work at Northwind Logistics as a product designer.",
     [("Maya", "works-at", "Northwind Logistics"), ("Maya", "works-as", "product designer")]),
    (0, "I live in Prague with my husband Tom. My manager is Dana Reyes.",
     [("Maya", "lives-in", "Prague"), ("Maya", "has-husband", "Tom"), ("Maya", "has-manager", "Dana Reyes")]),
    (0, "Tom works at Prague City Library. Our son Leo is four.",
     [("Tom", "works-at", "Prague City Library"), ("Maya", "has-son", "Leo")]),
    (0, "Before Northwind I worked at Brightline for three years.", [("Maya", "worked-at", "Brightline")]),
    (0, "Mia is our daughter, she is two.", [("Mia", "is-daughter-of", "Maya")]),
    (0, "I studied at Charles University.", [("Maya", "studied-at", "Charles University")]),
    (0, "I love hiking and I play the cello in a work orchestra.",
     [("Maya", "likes", "hiking"), ("Maya", "plays", "cello")]),
    (20, "Work has been stressful, so many deadlines at Northwind.",
     [("Maya", "talked-about", "work deadlines")]),
    (40, "I accepted the offer: I work at Helix Robotics now.", [("Maya", "works-at", "Helix Robotics")]),
    (41, "My new manager is Priya Shah.", [("Maya", "has-manager", "Priya Shah")]),
    (60, "We moved to Ghent last week.", [("Maya", "moved-to", "Ghent")]),
    (61, "Tom got a job at Ghent University.", [("Tom", "works-at", "Ghent University")]),
    (80, "Leo goes to Riverside Primary now.", [("Leo", "goes-to", "Riverside Primary")]),
    (85, "I'm in Lisbon for a conference this week.", [("Maya", "is-in", "Lisbon")]),
]


@pytest.fixture(scope="module")
def retriever(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Retriever]:
    with story_retriever(tmp_path_factory.mktemp("relations"), STORY, T0) as r:
        yield r


def known_facts(r: Retriever, question: str) -> list[str]:
    return relations_support.known_facts(r, question, T0 + timedelta(days=90))


def test_the_current_fact_of_the_asked_subject_and_relation_comes_first(retriever: Retriever) -> None:
    cases = {
        "where do I work now?": ("Maya | works-at | Helix Robotics", ["Northwind Logistics", "Brightline"]),
        "who is my manager?": ("Maya | has-manager | Priya Shah", ["Dana Reyes"]),
        "Where does my husband work these days?": ("Tom | works-at | Ghent University",
                                                   ["Prague City Library"]),
        "where do I live?": ("Maya | moved-to | Ghent", ["lives-in | Prague"]),
        "What school does Leo go to?": ("Leo | goes-to | Riverside Primary", []),
    }
    for question, (first, stale) in cases.items():
        facts = known_facts(retriever, question)
        assert facts and facts[0].startswith(f"- {first} ("), (question, facts)
        for old in stale:
            assert not any(old in line for line in facts), (question, facts)
        assert not any("(past;" in line for line in facts), (question, facts)


def test_a_speaker_whose_facts_are_under_a_short_form_of_the_name_is_still_i(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    # The log's speaker is "Maya Lindqvist"; she wrote "I'm Maya", and the store keeps her facts under
    # the entity "Maya". "I" must reach them through that entity, not by the log's name alone
    # (before, the relation facts of such a user were never found: tune story fresh4-eamon).
    root = tmp_path_factory.mktemp("short_form")
    with story_retriever(root, STORY, T0, speaker="Maya Lindqvist") as r:
        now = T0 + timedelta(days=90)
        facts = relations_support.known_facts(r, "where do I work now?", now)
        assert facts and facts[0].startswith("- Maya | works-at | Helix Robotics ("), facts
        facts = relations_support.known_facts(r, "what was my previous job?", now)
        assert facts and facts[0].startswith("- Maya | works-at | Northwind Logistics (past;"), facts


def test_a_question_about_the_past_gets_the_superseded_fact_marked_as_past(retriever: Retriever) -> None:
    cases = {
        "what was my previous job?":
            "Maya | works-at | Northwind Logistics (past; valid 2026-01-05 to 2026-02-14",
        "who was my old boss?": "Maya | has-manager | Dana Reyes (past; valid 2026-01-05 to 2026-02-15",
        "Where did I use to live before?": "Maya | lives-in | Prague (past;",
        "Where did Tom work before we moved?": "Tom | works-at | Prague City Library (past;",
    }
    for question, first in cases.items():
        facts = known_facts(retriever, question)
        assert facts and facts[0].startswith(f"- {first}"), (question, facts)


def test_a_past_tense_question_gets_the_current_fact_first_then_the_old_one(retriever: Retriever) -> None:
    # "was" allows history without asking for it first; the old manager is not diversified away
    facts = known_facts(retriever, "who was my manager?")
    assert facts[0].startswith("- Maya | has-manager | Priya Shah (valid")
    assert facts[1].startswith("- Maya | has-manager | Dana Reyes (past;"), facts


def test_a_stay_elsewhere_neither_leads_nor_makes_the_home_stale(retriever: Retriever) -> None:
    facts = known_facts(retriever, "where do I live?")
    assert facts[0].startswith("- Maya | moved-to | Ghent (")
    assert any(line.startswith("- Maya | is-in | Lisbon (valid") for line in facts), facts


def test_a_relation_stated_from_the_other_end_answers_too(retriever: Retriever) -> None:
    facts = known_facts(retriever, "who are my kids?")
    heads = {line.split(" (")[0] for line in facts[:2]}
    assert heads == {"- Maya | has-son | Leo", "- Mia | is-daughter-of | Maya"}, facts


def test_a_past_form_predicate_is_history(retriever: Retriever) -> None:
    facts = known_facts(retriever, "where have I worked before?")
    assert facts[0].startswith("- Maya | works-at | Northwind Logistics (past;"), facts  # ended last
    assert any(line.startswith("- Maya | worked-at | Brightline (past;") for line in facts), facts


def test_a_past_form_predicate_with_no_current_value_beside_it_is_kept(retriever: Retriever) -> None:
    # chat tells most events in the past tense: only a current value of the family makes it history
    facts = known_facts(retriever, "which university do I study at?")
    assert facts[0].startswith("- Maya | studied-at | Charles University (valid"), facts


def test_the_link_of_a_possessive_reference_is_shown_after_the_answer(retriever: Retriever) -> None:
    facts = known_facts(retriever, "where does my husband work?")
    assert facts[0].startswith("- Tom | works-at | Ghent University (")
    assert any(line.startswith("- Maya | has-husband | Tom (") for line in facts), facts


def test_each_relation_takes_the_tense_of_its_own_clause(retriever: Retriever) -> None:
    """The demo's question: the employer asked now, the home asked before. With one tense for the whole
    question, "before" made every family's history lead and the current employer never made the block."""
    facts = known_facts(retriever, "Where do I work now, and where did I live before?")
    heads = [line.split(" (")[0] for line in facts]
    assert heads[0] == "- Maya | works-at | Helix Robotics", facts
    assert any(line.startswith("- Maya | lives-in | Prague (past;") for line in facts), facts
    assert not any("Northwind" in line or "Brightline" in line for line in facts), facts  # work: asked now


@pytest.mark.parametrize(
    ("question", "tenses"),
    [
        ("Where does Maya work now, and where did she live before?", {"employer": "", "home": "strong"}),
        ("where did I live before and where do I work", {"home": "strong", "employer": ""}),
        ("who was my manager, and where did we live in 2019?", {"manager": "weak", "home": "weak"}),
        ("where do I work and live?", {"employer": ""}),  # "live?" says no tense: the question's
    ],
)
def test_tense_by_clause(question: str, tenses: dict[str, str]) -> None:
    assert parse_relation(question).tenses == tenses


@pytest.mark.parametrize(
    ("question", "first"),
    [
        ("What was my salary before the new job?", "salary"),  # "job" only says when
        ("Which company did I work for after I moved?", "employer"),
        ("Where did I live before I got the job at Helix?", "home"),
    ],
)
def test_a_relation_said_only_in_a_time_clause_comes_after_the_one_asked(question: str, first: str) -> None:
    families = parse_relation(question).families
    assert families[0] == first and len(families) > 1, families


@pytest.mark.parametrize(
    "question",
    ["where did i do my MTech", "Which university was my PhD at?", "where did I get my master's?"],
)
def test_a_degree_asks_about_a_school(question: str) -> None:
    assert parse_relation(question).families[:1] == ["school"]


def test_the_asked_relation_leads_the_facts_shown(tmp_path: Any) -> None:
    told = [
        (0, "Maya", "works-at", "Northwind"),
        (0, "Maya", "has-role", "analyst"),
        (0, "Maya", "has-salary", "£48,000"),
        (40, "Maya", "works-at", "Helix"),
        (40, "Maya", "has-role", "lead"),
        (40, "Maya", "has-salary", "£61,000"),
    ]
    shown = _shown(tmp_path, told, "What was my salary before the new job?")
    assert shown[0] == ("has-salary", "£48,000", True), shown


def _shown(
    tmp_path: Any, told: list[tuple[int, str, str, str]], question: str
) -> list[tuple[str, str, bool]]:
    """(predicate, object, shown as past) of the relation facts `question` gets from the facts told on
    each day (a workspace of the store alone, no embedder)."""
    from knowledge_engine.retrieve.relations import SubjectIndex, relation_facts

    engine = KnowledgeEngine(
        load_config({"embeddings": {"enabled": False}, "extraction": {"llm": {"enabled": False}}})
    )
    ws = engine.open_workspace(tmp_path / "ws")
    for day, subj, pred, obj in told:
        ts = T0 + timedelta(days=day)
        ev = Evidence(message_id=f"d{day}{subj}", session="s", role="user", timestamp=ts)
        ws.facts.add(subj, pred, obj, evidence=[ev], confidence=0.6, now=ts)
    index = SubjectIndex()
    index.refresh(ws.facts.table)
    hits, _ = relation_facts(parse_relation(question), index, {"maya"}, set(), question)
    engine.stop(5)
    return [(h.fact.predicate, h.fact.object, h.past) for h in hits]


def test_work_in_a_ward_or_a_field_leaves_the_employer_current(tmp_path: Any) -> None:
    """"I work in AMU now" (a ward of the trust she joined) is no newer employer: the trust stays the
    answer to "who do I work for?", and the employer before it stays history."""
    told = [
        (0, "Maya", "works-at", "Northwind"),
        (40, "Maya", "works-at", "Royal Berkshire"),
        (80, "Maya", "works-in", "AMU"),
    ]
    shown = _shown(tmp_path, told, "Which trust do I work for?")
    assert ("works-at", "Royal Berkshire", False) in shown, shown
    assert ("works-at", "Northwind", False) not in shown, shown


def test_two_homes_said_in_one_message_are_both_current_whatever_their_dates(tmp_path: Any) -> None:
    """"Moving to Bangalore on 1 June, found a flat in HSR Layout": the move's date makes one fact newer
    than the other, but one message is one piece of news, not an old home and a new one."""
    from knowledge_engine.retrieve.relations import SubjectIndex, relation_facts

    engine = KnowledgeEngine(
        load_config({"embeddings": {"enabled": False}, "extraction": {"llm": {"enabled": False}}})
    )
    ws = engine.open_workspace(tmp_path / "ws")
    ev = Evidence(message_id="m1", session="s", role="user", timestamp=T0)
    ws.facts.add("Maya", "moves-to", "Bangalore", evidence=[ev], now=T0, valid_at=T0 + timedelta(days=4))
    ws.facts.add("Maya", "moves-to", "HSR Layout", evidence=[ev], now=T0)
    index = SubjectIndex()
    index.refresh(ws.facts.table)
    question = "which area of Bangalore do I stay in"
    hits, _ = relation_facts(parse_relation(question), index, {"maya"}, set(), question)
    engine.stop(5)
    assert {h.fact.object for h in hits if not h.past} >= {"Bangalore", "HSR Layout"}


DEMO_MOVES = [
    (0, "Maya", "lives-in", "Lisbon"),
    (30, "Maya", "moved-to", "Berlin"),
    (37, "Maya", "moves-to", "Kreuzberg"),
    (60, "Maya", "lives-in", "Berlin"),
]


def test_a_past_fact_that_restates_the_current_value_is_no_before_value(tmp_path: Any) -> None:
    """The demo's moves: Lisbon, then Berlin, then the Kreuzberg flat (it ends "moved-to Berlin"), then
    "I live in Berlin now" (it ends Kreuzberg, not known to be a district here). The ended "moved-to
    Berlin" says where she lives now: no answer to "before"."""
    shown = _shown(tmp_path, DEMO_MOVES, "where did I live before?")
    assert ("moved-to", "Berlin", True) not in shown, shown
    assert ("lives-in", "Lisbon", True) in shown and ("lives-in", "Berlin", False) in shown, shown


def test_a_home_in_a_district_is_current_beside_the_city_said_later(tmp_path: Any) -> None:
    """Once Kreuzberg is known to be a district, "I live in Berlin now" neither ends it in the store nor
    makes it an older value of her home: both are where she lives."""
    told = [*DEMO_MOVES[:3], (37, "Kreuzberg", "is-a", "district"), DEMO_MOVES[3]]
    shown = _shown(tmp_path, told, "where do I live now?")
    assert ("moves-to", "Kreuzberg", False) in shown and ("lives-in", "Berlin", False) in shown, shown
    assert ("lives-in", "Lisbon", False) not in shown, shown


@pytest.mark.parametrize(("question", "families", "first_person", "via", "past"), [
    ("where do I work now?", ["employer"], True, [], ""),
    ("What's my job title these days?", ["role", "identity"], True, [], ""),
    ("so where does my wife work?", ["employer", "partner"], True, ["partner"], ""),
    ("how much does Sam earn a year", ["salary"], False, [], ""),
    ("which nursery do the kids go to", ["children", "school"], False, [], ""),
    ("who did I report to at my old company?", ["employer", "manager"], True, [], "strong"),
    ("where did we live in 2019?", ["home"], True, [], "weak"),
    ("when did I move to Lyon?", ["home"], True, [], "weak"),
    ("how old is my daughter?", ["children", "birthday"], True, ["children"], ""),
    ("What did Alex cook for dinner?", [], False, [], ""),
    ("Is my ex-boyfriend still in town?", ["partner"], True, ["partner"], "strong"),
    ("how much rent do we pay", ["rent", "salary"], True, [], ""),
    ("where did Sofia teach before she retired?", ["employer"], False, [], "strong"),
    ("where do we stay now", ["home"], True, [], ""),  # Scots and Indian English: stay = live
    ("which suburb are we in", ["home"], True, [], ""),
    ("which area of the city do I stay in", ["home"], True, [], ""),
    ("what is my CTC", ["salary"], True, [], ""),  # Indian English: cost to company, the yearly pay
    ("how much was my internship stipend", ["salary"], True, [], "weak"),
    # a state the asker has left: "when I was still ..." wants the old value; "still" alone is now
    ("What was I making a year when I was still driving trucks?", ["salary", "car"], True, [], "strong"),
    ("Do I still live in Leeds?", ["home"], True, [], ""),
    ("Who supervised my PhD?", ["manager", "school"], True, [], "weak"),  # a past verb after "who"
    ("Who managed me at Tesco?", ["manager"], True, [], "weak"),
    # chat's short forms of the person asked about
    ("who was my mgr before linh", ["manager"], True, ["manager"], "strong"),
    ("where does my bf work now?", ["employer", "partner"], True, ["partner"], ""),
    ("how old are my kiddos", ["children", "birthday"], True, ["children"], ""),
    ("what was my rank when i left the brigade", ["role", "identity"], True, [], "weak"),  # a service's title
    ("who is my GP?", ["health"], True, ["health"], ""),  # the family doctor
])
def test_relation_words_subjects_and_tense_of_a_question(
    question: str, families: list[str], first_person: bool, via: list[str], past: str
) -> None:
    rq = parse_relation(question)
    assert rq.families == families
    if families:
        assert (rq.first_person, rq.via, rq.past) == (first_person, via, past)


def test_questions_without_a_relation_word_are_ranked_as_before(retriever: Retriever) -> None:
    # no family word: the relation step leaves the fact list alone (no relation score on any item)
    items: list[Any] = retriever.local.search_sync(
        RetrievalRequest(query="what instrument does Maya play in the orchestra?"))
    assert not any("relation" in i.scores for i in items)


def test_a_past_fact_is_marked_in_both_formats() -> None:
    from knowledge_engine.inject.format import render_item
    from knowledge_engine.model.retrieval import RetrievedItem

    def item(**extra: Any) -> RetrievedItem:
        triple = {"subject": "Maya", "predicate": "works-at", "object": "Acme", "valid_at": T0}
        return RetrievedItem(id="f-1", kind="fact", source="facts", text="Maya works at Acme",
                             timestamp=T0, extra={**triple, **extra})

    ended = item(invalid_at=T0 + timedelta(days=40))
    stale = item(past=True)  # still valid in the store, shown as past for a question about the past
    assert "(past; valid 2026-01-05 to 2026-02-14;" in render_item(ended)
    assert "(past; valid 2026-01-05 to ?;" in render_item(stale)
    assert 'status="past"' in render_item(ended, "xml") and 'status="past"' in render_item(stale, "xml")
    assert "past" not in render_item(item()) and "status=" not in render_item(item(), "xml")


OTHERS_AT_WORK: Story = [
    (0, "Sam starts at Halden in May.", [("Sam", "starts-at", "Halden")]),
    (1, "Sam cycles to the Halden office every day.", [("Sam", "cycles-to", "Halden office")]),
    (2, "Tom works at the city library.", [("Tom", "works-at", "city library")]),
    (3, "Priya works at Helix Robotics.", [("Priya", "works-at", "Helix Robotics")]),
    (4, "Dana works at Northwind.", [("Dana", "works-at", "Northwind")]),
    (5, "Leo works at the cafe on Saturdays.", [("Leo", "works-at", "cafe")]),
]


def test_the_asked_subjects_other_facts_come_before_other_peoples(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    # Sam's other fact may say where he works in a wording no family holds; other people's jobs share
    # the question's words but answer nothing about Sam (four facts are shown by default).
    with story_retriever(tmp_path_factory.mktemp("own"), OTHERS_AT_WORK, T0) as r:
        facts = relations_support.known_facts(r, "Where does Sam work?", T0 + timedelta(days=10))
    assert [line.split(" | ")[0] for line in facts[:2]] == ["- Sam", "- Sam"], facts
