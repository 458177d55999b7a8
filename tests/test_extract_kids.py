"""Family said in passing (issue 14): children named by their ages beside a word for the speaker's
kids (extract/kids.py: "she keeps the kids when I'm out, Caleb is 12 and Maddie's 8"), and the
partner word a French, Spanish or Portuguese speaker keeps in English ("my copine léa"); on the real
English pipeline through the spaCy tier."""

from __future__ import annotations

import pytest

from knowledge_engine.extract.spacy_ner import SpacyTier
from tests.fixtures.common import spoken, triples


def facts(tier: SpacyTier, text: str) -> set[tuple[str, str, str]]:
    return triples(tier, text, "Travis")


def children(tier: SpacyTier, text: str) -> set[str]:
    return {o for s, p, o in facts(tier, text) if s == "Travis" and p == "has-child"}


@pytest.mark.parametrize(
    ("text", "kids"),
    [
        (
            "I give my mom 600 a month bc she keeps the kids when I'm out, Caleb is 12 and Maddie's 8.",
            {"Caleb", "Maddie"},
        ),
        ("We have two kids. Leo is 4 and Mia is 7.", {"Leo", "Mia"}),
    ],
)
def test_children_named_by_their_ages_beside_the_speakers_kids(
    tier: SpacyTier, text: str, kids: set[str]
) -> None:
    assert children(tier, text) == kids


@pytest.mark.parametrize(
    "text",
    [
        "My sister's kids are lovely, Tom is 5 and Lily is 3.",  # hers
        "Her kids are lovely, Tom is 5 and Lily is 3.",
        "Tom is 40 and the kids adore him.",  # an adult
        "Leo is 4 and Mia is 7.",  # no word of the speaker's kids
    ],
)
def test_no_child_where_the_kids_are_not_the_speakers(tier: SpacyTier, text: str) -> None:
    assert children(tier, text) == set()


def test_a_childs_age_said_as_a_possessive_is_an_age_not_a_relation(tier: SpacyTier) -> None:
    found = facts(tier, "The kids are great, Caleb is 12 and Maddie's 8.")
    assert ("Maddie", "is-aged", "8") in found
    assert not {p for _, p, _ in found if p == "has-8"}


@pytest.mark.parametrize(
    ("text", "partner"),
    [("my copine léa wants we move together", "Léa"), ("My novio Carlos got a job at Indra.", "Carlos")],
)
def test_a_partner_word_of_another_language_is_a_partner(tier: SpacyTier, text: str, partner: str) -> None:
    assert ("Travis", "has-partner", partner) in facts(tier, text)


@pytest.mark.parametrize(
    ("text", "age"),
    [
        ("sharp. also its my bday saturday, turning 29 😬 zanele is planning something", "29"),
        ("Birthday tomorrow, turning 41!", "41"),
        ("big week, turning 30 on friday", "30"),
    ],
)
def test_the_speakers_birthday_turn_with_the_i_dropped_is_their_age(
    tier: SpacyTier, text: str, age: str
) -> None:
    assert ("Travis", "is-aged", age) in facts(tier, text)


def test_anothers_turn_is_not_the_speakers_age(tier: SpacyTier) -> None:
    found = facts(tier, "my dad, turning 70 next week, wants a party")
    assert not {f for f in found if f[0] == "Travis" and f[1] == "is-aged"}


def test_twins_named_in_apposition_are_two_children_of_that_age(tier: SpacyTier) -> None:
    facts = {
        (f.subject, f.predicate, f.object)
        for f in spoken(tier, "Our twins, Ava and Noah, turn 6 next week.", "Maya").facts
    }
    assert {("Maya", "has-child", "Ava"), ("Maya", "has-child", "Noah")} <= facts
    assert {("Ava", "is-aged", "6"), ("Noah", "is-aged", "6")} <= facts
    assert not {f for f in facts if "Ava and Noah" in (f[0], f[2])}  # not one child of two names


@pytest.mark.parametrize(
    "text", ["My other half, Chris, is a chef.", "Dan proposed!! We're getting married next summer."]
)
def test_a_partner_said_as_the_other_half_or_by_a_proposal(tier: SpacyTier, text: str) -> None:
    partners = {
        f.object
        for f in spoken(tier, text, "Maya").facts
        if f.subject == "Maya" and f.predicate == "has-partner"
    }
    assert partners & {"Chris", "Dan"}


@pytest.mark.parametrize(
    "text", ["Dan proposed a toast.", "Dan proposed to Sarah.", "The other half of the house is rented."]
)
def test_no_partner_from_a_toast_anothers_proposal_or_half_a_house(tier: SpacyTier, text: str) -> None:
    assert not {
        f for f in spoken(tier, text, "Maya").facts if f.predicate == "has-partner" and f.subject == "Maya"
    }


@pytest.mark.parametrize(
    ("text", "kid"),
    [
        ("Our youngest, Kayden, started at Bayside Primary, bless him.", "Kayden"),
        ("My eldest Sophie is 12.", "Sophie"),
        ("our youngest zane started at st marys primary today", "Zane"),
        ("Wife: Ingrid. Son - Leo, 4.", "Leo"),  # a chat line's key and value
    ],
)
def test_a_child_named_by_rank_or_by_a_lines_key(tier: SpacyTier, text: str, kid: str) -> None:
    assert kid in children(tier, text)


@pytest.mark.parametrize(
    "text",
    ["my eldest sister Jo lives in Hull.", "Their youngest, Max, is at nursery.", "The son Tom was there."],
)
def test_a_rank_of_someone_elses_or_of_a_sibling_is_no_child(tier: SpacyTier, text: str) -> None:
    assert not children(tier, text)


@pytest.mark.parametrize(
    ("text", "kids"),
    [
        ("The kids, Mia and Sam, are at their gran's.", {"Mia", "Sam"}),
        ("Taking my boys, Jack and Finn, swimming.", {"Jack", "Finn"}),  # the names hung on the verb
        ("My stepson Kai is 14.", {"Kai"}),  # tagged one person with "My stepson"
    ],
)
def test_the_kids_listed_by_name_are_the_speakers_children(
    tier: SpacyTier, text: str, kids: set[str]
) -> None:
    assert children(tier, text) == kids


@pytest.mark.parametrize(
    "text", ["Out with the boys, Jack and Finn, tonight.", "Her kids, Mia and Sam, are lovely."]
)
def test_friends_called_the_boys_or_anothers_kids_are_no_children(tier: SpacyTier, text: str) -> None:
    assert not children(tier, text)


@pytest.mark.parametrize(
    ("text", "child", "school"),
    [
        ("Leo starts reception at St Peter's in September.", "Leo", "St Peter's"),
        ("Mia's in reception at Oakfield.", "Mia", "Oakfield"),
    ],
)
def test_a_school_stage_started_or_in_makes_the_place_a_school(
    tier: SpacyTier, text: str, child: str, school: str
) -> None:
    found = facts(tier, text)
    assert (child, "attends", school) in found
    assert not {o for s, _, o in found if s == child and o.lower() == "reception"}  # a stage, no place
    assert not {p for s, p, _ in found if s == child and p in {"works-at", "starts-at"}}


def test_a_reception_that_is_a_party_makes_no_school(tier: SpacyTier) -> None:
    assert not {f for f in facts(tier, "Tom had the reception at The Grand.") if f[1] == "attends"}


def test_a_grammar_school_is_a_school_a_child_attends(tier: SpacyTier) -> None:
    found = facts(tier, "Nervous wreck today, our son Oscar starts at Ashford Grammar tomorrow.")
    assert ("Oscar", "attends", "Ashford Grammar") in found
    assert not {p for s, p, _ in found if s == "Oscar" and p == "works-at"}


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("The hubby Craig's been diagnosed with gout.", ("Travis", "is-married-to", "Craig")),
        ("the wife Sharon works at Asda", ("Travis", "is-married-to", "Sharon")),
        ("Wife: Ingrid. 12 yrs married today.", ("Travis", "is-married-to", "Ingrid")),
        ("Cat: Nori. Vet Tues.", ("Travis", "has-cat", "Nori")),
    ],
)
def test_a_spouse_said_with_the_or_as_a_lines_key(
    tier: SpacyTier, text: str, fact: tuple[str, str, str]
) -> None:
    assert fact in facts(tier, text)


def test_twins_named_as_a_subject_are_both_children(tier: SpacyTier) -> None:
    text = "Our twins, Ada and Ezra, have both got places at Brookfield Infants for September."
    assert {"Ada", "Ezra"} <= children(tier, text)


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("Me girlfriend Róisín's on the tills in Dunnes.", ("Travis", "has-partner", "Róisín")),
        ("My cat's name is Simba.", ("Travis", "has-cat", "Simba")),  # Simba tagged an adjective
    ],
)
def test_chats_me_for_my_and_a_pets_name(tier: SpacyTier, text: str, fact: tuple[str, str, str]) -> None:
    assert fact in facts(tier, text)


def test_me_for_my_gives_no_age_to_the_speaker(tier: SpacyTier) -> None:
    found = facts(tier, "Me old man Frank turned 80 last week, still sharp as a tack.")
    assert ("Travis", "is-aged", "80") not in found


def test_an_age_followed_by_more_about_the_child_is_still_its_age(tier: SpacyTier) -> None:
    assert ("Arjun", "is-aged", "15") in facts(tier, "My son Arjun is 15 and already taller than me.")


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("My son Kwabena moved up to Ridgeway Secondary this term.",
         ("Kwabena", "attends", "Ridgeway Secondary")),
        ("Amir goes back to Oakfield Juniors tomorrow.", ("Amir", "attends", "Oakfield Juniors")),
        ("Our twins, Ada and Ezra, have both got places at Brookfield Infants for September.",
         ("Ezra", "attends", "Brookfield Infants")),  # the second name in apposition is a subject too
        ("My kids, Tom and Mia, go to Hillside Primary.", ("Mia", "attends", "Hillside Primary")),
        ("We moved back to Leeds in 2020.", ("Travis", "moved-to", "Leeds")),
    ],
)  # fmt: skip
def test_a_move_up_or_back_to_a_school_or_place(
    tier: SpacyTier, text: str, fact: tuple[str, str, str]
) -> None:
    assert fact in facts(tier, text)


def test_going_back_to_work_is_no_place(tier: SpacyTier) -> None:
    assert not [f for f in facts(tier, "I went back to work on Monday.") if f[1].endswith("-to")]


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("My kids are Lily and Max.", {"Lily", "Max"}),
        ("My children are Amara, Tobi and Kemi.", {"Amara", "Tobi", "Kemi"}),
    ],
)
def test_each_name_of_a_plural_relation_is_one_of_them(tier: SpacyTier, text: str, names: set[str]) -> None:
    assert children(tier, text) == names


def test_a_plural_pet_relation_names_each_pet(tier: SpacyTier) -> None:
    assert {("Travis", "has-cat", "Miso"), ("Travis", "has-cat", "Tofu")} <= facts(
        tier, "My cats are Miso and Tofu."
    )


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("My husband Raj just got a Hyundai Tucson.", ("Travis", "is-married-to", "Raj")),  # "Raj" an adverb
        ("My husband Tunde finally retired.", ("Travis", "is-married-to", "Tunde")),
    ],
)
def test_a_capitalised_word_after_a_relation_word_is_its_name(
    tier: SpacyTier, text: str, fact: tuple[str, str, str]
) -> None:
    assert fact in facts(tier, text)


@pytest.mark.parametrize("text", ["My mum Recently moved to Leeds.", "My Son Will Rule The World"])
def test_no_name_from_a_capitalised_adverb_or_a_headline(tier: SpacyTier, text: str) -> None:
    assert not {
        f for f in facts(tier, text) if f[0] == "Travis" and f[1] in {"has-mother", "has-son", "has-child"}
    }


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("We have a three-bed semi in Solihull, two kids — Ruby and Alfie — and a greyhound called Pepper.",
         ("Travis", "has-child", "Alfie")),
        ("We have a three-bed semi in Solihull, two kids — Ruby and Alfie — and a greyhound called Pepper.",
         ("Travis", "has-dog", "Pepper")),
        ("We have a cat and a greyhound called Pepper.", ("Travis", "has-dog", "Pepper")),
        ("I have a brother and two sisters, Ana and Jo.", ("Travis", "has-sister", "Jo")),
    ],
)  # fmt: skip
def test_relations_named_in_a_list_of_what_one_has(
    tier: SpacyTier, text: str, fact: tuple[str, str, str]
) -> None:
    assert fact in facts(tier, text)


def test_names_after_a_list_belong_to_the_nearest_relation(tier: SpacyTier) -> None:
    """The parse hangs "Ana and Jo" on "a brother"; they are the two sisters."""
    assert ("Travis", "has-brother", "Ana") not in facts(
        tier, "I have a brother and two sisters, Ana and Jo."
    )


@pytest.mark.parametrize(
    ("text", "age"),
    [
        ("I'm a 52-year-old truck driver from Winnipeg.", "52"),
        ("I am 32 years, unmarried, working as CA in Deloitte.", "32"),
    ],
)
def test_an_age_said_in_the_attribute_is_the_speakers(tier: SpacyTier, text: str, age: str) -> None:
    got = facts(tier, text)
    assert ("Travis", "is-aged", age) in got
    assert not {o for s, p, o in got if p == "has-role" and "year" in o}  # "52-year-old truck driver"


def test_years_into_something_are_no_age(tier: SpacyTier) -> None:
    assert not {f for f in facts(tier, "We are 10 years into our marriage.") if f[1] == "is-aged"}


def test_mgr_is_a_manager(tier: SpacyTier) -> None:
    text = "update: Faisal is still my direct mgr, reorg only changed the skip levels"
    assert ("Travis", "has-manager", "Faisal") in facts(tier, text)


def test_a_self_introduction_gives_the_speakers_age_role_and_home(tier: SpacyTier) -> None:
    got = facts(tier, "I'm Sofía, 34, a vet living in Valencia.")
    assert {
        ("Travis", "is-aged", "34"),
        ("Travis", "has-role", "vet"),
        ("Travis", "lives-in", "Valencia"),
    } <= got


def test_an_introduction_of_someone_else_gives_the_speaker_nothing(tier: SpacyTier) -> None:
    assert not {f for f in facts(tier, "This is Sofía, 34, a vet living in Valencia.") if f[0] == "Travis"}


def test_a_relation_word_after_an_adjective_keeps_its_owner(tier: SpacyTier) -> None:
    """ "Our old dog Bess": the parse makes dog and Bess two subjects; the owner is before "old"."""
    assert {
        f
        for f in facts(tier, "Our old dog Bess passed away in the winter.")
        if f[0] == "Travis" and f[2] == "Bess"
    }


@pytest.mark.parametrize(
    ("text", "kids"),
    [
        ("I've got two kids - Ollie (6) and Freya (4).", {"Ollie", "Freya"}),  # "got": had
        ("I'm a mum of two: Ellie is 9 and Josh is 6.", {"Ellie", "Josh"}),
        ("Mum of 3 here! Jack is 10, Amy is 8 and Tom's 5.", {"Jack", "Amy", "Tom"}),
        ("Our two boys, Sam and Theo, love football.", {"Sam", "Theo"}),  # "our": the family's
        ("My two girls are Ruby and Mae.", {"Ruby", "Mae"}),
        ("My eldest, Grace, starts uni in October.", {"Grace"}),
    ],
)
def test_children_said_as_a_parent_says_them(tier: SpacyTier, text: str, kids: set[str]) -> None:
    assert children(tier, text) == kids


@pytest.mark.parametrize(
    "text",
    [
        "My mum of 80 years, Joan, is 12.",  # no count of children
        "She's a mother of three, Leo is 7.",  # not the speaker
        "Off out with the girls tonight, Jess and Kim.",  # no owner: friends
    ],
)
def test_no_child_from_a_parent_word_that_is_not_the_speakers(tier: SpacyTier, text: str) -> None:
    assert children(tier, text) == set()


def test_a_rank_among_children_is_a_child_not_a_relation_of_its_own(tier: SpacyTier) -> None:
    found = facts(tier, "Dylan has type 1 diabetes. He's my youngest, he's 7.")
    assert ("Travis", "has-child", "Dylan") in found
    assert not {p for _, p, _ in found if p in {"has-young", "has-eld"}}


def test_ages_listed_go_to_the_names_listed_in_order(tier: SpacyTier) -> None:
    found = facts(tier, "Our two boys, Sam and Theo, are 7 and 9.")
    assert {("Sam", "is-aged", "7"), ("Theo", "is-aged", "9")} <= found
    assert ("Theo", "is-aged", "7") not in found
    uneven = facts(tier, "Sam, Theo and Ava are 7 and 9.")  # whose is which is not said
    assert not {f for f in uneven if f[1] == "is-aged"}


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("Tom, my husband of ten years, is a plumber.", ("Travis", "is-married-to", "Tom")),
        ("My partner of six years, Sam, got a new job.", ("Travis", "has-partner", "Sam")),
        ("My boss at Tesco, Karen, is leaving.", ("Travis", "has-manager", "Karen")),
        ("My sister in Leeds, Anna, is pregnant.", ("Travis", "has-sister", "Anna")),
    ],
)
def test_a_name_set_off_by_commas_beside_a_kin_word_with_its_phrase(
    tier: SpacyTier, text: str, fact: tuple[str, str, str]
) -> None:
    assert fact in facts(tier, text)


def test_a_place_set_off_by_commas_is_no_kin(tier: SpacyTier) -> None:
    found = facts(tier, "Leeds, my home of ten years, is lovely.")
    assert not {f for f in found if f[2] == "Leeds" and f[1] != "lives-in"}


@pytest.mark.parametrize(
    ("text", "kid"),
    [
        ("We have a 4 year old, Isla.", "Isla"),  # the parse hangs "old" on the article: was "owns Isla"
        ("we have a 4-year-old, Isla", "Isla"),  # "old" the object, Isla its apposition: was "has-old"
        ("I have a 2 year old called Finn", "Finn"),
        ("i have a 6 month old, Arlo", "Arlo"),
        ("got 2 boys, Sam and Ollie", "Sam"),  # chat's dropped "I've"
    ],
)
def test_a_child_said_by_age_or_with_the_i_dropped(tier: SpacyTier, text: str, kid: str) -> None:
    assert kid in children(tier, text)


@pytest.mark.parametrize(
    "text",
    [
        "we have a 10 year old Honda Civic",  # no comma or "called": the car's age
        "had a brother, Tom, who died",  # "had": not chat's "got"
    ],
)
def test_an_age_before_a_thing_or_a_past_have_is_no_child(tier: SpacyTier, text: str) -> None:
    assert not {f for f in facts(tier, text) if f[1] == "has-child"}


@pytest.mark.parametrize("text", ["my kids are Lily 8 and Max 5", "my kids r Lily 8 and Max 5"])
def test_a_number_after_a_childs_name_is_the_age(tier: SpacyTier, text: str) -> None:
    """Was "has-child Lily 8" (and nothing at all with chat's "r" for "are")."""
    found = facts(tier, text)
    assert children(tier, text) == {"Lily", "Max"}
    assert ("Lily", "is-aged", "8") in found and ("Max", "is-aged", "5") in found


def test_a_number_after_a_managers_name_is_no_age(tier: SpacyTier) -> None:
    assert not {f for f in facts(tier, "my manager is Dave 2") if f[1] == "is-aged"}


@pytest.mark.parametrize(
    ("text", "who", "age"),
    [
        ("My mum Joan is 91.", "Joan", "91"),  # parsed as two subjects, "mum" first
        ("My mum, Joan, is 91.", "Joan", "91"),
        ("my dad Frank turned 80 last week", "Frank", "80"),
    ],
)
def test_the_age_of_a_parent_named_beside_the_kin_word(
    tier: SpacyTier, text: str, who: str, age: str
) -> None:
    assert (who, "is-aged", age) in facts(tier, text)


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("My son Jayden has ADHD and he's only 6.", ("Jayden", "is-aged", "6")),  # a stress, still the age
        ("my son jayden has adhd, hes just 6", ("Jayden", "is-aged", "6")),
        ("My son Kaito has 16 years and he studies.", ("Kaito", "is-aged", "16")),  # "tiene 16 años"
    ],
)
def test_an_age_after_he_or_she(tier: SpacyTier, text: str, fact: tuple[str, str, str]) -> None:
    assert fact in facts(tier, text)


def test_a_school_tagged_a_person_is_no_he_or_she(tier: SpacyTier) -> None:
    assert ("Kingswood Prep", "is-aged", "10") not in facts(tier, "Lucas hates Kingswood Prep. He's 10.")


@pytest.mark.parametrize(
    "text",
    [
        "My son Jayden is lovely and he's nearly 7.",
        "I have 5 years of experience.",  # years of something: no age
        "We have 2 years left on the lease.",
        "My husband has 10 years at Siemens.",
    ],
)
def test_no_age_where_the_number_is_not_one(tier: SpacyTier, text: str) -> None:
    # guards for the rules above (they hold on the code before them too)
    assert not {f for f in facts(tier, text) if f[1] == "is-aged"}


@pytest.mark.parametrize(
    ("text", "kid", "age"),
    [
        ("my 7 year old Noah keeps asking about space.", "Noah", "7"),
        ("my 4-year-old, Leo, won't eat vegetables.", "Leo", "4"),
        ("our 15-year-old Priya wants a phone.", "Priya", "15"),
    ],
)
def test_a_child_said_by_age_with_a_name_beside_it(tier: SpacyTier, text: str, kid: str, age: str) -> None:
    found = facts(tier, text)
    assert ("Travis", "has-child", kid) in found and (kid, "is-aged", age) in found
    assert not [p for _, p, _ in found if p == "has-old"]


def test_a_pets_age_beside_its_name_makes_no_child(tier: SpacyTier) -> None:
    assert children(tier, "my 2 year old Lab Biscuit chews everything.") == set()


def test_a_known_first_names_age_in_brackets_is_its_age(tier: SpacyTier) -> None:
    found = facts(tier, "Sophie (9) and Jack (5) are both off school today.")
    assert {("Sophie", "is-aged", "9"), ("Jack", "is-aged", "5")} <= found


def test_a_preposition_the_model_ran_into_a_name_is_no_part_of_it(tier: SpacyTier) -> None:
    """'We got Leo into Oakwood Academy!': the small model tags "Leo into Oakwood Academy" one name."""
    found = facts(tier, "We got Leo into Oakwood Academy!")
    assert ("Leo", "attends", "Oakwood Academy") in found
    assert not [s for s, _, _ in found if "into" in s]


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("Ellie is in Year 1 at Hillside", ("Ellie", "attends", "Hillside")),  # "at" hangs on the year
        (
            "Aoife is in first class at Gaelscoil Mhic Amhlaigh",
            ("Aoife", "attends", "Gaelscoil Mhic Amhlaigh"),
        ),
        ("Ellie was in Year 1 at Hillside", ("Ellie", "attended", "Hillside")),
        ("Miggy is Year 3 at St Anne's", ("Miggy", "attends", "St Anne's")),
        ("Sofia goes to Escola Basica de Alvalade", ("Sofia", "attends", "Escola Basica de Alvalade")),
    ],
)
def test_a_school_year_at_a_place_or_a_school_word_before_its_name(
    tier: SpacyTier, text: str, fact: tuple[str, str, str]
) -> None:
    assert fact in facts(tier, text)


@pytest.mark.parametrize("text", ["I'm in Year 2 at Leeds Uni", "She's in first class at the Hilton"])
def test_no_school_from_the_speakers_year_or_a_class_of_travel(tier: SpacyTier, text: str) -> None:
    assert not {f for f in facts(tier, text) if f[1] in {"attends", "attended"}}
