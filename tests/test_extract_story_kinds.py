"""Kinds of text found in life stories told to an assistant (issue 14, session 41), read by the spaCy
tier on the real English model: a sign-off the speaker asks for ("sign it off as me – Jo, TA,
Brackenwood Primary"), an offer signed ("corvana offer signed."), whom a resignation goes to, a place
that "feels like home", pay "put up" by someone, "allergic to shellfish" (parsed as an infinitive),
"my bro Nick", and shouting ("I GOT IT!!!", which made "gots IT")."""

from __future__ import annotations

import pytest

from knowledge_engine.extract import chatter
from knowledge_engine.extract.spacy_ner import SpacyTier
from tests.fixtures.common import said_by, spoken, triples


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Just say it's attached. Sign it off as me – Jo Pickering, TA, Brackenwood Primary.",
            {("has-role", "TA"), ("works-at", "Brackenwood Primary")},
        ),
        ("good. tweak: sign off as Account Executive, Brightwire.", {("works-at", "Brightwire")}),
        (
            "Sign it off as Jo, Head of Sales, Acme Ltd",
            {("has-role", "Head of Sales"), ("works-at", "Acme Ltd")},
        ),
    ],
)
def test_a_sign_off_names_the_speakers_title_and_employer(
    tier: SpacyTier, text: str, expected: set[tuple[str, str]]
) -> None:
    assert expected <= said_by(tier, text, "Jo")


@pytest.mark.parametrize("text", ["sign off as me, Jo", "sign it off as Mum, xx", "sign it off as Jo, Tesco"])
def test_a_sign_off_without_a_title_says_no_job(tier: SpacyTier, text: str) -> None:
    assert not {f for f in said_by(tier, text, "Jo") if f[0] in {"works-at", "has-role"}}


@pytest.mark.parametrize(
    ("text", "firm"),
    [
        ("Signed the Corvana offer today.", "Corvana"),
        ("corvana offer signed.", "Corvana"),
        ("I accepted the Deloitte offer", "Deloitte"),
    ],
)
def test_an_offer_signed_or_accepted_by_name_is_the_job(tier: SpacyTier, text: str, firm: str) -> None:
    assert ("works-at", firm) in said_by(tier, text, "Jo")


@pytest.mark.parametrize(
    "text",
    [
        "Should I sign the Corvana offer?",
        "I haven't signed the Corvana offer yet",
        "I signed the Vodafone contract",
    ],
)
def test_an_offer_weighed_or_a_phone_contract_is_no_job(tier: SpacyTier, text: str) -> None:
    assert not {f for f in said_by(tier, text, "Jo") if f[0] == "works-at"}


@pytest.mark.parametrize(
    ("text", "boss"),
    [
        ("and resignation to dave. 2 wks. keep it short", "Dave"),
        ("I need to send my resignation to Priya.", "Priya"),
    ],
)
def test_whom_a_resignation_goes_to_is_the_manager(tier: SpacyTier, text: str, boss: str) -> None:
    assert ("has-manager", boss) in said_by(tier, text, "Jo")


def test_a_resignation_to_a_department_names_no_manager(tier: SpacyTier) -> None:
    assert not {f for f in said_by(tier, "I handed my resignation to HR", "Jo") if f[0] == "has-manager"}


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("We're in!! Three weeks in Starbeck and it's starting to feel like home.", "Starbeck"),
        ("Leeds finally feels like home.", "Leeds"),
        ("Two months in Lisbon now and it already feels like home", "Lisbon"),  # the parse splits the two
    ],
)
def test_a_place_that_feels_like_home_is_where_the_speaker_lives(
    tier: SpacyTier, text: str, place: str
) -> None:
    assert ("lives-in", place) in said_by(tier, text, "Jo")


@pytest.mark.parametrize(
    "text",
    [
        "Berlin will never feel like home",
        "Three weeks at Google and it feels like home",  # a workplace, not a place
        "My mum's house in Leeds always feels like home",  # someone else's home
    ],
)
def test_a_place_that_does_not_or_a_home_of_someone_else_is_no_home(tier: SpacyTier, text: str) -> None:
    assert not {f for f in said_by(tier, text, "Jo") if f[0] == "lives-in"}


@pytest.mark.parametrize(
    ("text", "pay"),
    [
        (
            "And she's put me up to £24,000 now I've passed probation!!",
            "£24,000",
        ),  # "'s put": parsed a passive
        ("they've upped me to £45k", "£45k"),
    ],
)
def test_pay_put_up_by_someone_is_the_salary(tier: SpacyTier, text: str, pay: str) -> None:
    assert ("has-salary", pay) in said_by(tier, text, "Jo")


@pytest.mark.parametrize(
    ("text", "pay"),
    [
        ("ring budget? i make 95 base now, not doing the 3 months thing lol.", "95k"),
        (
            "corvana offer signed.\n- enterprise AE\n- 105 base / 210 OTE",
            "105k",
        ),  # an offer taken: the pay now
    ],
)
def test_sales_pay_in_thousands_before_base_is_the_salary(tier: SpacyTier, text: str, pay: str) -> None:
    assert ("has-salary", pay) in said_by(tier, text, "Jo")


@pytest.mark.parametrize("text", ["we need 30 base camps", "I have 40 basic questions"])
def test_a_number_before_base_naming_a_thing_is_no_pay(tier: SpacyTier, text: str) -> None:
    assert not {f for f in said_by(tier, text, "Jo") if f[0] == "has-salary"}


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("Mum had a fall. She's 91, lives with us in Toowong since Dad passed", ("lives-in", "Toowong")),
        ("My sister lived with us in Paris for a year.", ("lived-in", "Paris")),
        (  # a name no gazetteer knows, weighed in a message about the home: the place, not a firm
            "We have been talking about leaving Westboro. Our landlord raised the rent on our townhouse.",
            ("lives-in", "Westboro"),
        ),
        ("We've been talking about leaving Acme for months.", ("works-at", "Acme")),
    ],
)
def test_where_the_speaker_lives_said_in_passing(tier: SpacyTier, text: str, fact: tuple[str, str]) -> None:
    assert fact in said_by(tier, text, "Jo")


def test_someone_living_with_the_speaker_says_no_place_without_one(tier: SpacyTier) -> None:
    assert not said_by(tier, "Tom lives with me", "Jo")


def test_an_allergy_parsed_as_an_infinitive_is_still_an_allergy(tier: SpacyTier) -> None:
    assert ("is-allergic-to", "shellfish") in said_by(
        tier, "i'm allergic to shellfish so no raw bar lol", "Jo"
    )


def test_my_bro_is_a_brother(tier: SpacyTier) -> None:
    assert ("has-brother", "Nick") in said_by(
        tier, "my bro Nick wants to be there too but he'll blow it.", "Jo"
    )
    assert not said_by(tier, "thanks bro, that helps", "Jo")


def test_shouting_is_read_in_lower_case() -> None:
    assert chatter.blank("I GOT IT!!! They rang") == "I got it!!! They rang"
    assert chatter.blank("OMG I GOT THE JOB AT TESCO").strip() == "I got the job at Tesco"
    assert chatter.blank("the NHS UK site") == "the NHS UK site"  # acronyms, no function word


def test_shouted_news_gives_no_made_up_fact(tier: SpacyTier) -> None:
    found = triples(tier, "I GOT IT!!! They rang this morning.", "Jo")
    assert not {t for t in found if "IT" in t or t[1] == "gots"}
    assert ("Jo", "works-at", "Tesco") in triples(tier, "OMG I GOT THE JOB AT TESCO", "Jo")


def test_a_stop_inside_is_found_in_one_pass() -> None:
    assert chatter._stops_inside("i start at 9. he said")
    assert not chatter._stops_inside("no stop here at all")
    assert not chatter._stops_inside("ends here.")
    assert chatter._stops_inside("." * 30_000 + "a")


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("right new depot manger started last week, shazia. seems sharp", ("has-manager", "Shazia")),
        ("Our new boss starts Monday - Priya.", ("has-manager", "Priya")),
        ("my depot manger brian says no", ("has-manager", "Brian")),  # the typo autocorrect leaves
        ("my lad liam is 27", ("has-child", "Liam")),  # the British son
        # the name set off, then more said of them; a full name; a team lead
        ("New manager started today, Priya Shah, she used to be at Deloitte.", ("has-manager", "Priya Shah")),
        ("Got a new boss today: Dan Cole.", ("has-manager", "Dan Cole")),
        ("We've got a new team lead, Dan, he's ex-Google.", ("has-manager", "Dan")),
    ],
)
def test_people_named_in_plain_lower_case_chat(tier: SpacyTier, text: str, fact: tuple[str, str]) -> None:
    assert fact in said_by(tier, text, "Jo")


@pytest.mark.parametrize(
    "text",
    [
        "his new manager started last week, Sue.",
        "new manager started today, seems ok",
        "We have a new manager, Dan said hi.",  # a name that is the subject of what follows
        "I have a new manager, she seems nice.",
    ],
)
def test_someone_elses_new_boss_or_no_name_is_no_manager(tier: SpacyTier, text: str) -> None:
    assert not {f for f in said_by(tier, text, "Jo") if f[0] == "has-manager"}


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        (
            "Some context: we are a small fintech startup, Kindling, we make a budgeting app.",
            ("works-at", "Kindling"),
        ),
        ("we're a small agency called Brightside", ("works-at", "Brightside")),
        ("we were a tiny studio called Pixelhaus back then", ("worked-at", "Pixelhaus")),
        ("They offered 128,000. At the moment I am at 118,000.", ("has-salary", "118,000")),
    ],
)
def test_the_speakers_firm_and_pay_said_as_we_are_and_i_am_at(
    tier: SpacyTier, text: str, fact: tuple[str, str]
) -> None:
    assert fact in said_by(tier, text, "Jo")


@pytest.mark.parametrize("text", ["We are a charity.", "I'm at 10,000 steps a day", "I'm at 45,000 feet lol"])
def test_we_are_a_firm_with_no_name_or_an_amount_of_no_pay_says_nothing(tier: SpacyTier, text: str) -> None:
    assert not {f for f in said_by(tier, text, "Jo") if f[0] in {"works-at", "has-salary", "is-a"}}


# Session 42: the kinds of the two stories read (a Croydon hairdresser opening her salon; a Seattle product
# manager writing in bullet lists), written as general English and tested on sentences of my own.


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("- sr pm at expedia, ~4 yrs, base 182k", {("has-role", "sr pm"), ("works-at", "Expedia")}),
        ("I'm a PM at Google.", {("has-role", "PM"), ("works-at", "Google")}),
    ],
)
def test_a_pm_after_a_rank_or_an_article_is_a_job_title(
    tier: SpacyTier, text: str, expected: set[tuple[str, str]]
) -> None:
    assert expected <= said_by(tier, text, "Es")


def test_a_pm_after_a_number_is_a_time(tier: SpacyTier) -> None:
    assert not {f for f in said_by(tier, "Meeting at 5 pm at the office.", "Es") if f[0] == "has-role"}


@pytest.mark.parametrize(
    ("text", "pay"),
    [
        ("From the salon I'm paying myself £2,500 a month for now.", "£2,500"),
        ("Mr Aziz agreed, I'm paying myself £2,800 a month from this month instead of the £2,500.", "£2,800"),
        ("I pay myself 3k a month from the business.", "3k"),
    ],
)
def test_what_the_self_employed_pay_themselves_is_the_salary(tier: SpacyTier, text: str, pay: str) -> None:
    assert {o for p, o in said_by(tier, text, "Pa") if p == "has-salary"} == {pay}


def test_a_school_started_as_an_object_is_attended(tier: SpacyTier) -> None:
    assert ("Keisha", "attends", "BRIT School") in triples(
        tier, "Keisha start the BRIT School last week.", "Pa"
    )
    assert not {t for t in triples(tier, "Tom started Google last week.", "Pa") if t[1] == "attends"}


@pytest.mark.parametrize(
    "text", ["also adhd dx confirmed.", "got dx'd with adhd last week", "ADHD diagnosis confirmed."]
)
def test_a_diagnosis_in_chat_shorthand_is_a_condition(tier: SpacyTier, text: str) -> None:
    assert ("has-condition", "adhd") in said_by(tier, text, "Es")


@pytest.mark.parametrize(
    ("text", "condition"),
    [
        ("MS diagnosis last year, still adjusting", "ms"),  # a diagnosis named by its condition
        ("got my diagnosis today, fibromyalgia", "fibromyalgia"),  # named after the speaker's own
        ("it's an ADHD diagnosis, they said", "adhd"),
        ("I've been signed off with stress", "stress"),  # what a sick note names
    ],
)
def test_a_diagnosis_or_sick_note_named_in_passing_is_a_condition(
    tier: SpacyTier, text: str, condition: str
) -> None:
    assert ("has-condition", condition) in said_by(tier, text, "Es")


@pytest.mark.parametrize(
    "text",
    [
        "the dx came back clear",
        "autism dx came through for Leo",
        "not adhd dx confirmed",
        "Leo's autism diagnosis came through",  # his
        "her MS diagnosis was a shock",
        "waiting on an ADHD diagnosis",  # not yet
        "I've been signed off for two weeks",  # no illness named
        "I was signed off with stress last year",  # a past note
    ],
)
def test_a_clear_result_or_someone_elses_diagnosis_is_no_condition(tier: SpacyTier, text: str) -> None:
    assert not {f for f in said_by(tier, text, "Es") if f[0] == "has-condition"}


@pytest.mark.parametrize(
    "text",
    ["I'm separated from Dan since November.", "- separated from dan (husband) since nov. not divorced yet"],
)
def test_a_separation_is_a_marriage_that_ended(tier: SpacyTier, text: str) -> None:
    facts = [f for f in spoken(tier, text, "Es").facts if f.predicate == "is-married-to"]
    assert [(f.object, f.ends) for f in facts] == [("Dan", True)]


def test_my_parents_separating_or_sorting_the_recycling_is_no_marriage_of_mine(tier: SpacyTier) -> None:
    for text in ("My parents separated when I was 5.", "We separated the recycling."):
        assert not {f for f in said_by(tier, text, "Es") if f[0] == "is-married-to"}


def test_a_relation_in_brackets_after_a_name(tier: SpacyTier) -> None:
    assert ("has-sister", "Sarah") in said_by(tier, "Sarah (my sister) is visiting.", "Es")
    assert not said_by(tier, "Paris (France) is lovely.", "Es")


def test_children_listed_on_a_bullet_line_with_a_school_in_brackets(tier: SpacyTier) -> None:
    text = "context:\n- kids: noah 7 (2nd grade @ whittier elem), ellie 4 (ballard montessori)\n- both hybrid"
    facts = triples(tier, text, "Es")
    assert {
        ("Es", "has-child", "Noah"),
        ("Es", "has-child", "Ellie"),
        ("Ellie", "attends", "Ballard Montessori"),
    } <= facts


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("also salary is 19k reais per month, is normal for senior in sp?", ("has-salary", "19k reais")),
        ("rent is 1400 a month, is that a lot?", ("has-rent", "1400")),
    ],
)
def test_pay_or_rent_said_before_a_question_about_it_is_stated(
    tier: SpacyTier, text: str, fact: tuple[str, str]
) -> None:
    assert fact in said_by(tier, text, "Ra")


@pytest.mark.parametrize(
    "text",
    [
        "- he kept the house in ballard, i moved to a 2br apt in fremont, $2850/mo",
        "I moved to a 2br apt in Fremont.",
    ],
)
def test_a_listing_shorthand_home_moved_to_names_its_place(tier: SpacyTier, text: str) -> None:
    said = said_by(tier, text, "Es")
    assert ("moved-to", "Fremont") in said
    assert not {o for p, o in said if p.startswith("moved") and "apt" in o}
