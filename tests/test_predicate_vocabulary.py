"""One predicate vocabulary (model/predicates.py) and the tables derived from it agree.

The store's supersession families (`config.DEFAULT_PREDICATE_FAMILIES`), the LLM tier's renames
(`extract/llm.PREDICATE_MAP`), the prompt's list (`extract/prompts.CANONICAL_PREDICATES`), the
dependency tier's renames (`extract/lexicon.PREDICATE_ALIASES`) and the question families of retrieval
(`retrieve/relations.FAMILIES`, `INVERSE`) used to be four hand-kept copies that drifted: a config
family member no question could find (`is-managed-by`, `hired-at`, `has-lead`), `has-job` a role for
the store and the LLM but an employer for retrieval (so a side job made the current employer stale).
The last tests go through a real engine and retriever (local embedder, Chroma) and fail on those drifts.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

from knowledge_engine.config import DEFAULT_PREDICATE_FAMILIES, FactsConfig
from knowledge_engine.extract.lexicon import ENDING_PREDICATES, PREDICATE_ALIASES, VERB_FAMILIES
from knowledge_engine.extract.llm import PREDICATE_MAP, canonical
from knowledge_engine.extract.prompts import CANONICAL_PREDICATES, SYSTEM_PROMPT
from knowledge_engine.model import predicates as vocabulary
from knowledge_engine.retrieve import relations
from knowledge_engine.retrieve.retriever import Retriever
from tests import relations_support
from tests.relations_support import Story, story_retriever

RELATIONS = [r for f in vocabulary.FAMILIES for r in f.relations]
FAMILY_OF_WORDING = {w: f.name for f in vocabulary.FAMILIES for w in f.wordings}
RETRIEVAL_OF = {f.vocab: f.name for f in relations.FAMILIES if f.vocab}


def test_no_wording_is_in_two_families_or_two_relations() -> None:
    every = [w for r in RELATIONS for w in (*r.members, *r.written, *r.inverse)]
    assert [w for w, n in Counter(every).items() if n > 1] == []
    for r in RELATIONS:
        assert r.predicate in r.members, r.predicate
        assert set(r.kept) <= set(r.members) - {r.predicate}, r.predicate
    FactsConfig(predicate_families=vocabulary.store_families())  # the config's own one-family check


def test_the_config_default_is_the_vocabulary_store_families() -> None:
    assert vocabulary.store_families() == DEFAULT_PREDICATE_FAMILIES
    assert FactsConfig().predicate_families == vocabulary.store_families()
    assert "children" not in DEFAULT_PREDICATE_FAMILIES  # a subject has many: no supersession


def test_every_llm_rename_stays_in_its_family() -> None:
    assert vocabulary.llm_renames() == PREDICATE_MAP
    relation_names = {r.predicate for r in RELATIONS}
    family = FactsConfig().family_of()
    for wording, (target, swap) in PREDICATE_MAP.items():
        assert target in relation_names, wording
        if not swap:
            assert FAMILY_OF_WORDING[wording] == FAMILY_OF_WORDING[target], wording
        if wording in family:  # a wording the store knows is renamed within its store family
            assert family[wording] == family[target], wording
    assert canonical("Leo", "is-son-of", "Maya") == ("Maya", "has-child", "Leo")


def test_the_prompt_asks_for_every_described_relation_once() -> None:
    assert vocabulary.prompt_predicates() == CANONICAL_PREDICATES
    described = {r.predicate for r in RELATIONS if r.meaning}
    assert Counter(vocabulary.PROMPT_ORDER) == Counter(described)
    for predicate, meaning in CANONICAL_PREDICATES:
        assert predicate in FAMILY_OF_WORDING and meaning, predicate
        assert f"  {predicate}: {meaning}\n" in SYSTEM_PROMPT
    single = {f.name for f in vocabulary.FAMILIES if f.single}
    asked = {FAMILY_OF_WORDING[p] for p, _ in CANONICAL_PREDICATES}
    assert asked - single == {"children"}


def test_the_dependency_tier_renames_and_verb_families_speak_the_vocabulary() -> None:
    for source, target in PREDICATE_ALIASES.items():
        if source in FAMILY_OF_WORDING:  # a wording of a relation becomes that relation's predicate
            assert target == vocabulary.rename(source), source
    assert PREDICATE_ALIASES["works-as"] == "has-role"
    store = {p for ps in DEFAULT_PREDICATE_FAMILIES.values() for p in ps}
    assert {present for present, _ in VERB_FAMILIES.values()} <= store
    with pytest.raises(ValueError, match="inverse"):
        vocabulary.rename("is-son-of")


def test_every_ending_the_dependency_tier_states_can_end_a_family() -> None:
    # an ending wording no relation's `ended_by` lists would be stored and end nothing
    assert [p for p in sorted(ENDING_PREDICATES) if not vocabulary.ended_families(p)] == []
    # the past forms of the verb families' "no longer ..." endings too, but for arrivals ("moved to X")
    assert {p for _, p in VERB_FAMILIES.values() if p and not vocabulary.ended_families(p)} == {
        "moved-to",
        "settled-in",
    }


def test_retrieval_finds_every_wording_of_every_vocabulary_family() -> None:
    assert set(RETRIEVAL_OF) == {f.name for f in vocabulary.FAMILIES}
    assert len(RETRIEVAL_OF) == len([f for f in relations.FAMILIES if f.vocab])  # one row per family
    for fam in vocabulary.FAMILIES:
        asked = RETRIEVAL_OF[fam.name]
        for wording in fam.wordings:
            assert asked in relations.families_of(wording), (fam.name, wording)
        for r in fam.relations:
            for wording in r.inverse:
                assert asked in relations.inverse_families_of(wording), (fam.name, wording)


def test_the_drifts_that_were_fixed() -> None:
    assert relations.families_of("is-managed-by") == {"manager"}
    assert relations.families_of("has-lead") == {"manager"}
    assert relations.families_of("hired-at") == {"employer"}
    assert relations.families_of("has-job") == {"role"}  # a role (config, LLM, bench), not an employer
    assert relations.families_of("has-job-at") == {"employer"}
    assert "children" in relations.families_of("is-mother-of")  # "Maya is-mother-of Leo": her child


# --------------------------------------------------------------------------- through a real retriever

T0 = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
# (day, text, facts stated by that message)
STORY: Story = [
    (0, "Hi, I'm Maya. I work at Northwind Logistics.", [("Maya", "works-at", "Northwind Logistics")]),
    (0, "My manager is Dana Reyes.", [("Maya", "has-manager", "Dana Reyes")]),
    (10, "I also have a weekend job as a barista.", [("Maya", "has-job", "barista")]),
    (40, "Since the reorganisation I'm managed by Priya Shah.", [("Maya", "is-managed-by", "Priya Shah")]),
]


@pytest.fixture(scope="module")
def retriever(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Retriever]:
    with story_retriever(tmp_path_factory.mktemp("vocabulary"), STORY, T0) as r:
        yield r


def known_facts(r: Retriever, question: str) -> list[str]:
    return relations_support.known_facts(r, question, T0 + timedelta(days=60))


def test_a_side_job_does_not_make_the_employer_stale(retriever: Retriever) -> None:
    facts = known_facts(retriever, "where do I work?")
    assert facts and facts[0].startswith("- Maya | works-at | Northwind Logistics ("), facts


def test_a_manager_stated_in_the_passive_is_the_current_manager(retriever: Retriever) -> None:
    facts = known_facts(retriever, "who is my manager?")
    assert facts and facts[0].startswith("- Maya | is-managed-by | Priya Shah (valid"), facts
    assert not any("Dana Reyes" in line for line in facts), facts  # superseded in the store


def test_a_past_event_stays_in_its_family() -> None:
    """The block's past-tense wording of a dated move or start (`worded_at`) is a wording of the
    same family, so the relation questions and the supersession read it alike."""
    now = datetime(2026, 6, 1, tzinfo=UTC)
    for present, past in vocabulary.EVENT_PAST.items():
        fam = next(f for f in vocabulary.FAMILIES if present in f.wordings)
        assert past in fam.wordings, (present, past)
        assert vocabulary.worded_at(present, now - timedelta(days=1), now) == past
        assert vocabulary.worded_at(present, now + timedelta(days=1), now) == present
        assert vocabulary.worded_at(present, None, now) == present
    assert vocabulary.worded_at("lives-in", now - timedelta(days=1), now) == "lives-in"
