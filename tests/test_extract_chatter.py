"""Chat interjections are blanked before the parse (extract/chatter.py): offsets stay valid and a
trailing "btw" or "lol" no longer joins a predicate or becomes a name, on the real spaCy model."""

from __future__ import annotations

import pytest
import spacy
from hypothesis import given, settings
from hypothesis import strategies as st

from knowledge_engine.config import SpacyConfig
from knowledge_engine.extract import chatter, line_breaks
from knowledge_engine.extract.spacy_ner import SpacyTier
from knowledge_engine.model.records import Message
from knowledge_engine.observe import counters


@pytest.fixture(scope="module")
def tier() -> SpacyTier:
    return SpacyTier(SpacyConfig(workers=0))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Zanele is my gf btw", "Zanele is my gf    "),
        ("LOL we moved to Leeds", "    we moved to Leeds"),
        ("hahaha my boss Dana, tbh.", "       my boss Dana,    ."),
        ("lollll ok", "       ok"),
    ],
)
def test_interjections_become_spaces(text: str, expected: str) -> None:
    assert chatter.blank(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "a lollipop for Hahn",  # inside a word
        "idk where he works, jk",  # words that carry meaning stay
        "the Btw-Group office",  # part of a hyphenated name
    ],
)
def test_other_words_stay(text: str) -> None:
    assert chatter.blank(text) == text


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("btwlohaBTWLOH ,.'-\n")), max_size=60))
def test_only_interjections_change_and_the_length_holds(text: str) -> None:
    out = chatter.blank(text)
    assert len(out) == len(text)
    # an interjection becomes spaces; a shouted run ("B TO") is read in lower case, nothing else changes
    assert all(a == b or b == " " or (a.isupper() and b == a.lower()) for a, b in zip(text, out, strict=True))


def _read(tier: SpacyTier, text: str) -> tuple[set[tuple[str, str, str]], list[tuple[str, str]]]:
    (ex,) = tier.extract([Message(id=f"m-{abs(hash(text))}", text=text, role="user", speaker="Lwazi")])
    return {(f.subject, f.predicate, f.object) for f in ex.facts}, [
        (m.value, text[m.start : m.end]) for m in ex.mentions
    ]


def test_a_trailing_btw_is_no_part_of_the_fact(tier: SpacyTier) -> None:
    before = counters.get("extract.spacy.chatter_blanked")
    facts, _ = _read(tier, "Zanele is my gf btw")
    assert ("Lwazi", "has-partner", "Zanele") in facts
    assert not any("btw" in f"{p} {o}".lower() for _, p, o in facts)
    assert counters.get("extract.spacy.chatter_blanked") == before + 1


def test_a_name_before_a_blanked_word_keeps_its_own_offsets(tier: SpacyTier) -> None:
    _, mentions = _read(tier, "idk if Tom works at Acme tbh")
    assert ("Acme", "Acme") in mentions and ("Tom", "Tom") in mentions


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I'm 29 and have never done a budget, where do I even start?",
         "I'm 29 and have never done a budget. where do I even start?"),
        ("Hi. My son is 17, what car should he get?", "Hi. My son is 17. what car should he get?"),
        ("What is it, where is it?", "What is it, where is it?"),  # a question throughout
        ("Tom is 17, what car should he get?", "Tom is 17, what car should he get?"),  # not the speaker's
        ("I work at Tesco, and I like it.", "I work at Tesco, and I like it."),  # no question
    ],
)  # fmt: skip
def test_a_statement_run_into_its_question_is_parsed_apart(text: str, expected: str) -> None:
    assert chatter.ask_apart(text) == expected
    assert len(chatter.ask_apart(text)) == len(text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Dan agrees, he's my partner", "Dan agrees. he's my partner"),
        ("I asked Maria, she is my wife and she knows", "I asked Maria. she is my wife and she knows"),
        ("Dan agrees, he's right", "Dan agrees, he's right"),  # no "my": nothing said of the speaker's
        ("Dan agrees, my partner is right", "Dan agrees, my partner is right"),
    ],
)
def test_a_he_said_to_be_mine_after_a_comma_is_parsed_apart(text: str, expected: str) -> None:
    assert chatter.kin_apart(text) == expected


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("Dan agrees, he's my partner", ("has-partner", "Dan")),  # was a clause "agrees" says
        ("I asked Maria, she is my wife", ("is-married-to", "Maria")),
    ],
)
def test_a_name_then_he_is_my_kin_after_a_comma_is_the_speakers(
    tier: SpacyTier, text: str, fact: tuple[str, str]
) -> None:
    facts, _ = _read(tier, text)
    assert ("Lwazi", *fact) in facts


@pytest.mark.parametrize(
    ("text", "read"),
    [
        ("Myself Priyanka, 27 years.", "I am   Priyanka, 27 years."),
        (
            "Good morning sir, myself Ramesh Iyer, from Pune.",
            "Good morning sir, I am   Ramesh Iyer, from Pune.",
        ),
        ("I did it myself. Proud of it.", "I did it myself. Proud of it."),  # no introduction
        ("I hurt myself Monday.", "I hurt myself Monday."),  # not after a clause's start
    ],
)
def test_an_introducing_myself_is_read_as_i_am(text: str, read: str) -> None:
    assert chatter.myself(text) == read
    assert len(chatter.myself(text)) == len(text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I live in Leeds, not York.", "I live in Leeds          ."),
        ("Actually I'm 58, not 68 — retired? no", "Actually I'm 58         — retired? no"),
        ("my daughter Jia is 7, not 6.", "my daughter Jia is 7       ."),
        ("It went well, not bad at all", "It went well, not bad at all"),  # no value denied
        ("I am not sure, not yet.", "I am not sure, not yet."),
        ("I'm now Head of Sales, no longer a team lead.", "I'm now Head of Sales" + " " * 23 + "."),
    ],
)
def test_a_denied_value_is_blanked_for_the_parse(text: str, expected: str) -> None:
    assert chatter.blank(text) == expected


@pytest.mark.parametrize(
    ("text", "fact", "wrong"),
    [
        ("oops, typo earlier — I live in Leeds, not York.", ("Lwazi", "lives-in", "Leeds"), "York"),
        ("Actually I'm 58, not 68 — still working.", ("Lwazi", "is-aged", "58"), "68"),
        ("Just realised — my daughter Jia is 7, not 6.", ("Jia", "is-aged", "7"), "6"),
        (
            "The promotion went through. I'm now Head of Customer Success, no longer a team lead.",
            ("Lwazi", "has-role", "Head of Customer Success"),
            "team lead",
        ),
        # a dictated self-correction or hesitation: the word said last
        (
            "okay so I'm um a software developer at um Zenko no Zenkai and my manager's called um Brigitte",
            ("Lwazi", "works-at", "Zenkai"),
            "Zenko",
        ),
        (
            "so we live in Leeds no sorry Horsforth and I'm trying to find a swimming club for my son Kofi",
            ("Lwazi", "lives-in", "Horsforth"),
            "Um",
        ),
        ("right um I'm um head of finance at a dental group", ("Lwazi", "has-role", "head of finance"), "Um"),
    ],
)
def test_the_value_said_is_read_and_not_the_one_denied(
    tier: SpacyTier, text: str, fact: tuple[str, str, str], wrong: str
) -> None:
    facts, _ = _read(tier, text)
    assert fact in facts
    assert not any(o == wrong for _, _, o in facts)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "my gf Sienna says hi 👋 she just started at Canva",
            "my gf Sienna says hi . she just started at Canva",
        ),
        ("ok 👍🏽 thanks", "ok .  thanks"),  # a skin tone is part of the emoji
        ("I ❤️ London", "I ❤️ London"),  # an emoji for a verb
        ("Engaged 💍 and moved", "Engaged 💍 and moved"),  # the clause goes on
        ("so proud 🎓🎓", "so proud 🎓🎓"),  # nothing after it
    ],
)
def test_an_emoji_between_two_clauses_is_a_full_stop_for_the_parse(text: str, expected: str) -> None:
    assert chatter.blank(text) == expected and len(expected) == len(text)


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("my gf Sienna says hi 👋 she just started at Canva", ("Sienna", "works-at", "Canva")),
        ("my son Mateo got into Imperial 🎓🎓 so proud", ("Mateo", "attends", "Imperial")),
        ("also its my bday saturday, turning 29 😬 zanele is planning something", ("Lwazi", "is-aged", "29")),
    ],
)
def test_clauses_an_emoji_ran_together_are_read_apart(
    tier: SpacyTier, text: str, fact: tuple[str, str, str]
) -> None:
    """The emoji was the object of "says" and "she just started" its relative clause: no job."""
    assert fact in _read(tier, text)[0]


def test_side_by_side_after_a_name_is_blanked_and_the_employer_read(tier: SpacyTier) -> None:
    text = "right now doing internship at zoho side by side, stipend 40k per month"
    assert chatter.blank(text) == text.replace("side by side", " " * len("side by side"))
    (ex,) = tier.extract([Message(id="m", text=text, role="user", speaker="Meera")])
    facts = {(f.predicate, f.object) for f in ex.facts if f.subject == "Meera"}
    assert ("works-at", "Zoho") in facts and ("has-salary", "40k") in facts


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "hey so i got the job at tesco starting monday i start at 9 he said the pay is 24k",
            "hey so i got the job at tesco starting monday\ni start at 9\nhe said the pay is 24k",
        ),
        (
            "my son jack is 7 he goes to st marys primary and he loves it there",
            "my son jack is 7\nhe goes to st marys primary and he loves it there",
        ),
    ],
)
def test_a_run_on_with_no_stop_is_broken_before_its_clauses(text: str, expected: str) -> None:
    assert chatter.run_on(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "my son jack is 7. he goes to st marys primary and he loves it there",  # a stop inside: as written
        "i told her that i think he said we would come",  # each pronoun tied to the word before
        "i moved here",  # short
        "Left my job as a secondary school teacher, now I'm a UX researcher at Canva.",  # "now" ties it on
    ],
)
def test_other_texts_are_not_broken(text: str) -> None:
    assert chatter.run_on(text) == text


def test_each_line_of_a_message_is_a_sentence_for_the_parse(tier: SpacyTier) -> None:
    (ex,) = tier.extract(
        [
            Message(
                id="m",
                text="i got the job at tesco starting monday\nmy manager is dave",
                role="user",
                speaker="Kim",
            )
        ]
    )
    facts = {(f.predicate, f.object) for f in ex.facts if f.subject == "Kim"}
    assert ("has-manager", "Dave") in facts and ("works-at", "Tesco") in facts


def test_a_run_on_is_read_clause_by_clause(tier: SpacyTier) -> None:
    text = "my son jack is 7 he goes to st marys primary and he loves it there honestly"
    (ex,) = tier.extract([Message(id="m", text=text, role="user", speaker="Kim")])
    facts = {(f.subject, f.predicate, f.object) for f in ex.facts}
    assert ("Jack", "attends", "St Marys Primary") in facts and ("Jack", "is-aged", "7") in facts


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        # the parser made "I drive ..." an object of the request "let": no rule read it
        (
            "let me correct that: I drive a Škoda Octavia, the Superb was my old one.",
            ("drives", "Škoda Octavia"),
        ),
        ("ok so to be clear: we live in Leeds now", ("lives-in", "Leeds")),
    ],
)
def test_a_short_lead_in_and_a_colon_end_a_sentence(
    tier: SpacyTier, text: str, fact: tuple[str, str]
) -> None:
    (ex,) = tier.extract([Message(id="m", text=text, role="user", speaker="Kim")])
    assert fact in {(f.predicate, f.object) for f in ex.facts if f.subject == "Kim"}


@pytest.mark.parametrize(
    ("text", "starts"),
    [
        ("let me correct that: I drive a Škoda", ["let", "I"]),
        ("Note: the meeting moved", ["Note"]),  # not the speaker's own clause
        ("The long list of things I packed for the trip was this: I think", ["The"]),  # no lead-in
        ("ok\nupdate: my boss is Dana", ["ok", "update", "my"]),  # the lead-in counts from the line
        ("update: finished at Bellway on Friday", ["update", "finished"]),  # a label, any clause after it
        ("Quick update: sold the Yaris", ["Quick", "sold"]),
        ("the thing we talked about in the update: Bellway", ["the"]),  # no label opening the line
    ],
)
def test_the_colon_break_marks_only_a_short_lead_in_before_the_speakers_clause(
    text: str, starts: list[str]
) -> None:
    doc = spacy.blank("en").make_doc(text)
    line_breaks._line_breaks(doc)
    assert [t.text for t in doc if t.is_sent_start] == starts


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        (
            "update: finished at Bellway Homes on Friday, started at Taylor Wimpey this morning.",
            ("works-at", "Taylor Wimpey"),
        ),
        ("Quick update: turned 30 yesterday and celebrated.", ("is-aged", "30")),
    ],
)
def test_the_clause_after_a_label_is_the_speakers(tier: SpacyTier, text: str, fact: tuple[str, str]) -> None:
    (ex,) = tier.extract([Message(id="m", text=text, role="user", speaker="Kim")])
    assert fact in {(f.predicate, f.object) for f in ex.facts if f.subject == "Kim"}


def test_a_bulleted_note_is_kept_one_sentence() -> None:
    # the parser made the bullet a sentence and the value after the key another
    doc = spacy.blank("en").make_doc("tidy:\n- wife: Agnieszka\nmy note: later")
    line_breaks._line_breaks(doc)
    marks = {t.text: t.is_sent_start for t in doc}
    assert marks["wife"] is False and marks["Agnieszka"] is False
    assert marks["-"] is True
    assert marks["later"] is not False  # no bullet: the parser decides


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I'm on um forty grand", "I'm on    forty grand"),
        ("Um, so I work at Tesco", "  , so I work at Tesco"),
        ("uhh erm hmm ok", " " * 12 + "ok"),
        ("a developer at Zenko no Zenkai", "a developer at          Zenkai"),
        ("we live in Leeds no sorry Horsforth", "we live in                Horsforth"),
        ("she's forty four no forty five", "she's " + " " * 14 + "forty five"),
    ],
)
def test_a_dictated_hesitation_or_self_correction_is_blanked(text: str, expected: str) -> None:
    assert chatter.blank(text) == expected


@pytest.mark.parametrize(
    "text",
    ["the UM campus", "an umbrella and a drum", "in the ER", "I have no car", "Tom said no Friday", "No Way"],
)
def test_words_like_a_hesitation_stay(text: str) -> None:
    assert chatter.blank(text) == text
