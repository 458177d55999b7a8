"""Relations by example (extract/by_example.py): employers and homes read from a sentence's meaning,
on the real spaCy model and the packaged MiniLM embedder."""

from __future__ import annotations

import pytest

from knowledge_engine.config import SpacyConfig
from knowledge_engine.extract import by_example, kin
from knowledge_engine.extract.spacy_ner import SpacyTier
from knowledge_engine.index.embeddings.local import LocalEmbedder
from knowledge_engine.model.extraction import Extraction, Mention
from knowledge_engine.model.records import Message
from knowledge_engine.observe import counters


@pytest.fixture(scope="module")
def rules_only() -> SpacyTier:
    return SpacyTier(SpacyConfig(workers=0, by_example=False), embedder=LocalEmbedder)


@pytest.fixture(scope="module")
def spacy_tier() -> SpacyTier:
    """The tier as the engine builds it: with the local MiniLM for relations by example."""
    return SpacyTier(SpacyConfig(workers=0), embedder=LocalEmbedder)


def _last(tier: SpacyTier, *lines: tuple[str, str]) -> set[tuple[str, str, str]]:
    """Maya's (session, text) lines read in order; the facts of the last one."""
    msgs = [
        Message(id=f"l{i}-{abs(hash(t))}", text=t, role="user", speaker="Maya", session=sess)
        for i, (sess, t) in enumerate(lines)
    ]
    return {(f.subject, f.predicate, f.object) for f in tier.extract(msgs)[-1].facts}


def _facts(tier: SpacyTier, text: str, session: str = "s1") -> set[tuple[str, str, str]]:
    msg = Message(id=f"m-{abs(hash(text))}", text=text, role="user", speaker="Maya", session=session)
    return {(f.subject, f.predicate, f.object) for f in tier.extract([msg])[0].facts}


@pytest.mark.parametrize(
    ("text", "found", "absent"),
    [
        # a job in wording no rule knows; chat dropped its "I"
        (
            "Signed my contract with Brightwave yesterday, first day is Monday.",
            ("Maya", "works-at", "Brightwave"),
            "",
        ),
        # a named person's job is theirs, not the speaker's
        ("Tom has been with Northwind since 2019.", ("Tom", "works-at", "Northwind"), "Maya"),
        # pay in a line of job news
        ("Got the offer letter, 52k plus bonus!", ("Maya", "has-salary", "52k"), ""),
        # an employer's "they" pays the speaker: "my pay" is the speaker's
        ("I'm so angry they've frozen my pay at 38k for another year.", ("Maya", "has-salary", "38k"), ""),
        # the clause of the name is compared: the rest of a long line blurs it
        (
            "Actually scratch the Golf, we test drove a Mazda CX-5 today and we're getting that.",
            ("Maya", "has-car", "CX-5"),
            "Golf",
        ),
    ],
)
def test_the_pass_reads_what_no_rule_does(
    spacy_tier: SpacyTier, rules_only: SpacyTier, text: str, found: tuple[str, str, str], absent: str
) -> None:
    assert not any(p == found[1] for _, p, _ in _facts(rules_only, text))
    facts = _facts(spacy_tier, text)
    assert found in facts
    assert not absent or not any(absent in (s, o) for s, _, o in facts)


def test_a_job_left_is_history_not_the_job_now(spacy_tier: SpacyTier) -> None:
    facts = _facts(spacy_tier, "Handed in my notice at Brightwave today, last day is the 30th.")
    assert ("Maya", "worked-at", "Brightwave") in facts
    assert ("Maya", "works-at", "Brightwave") not in facts


def test_the_home_left_in_a_move(spacy_tier: SpacyTier) -> None:
    """A rule reads the move; the other place of the same sentence, read as a home, is the one left."""
    facts = _facts(
        spacy_tier, "The landlord in Partick is selling up so we're moving to Dalmarnock end of July."
    )
    assert ("Maya", "moves-to", "Dalmarnock") in facts
    assert ("Maya", "lived-in", "Partick") in facts
    assert ("Maya", "lives-in", "Partick") not in facts


@pytest.mark.parametrize(
    "text",
    [
        "We relocated last spring, after selling the family home in Croydon.",
        "Moved last year after selling the family home in Croydon.",
    ],
)
def test_the_home_sold_is_the_home_left(spacy_tier: SpacyTier, text: str) -> None:
    facts = _facts(spacy_tier, text)
    assert ("Maya", "lived-in", "Croydon") in facts
    assert not {f for f in facts if f[2] == "Croydon" and f[1] in {"moves-to", "moved-to", "lives-in"}}


def test_a_big_city_the_model_calls_a_product_is_no_car(spacy_tier: SpacyTier) -> None:
    text = "ignore the Manchester bit, that's where I grew up. I've been in Cardiff for years."
    facts = _facts(spacy_tier, text)
    assert not {f for f in facts if f[2] == "Manchester" and f[1] in {"sold", "has-car"}}
    assert by_example._can_hold(Mention(value="Tacoma", type="product", tier="spacy"), False, "has-car")


@pytest.mark.parametrize(
    "text",
    [
        "My sister got a job at Northwind.",  # a kin word the speaker never named: whose job, unknown
        "Should I apply to Brightwave?",  # a question states nothing
        "Ordered a new kettle from Argos.",  # a customer, not an employee
        "Just signed a 24 month contract with Vodafone for my phone.",  # a phone contract, not a job
        "We spent a weekend in Porto, lovely city.",  # a visit, not a home
        "buying pizza. chicago thin crust obviously, not deep dish, we're not tourists",  # a kind of pizza
        "I saw a posting for clinical nurse educator at Victoria General Hospital.",  # a job advertised
    ],
)
def test_near_misses_say_nothing(spacy_tier: SpacyTier, rules_only: SpacyTier, text: str) -> None:
    assert _facts(spacy_tier, text) == _facts(rules_only, text)


def test_a_lone_first_name_is_no_employer(spacy_tier: SpacyTier) -> None:
    # "helen" (truecased, typed an organisation) in a line about work was read as the speaker's employer
    text = "need an agenda for my first dept meeting thurs, and helen wants every dept doing learning walks"
    assert not {f for f in _facts(spacy_tier, text) if f[1] in {"works-at", "worked-at"}}
    assert not by_example._can_hold(
        Mention(value="Helen", type="organization", tier="spacy"), False, "works-at"
    )


def test_an_offer_accepted_on_a_house_is_a_move_not_a_job(spacy_tier: SpacyTier) -> None:
    """The nearest example was "I accepted the offer from X": works-at Carleton Place."""
    text = "We have had an offer accepted on a house in Carleton Place, a few blocks from the river."
    assert _facts(spacy_tier, text) == {("Maya", "moves-to", "Carleton Place")}


def test_a_rule_reading_wins(spacy_tier: SpacyTier, rules_only: SpacyTier) -> None:
    text = "Tom started at Northwind Logistics last week."
    assert ("Tom", "works-at", "Northwind Logistics") in _facts(rules_only, text)
    assert _facts(spacy_tier, text) == _facts(rules_only, text)


@pytest.mark.parametrize(
    "text",
    [
        "Still driving the old Micra.",  # a rule read "old Micra": "Micra" is read
        "Traded in the Corsa for a Tesla Model 3.",  # "Model 3" inside the rule's "Tesla Model 3"
        "The car got written off, my beloved Mazda MX-5, and I'm absolutely gutted.",
    ],
)
def test_a_name_inside_a_rules_reading_is_not_read_again(
    spacy_tier: SpacyTier, rules_only: SpacyTier, text: str
) -> None:
    assert _facts(spacy_tier, text) == _facts(rules_only, text)


def test_assistant_turns_are_not_read(spacy_tier: SpacyTier) -> None:
    msg = Message(id="a1", text="Signed the contract with Brightwave, first day Monday.", role="assistant")
    assert not any(f.predicate == "works-at" for f in spacy_tier.extract([msg])[0].facts)


def test_a_he_she_is_resolved_by_the_session(spacy_tier: SpacyTier) -> None:
    """The pass gives an unresolved he/she; the session's last named person takes it."""
    facts = _last(
        spacy_tier,
        ("s9", "My husband Daniel is an architect."),
        ("s9", "He has been with Foster Partners since 2019."),
    )
    assert ("Daniel", "works-at", "Foster Partners") in facts


def test_a_he_she_after_a_name_in_the_same_message_is_that_person_whatever_the_session(
    spacy_tier: SpacyTier,
) -> None:
    """What a message says must not hang on the session the host remembers (a restart forgets it):
    a she after a name of the same message is that person, not one of an earlier message. Found by
    the kill -9 harness (tests/test_integrity_harness.py): a fact the never-killed control made from
    the session was missing after a restart between the two messages."""
    line = "Also, Inês is coming to Berlin for Christmas. She still works at Hospital de São João in Porto."
    before = "Dana Reyes moved to Oslo last week and joined Initech."
    after = _last(spacy_tier, ("s10", before), ("s10", line))
    assert after == _facts(spacy_tier, line, session="s11")
    assert not {f for f in after if f[0] == "Dana Reyes"}


class _BrokenEmbedder:
    def embed(self, texts: list[str]) -> list[list[float]]:
        raise RuntimeError("model file unreadable")


def test_a_failing_embedder_costs_the_batch_only_its_guesses() -> None:
    msg = Message(id="b1", text="Signed my contract with Brightwave yesterday.", role="user", speaker="Maya")
    ex = Extraction(
        message_id="b1",
        mentions=[Mention(value="Brightwave", type="organization", tier="spacy", start=24, end=34)],
    )
    before = counters.get("extract.by_example.failed")
    out = by_example.add_relations(
        by_example.Examples(_BrokenEmbedder()), [msg], [ex], by_example.Thresholds()
    )
    assert out == [ex]
    assert counters.get("extract.by_example.failed") == before + 1


def test_a_child_at_a_school_attends_it(spacy_tier: SpacyTier) -> None:
    """A he/she at a school or nursery is schooling, not a job; the session says who she is."""
    facts = _last(
        spacy_tier,
        ("s8", "My daughter Isla is three now."),
        ("s8", "She's at Wee Sparrows nursery on weekdays, loves it."),
    )
    # the rules read "at <Name> nursery" since session 29; the examples read "at <Name>" before
    assert {o for s, p, o in facts if (s, p) == ("Isla", "attends")} & {
        "Wee Sparrows",
        "Wee Sparrows nursery",
    }
    assert not any(p == "works-at" for _, p, _ in facts)


def test_the_speakers_own_school_line_is_left_to_the_rules(
    spacy_tier: SpacyTier, rules_only: SpacyTier
) -> None:
    text = "Starting at Oakfield Academy next week, so nervous!"  # a parent writes this of a child too
    assert _facts(spacy_tier, text) == _facts(rules_only, text)


@pytest.mark.parametrize(
    ("sentence", "speakers"),
    [
        ("Settled in X now", True),
        ("got the job at X!!", True),
        ("Finally moved into our place in X", True),
        ("Isla started at X last week", False),  # a name the model missed: whose line, unknown
        ("X, east end of Glasgow", False),
    ],
)
def test_a_line_without_i_is_the_speakers_only_as_chat_that_dropped_it(sentence: str, speakers: bool) -> None:
    assert by_example._dropped_i(sentence) is speakers


@pytest.mark.parametrize(
    "text",
    [
        "The repair came to £340, ugh.",  # money spent is no pay and no rent
        "Spent £85 on tickets for Saturday.",
        "My cleaner charges 15.00 an hour.",  # what someone else charges is no pay of the speaker's
        "we could get a flat for 900 a month if we moved out of town",  # only supposed
        "Jenna wants a Subaru, everyone here drives one.",  # a wish is no car
    ],
)
def test_money_and_products_near_misses(spacy_tier: SpacyTier, rules_only: SpacyTier, text: str) -> None:
    assert _facts(spacy_tier, text) == _facts(rules_only, text)


def test_the_clause_of_a_name() -> None:
    """The comma piece holding the name; a piece too short to mean anything takes the next one."""
    text = "I've been offered a job at Copperleaf Energy in Leeds, we'd move in June."
    at = text.index("Leeds")
    start, end = by_example._clause(text, 0, len(text), at, at + 5)
    assert text[start:end].strip() == "I've been offered a job at Copperleaf Energy in Leeds,"
    text = "Scratch that, the Golf, we're getting a Mazda."
    at = text.index("Golf")
    start, end = by_example._clause(text, 0, len(text), at, at + 4)
    assert text[start:end].strip() == "the Golf, we're getting a Mazda."


def test_a_kin_word_takes_the_name_the_speaker_gave_it_in_another_session() -> None:
    tier = SpacyTier(SpacyConfig(workers=0), embedder=LocalEmbedder)
    facts = _last(
        tier,
        ("a", "My husband Tom is a nurse."),
        ("b", "My husband started a new job at Northwind Logistics last week."),
    )
    assert ("Tom", "works-at", "Northwind Logistics") in facts
    assert not any(s.startswith(kin.KIN_PREFIX) for s, _, _ in facts)


def test_a_kin_word_given_a_full_name_takes_the_full_name() -> None:
    """The text reads "my husband Tom" where the parse reads "Tom Hardy": one person, not two (the
    kin word was taken for ambiguous and said nothing)."""
    tier = SpacyTier(SpacyConfig(workers=0), embedder=LocalEmbedder)
    facts = _last(
        tier,
        ("a", "My husband Tom Hardy works at Initech."),
        ("b", "My husband started a new job at Northwind Logistics last week."),
    )
    assert ("Tom Hardy", "works-at", "Northwind Logistics") in facts


def test_a_kin_word_that_stood_for_two_names_or_another_speakers_says_nothing() -> None:
    tier = SpacyTier(SpacyConfig(workers=0), embedder=LocalEmbedder)
    msgs = [
        Message(id="t1", text="My sister Katrin is a teacher.", role="user", speaker="Maya", session="a"),
        Message(id="t2", text="My sister Anna is a nurse.", role="user", speaker="Maya", session="a"),
        Message(id="t3", text="My sister Katrin lives in Leeds.", role="user", speaker="Sam", session="c"),
        Message(id="t4", text="My sister got a job at Brightwave.", role="user", speaker="Maya", session="b"),
        Message(id="t5", text="My brother got a job at Brightwave.", role="user", speaker="Sam", session="c"),
    ]
    out = tier.extract(msgs)
    assert not any(f.object == "Brightwave" for f in out[3].facts)  # Katrin or Anna
    assert not any(f.object == "Brightwave" for f in out[4].facts)  # Sam named no brother


def test_a_function_word_after_a_kin_word_in_lower_case_chat_is_no_name() -> None:
    """'living back w my mom in newark': the mom is not called "in" (it gave in works-at Newark)."""
    tier = SpacyTier(SpacyConfig(workers=0), embedder=LocalEmbedder)
    text = "dropped out of nyu, living back w my mom in newark now and doing cosmetology school."
    facts = _last(tier, ("a", text))
    assert not any(s.casefold() == "in" for s, _, _ in facts)


def test_kin_pairs_and_genders() -> None:
    text = "Jonas, my brother, and my wife, Jenna, met Sam's my husband"
    assert kin.kin_pairs("My husband Tom and our son leo") == [("husband", "Tom"), ("son", "leo")]
    assert kin.kin_pairs("my brother, he's in Leeds") == []
    assert kin.kin_genders(text) == {"jonas": "m", "jenna": "f", "sam": "m"}


def test_the_rules_reading_of_a_spouse_names_the_kin_word() -> None:
    """ "He's my husband" after "Paul reckons ...": the rules read is-married-to Paul; his job in the same
    line, said of "my husband", is Paul's."""
    tier = SpacyTier(SpacyConfig(workers=0), embedder=LocalEmbedder)
    msg = Message(
        id="h1",
        text="Paul reckons I should see a planner. "
        "He's my husband, still working, civil engineer with Queensland Rail.",
        role="user",
        speaker="Maya",
        session="a",
    )
    facts = {(f.subject, f.predicate, f.object) for f in tier.extract([msg])[0].facts}
    assert ("Maya", "is-married-to", "Paul") in facts
    assert ("Paul", "works-at", "Queensland Rail") in facts


def test_without_an_embedder_the_pass_is_off(rules_only: SpacyTier) -> None:
    """A tier built without the engine's embedder factory (extraction may not import the index) says
    only what the rules say."""
    bare = SpacyTier(SpacyConfig(workers=0))
    text = "Signed my contract with Brightwave yesterday, first day is Monday."
    assert _facts(bare, text) == _facts(rules_only, text)


def test_a_job_held_or_left_is_told_by_the_clause_when_the_examples_cannot(spacy_tier: SpacyTier) -> None:
    """ "my last day at X" sits as near "I work at X" as "I left X" (within the margin): the domain is
    clear (a job), the tense is the clause's ending word."""
    facts = _facts(spacy_tier, "last day in nubank is 12 june.")  # "Nubank": truecased for the parse
    assert ("Maya", "worked-at", "Nubank") in facts
    assert not any(p == "works-at" for _, p, _ in facts)


def test_a_job_held_now_is_current_when_the_past_examples_were_nearer(spacy_tier: SpacyTier) -> None:
    """ "they work at X now" sits nearer "they used to work at X" than "they work at X": "now" tells."""
    lines = ["My partner Sam is a nurse.", "My partner works at Monzo now."]
    # a speaker of its own: who "my partner" is, is kept per speaker across the module's tests
    msgs = [
        Message(id=f"n{i}", text=t, role="user", speaker="Ines", session="s7") for i, t in enumerate(lines)
    ]
    facts = {(f.subject, f.predicate, f.object) for f in spacy_tier.extract(msgs)[-1].facts}
    assert ("Sam", "works-at", "Monzo") in facts
    assert not any(p == "worked-at" for _, p, _ in facts)


def test_a_kin_word_the_model_tags_a_firm_is_no_workplace(spacy_tier: SpacyTier) -> None:
    facts = _facts(spacy_tier, "Hubby starts at Greggs on Monday.")
    assert not any(o == "Hubby" or s == "Greggs" for s, _, o in facts), facts


def test_a_name_restored_from_lower_case_may_hold_either_type() -> None:
    """The parse sees "Zoho" (truecased) and calls it a place; its writer wrote "zoho", so the model's
    type is a guess and the examples may read it as a job."""
    tier = SpacyTier(SpacyConfig(workers=0, truecase=True), embedder=LocalEmbedder)
    assert ("Maya", "worked-at", "Zoho") in _facts(tier, "my last day at zoho is friday")


def test_the_place_of_a_nursery_is_no_home(spacy_tier: SpacyTier) -> None:
    """'at Wee Sparrows nursery on Dumbarton Rd': the examples put the road beside 'our flat in X'."""
    facts = _last(
        spacy_tier,
        ("s9", "My daughter Isla is three now."),
        ("s9", "She's at Wee Sparrows nursery on Dumbarton Rd, loves it."),
    )
    assert not {o for _, p, o in facts if p in {"lives-in", "lived-in", "moves-to"}}


@pytest.mark.parametrize(
    "text", ["I'm thinking about leaving Tesco.", "We have been talking about leaving Westboro."]
)
def test_a_step_only_weighed_ends_nothing(spacy_tier: SpacyTier, text: str) -> None:
    """The examples put 'thinking about leaving X' beside 'I'm leaving X': read so, it would end the job."""
    facts = _facts(spacy_tier, text, session="w1")
    assert not {o for _, p, o in facts if p in {"worked-at", "lived-in", "sold"}}


@pytest.mark.parametrize(
    "text",
    ["I'm not in London.", "we don't live in Leeds", "we dont live in Leeds", "I'm not based in Dublin"],
)
def test_a_denied_home_is_no_home(spacy_tier: SpacyTier, text: str) -> None:
    """A denial sits beside the statement it denies among the examples: these were read as homes."""
    assert not {f for f in _facts(spacy_tier, text) if f[1] in {"lives-in", "moves-to"}}


@pytest.mark.parametrize(
    "text",
    ["Please tell me how to make the resume for Siemens job.", "Can you write a cover letter for PwC?"],
)
def test_a_job_sought_is_no_employer(spacy_tier: SpacyTier, text: str) -> None:
    assert not {f for f in _facts(spacy_tier, text) if f[1] == "works-at"}


def test_a_maybe_next_year_ends_no_job(spacy_tier: SpacyTier) -> None:
    assert not {
        f for f in _facts(spacy_tier, "maybe I quit Tesco next year") if f[1] in {"worked-at", "quit"}
    }


def test_a_job_title_is_no_employer(spacy_tier: SpacyTier) -> None:
    """'Lead Engineer' reads near "I work at X", but its head word makes it a title."""
    facts = _facts(spacy_tier, "my job title changed to Lead Engineer")
    assert not {f for f in facts if f[1] in {"works-at", "worked-at"}}, facts


_RUN_ON = (
    "so loads of news, finally signed the contract with Deloitte and the team seems sound and the office is "
    "grand and the boss seems alright and we had a few pints on friday which was good craic and then on "
    "saturday we went to the beach with the kids and it rained the whole time but sure look it was still a "
    "good day out"
)


@pytest.mark.parametrize(
    ("text", "firm"),
    [
        # a question tacked on: the clause of the name states the job
        ("Just started at Brightwater last week, any tips for surviving the first month?", "Brightwater"),
        # ... and the model typed the firm it does not know a place
        ("Been at Ocado for three years now, is it time to move on?", "Ocado"),
        # "they" is the firm, not another person
        ("I love working at Ocado, they treat us well", "Ocado"),
        # a run-on line: its "and"s part the news
        (_RUN_ON, "Deloitte"),
    ],
)
def test_a_job_in_a_question_run_on_or_beside_they(spacy_tier: SpacyTier, text: str, firm: str) -> None:
    assert ("Maya", "works-at", firm) in _facts(spacy_tier, text)


@pytest.mark.parametrize(
    "text",
    [
        "Should I take the job at Ocado, or stay where I am?",  # the whole line asks
        "If I moved to Leeds, would I be happier?",  # only supposed
        "I'm thinking of applying to Ocado, what do you reckon?",
        "They moved to Otley and I miss them",  # "they" read as a firm makes a job only
        "I finished up as supervisor in the Castlebar office when I retired",  # where the job was
        "We had dinner at Okonkwo's on Friday",
    ],
)
def test_no_job_or_home_from_an_asking_line_or_their_move(spacy_tier: SpacyTier, text: str) -> None:
    facts = _facts(spacy_tier, text)
    assert not {f for f in facts if f[0] == "Maya" and f[1] in by_example.FAMILIES}, facts


@pytest.mark.parametrize(
    ("text", "name", "firm"),
    [
        ("I've been at Brightwater for six years now.", "Brightwater", True),  # no first name, after "at"
        ("I've been at Priya's all day, helping her move.", "Priya", False),  # a first name
        ("I've been with Jenkins for six years now.", "Jenkins", False),  # "with" a surname: maybe a partner
    ],
)
def test_a_firm_the_model_typed_a_person(text: str, name: str, firm: bool) -> None:
    """The small model types a firm it does not know a person now and then: after "at" or "for", a
    name that opens with no first name is read as one."""
    start = text.index(name)
    msg = Message(id="p1", text=text, role="user", speaker="Maya", session="s1")
    ex = Extraction(
        message_id="p1",
        mentions=[Mention(value=name, type="person", tier="spacy", start=start, end=start + len(name))],
    )
    examples = by_example.Examples(LocalEmbedder())
    out = by_example.add_relations(examples, [msg], [ex], by_example.Thresholds())
    facts = {(f.subject, f.predicate, f.object) for f in out[0].facts}
    assert (("Maya", "works-at", name) in facts) is firm, facts


def test_a_name_with_a_stop_is_read_in_its_whole_sentence() -> None:
    """The text-level sentence cut stops at "St.": the name's sentence is the pieces it spans."""
    text = "I've been with St. Luke's Hospital for three years now."
    start = text.index("St.")
    end = start + len("St. Luke's Hospital")
    msg = Message(id="d1", text=text, role="user", speaker="Maya", session="s1")
    ex = Extraction(
        message_id="d1",
        mentions=[Mention(value=text[start:end], type="organization", tier="spacy", start=start, end=end)],
    )
    out = by_example.add_relations(by_example.Examples(LocalEmbedder()), [msg], [ex], by_example.Thresholds())
    assert ("Maya", "works-at", "St. Luke's Hospital") in {
        (f.subject, f.predicate, f.object) for f in out[0].facts
    }


def test_they_pay_the_speaker(spacy_tier: SpacyTier) -> None:
    """For an amount, "they" beside the speaker is the firm (or the landlord): its pay is the speaker's."""
    assert ("Maya", "has-salary", "52k") in _facts(spacy_tier, "They're giving me 52k if I take it.")
