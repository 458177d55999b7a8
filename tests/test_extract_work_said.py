"""Workplaces said the way people say them in chat (issue 14): a trade's verb "for" a company, a
site of an organisation ("The Ottawa Hospital's General Campus"), a place followed by how long one has
been there ("im at korvus, been there since 2022"); on the real English pipeline through the spaCy
tier."""

from __future__ import annotations

import pytest

from knowledge_engine.extract.spacy_ner import SpacyTier
from knowledge_engine.model.records import Message
from tests.fixtures.common import said_by, spoken, triples


def work(tier: SpacyTier, text: str) -> set[tuple[str, str]]:
    extraction = spoken(tier, text, "Lin")
    return {
        (f.predicate, f.object)
        for f in extraction.facts
        if f.subject == "Lin" and f.predicate in {"works-at", "worked-at"}
    }


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("I drive OTR for Buckeye Freightways out of Columbus.", ("works-at", "Buckeye Freightways")),
        (
            "I used to teach for the Toronto District School Board.",
            ("worked-at", "Toronto District School Board"),
        ),
        (
            "I have been a clinical pharmacist in oncology at The Ottawa Hospital's General Campus for"
            " nine years.",
            ("works-at", "Ottawa Hospital"),
        ),
        ("I've been at Tesco's Leeds store for 3 years.", ("works-at", "Tesco")),
        ("im at korvus in rosebank, been there since 2022", ("works-at", "Korvus")),
        ("I do the accounts for a small firm called Ledgerly.", ("works-at", "Ledgerly")),  # tagged an adverb
        ("I joined Monzo as a designer.", ("works-at", "Monzo")),  # tagged a person: the job says a firm
        ("I'm now at Monzo as a product designer.", ("works-at", "Monzo")),  # tagged a place
        ("I manage a team of six at Asda.", ("works-at", "Asda")),  # a duty done there
        ("I lead the design team at Monzo.", ("works-at", "Monzo")),
        ("I handle payroll at Halden Foods.", ("works-at", "Halden Foods")),
        ("I cook at The Swan.", ("works-at", "Swan")),
        ("Got the job at Ocado!!", ("works-at", "Ocado")),  # "got" with the "I" dropped
        ("I got the Ocado job!", ("works-at", "Ocado")),  # the firm tagged a place no gazetteer knows
        ("Moved over to the data team at Ocado last month.", ("works-at", "Ocado")),  # a team moved to
        ("I transferred to the Leeds branch of Halifax.", ("works-at", "Halifax")),  # a branch of it
        ("Work's been mad at Brightwater this week.", ("works-at", "Brightwater")),  # work said bare
        ("Work at Brightwater is quiet today.", ("works-at", "Brightwater")),
        ("They've kept me on at Brightwater after the restructure.", ("works-at", "Brightwater")),
        ("They're keeping me on at Aldi after Christmas.", ("works-at", "Aldi")),  # tagged a person
    ],
)
def test_a_workplace_said_in_passing_is_read(tier: SpacyTier, text: str, fact: tuple[str, str]) -> None:
    assert fact in work(tier, text)


@pytest.mark.parametrize(
    "text",
    [
        "I cook for my family every night.",  # no organisation
        "Should I drive for Lyft?",  # a question, a plan
        "I'm at my mum's house, been there since Friday.",  # a stay, not a job
        "I'm at the Hilton tonight.",  # a visit
        "I'm at Gatwick, been there since 6am.",  # a wait of hours, not a job's years
        "I joined the Labour Party.",  # a member, not staff
        "I'm at Leeds as a tourist.",  # no job
        "I run at Parkrun.",  # no duty
        "I ran the bar at The Swan once.",  # over
        "I'll run the stall at Glastonbury.",  # a plan
        "I lead a walk at Kew every Sunday.",  # a place, not a firm
        "Got a job interview at Ocado tomorrow.",  # an interview, no job yet
        "I might move to the sales team at Aviva.",  # a plan
        "I took the London job.",  # a town
        "Work at Christmas is mad.",  # a time
        "Their work at Tate is amazing.",  # someone else's work
        "Work would be easier at Google.",  # a wish
        "They might keep me on at Aldi.",  # not yet
        "They kept me on at Dave's.",  # a person's place
        "They kept me on hold at Vodafone for an hour.",  # a call, not a job
    ],
)
def test_no_workplace_where_none_was_said(tier: SpacyTier, text: str) -> None:
    assert work(tier, text) == set()


@pytest.mark.parametrize(
    ("text", "boss"),
    [
        ("My problem now is my head nurse, Ms. Leena Thomas.", "Leena Thomas"),
        ("my lead nandi wants us to move to playwright anyway", "Nandi"),
    ],
)
def test_the_head_of_the_speakers_team_is_the_manager(tier: SpacyTier, text: str, boss: str) -> None:
    extraction = spoken(tier, text, "Lin")
    managers = {f.object for f in extraction.facts if f.subject == "Lin" and f.predicate == "has-manager"}
    assert any(boss in m for m in managers), managers


@pytest.mark.parametrize(
    ("text", "boss"),
    [
        ("new boss will be ruan du plessis, head of engineering there.", "Ruan du Plessis"),
        ("My new boss is Ruan du Plessis.", "Ruan du Plessis"),
        ("my manager is jan van der merwe now", "Jan van der Merwe"),
        ("New boss: Ana de Souza", "Ana de Souza"),
    ],
)
def test_a_surname_with_a_particle_is_the_whole_name(tier: SpacyTier, text: str, boss: str) -> None:
    """The model tags "du"/"van der" and the surname common words: the name was cut to "Plessis",
    "Ruan" or "Ruan du"; it is the whole name, particles in lower case."""
    extraction = spoken(tier, text, "Lin")
    managers = {f.object for f in extraction.facts if f.subject == "Lin" and f.predicate == "has-manager"}
    assert managers == {boss}


@pytest.mark.parametrize(
    "text", ["We had dinner at the cafe de la gare.", "It was a tour de force.", "I met her in la paz."]
)
def test_particles_between_common_words_make_no_name(tier: SpacyTier, text: str) -> None:
    objects = {f.object for f in spoken(tier, text, "Lin").facts}
    assert not {o for o in objects if " de " in o or " la " in o.lower()}, objects


def test_a_lead_that_is_no_ones_team_lead_is_no_manager(tier: SpacyTier) -> None:
    (extraction,) = tier.extract(
        [Message(id="m", text="The lead singer Bono was great.", role="user", speaker="Lin")]
    )
    assert not {f for f in extraction.facts if f.predicate == "has-manager"}


@pytest.mark.parametrize(
    "text",
    [
        "news!! i pass all interviews. offer from feedzai, senior software engineer, 62k euro per year",
        "Got an offer from Feedzai: senior software engineer, 62k.",
    ],
)
def test_the_terms_listed_after_an_offers_employer_are_the_offers(tier: SpacyTier, text: str) -> None:
    extraction = spoken(tier, text, "Lin")
    found = {(f.predicate, f.object) for f in extraction.facts if f.subject == "Lin"}
    assert ("has-offer-from", "Feedzai") in found
    assert ("has-offered-role", "senior software engineer") in found
    assert {o for p, o in found if p == "has-salary-offer"} & {"62k", "62k euro"}


@pytest.mark.parametrize(
    "text",
    [
        "I got an offer from Monzo, Dana says hi.",  # no term after the employer
        "Tom got an offer from Airbus, senior engineer, 70k.",  # his offer: its terms are not read as mine
    ],
)
def test_no_offered_terms_where_none_are_listed_for_the_speaker(tier: SpacyTier, text: str) -> None:
    extraction = spoken(tier, text, "Lin")
    assert not {f for f in extraction.facts if f.predicate in {"has-offered-role", "has-salary-offer"}}


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        (
            "My new job at Atlassian starts Monday.",
            ("works-at", "Atlassian"),
        ),  # a name parsed as an adjective
        ("I'm enjoying my job at Lidl.", ("works-at", "Lidl")),  # 'at' hung on the verb
        ("I don't like my job at Aldi.", ("works-at", "Aldi")),  # disliked, still held
        ("My job at Tesco pays badly.", ("works-at", "Tesco")),
        ("My old job at Barclays was awful.", ("worked-at", "Barclays")),
        ("My job at the hospital is exhausting.", ("works-at", "hospital")),  # a workplace in lower case
    ],
)
def test_a_job_named_with_its_employer_says_where_one_works(
    tier: SpacyTier, text: str, fact: tuple[str, str]
) -> None:
    assert fact in work(tier, text)


def test_a_kins_job_at_an_employer_is_the_kins(tier: SpacyTier) -> None:
    extraction = spoken(tier, "My husband Tom's job at Initech is stressful.", "Lin")
    assert ("Tom", "works-at", "Initech") in {(f.subject, f.predicate, f.object) for f in extraction.facts}
    extraction = spoken(tier, "Tom's new job at the council is going well.", "Lin")
    assert ("Tom", "works-at", "council") in {(f.subject, f.predicate, f.object) for f in extraction.facts}


@pytest.mark.parametrize(
    "text",
    [
        "My dream job at Google would be amazing.",  # wished for
        "My job at Christmas is carving the turkey.",  # a feast, not an employer
        "My job at Easter is hiding eggs.",
        "My role at Sarah's wedding was best man.",  # a person's event
        "My job at the moment is tiring.",
    ],
)
def test_a_job_at_no_employer_is_no_workplace(tier: SpacyTier, text: str) -> None:
    assert work(tier, text) == set()


@pytest.mark.parametrize(
    ("text", "subject"),
    [
        ("I'm a team lead now.", "Lin"),  # parsed as 'team' and a verb 'lead'
        ("Dan is a team lead at Tesco.", "Dan"),  # parsed as 'team' the subject of 'lead'
        ("I'm the team lead now.", "Lin"),  # 'team' the subject of a clause 'lead' under 'am'
        ("I'm now the team lead.", "Lin"),
    ],
)
def test_a_team_lead_is_a_role_not_a_team(tier: SpacyTier, text: str, subject: str) -> None:
    facts = {(f.subject, f.predicate, f.object) for f in spoken(tier, text, "Lin").facts}
    assert (subject, "has-role", "team lead") in facts
    assert not {f for f in facts if f[2] in {"team", "lead"}}


@pytest.mark.parametrize(
    "text",
    [
        "Sam is my team lead.",  # was "has-team Sam": the parse ends the title at "team"
        "My team lead, Sam, is on holiday.",  # "lead" read as a verb
        "I told my team lead Sam about it.",
        "Sam's my new team leader.",  # (read before too: a guard)
    ],
)
def test_a_team_lead_named_beside_the_title_is_the_speakers(tier: SpacyTier, text: str) -> None:
    facts = {(f.subject, f.predicate, f.object) for f in spoken(tier, text, "Lin").facts}
    assert ("Lin", "has-team-lead", "Sam") in facts
    assert not {f for f in facts if f[1] == "has-team"}


@pytest.mark.parametrize("text", ["Sam isn't my team lead.", "If Sam was my team lead I'd quit."])
def test_no_team_lead_where_none_is_said(tier: SpacyTier, text: str) -> None:
    assert not {f for f in spoken(tier, text, "Lin").facts if f.object == "Sam"}


@pytest.mark.parametrize("text", ["Tom is a paramedic now.", "Tom's a paramedic now."])
def test_a_job_the_model_tags_an_adjective_is_still_a_role(tier: SpacyTier, text: str) -> None:
    facts = {(f.subject, f.predicate, f.object) for f in spoken(tier, text, "Lin").facts}
    assert ("Tom", "has-role", "paramedic") in facts


def test_a_move_to_a_new_firm_is_a_job_not_a_home(tier: SpacyTier) -> None:
    facts = {
        (f.subject, f.predicate, f.object)
        for f in spoken(tier, "Tom's moved to a new firm, Calder & Co.", "Lin").facts
    }
    assert ("Tom", "works-at", "Calder & Co.") in facts
    assert not {f for f in facts if f[1] == "moved-to"}


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("Tom's switched jobs - he's at Halden now.", ("Tom", "works-at", "Halden")),
        ("Tom got the job and he's at Leeds General now.", ("Tom", "works-at", "Leeds General")),
        ("Sam joined Halden last week.", ("Sam", "works-at", "Halden")),  # a small town's name: a firm's
    ],
)
def test_someone_at_a_firm_now_after_job_news_or_joining_it_works_there(
    tier: SpacyTier, text: str, fact: tuple[str, str, str]
) -> None:
    assert fact in {(f.subject, f.predicate, f.object) for f in spoken(tier, text, "Lin").facts}


@pytest.mark.parametrize(
    "text",
    [
        "Job hunting is hard. I'm at Costa now, working on applications.",  # a job sought
        "Mum's at Tesco now.",  # no job spoken of: a visit
        "New job! I'm at Brighton now.",  # a city
        "I joined Tom for lunch.",  # a person joined
    ],
)
def test_at_a_place_without_a_job_held_is_no_workplace(tier: SpacyTier, text: str) -> None:
    assert not {f for f in spoken(tier, text, "Lin").facts if f.predicate == "works-at"}


def roles(tier: SpacyTier, text: str) -> set[str]:
    return {
        f.object for f in spoken(tier, text, "Lin").facts if f.subject == "Lin" and f.predicate == "has-role"
    }


@pytest.mark.parametrize(
    ("text", "role"),
    [
        ("They promoted me to senior analyst in March.", "senior analyst"),
        ("My boss promoted me to head of marketing.", "head of marketing"),
        ("They promoted me to team lead.", "team lead"),  # 'lead' parsed as a verb
        ("They've made me team lead.", "team lead"),
        ("They made me a manager last year.", "manager"),
        ("I've been made a senior analyst.", "senior analyst"),  # the passive
        ("I got made team lead last week.", "team lead"),
        ("Got bumped up to lead engineer.", "lead engineer"),  # a bump up, the "I" dropped
        ("I've been made up to senior paralegal!", "senior paralegal"),  # British: promoted (was is-made-to)
        ("I'm acting head of department now.", "acting head of department"),  # read as the verb 'act'
        ("I'm acting manager while Sue is off.", "acting manager"),
        ("I've just qualified as a solicitor.", "solicitor"),  # "qualified" read as an adjective
    ],
)
def test_a_title_given_to_the_speaker_is_their_role(tier: SpacyTier, text: str, role: str) -> None:
    assert role in roles(tier, text)


@pytest.mark.parametrize(
    ("text", "role"),
    [
        ("I landed a project manager role at Halden.", "project manager"),
        ("I got a senior analyst job!", "senior analyst"),
        ("I've moved into a product owner role.", "product owner"),
        ("I switched to a part-time receptionist post.", "receptionist"),
        ("I'm stepping up to a lead engineer role.", "lead engineer"),
        ("Doing a bookkeeper job for now.", "bookkeeper"),
        ("From Monday I'll be a charge nurse.", "charge nurse"),  # a post with a start date
        ("I'll be team leader starting next month.", "team leader"),
        ("They've given me the assistant manager role.", "assistant manager"),  # given to the speaker
        ("I've stepped up to deputy manager.", "deputy manager"),  # a title reached, no job noun
        ("I moved up to senior analyst last year.", "senior analyst"),
    ],
)
def test_a_job_named_by_its_title_is_the_speakers_role(tier: SpacyTier, text: str, role: str) -> None:
    assert roles(tier, text) == {role}


@pytest.mark.parametrize(
    "text",
    [
        "I'm applying for a nurse job.",  # wanted, not got
        "I hope to land a project manager role.",
        "I didn't get the team lead role.",
        "They offered me a team lead role.",  # an offer is not a job taken
        "I got the job!",  # no title
        "I'll be a nurse one day.",  # a hope, no start date
        "I'll be a manager in a few years.",
        "They gave Tom the manager role.",  # another's
        "I might step up to deputy manager.",
    ],
)
def test_no_role_from_a_job_title_only_hoped_for(tier: SpacyTier, text: str) -> None:
    # guards for the two rules above (they hold on the code before them too)
    assert not roles(tier, text)


def test_a_job_title_held_in_the_past_is_a_past_role(tier: SpacyTier) -> None:
    assert ("worked-as", "nurse") in roles_as(tier, "I had a nurse job in Leeds years ago.")


@pytest.mark.parametrize(
    "text",
    [
        "I was made redundant.",  # no title
        "I was made to feel welcome.",
        "I got bumped up to the front of the queue.",
        "I'm acting like an idiot.",
        "I'm acting in a play.",
        "I'm hoping to qualify as an accountant.",  # not yet
    ],
)
def test_being_made_or_acting_without_a_title_is_no_role(tier: SpacyTier, text: str) -> None:
    assert roles(tier, text) == set()


@pytest.mark.parametrize(
    ("text", "role"),
    [
        ("I'm the deputy head at a primary school.", "deputy head"),
        ("I'm the senior pharmacist.", "senior pharmacist"),
        ("I'm the IT manager.", "IT manager"),
        ("I'm the charge nurse on nights.", "charge nurse"),
    ],
)
def test_a_title_made_definite_by_a_rank_or_field_is_the_role(tier: SpacyTier, text: str, role: str) -> None:
    assert roles(tier, text) == {role}


@pytest.mark.parametrize(
    ("text", "role"),
    [
        ("I'm a civil servant.", "civil servant"),
        ("I'm an estate agent.", "estate agent"),
        ("I'm a headteacher.", "headteacher"),
        ("I'm a lab tech at the hospital.", "lab tech"),
        ("I'm a paediatrician.", "paediatrician"),  # an occupation by its ending
        ("I'm a videographer.", "videographer"),
    ],
)
def test_an_occupation_said_with_a_is_the_role_not_a_trait(tier: SpacyTier, text: str, role: str) -> None:
    assert roles(tier, text) == {role}


@pytest.mark.parametrize("text", ["I'm a perfectionist.", "I'm an optimist.", "I'm a big reader."])
def test_a_trait_is_no_role(tier: SpacyTier, text: str) -> None:
    assert roles(tier, text) == set()


@pytest.mark.parametrize(
    "text",
    ["I'm the only nurse on the ward.", "I'm the designated driver tonight.", "I'm the cook in our house."],
)
def test_the_part_one_plays_is_no_title(tier: SpacyTier, text: str) -> None:
    assert roles(tier, text) == set()


@pytest.mark.parametrize(
    "text",
    [
        "They made me cry.",
        "She made me coffee.",
        "They made me redundant.",
        "They might promote me to manager.",
    ],
)
def test_making_or_promoting_that_gives_no_title_gives_no_role(tier: SpacyTier, text: str) -> None:
    assert roles(tier, text) == set()


@pytest.mark.parametrize(
    ("text", "employer"),
    [
        ("I do contract work for the NHS.", "NHS"),
        ("I pick up shifts at Boots.", "Boots"),
        ("I do weekends at Tesco.", "Tesco"),
        ("I'm doing shifts at Lidl.", "Lidl"),  # tagged a place, which no gazetteer knows
        ("Picked up extra shifts at Boots.", "Boots"),  # picked up: the job goes on
        ("My shifts at Lidl are brutal this week.", "Lidl"),
        ("My first shift at Aldi is tomorrow.", "Aldi"),  # a first shift starts a job
    ],
)
def test_shifts_or_work_done_for_an_organisation_is_a_workplace(
    tier: SpacyTier, text: str, employer: str
) -> None:
    assert ("works-at", employer) in work(tier, text)


@pytest.mark.parametrize(
    "text",
    [
        "I did some work for Google once.",
        "I do a lot of work for charity.",
        "I might do shifts at Boots.",
        "I did shifts at Lidl years ago.",
        "I'm doing shifts at Leeds.",  # a known town
    ],
)
def test_work_done_once_or_for_no_organisation_is_no_workplace(tier: SpacyTier, text: str) -> None:
    assert work(tier, text) == set()


@pytest.mark.parametrize(
    ("text", "school"),
    [
        ("Ollie will be going to Westfield Juniors after half term.", "Westfield Juniors"),
        ("Ollie will go to Oakfield Primary in September.", "Oakfield Primary"),
    ],
)
def test_a_school_a_child_will_go_to_is_the_childs_school(tier: SpacyTier, text: str, school: str) -> None:
    assert ("Ollie", "attends", school) in {
        (f.subject, f.predicate, f.object) for f in spoken(tier, text, "Lin").facts
    }


@pytest.mark.parametrize(
    "text",
    [
        "We will go to Paris in May.",
        "Ollie might go to Westfield Juniors.",
        "If we move, Ollie will go to Oakfield Primary.",
    ],
)
def test_a_place_one_will_or_might_go_to_is_no_school(tier: SpacyTier, text: str) -> None:
    assert not {f for f in spoken(tier, text, "Lin").facts if f.predicate == "attends"}


@pytest.mark.parametrize(
    ("text", "boss"),
    [
        ("Sarah became my boss in May.", "Sarah"),
        ("Dave took over as my manager.", "Dave"),
        ("Priti's my line manager.", "Priti"),  # the "'s" written out (extract/copula.py)
        ("Dave's been made my manager.", "Dave"),  # made the speaker's boss
        ("Dave has been made my manager.", "Dave"),
        ("I'm now managed by Sarah.", "Sarah"),  # by whom the speaker is managed
        ("Helen is the new head of nursing and she's my boss.", "Helen"),  # "she": the name before it
        ("I'm now under Priya after the restructure.", "Priya"),
    ],
)
def test_who_became_the_speakers_boss_is_their_manager(tier: SpacyTier, text: str, boss: str) -> None:
    facts = {(f.subject, f.predicate, f.object) for f in spoken(tier, text, "Lin").facts}
    assert ("Lin", "has-manager", boss) in facts


@pytest.mark.parametrize(
    "text",
    [
        "Sarah might become my boss.",
        "I'm not managed by Sarah any more.",  # no longer
        "The project is managed by Sarah.",  # not the speaker
        "Dave's been made Tom's manager.",  # Tom's boss
        "I'm under Dr Shah at the Royal.",  # a patient's consultant
        "I'm under Mr Patel for my knee.",
    ],
)
def test_a_boss_one_might_get_or_someone_elses_is_no_manager(tier: SpacyTier, text: str) -> None:
    assert not {
        f for f in spoken(tier, text, "Lin").facts if f.predicate == "has-manager" and f.subject == "Lin"
    }


def test_a_lower_case_relation_word_is_no_part_of_the_name(tier: SpacyTier) -> None:
    facts = {
        (f.subject, f.predicate, f.object) for f in spoken(tier, "my gf priya works at google", "Lin").facts
    }
    assert {("Lin", "has-partner", "Priya"), ("Priya", "works-at", "Google")} <= facts  # not "gf Priya"


@pytest.mark.parametrize(
    ("text", "role"),
    [
        ("started at accenture last week, analyst role", "analyst"),
        ("I joined Stripe in May, senior engineer.", "senior engineer"),
    ],
)
def test_a_title_listed_after_a_new_job_is_the_role(tier: SpacyTier, text: str, role: str) -> None:
    assert role in roles(tier, text)


def test_a_remark_listed_after_a_new_job_is_no_role(tier: SpacyTier) -> None:
    assert roles(tier, "I joined Stripe in May, great team.") == set()


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("Currently I'm working as a barista at Costa.", ("works-at", "Costa")),  # 'Costa' tagged a place
        ("I've just been made redundant from Arcadia.", ("worked-at", "Arcadia")),
        ("I've been laid off from Ocado.", ("worked-at", "Ocado")),
        ("I was made redundant from Argos.", ("worked-at", "Argos")),  # "Argos" tagged a place (LOC)
        ("Argos made me redundant.", ("worked-at", "Argos")),  # the firm as the subject
        ("I'm in sales, at a software company called Brightwave.", ("works-at", "Brightwave")),
        ("I was at a startup called Zeta for two years.", ("worked-at", "Zeta")),
        ("Working as staff nurse in Apollo Hospitals, Chennai.", ("works-at", "Apollo Hospitals")),
        ("I am Arvind, working as assistant professor in Anna University.", ("works-at", "Anna University")),
    ],
)
def test_an_employer_said_around_a_role_an_ending_or_a_firms_name(
    tier: SpacyTier, text: str, fact: tuple[str, str]
) -> None:
    assert fact in work(tier, text)


@pytest.mark.parametrize("text", ["Sam's been made redundant from Argos.", "Sam's been laid off from Argos."])
def test_anothers_job_ended_in_the_perfect_with_has_shortened(tier: SpacyTier, text: str) -> None:
    facts = spoken(tier, text, "Lin").facts
    assert ("Sam", "worked-at", "Argos", True) in {(f.subject, f.predicate, f.object, f.ends) for f in facts}


@pytest.mark.parametrize(
    "text",
    [
        "I work as a nurse at Leeds.",
        "I might be made redundant from Arcadia.",
        "Tom made me redundant.",  # a guard: a person did it, no firm named
        "I was laid off in Leeds.",
        "I work as a teacher in Leeds.",
        "I work as a plumber in Round Rock.",
    ],
)
def test_a_city_or_a_feared_ending_is_no_employer(tier: SpacyTier, text: str) -> None:
    assert work(tier, text) == set()


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("My last job was at Aviva.", ("worked-at", "Aviva")),
        ("I spent five years at the BBC.", ("worked-at", "BBC")),
        ("I've spent two years at Google.", ("works-at", "Google")),
        (
            "I left teaching after ten years at Kingsway High.",
            ("worked-at", "Kingsway High"),
        ),  # taught, not pupil
    ],
)
def test_a_past_job_said_by_its_years_or_as_the_last_one(
    tier: SpacyTier, text: str, fact: tuple[str, str]
) -> None:
    assert fact in work(tier, text)


@pytest.mark.parametrize(
    "text",
    ["We spent two weeks at the Hilton.", "My son spent three years at Oakfield.", "My job was at risk."],
)
def test_a_stay_anothers_years_or_a_job_at_risk_is_no_workplace_of_the_speaker(
    tier: SpacyTier, text: str
) -> None:
    assert work(tier, text) == set()


def schooling(tier: SpacyTier, text: str) -> set[tuple[str, str, str]]:
    return {
        (f.subject, f.predicate, f.object)
        for f in spoken(tier, text, "Lin").facts
        if f.predicate in {"attends", "attended", "moves-to", "moved-to"}
    }


def test_an_entity_run_over_a_clause_is_cut_to_the_name_after_its_verb(tier: SpacyTier) -> None:
    """The model tags "Leo loves Hillside Primary" one organisation: no name holds a finite verb."""
    ex = spoken(tier, "Leo loves Hillside Primary.", "Lin")
    assert {m.value for m in ex.mentions} == {"Hillside Primary"}
    assert all("loves" not in f.subject for f in ex.facts), ex.facts


@pytest.mark.parametrize(
    ("text", "firm"),
    [
        ("Working for Brightwater has been great.", "Brightwater"),
        ("They hired me at Brightwater on the spot.", "Brightwater"),
    ],
)
def test_a_firm_the_model_left_untagged_after_at_or_for(tier: SpacyTier, text: str, firm: str) -> None:
    """The small model tags nothing of a firm it does not know here: no rule or reading could see it."""
    mentions = {(m.value, m.type) for m in spoken(tier, text, "Lin").mentions}
    assert (firm, "organization") in mentions, mentions


@pytest.mark.parametrize(
    ("text", "not_firm"),
    [
        ("Off to Glastonbury with Mum on Friday.", "Mum"),  # a kin word
        ("Had dinner at Nando's with Sarah.", "Sarah"),  # a first name
        ("I'll see you at Christmas.", "Christmas"),  # a holiday
        (  # a part of a named whole
            "I have been a clinical pharmacist in oncology at The Ottawa Hospital's General Campus for nine"
            " years, and Queensway Carleton Hospital has just posted a position.",
            "General Campus",
        ),
    ],
)
def test_no_firm_of_a_name_kin_word_holiday_or_part(tier: SpacyTier, text: str, not_firm: str) -> None:
    mentions = {(m.value, m.type) for m in spoken(tier, text, "Lin").mentions}
    assert (not_firm, "organization") not in mentions, mentions


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "We moved Ella from Parkside Primary to Oakfield Primary.",
            {("Ella", "attends", "Oakfield Primary"), ("Ella", "attended", "Parkside Primary")},
        ),
        ("Ella got into Oakfield Academy!", {("Ella", "attends", "Oakfield Academy")}),
        # the model tags "Leo into Riverside Academy" one organisation: the school is what follows "into"
        ("We got Leo into Riverside Academy!", {("Leo", "attends", "Riverside Academy")}),
        (
            "Ella's moving up to Oakfield High in September.",
            {("Ella", "attends", "Oakfield High")},
        ),  # no new home
        ("Ella was at Parkside Primary before.", {("Ella", "attended", "Parkside Primary")}),
    ],
)
def test_a_school_given_by_a_move_or_an_admission(
    tier: SpacyTier, text: str, expected: set[tuple[str, str, str]]
) -> None:
    assert schooling(tier, text) == expected


@pytest.mark.parametrize(
    "text",
    ["We might move Ella to Oakfield Primary.", "If she gets into Oakfield Academy we will celebrate."],
)
def test_a_school_move_or_admission_hoped_for_is_none(tier: SpacyTier, text: str) -> None:
    assert schooling(tier, text) == set()


def test_a_job_that_ended_ends_the_workplace(tier: SpacyTier) -> None:
    facts = spoken(tier, "Tom's job at Boots ended last week.", "Lin").facts
    ended = {(f.subject, f.predicate, f.object, f.ends) for f in facts}
    assert ("Tom", "worked-at", "Boots", True) in ended
    assert not {f for f in facts if f.predicate == "works-at"}


def test_a_job_that_will_end_is_still_held(tier: SpacyTier) -> None:
    assert work(tier, "My job at Boots ends in May.") == {("works-at", "Boots")}


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("Tom's left the bank and gone freelance.", ("Tom", "left", "bank")),  # was 'leaves', a plan
        ("I've quit Ocado.", ("Lin", "quit", "Ocado")),  # was 'quited'
        ("We've sold the Corsa.", ("Lin", "sold", "Corsa")),
    ],
)
def test_an_ending_said_in_the_present_perfect_is_done(
    tier: SpacyTier, text: str, fact: tuple[str, str, str]
) -> None:
    assert fact in {(f.subject, f.predicate, f.object) for f in spoken(tier, text, "Lin").facts}


@pytest.mark.parametrize(
    ("text", "new", "old"),
    [
        ("Tom is leaving Acme for a job at Zeta.", ("Tom", "works-at", "Zeta"), ("Tom", "worked-at", "Acme")),
        ("I'm leaving Acme to join Zeta in May.", ("Lin", "works-at", "Zeta"), ("Lin", "worked-at", "Acme")),
        ("I'm leaving Acme for a role at Zeta.", ("Lin", "works-at", "Zeta"), ("Lin", "worked-at", "Acme")),
        # the model tags Acme a person here: the job noun says which side is the job
        ("Tom quit Acme for a job at Zeta.", ("Tom", "works-at", "Zeta"), ("Tom", "worked-at", "Acme")),
        # a town left is a home left, not a job
        ("Left London for a job at Zeta.", ("Lin", "works-at", "Zeta"), ("Lin", "left", "London")),
    ],
)
def test_leaving_for_a_job_elsewhere_is_the_new_job(
    tier: SpacyTier, text: str, new: tuple[str, str, str], old: tuple[str, str, str]
) -> None:
    found = {(f.subject, f.predicate, f.object) for f in spoken(tier, text, "Lin").facts}
    assert {new, old} <= found
    assert not {f for f in found if f[2] == "Zeta" and f[1] != "works-at"}
    assert ("Lin", "worked-at", "London") not in found


def test_a_leaving_announced_ends_the_job_it_names(tier: SpacyTier) -> None:
    facts = spoken(tier, "I'm leaving Acme at the end of June.", "Lin").facts
    assert {(f.predicate, f.object, f.ends) for f in facts} == {("leaves", "Acme", True)}


def employer(tier: SpacyTier, text: str) -> set[tuple[str, str]]:
    return said_by(tier, text, "Lin")


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("Just had my last day at Boots.", ("worked-at", "Boots")),
        ("I've had my last day at Halfords, onto the next thing.", ("worked-at", "Halfords")),
        ("I do admin for a law firm called Harper Lowe.", ("works-at", "Harper Lowe")),
        ("I'm a receptionist at a dental practice called Bright Smiles.", ("works-at", "Bright Smiles")),
        ("im a barista at a little cafe called Grounded", ("works-at", "Grounded")),  # a venue, by a job
        ("I'm a nurse at a care home called Rosewood.", ("works-at", "Rosewood")),
        ("my work (Telstra) is doing restructures again ugh", ("works-at", "Telstra")),
        ("Ocado hired me!!", ("works-at", "Ocado")),  # a firm the hirer
        ("Aldi took me on last month", ("works-at", "Aldi")),
        ("I temp at Barclays three days a week", ("works-at", "Barclays")),  # the model's date, cut
        ("My colleagues at Arup are lovely.", ("works-at", "Arup")),  # Arup tagged a person
        ("My employer, Serco, won't budge on pay.", ("works-at", "Serco")),
        ("Handed my notice in at Greggs.", ("resigned-from", "Greggs")),
        ("They made me redundant at Wilko.", ("worked-at", "Wilko")),
        ("I moved from Barclays to HSBC last month.", ("worked-at", "Barclays")),
        ("I moved from Barclays to HSBC last month.", ("works-at", "HSBC")),
        ("I moved to a new company, Vexa, in May.", ("works-at", "Vexa")),  # a firm's noun, then its name
        ("I joined Monzo in May.", ("works-at", "Monzo")),  # the model's person tag on no first name
        ("so yeah I finished at Sainsbury's on Friday and I start at John Lewis", ("left", "Sainsbury's")),
        ("I got promoted to assistant store manager at Lidl last week.", ("works-at", "Lidl")),  # one "date"
        ("I started at Arup last week.", ("started-at", "Arup")),
        (
            "the thesis is deposited officially, i am done with polytechnique for real",
            ("left", "Polytechnique"),
        ),
    ],
)
def test_an_employer_said_in_passing(tier: SpacyTier, text: str, fact: tuple[str, str]) -> None:
    assert fact in employer(tier, text)


@pytest.mark.parametrize(
    "text",
    [
        "My last day in Spain was lovely.",
        "Just had lunch at Nando's with Sam.",
        "I handed my notice in to the landlord.",
        "I moved from Leeds to York last month.",
        "We might make him redundant at some point.",
        "I work remotely for a startup called Fernweh.",  # the verb's own works-for; no second fact
        "I finished at 5 today.",
    ],
)
def test_no_employer_from_a_place_a_visit_or_a_plan(tier: SpacyTier, text: str) -> None:
    found = employer(tier, text)
    assert not {(p, o) for p, o in found if p in {"works-at", "worked-at", "resigned-from"}}
    assert ("left", "job") not in found


def test_a_verb_opening_a_chat_line_is_no_one_named_so(tier: SpacyTier) -> None:
    extraction = spoken(tier, "Got offered a job at Rolls-Royce and took it!", "Lin")
    assert not [f for f in extraction.facts if f.subject == "Got"]


@pytest.mark.parametrize(
    "text",
    [
        "I'm at the Hilton in Manchester for a conference all week, so replies might be slow.",
        "I'm at Tesco right now.",
    ],
)
def test_a_stay_somewhere_is_no_place_one_is_at(tier: SpacyTier, text: str) -> None:
    assert not {(p, o) for p, o in employer(tier, text) if p in {"is-at", "works-at"}}


def test_a_terse_title_line_then_a_name_line_is_a_role_and_a_workplace(tier: SpacyTier) -> None:
    found = employer(tier, "Nurse now. NHS.")
    assert ("has-role", "Nurse") in found and ("works-at", "NHS") in found
    assert not {o for p, o in employer(tier, "Senior buyer now. Leeds.") if p == "works-at"}  # a place


def test_a_title_line_opening_with_an_ing_word_is_still_a_title(tier: SpacyTier) -> None:
    found = employer(tier, "Teaching assistant now. Larkrise Primary.")  # "Teaching" parsed as the verb
    assert ("has-role", "Teaching assistant") in found and ("works-at", "Larkrise Primary") in found
    assert not employer(tier, "Meeting friends at the pub.")


def roles_as(tier: SpacyTier, text: str) -> set[tuple[str, str]]:
    return {(p, o) for p, o in said_by(tier, text, "Lin") if p == "has-role" or p.endswith("-as")}


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        (
            "I'm 27, live in Tulsa, and make about $54,000 as a dental hygienist.",
            ("has-role", "dental hygienist"),
        ),
        ("My employer is Infosys, where I serve as a delivery manager.", ("has-role", "delivery manager")),
        ("As a nurse, I find this really hard.", ("has-role", "nurse")),
        (
            "I do shifts at the Royal Infirmary as a healthcare assistant.",
            ("has-role", "healthcare assistant"),
        ),
        ("Been at Aldi 3 years as a store manager now.", ("has-role", "store manager")),
        # the clause that holds "as" gives the tense, the main clause whose it is
        (
            "Left my job as a secondary school teacher, now I'm a UX researcher at Canva.",
            ("worked-as", "secondary school teacher"),
        ),
    ],
)
def test_an_occupation_after_as_in_the_speakers_clause_is_their_role(
    tier: SpacyTier, text: str, fact: tuple[str, str]
) -> None:
    assert fact in roles_as(tier, text)


@pytest.mark.parametrize(
    ("text", "absent"),
    [
        ("I want to work as a nurse one day.", "nurse"),  # a wish
        ("I treat it as a job.", "job"),  # no occupation
        ("I went to the party as a pirate.", "pirate"),
        ("My sister works as a nurse in Leeds.", "nurse"),  # someone else's
        ("I'm training as a paramedic.", "paramedic"),  # trains-as, no role yet
        ("I qualified as a nurse in 2019.", "nurse"),  # qualified-as, not worked-as
    ],
)
def test_no_role_from_as_where_the_speaker_holds_none(tier: SpacyTier, text: str, absent: str) -> None:
    got = roles_as(tier, text)
    assert ("has-role", absent) not in got
    assert ("worked-as", absent) not in got


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        (
            "I have accepted a position as practice manager at Elm Tree Surgery, commencing on 1st November.",
            ("works-at", "Elm Tree Surgery"),
        ),
        ("I'm on nights as a care assistant at Sunrise Care Home.", ("works-at", "Sunrise Care Home")),
        ("I'm employed as a senior software engineer at Monzo.", ("works-at", "Monzo")),
        # a role held once, at a school: a job there, not schooling
        ("Left my job as a teacher at Hillside Academy, now I'm a tutor.", ("worked-at", "Hillside Academy")),
    ],
)
def test_the_organisation_at_the_speakers_role_is_their_employer(
    tier: SpacyTier, text: str, fact: tuple[str, str]
) -> None:
    assert fact in work(tier, text)


@pytest.mark.parametrize(
    "text",
    [
        "I work as a nurse and my sister is a nurse at St James's.",  # the same title, someone else's
        "I'm a nurse, and my husband is a teacher at Oakfield Primary.",
    ],
)
def test_an_organisation_at_someone_elses_title_is_not_the_speakers(tier: SpacyTier, text: str) -> None:
    assert work(tier, text) == set()


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("I make $72k plus benefits at Target.", ("works-at", "Target")),
        ("I earn about £40k at Barclays.", ("works-at", "Barclays")),
        ("I make 30k a year with Tesco.", ("works-at", "Tesco")),
    ],
)
def test_where_the_pay_is_earned_is_the_employer(tier: SpacyTier, text: str, fact: tuple[str, str]) -> None:
    assert fact in work(tier, text)


@pytest.mark.parametrize(
    "text",
    [
        "I made 62k last year at Aviva.",  # pay as it was: whether the job goes on is not said
        "I make $20 an hour at Starbucks on Saturdays.",  # a side income, no salary
        "I make about 45k at my job.",
    ],
)
def test_no_employer_from_pay_once_earned_or_no_salary(tier: SpacyTier, text: str) -> None:
    assert work(tier, text) == set()


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("I work at Nando's. Shift manager. It's fine.", ("has-role", "Shift manager")),
        ("Still a cashier at Tesco.", ("has-role", "cashier")),
        ("Still a cashier at Tesco.", ("works-at", "Tesco")),
        ("Currently senior buyer at Next.", ("works-at", "Next")),
        ("now a senior analyst!", ("has-role", "senior analyst")),  # the "I'm" chat leaves out
    ],
)
def test_a_verbless_title_after_work_news_or_still_is_the_speakers(
    tier: SpacyTier, text: str, fact: tuple[str, str]
) -> None:
    assert fact in said_by(tier, text, "Lin")


def test_a_bare_title_at_a_place_is_nobodys(tier: SpacyTier) -> None:
    assert not {f for f in said_by(tier, "A nurse at St James's.", "Lin") if f[0] in {"has-role", "works-at"}}


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        (
            "I've been working with Wipro for six years.",
            ("works-at", "Wipro"),
        ),  # the model tags Wipro a person
        (
            "presently working with Wipro as Technical Lead since 2017",
            ("works-at", "Wipro"),
        ),  # not "Wipro as ..."
        (
            "Good morning sir, myself Ramesh Iyer, presently working with Wipro since 2017.",
            ("works-at", "Wipro"),
        ),
    ],
)
def test_working_with_an_organisation_is_working_for_it(
    tier: SpacyTier, text: str, fact: tuple[str, str]
) -> None:
    assert fact in work(tier, text)


def test_working_with_a_person_is_no_employer(tier: SpacyTier) -> None:
    assert ("works-at", "Tom") not in work(tier, "I work with Tom at Aviva.")


def test_a_name_and_a_role_run_together_are_parted_at_as(tier: SpacyTier) -> None:
    said = said_by(tier, "presently working with Wipro as Technical Lead since 2017", "Lin")
    assert ("has-role", "Technical Lead") in said
    assert not {o for _, o in said if " as " in o}


def test_a_married_name_said_after_a_working_clause_is_its_subject(tier: SpacyTier) -> None:
    """ "Sreejith is in Dubai, working in X": the trailing -ing clause of work is his."""
    facts = spoken(tier, "My husband Sreejith is in Dubai, working in Infosys.", "Lin").facts
    assert ("Sreejith", "works-at", "Infosys") in {(f.subject, f.predicate, f.object) for f in facts}


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("I'm a line manager at Amazon's fulfilment centre in Dunfermline.", ("works-at", "Amazon")),
        (
            "I'm an accounts assistant at a small firm in Bolton called Heywood & Co, earning £27,000.",
            ("works-at", "Heywood & Co"),
        ),
    ],
)
def test_the_organisation_behind_a_site_or_a_firm_called_so(
    tier: SpacyTier, text: str, fact: tuple[str, str]
) -> None:
    assert fact in work(tier, text)


def test_a_firms_name_is_no_role(tier: SpacyTier) -> None:
    said = said_by(tier, "I'm an accounts assistant at a small firm in Bolton called Heywood & Co.", "Lin")
    assert ("has-role", "accounts assistant") in said
    assert not {o for p, o in said if p == "has-role" and "Heywood" in o}


def test_pay_earned_in_a_trailing_clause_is_the_salary(tier: SpacyTier) -> None:
    said = said_by(tier, "I'm a teacher at Oakfield Primary, earning about 40k.", "Lin")
    assert ("has-salary", "40k") in said


@pytest.mark.parametrize(
    ("text", "now", "before"),
    [
        ("pay rise came thru!! 52k → 58k", "58k", "52k"),
        ("raise: 52k -> 58k", "58k", "52k"),
        ("salary 40,000 → 44,000", "44,000", "40,000"),
        ("My pay only went from $22 an hour to $24 an hour.", "$24", "$22"),
    ],
)
def test_a_pay_change_gives_the_pay_now_and_the_pay_before(
    tier: SpacyTier, text: str, now: str, before: str
) -> None:
    said = said_by(tier, text, "Lin")
    assert ("has-salary", now) in said
    assert ("earned", before) in said
    assert ("has-salary", before) not in said


def test_a_rent_change_gives_the_rent_now(tier: SpacyTier) -> None:
    said = said_by(tier, "rent 1,200 → 1,350", "Lin")
    assert ("has-rent", "1,350") in said
    assert ("has-rent", "1,200") not in said


def test_numbers_without_pay_are_no_pay(tier: SpacyTier) -> None:
    assert not {f for f in said_by(tier, "score 52 → 58", "Lin") if f[0] in {"has-salary", "earned"}}


def test_a_form_line_of_key_value_pairs_reads_each(tier: SpacyTier) -> None:
    said = said_by(tier, "occupation: civil engineer; employer: Larsen & Toubro; spouse: Meenal.", "Lin")
    assert {
        ("has-role", "civil engineer"),
        ("works-at", "Larsen & Toubro"),
        ("is-married-to", "Meenal"),
    } <= said


def test_a_designation_is_a_role(tier: SpacyTier) -> None:
    assert ("has-role", "Senior Analyst") in said_by(tier, "Designation: Senior Analyst", "Lin")


@pytest.mark.parametrize(
    ("text", "firm"),
    [
        ("1. signed with lumen. QA lead, start 1 august", "lumen"),
        ("signed w/ Stripe today 🙌 staff eng, $212k base", "Stripe"),
        ("I signed with Monzo yesterday, starting in March.", "Monzo"),
        ("yo. 2 weeks in at lumen", "lumen"),
        ("Good evening. I have now completed two weeks at St George's. It is demanding.", "St George's"),
        ("I've done my first month at Monzo and I love it.", "Monzo"),
        ("signed with Sainsbury's today", "Sainsbury's"),  # a firm's possessive is its name
    ],
)
def test_a_contract_signed_or_weeks_served_at_a_firm_is_the_job(
    tier: SpacyTier, text: str, firm: str
) -> None:
    assert work(tier, text) == {("works-at", firm)}


@pytest.mark.parametrize(
    "text",
    [
        "We signed with Foxtons for the flat in Hackney.",
        "Signed with a new letting agent today.",
        "I signed with them today!",
        "He signed with Arsenal last year.",
        "Should I sign with Monzo?",
        "2 weeks in at the gym and I can feel it.",
        "My son has done two weeks at Camp Kanata.",  # someone else's time
    ],
)
def test_a_home_agent_someone_else_or_a_doubt_signs_no_job(tier: SpacyTier, text: str) -> None:
    assert work(tier, text) == set()


@pytest.mark.parametrize(
    ("text", "unit"),
    [
        ("I'm working in AMU, Acute Medical Unit, as Band 4 while waiting for OSCE.", "AMU"),
        ("I'm working in the Acute Medical Unit now.", "Acute Medical Unit"),
        ("I work in ICU at St Mary's Hospital.", "ICU"),
    ],
)
def test_a_ward_or_unit_worked_in_is_no_employer(tier: SpacyTier, text: str, unit: str) -> None:
    """A part of the employer: stated as works-in, which neither is nor ends the employer."""
    facts = {(f.predicate, f.object) for f in spoken(tier, text, "Lin").facts if f.subject == "Lin"}
    assert ("works-in", unit) in facts
    assert not any(p in {"works-at", "worked-at"} and o == unit for p, o in facts)


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        (
            "Hubby Manoj got transfer to Bhubaneswar, so we are relocating in May. He is in SBI.",
            ("Manoj", "SBI"),
        ),
        ("now I am in PhysicsWallah as academic counsellor, salary is 4.8 LPA.", ("Lin", "PhysicsWallah")),
    ],
)
def test_a_person_in_a_firm_works_there(tier: SpacyTier, text: str, fact: tuple[str, str]) -> None:
    """Indian English 'he is in SBI'; the speaker's own only with a role said."""
    said = {(f.subject, f.predicate, f.object) for f in spoken(tier, text, "Lin").facts}
    assert (fact[0], "works-at", fact[1]) in said


@pytest.mark.parametrize(
    "text", ["I'm in Tesco, what should I buy for dinner?", "My sister is in Paris this week."]
)
def test_being_in_a_shop_or_a_city_is_no_job(tier: SpacyTier, text: str) -> None:
    assert not [f for f in spoken(tier, text, "Lin").facts if f.predicate == "works-at"]


def test_a_kin_word_run_into_a_name_is_the_relation_not_the_name(tier: SpacyTier) -> None:
    """'Hubby Manoj' tagged one person: the name is Manoj, the speaker's husband; a city the model
    tagged a person ('Bhubaneswar') is no one a later 'he' could mean."""
    text = "Hubby Manoj got transfer to Bhubaneswar, so we are relocating in May. He is in SBI."
    said = {(f.subject, f.predicate, f.object) for f in spoken(tier, text, "Lin").facts}
    assert ("Lin", "is-married-to", "Manoj") in said
    assert not any("Hubby" in s or "Hubby" in o for s, _, o in said)


def test_a_title_run_into_the_firm_is_cut_at_at(tier: SpacyTier) -> None:
    """The model tagged 'Head of Design at Helix' one organisation: the employer is Helix."""
    assert work(tier, "I'm now Head of Design at Helix.") == {("works-at", "Helix")}


@pytest.mark.parametrize(
    ("text", "person", "firm"),
    [
        ("My wife Shona loves her job at the Guardian.", "Shona", "Guardian"),
        ("My wife Shona is commuting back to her job at the Guardian twice a week.", "Shona", "Guardian"),
        ("Tom hates his job at Tesco.", "Tom", "Tesco"),
    ],
)
def test_his_or_her_job_at_a_firm_is_the_named_subjects(
    tier: SpacyTier, text: str, person: str, firm: str
) -> None:
    said = {(f.subject, f.predicate, f.object) for f in spoken(tier, text, "Lin").facts}
    assert (person, "works-at", firm) in said
    assert ("Lin", "works-at", firm) not in said


def test_working_in_an_untagged_firm_is_the_employer_a_field_is_not(tier: SpacyTier) -> None:
    assert ("worked-at", "Mindtree") in work(tier, "I was working in Mindtree for 8 years.")
    assert work(tier, "I work in Finance.") == set()  # a field the model tags an organisation
    assert work(tier, "I work in Marketing.") == set()


def test_been_with_a_name_the_model_calls_a_person_but_no_first_name_is_no_partner(tier: SpacyTier) -> None:
    def facts(text: str) -> set[tuple[str, str]]:
        return {(f.predicate, f.object) for f in spoken(tier, text, "Lin").facts}

    assert ("has-partner", "Arup") not in facts("I've been with Arup for five years.")
    assert ("has-partner", "Leah") in facts("I've been with Leah for two years.")


def test_retired_from_said_with_be_is_a_job_that_ended(tier: SpacyTier) -> None:
    facts = {(f.predicate, f.object, f.ends) for f in spoken(tier, "I'm retired from the NHS.", "Lin").facts}
    assert ("retired-from", "NHS", True) in facts
    teaching = spoken(tier, "I'm retired from teaching.", "Lin").facts
    assert not {f for f in teaching if f.predicate == "retired-from"}


@pytest.mark.parametrize(
    ("text", "facts"),
    [
        (
            "I accepted a job as a registrar at Christchurch Hospital.",
            {("has-role", "registrar"), ("works-at", "Christchurch Hospital")},
        ),
        (
            "I spent eight years as a product manager at Flipkart.",
            {("worked-as", "product manager"), ("worked-at", "Flipkart")},
        ),
        (
            "I retired as head teacher at Hillside Academy.",
            {("worked-as", "head teacher"), ("worked-at", "Hillside Academy")},
        ),
    ],
)
def test_the_organisation_of_a_role_taken_or_held_once(
    tier: SpacyTier, text: str, facts: set[tuple[str, str]]
) -> None:
    said = {(f.predicate, f.object) for f in spoken(tier, text, "Lin").facts if f.subject == "Lin"}
    assert facts <= said


def test_money_spent_as_something_is_no_career(tier: SpacyTier) -> None:
    said = spoken(tier, "I spent my bonus as a deposit on a flat.", "Lin").facts
    assert not {f for f in said if f.predicate in {"worked-as", "worked-at", "has-role"}}


def test_promoted_at_a_name_is_the_employer_at_work_is_none(tier: SpacyTier) -> None:
    assert work(tier, "I got promoted at work!") == set()
    assert ("works-at", "Tesco") in work(tier, "I got promoted at Tesco!")


def test_become_team_lead_at_a_firm(tier: SpacyTier) -> None:
    """The parser makes 'lead' a conjunct of the verb: it read 'is-a team' and no employer."""
    text = "Any good podcasts about leadership? I've just become team lead at Ocado and feel out of my depth."
    said = {(f.predicate, f.object) for f in spoken(tier, text, "Lin").facts if f.subject == "Lin"}
    assert {("has-role", "team lead"), ("works-at", "Ocado")} <= said
    assert ("is-a", "team") not in said


@pytest.mark.parametrize(
    ("text", "facts"),
    [
        (
            "I held the post of deputy headteacher at Greenway Comprehensive until my retirement last year.",
            {("worked-as", "deputy headteacher"), ("worked-at", "Greenway Comprehensive")},
        ),
        (
            "I hold the position of Head of Finance at Arup.",
            {("has-role", "Head of Finance"), ("works-at", "Arup")},
        ),
        ("I'm 62 and still working. Part-time at B&Q, after 30 years at Ford.", {("worked-at", "Ford")}),
    ],
)
def test_a_post_held_and_years_after_which_a_job_ended(
    tier: SpacyTier, text: str, facts: set[tuple[str, str]]
) -> None:
    said = {(f.predicate, f.object) for f in spoken(tier, text, "Lin").facts if f.subject == "Lin"}
    assert facts <= said
    assert not {p for p, _ in said if p.startswith("held")}


@pytest.mark.parametrize(
    ("text", "facts"),
    [
        (
            "These days I'm a junior designer with Arup.",
            {("has-role", "junior designer"), ("works-at", "Arup")},
        ),
        (
            "I'm now a trainee paramedic with the London Ambulance Service.",
            {("works-at", "London Ambulance Service")},
        ),  # the title word parsed a modifier of "trainee"
        (
            "It was tough to leave after nine years as a staff nurse at Addenbrooke's.",
            {("worked-as", "staff nurse"), ("worked-at", "Addenbrooke's")},
        ),
        (
            "I can't work on this visa, which is hard after eight years as an engineer at Infosys.",
            {("worked-as", "engineer"), ("worked-at", "Infosys")},
        ),
        ("After a decade in retail I moved into marketing at Unilever.", {("works-at", "Unilever")}),
        ("Two years ago I switched into data science at Ocado.", {("works-at", "Ocado")}),
    ],
)
def test_a_role_with_an_employer_years_in_a_role_and_a_move_into_a_field(
    tier: SpacyTier, text: str, facts: set[tuple[str, str]]
) -> None:
    said = {(f.predicate, f.object) for f in spoken(tier, text, "Lin").facts if f.subject == "Lin"}
    assert facts <= said
    assert not {p for p, _ in said if p in {"switched-into", "moved-into", "switched-at"}}


@pytest.mark.parametrize(
    "text",
    [
        "She's exhausted after ten years as a nurse at Guy's.",  # her years, not the speaker's
        "We moved into a flat at Riverside Court.",  # a home
        "I moved into consulting at Leeds last year.",  # a city is no employer
    ],
)
def test_no_job_from_anothers_years_a_home_or_a_city(tier: SpacyTier, text: str) -> None:
    assert not work(tier, text)


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("My neck is wrecked, I sit all day at my desk at Experian.", ("Lin", "works-at", "Experian")),
        (
            "I sit at a desk all day at Zurich Insurance and my back hates it.",
            ("Lin", "works-at", "Zurich Insurance"),
        ),
        ("Good news, my wife Ines has a job lined up at Siemens.", ("Ines", "works-at", "Siemens")),
        ("My son Omar got into Imperial, we're thrilled.", ("Omar", "attends", "Imperial")),
        ("Mia goes to the breakfast club at Oakfield Primary.", ("Mia", "attends", "Oakfield Primary")),
    ],
)
def test_a_desk_at_work_a_job_lined_up_and_a_place_won_at_a_school(
    tier: SpacyTier, text: str, fact: tuple[str, str, str]
) -> None:
    said = {(f.subject, f.predicate, f.object) for f in spoken(tier, text, "Lin").facts}
    assert fact in said
    assert not [f for f in said if f[1] in {"sits-at", "goes-to"}]


@pytest.mark.parametrize(
    "text",
    [
        "We got into London really late last night.",  # a city reached
        "I got into Netflix during lockdown.",  # a habit
        "If Leo gets into Harvard I will cry.",  # not yet
        "I go to a yoga class at the leisure centre.",  # no school
    ],
)
def test_no_school_from_a_city_reached_a_habit_or_a_hope(tier: SpacyTier, text: str) -> None:
    said = {(f.predicate, f.object) for f in spoken(tier, text, "Lin").facts}
    assert not [p for p, _ in said if p in {"attends", "studies-at"}]


@pytest.mark.parametrize(
    ("text", "role"),
    [
        ("Signed the contract! Staff nurse, starting 3 March.", "Staff nurse"),
        ("Team leader, start Monday.", "Team leader"),
    ],
)
def test_a_title_line_with_its_start_is_the_role(tier: SpacyTier, text: str, role: str) -> None:
    assert ("has-role", role) in {(f.predicate, f.object) for f in spoken(tier, text, "Lin").facts}


def test_a_start_line_without_a_title_is_no_role(tier: SpacyTier) -> None:
    said = {(f.predicate, f.object) for f in spoken(tier, "Great news, start Monday.", "Lin").facts}
    assert not [p for p, _ in said if p == "has-role"]


def test_used_to_be_at_a_firm_the_model_tags_a_place_is_an_old_job(tier: SpacyTier) -> None:
    assert ("worked-at", "Monzo") in work(tier, "I used to be at Monzo.")
    assert not work(tier, "I used to be at Leeds.")  # a known town


@pytest.mark.parametrize(
    ("text", "school"),
    [
        ("I am in my 5th year of PhD at Polytechnique Montréal", "Polytechnique Montréal"),
        ("I'm in the final year of my degree at Leeds University", "Leeds University"),
    ],
)
def test_a_year_of_a_degree_at_a_place_is_studying_there(tier: SpacyTier, text: str, school: str) -> None:
    assert ("studies-at", school) in said_by(tier, text, "Theo")


@pytest.mark.parametrize(
    "text",
    ["I was in my 3rd year of PhD at MIT", "My son is in his final year of his degree at Leeds University"],
)
def test_no_studies_of_the_speaker_from_a_past_year_or_anothers(tier: SpacyTier, text: str) -> None:
    assert not {o for p, o in said_by(tier, text, "Theo") if p == "studies-at"}


def test_a_long_chat_run_on_is_read(tier: SpacyTier) -> None:
    """A person's run-on of 60 to 120 tokens is theirs, not pasted text (MAX_SENTENCE_TOKENS)."""
    text = (
        "I drive OTR for Buckeye Freightways out of Columbus, been there going on 6 years, made about "
        "62k last year which sounds fine until you see where it all goes, and honestly with the kids and "
        "the rent and the truck payments and the insurance and everything else going on at the moment I "
        "just need to figure out a proper budget that actually works for us this year"
    )
    assert ("works-at", "Buckeye Freightways") in said_by(tier, text, "Travis")


def employers(tier: SpacyTier, text: str) -> set[tuple[str, str]]:
    """The speaker's workplace facts, "works-for" read as "works-at" (one family)."""
    extraction = spoken(tier, text, "Lin")
    named = {"works-at", "works-for", "worked-at", "studies-at"}
    return {
        ("works-at" if f.predicate == "works-for" else f.predicate, f.object)
        for f in extraction.facts
        if f.subject == "Lin" and f.predicate in named
    }


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        # with its full stop the parser hangs "at" on "am", past the role (it was "is-at Hogan Lovells")
        ("I am a paralegal at Hogan Lovells", ("works-at", "Hogan Lovells")),
        ("I've been a paralegal at Hogan Lovells for 2 years.", ("works-at", "Hogan Lovells")),
        ("Left teaching, now I'm a UX researcher at Canva.", ("works-at", "Canva")),  # a job, not study
        ("I'm a PhD researcher at UCL.", ("studies-at", "UCL")),
        # a duration without "for" (the model ran the name into the date "Google 3 years")
        ("I've been at Google 3 years now", ("works-at", "Google")),
        ("ive been at google 3 years", ("works-at", "Google")),
        # a team's firm
        ("I'm on the platform team at Monzo.", ("works-at", "Monzo")),
        ("I was in the data team at Ocado until May.", ("worked-at", "Ocado")),
        # a firm hung on the field one works in
        ("i work in sales for a company called Brightwave", ("works-at", "Brightwave")),
        ("I work in IT for the NHS.", ("works-at", "NHS")),
        ("I'm a junior dev at a fintech called Pennylane.", ("works-at", "Pennylane")),
        ("got hired by Shopify!", ("works-at", "Shopify")),  # chat's dropped "I" before a passive
    ],
)
def test_a_workplace_said_with_a_role_team_or_stay_is_read(
    tier: SpacyTier, text: str, fact: tuple[str, str]
) -> None:
    assert fact in employers(tier, text)


@pytest.mark.parametrize(
    "text",
    [
        "I was at Lidl 2 days ago.",  # days are an errand, not a stay
        "I'm in a team of five at work.",  # no firm named
        "I'm on the team with Sarah.",
        "I'm a nurse at home with the kids.",
    ],
)
def test_no_workplace_from_a_visit_or_an_unnamed_team(tier: SpacyTier, text: str) -> None:
    assert employers(tier, text) == set()


@pytest.mark.parametrize("text", ["I got married in June to Tom.", "got married in June to Tom"])
def test_getting_married_is_a_marriage_now(tier: SpacyTier, text: str) -> None:
    """Parsed as a passive ("got" its auxiliary): it was stored "was-married-to", a marriage over."""
    facts = {(f.predicate, f.object) for f in spoken(tier, text, "Lin").facts if f.subject == "Lin"}
    assert ("is-married-to", "Tom") in facts
    assert ("was-married-to", "Tom") not in facts


@pytest.mark.parametrize(
    ("text", "old", "new"),
    [
        ("Quit Deliveroo, starting at Octopus Energy on Monday.", "Deliveroo", "Octopus Energy"),
        ("I quit Tesco in May and joined Aldi", "Tesco", "Aldi"),
    ],
)
def test_quit_is_its_own_past(tier: SpacyTier, text: str, old: str, new: str) -> None:
    """Tagged a present ("quits Tesco" ended nothing; "Deliveroo" was the subject of the new job)."""
    facts = {(f.subject, f.predicate, f.object) for f in spoken(tier, text, "Lin").facts}
    assert ("Lin", "quit", old) in facts and ("Lin", "works-at", new) in facts


@pytest.mark.parametrize("text", ["I want to quit Tesco", "Should I quit Tesco?", "Quit smoking!"])
def test_a_quit_weighed_asked_or_urged_ends_nothing(tier: SpacyTier, text: str) -> None:
    assert not {f for f in spoken(tier, text, "Lin").facts if f.predicate in {"quit", "quits"}}


@pytest.mark.parametrize(
    ("text", "role"),
    [
        ("I was working in TCS before, now I joined Cognizant as team lead.", "team lead"),  # "lead" a verb
        ("then I start at John Lewis on the first as a visual merchandiser", "visual merchandiser"),
    ],
)
def test_the_role_after_a_jobs_as_is_read_whatever_the_parse(tier: SpacyTier, text: str, role: str) -> None:
    assert role in roles(tier, text)


@pytest.mark.parametrize("text", ["I joined the gym as well", "I started at Tesco as soon as I could"])
def test_an_as_that_names_no_title_gives_no_role(tier: SpacyTier, text: str) -> None:
    assert roles(tier, text) == set()


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("im part time at waitrose", ("works-at", "Waitrose")),  # was "is-at"
        ("I'm full time at Tesco now", ("works-at", "Tesco")),
        ("i got a job at the bank, Santander", ("works-at", "Santander")),  # was "has-job Santander"
        ("I got an offer, Monzo", ("has-offer-from", "Monzo")),
    ],
)
def test_hours_at_a_firm_or_a_job_named_after_it(tier: SpacyTier, text: str, fact: tuple[str, str]) -> None:
    found = said_by(tier, text, "Lin")
    assert fact in found
    assert not {f for f in found if f[0] in {"has-job", "has-offer"}}


def test_a_boss_who_is_a_nightmare_is_no_one_called_nightmare(tier: SpacyTier) -> None:
    assert not {f for f in said_by(tier, "my boss at Lidl is a nightmare", "Lin") if f[0] == "has-manager"}


def test_an_as_before_a_comparison_is_no_role(tier: SpacyTier) -> None:
    assert roles(tier, "I joined Tesco, same as my brother the engineer") == set()


@pytest.mark.parametrize(
    "text",
    [
        "No longer at Brightwater, started at Ocado.",
        "No longer at Brightwater, joined Ocado in May.",
        "No longer at Brightwater, I'm at Ocado now.",
    ],
)
def test_no_longer_at_one_firm_and_at_the_next(tier: SpacyTier, text: str) -> None:
    """The line drops its "I'm"; the parse hangs "no longer at X" on the next clause's verb."""
    assert work(tier, text) == {("worked-at", "Brightwater"), ("works-at", "Ocado")}


def test_no_longer_at_a_firm_said_of_someone_else_is_not_the_speakers(tier: SpacyTier) -> None:
    assert work(tier, "No longer at Brightwater, she's at Ocado now.") == set()


@pytest.mark.parametrize("text", ["Brightwater let me go last week.", "They let me go from Brightwater."])
def test_a_firm_that_let_the_speaker_go_is_a_job_ended(tier: SpacyTier, text: str) -> None:
    assert work(tier, text) == {("worked-at", "Brightwater")}


@pytest.mark.parametrize(
    "text", ["Dave let me go early today.", "Brightwater might let me go.", "Brightwater didn't let me go."]
)
def test_a_person_letting_one_go_or_a_firm_that_may_is_no_job_ended(tier: SpacyTier, text: str) -> None:
    assert work(tier, text) == set()


def test_a_team_leader_is_a_team_lead(tier: SpacyTier) -> None:
    """The manager family knows `has-team-lead`; "team leader" made a predicate of its own."""
    assert ("has-team-lead", "Priya") in said_by(tier, "Priya is my new team leader.", "Lin")


def managers(tier: SpacyTier, text: str) -> set[str]:
    extraction = spoken(tier, text, "Lin")
    return {
        f.object
        for f in extraction.facts
        if f.subject == "Lin" and f.predicate in {"has-manager", "reports-to"}
    }


@pytest.mark.parametrize(
    ("text", "boss"),
    [
        ("Tom will be my new boss.", "Tom"),  # who one reports to from the start, as "my boss will be Tom"
        ("The hiring manager is Tom Whitfield, he will be my manager.", "Tom Whitfield"),
        ("Helen is lovely. I report straight to her.", "Helen"),
        ("Dai is my HoD.", "Dai"),  # a head of department
    ],
)
def test_a_manager_to_be_reported_to_by_pronoun_or_a_head_of_department(
    tier: SpacyTier, text: str, boss: str
) -> None:
    assert boss in managers(tier, text)


@pytest.mark.parametrize(
    "text",
    [
        "Tom would be my manager if I took it.",  # supposed
        "Tom and Sue are great. I report to her.",  # two people: whose "her"?
        "helen is lovely, very different from bevan. i report straight to her",  # two first names
    ],
)
def test_no_manager_supposed_or_by_a_pronoun_of_two_people(tier: SpacyTier, text: str) -> None:
    # guards for the rules above (they hold on the code before them too)
    assert managers(tier, text) == set()


@pytest.mark.parametrize(
    ("text", "title"),
    [
        ("I GOT IT!!! head of science from september", "head of science"),
        ("Director of Operations at Halden, from March", "Director of Operations"),
    ],
)
def test_a_head_of_something_said_as_a_title_line(tier: SpacyTier, text: str, title: str) -> None:
    extraction = spoken(tier, text, "Lin")
    assert ("has-role", title) in {(f.predicate, f.object) for f in extraction.facts if f.subject == "Lin"}


def test_years_at_a_place_are_how_long_not_part_of_its_name(tier: SpacyTier) -> None:
    # the parse makes "yrs" the object and the name its modifier ("Greenmeadow 11 yrs" before)
    assert ("works-at", "Greenmeadow") in work(tier, "been teaching at greenmeadow 11 yrs")


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        (
            "So I'm officially a Fernhill employee lol",
            ("works-at", "Fernhill"),
        ),  # no title "Fernhill employee"
        ("I was a Quokka employee for 3 years", ("worked-at", "Quokka")),
        ("my new company is Fernhill Digital", ("works-at", "Fernhill Digital")),
        ("Working for Fernhill has been great so far", ("works-at", "Fernhill")),
        ("Working at Monzo is good for me.", ("works-at", "Monzo")),
        ("Working at Zoho is fine for now", ("works-at", "Zoho")),  # for now: the speaker's present
        ("working at bunnings is ok so far", ("works-at", "Bunnings")),
    ],
)
def test_a_firm_one_is_on_the_payroll_of_or_says_working_for_has_been_good(
    tier: SpacyTier, text: str, fact: tuple[str, str]
) -> None:
    got = work(tier, text)
    assert fact in got
    assert not {
        f for f in spoken(tier, text, "Lin").facts if f.predicate == "has-role" and "employee" in f.object
    }


@pytest.mark.parametrize(
    "text",
    [
        "Working at Monzo is stressful.",  # anyone's
        "Working for Quokka was awful.",  # maybe a job left
        "Working for Quokka was fine for now.",  # past
        "I'm a regular at a pub called The Fox.",  # a pub is work only for a job
        "my work laptop died again, my work mates are great",  # no workplace named
        "Dan hired me.",  # a person hired me: no firm named
        "Hopefully Ocado will hire me.",
        "Ocado didn't hire me.",
        "My company is doing well.",
    ],
)
def test_working_somewhere_said_of_anyone_is_no_job(tier: SpacyTier, text: str) -> None:
    # guards for the rules above (they hold on the code before them too)
    assert work(tier, text) == set()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("signed the contract with Fernhill yesterday", {("works-at", "Fernhill")}),
        ("Just signed my contract with Fernhill Digital!", {("works-at", "Fernhill Digital")}),
        ("signed a 24 month contract with Vodafone for my phone", set()),  # another contract
        ("We signed the contract with Bellway for the house", set()),
    ],
)
def test_a_contract_signed_with_a_firm_is_the_job(
    tier: SpacyTier, text: str, expected: set[tuple[str, str]]
) -> None:
    assert work(tier, text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "Paul is my husband, a civil engineer with Queensland Rail.",
        "My husband Paul, a civil engineer with Queensland Rail, says hi.",
        "Paul's my husband, civil engineer with Queensland Rail",  # "Paul's" parsed a possessive
    ],
)
def test_a_job_set_beside_a_named_person_is_theirs(tier: SpacyTier, text: str) -> None:
    got = {(f.subject, f.predicate, f.object) for f in spoken(tier, text, "Lin").facts}
    assert {("Paul", "has-role", "civil engineer"), ("Paul", "works-at", "Queensland Rail")} <= got


@pytest.mark.parametrize(
    "text",
    [
        "My sister, a nurse, says hi.",  # a kin word with no name: whose?
        "Tom and Paul came. He's my husband, a nurse at the Royal.",  # which of two?
    ],
)
def test_no_job_beside_a_person_the_sentence_does_not_name(tier: SpacyTier, text: str) -> None:
    # guards for the rule above (they hold on the code before it too)
    assert not {f for f in spoken(tier, text, "Lin").facts if f.predicate in {"has-role", "works-at"}}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("11 yrs teaching, all at greenmeadow.", {("works-at", "Greenmeadow")}),  # a verbless line of years
        ("6 years nursing at the Royal", {("works-at", "Royal")}),
        ("11 years at Greenmeadow.", set()),  # no word of work: a home, a school?
    ],
)
def test_a_verbless_line_of_years_of_work_says_where(
    tier: SpacyTier, text: str, expected: set[tuple[str, str]]
) -> None:
    assert work(tier, text) == expected


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("Raj has been my manager for six years.", ("Lin", "has-manager", "Raj")),  # "Raj" tagged an adverb
        ("Raj works at Tesco.", ("Raj", "works-at", "Tesco")),
    ],
)
def test_a_name_opening_a_sentence_tagged_an_adverb_is_its_subject(
    tier: SpacyTier, text: str, fact: tuple[str, str, str]
) -> None:
    assert fact in {(f.subject, f.predicate, f.object) for f in spoken(tier, text, "Lin").facts}


@pytest.mark.parametrize("text", ["Still is my manager lol", "Honestly is the best policy"])
def test_an_english_adverb_opening_a_sentence_is_no_subject(tier: SpacyTier, text: str) -> None:
    # guards for the rule above (they hold on the code before it too)
    assert not spoken(tier, text, "Lin").facts


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Honestly being a junior doctor at Addenbrooke's is breaking me.",
            {("has-role", "junior doctor"), ("works-at", "Addenbrooke's")},
        ),
        (
            "tbh being a barista at grindhouse is fun but the pay is awful",
            {("has-role", "barista"), ("works-at", "Grindhouse")},
        ),
    ],
)
def test_being_a_job_at_a_named_place_is_the_speakers(
    tier: SpacyTier, text: str, expected: set[tuple[str, str]]
) -> None:
    assert expected <= said_by(tier, text, "Lin")


@pytest.mark.parametrize(
    "text",
    [
        "Being a nurse is hard.",  # no employer: anyone's
        "My sister being a nurse at the Royal Free helps.",  # hers
        "Being a teacher at Greenfield was the best time of my life.",  # a past the clause does not end
    ],
)
def test_being_a_job_not_the_speakers_now_gives_none(tier: SpacyTier, text: str) -> None:
    # guards for the rule above (they hold on the code before it too)
    assert not {f for f in said_by(tier, text, "Lin") if f[0] in {"has-role", "works-at"}}


@pytest.mark.parametrize(
    ("text", "firm"),
    [
        ("I've been freelancing since leaving the BBC last year.", "BBC"),
        ("After leaving Deloitte in March I took six months off.", "Deloitte"),
    ],
)
def test_since_leaving_a_firm_the_speaker_left_it(tier: SpacyTier, text: str, firm: str) -> None:
    assert ("left", firm) in said_by(tier, text, "Lin")


@pytest.mark.parametrize(
    "text",
    [
        "After leaving Paris we drove south.",  # a trip
        "Tom has been sad since leaving Google.",  # Tom's
    ],
)
def test_leaving_a_place_or_anothers_leaving_is_no_job_left(tier: SpacyTier, text: str) -> None:
    # guards for the rule above (they hold on the code before it too)
    assert not {f for f in said_by(tier, text, "Lin") if f[0] == "left"}


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        (
            "Should I leave Halden for the Monzo offer?",
            ("works-at", "Halden"),
        ),  # a town's name, said of a job
        ("I might be leaving Accenture soon, nothing signed though.", ("works-at", "Accenture")),
        ("Is it mad to quit Deloitte with no job lined up?", ("works-at", "Deloitte")),
        ("I'll probably stay at Arup another year, but £46k isn't great.", ("works-at", "Arup")),
        ("I don't want to leave Brightwave.", ("works-at", "Brightwave")),
        ("I'm thinking of leaving Leeds.", ("lives-in", "Leeds")),
        ("Should I leave London for the Monzo offer?", ("lives-in", "London")),
        ("Should we stay in Bristol or move to Bath?", ("lives-in", "Bristol")),
    ],
)
def test_a_move_away_only_weighed_says_where_one_is(
    tier: SpacyTier, text: str, fact: tuple[str, str]
) -> None:
    assert fact in said_by(tier, text, "Lin")


@pytest.mark.parametrize(
    "text",
    [
        "We'll stay at the Marriott in Leeds.",  # a night's stay
        "When should we leave Paris?",  # a trip
        "My sister wants to leave Google.",  # hers
        "Should I tell my boss I'm leaving?",  # no name
    ],
)
def test_no_place_from_a_stay_a_trip_or_anothers_move(tier: SpacyTier, text: str) -> None:
    # guards for the rule above (they hold on the code before it too)
    assert not {f for f in said_by(tier, text, "Lin") if f[0] in {"works-at", "lives-in"}}


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("When I worked at Tesco I hated Mondays.", ("Lin", "worked-at", "Tesco")),  # no question
        (
            "Back when I was at Nokia in Espoo, my boss Jari used to say ship it.",
            ("Lin", "worked-at", "Nokia"),
        ),
        (
            "Now I'm at a tiny indie studio called Pine Harbor Games.",
            ("Lin", "works-at", "Pine Harbor Games"),
        ),
        ("I joined a startup called Lumen.", ("Lin", "works-at", "Lumen")),
        (
            "My friend Sofia joined a small consultancy called Brightwater Partners.",
            ("Sofia", "works-at", "Brightwater Partners"),
        ),
    ],
)
def test_a_job_in_a_clause_of_past_time_or_at_a_firm_called_by_name(
    tier: SpacyTier, text: str, fact: tuple[str, str, str]
) -> None:
    assert fact in {(f.subject, f.predicate, f.object) for f in spoken(tier, text, "Lin").facts}


def test_a_band_joined_is_no_job(tier: SpacyTier) -> None:
    # a guard for the rule above (it holds on the code before it too)
    assert not {f for f in said_by(tier, "I joined a band called The Lumens.", "Lin") if f[0] == "works-at"}


@pytest.mark.parametrize(
    "text",
    [
        "Quit my job at HSBC after 8 years.",  # chat's dropped "I": no clause rule read it
        "quit my job at hsbc after 8 yrs, now doing uber eats on my bike lmao.",
        "Lost my job at Argos today.",  # read as "lost" before too
    ],
)
def test_a_job_quit_with_the_i_dropped_is_no_current_job(tier: SpacyTier, text: str) -> None:
    got = [f for f in spoken(tier, text, "Lin").facts if f.subject == "Lin" and "at" in f.predicate]
    assert got and all(f.predicate == "worked-at" and f.ends for f in got)


def test_a_job_one_only_wants_to_quit_is_held(tier: SpacyTier) -> None:
    # a guard for the rule above (it holds on the code before it too)
    assert ("works-at", "HSBC") in said_by(tier, "I want to quit my job at HSBC.", "Lin")


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("I work in a call centre for Sky.", ("works-at", "Sky")),
        ("I work in a warehouse for Amazon in Leeds.", ("works-at", "Amazon")),
        ("I worked in a factory for Toyota for years.", ("worked-at", "Toyota")),
        ("Even though I work at Google, I hate tech.", ("works-at", "Google")),  # conceded, so said
        ("I worked in Deutsche Bank for years.", ("worked-at", "Deutsche Bank")),  # another language's "in"
        ("I work weekends at Tesco as a cashier.", ("works-at", "Tesco")),
    ],
)
def test_the_firm_a_workplace_is_for(tier: SpacyTier, text: str, fact: tuple[str, str]) -> None:
    assert fact in work(tier, text)


def test_a_department_or_a_place_worked_in_is_no_employer(tier: SpacyTier) -> None:
    # guards for the rule above (they hold on the code before it too)
    assert not work(tier, "I work in Finance.")
    assert not work(tier, "I work in London.")


def test_the_role_of_one_who_works_nights(tier: SpacyTier) -> None:
    facts = triples(tier, "My boyfriend Tavita works nights as a security guard.", "Lin")
    assert ("Tavita", "has-role", "security guard") in facts


@pytest.mark.parametrize(
    ("text", "facts"),
    [
        ("I'm leaving Acme to join Halden as a chef.", {("works-at", "Halden"), ("has-role", "chef")}),
        ("I left Acme to join Halden.", {("works-at", "Halden")}),
        (
            "After 11 years at Carrow & Finch I'm leaving to join Northbeam Energy as head of procurement.",
            {("works-at", "Northbeam Energy"), ("has-role", "head of procurement")},
        ),
        (
            "Since joining Halden as a designer, I've been happy.",
            {("works-at", "Halden"), ("has-role", "designer")},
        ),
    ],
)
def test_a_firm_joined_as_a_leavings_purpose_or_since(
    tier: SpacyTier, text: str, facts: set[tuple[str, str]]
) -> None:
    assert facts <= said_by(tier, text, "Lin")


@pytest.mark.parametrize(
    ("text", "firm"),
    [
        ("Should I leave Acme to join Halden?", "Halden"),  # only weighed
        ("I might leave Acme to join Halden.", "Halden"),
        ("I left Leeds to join Tom in Paris.", "Tom"),  # a person joined
        ("My wife left Acme to join Halden.", "Halden"),  # another's move
    ],
)
def test_a_firm_joined_only_in_a_plan_or_by_another_is_not_mine(
    tier: SpacyTier, text: str, firm: str
) -> None:
    assert not {p for p, o in said_by(tier, text, "Lin") if o == firm and p in {"joins", "works-at"}}


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("We made Priya manager last month.", ("Priya", "has-role", "manager")),
        ("I bumped Priya up to cafe manager, shes great.", ("Priya", "has-role", "cafe manager")),
        ("We promoted Tom to head chef in May.", ("Tom", "has-role", "head chef")),
        ("Priya took the manager job and she sorted the rosters.", ("Priya", "has-role", "manager")),
        ("My sister Ana got a senior nurse role at the Royal.", ("Ana", "has-role", "senior nurse")),
        (
            "Jake graduated from the academy friday, probationary firefighter now, he's at Shellharbour.",
            ("Jake", "has-role", "probationary firefighter"),
        ),
        ("I passed the exam, senior nurse now!", ("Lin", "has-role", "senior nurse")),
    ],
)
def test_a_title_given_to_or_taken_by_a_named_person_is_theirs(
    tier: SpacyTier, text: str, fact: tuple[str, str, str]
) -> None:
    assert fact in triples(tier, text, "Lin")


@pytest.mark.parametrize(
    "text",
    ["That film made Priya cry.", "They made Tom redundant.", "We went to Paris, lovely city now."],
)
def test_no_title_from_a_making_or_a_now_that_names_none(tier: SpacyTier, text: str) -> None:
    assert not {f for f in triples(tier, text, "Lin") if f[1] == "has-role"}


def test_a_superintendent_is_a_manager(tier: SpacyTier) -> None:
    said = said_by(
        tier, "I should mention that my superintendent, Mr Rajesh Varma, agreed to be my referee.", "Lin"
    )
    assert ("has-manager", "Mr Rajesh Varma") in said


@pytest.mark.parametrize(
    ("text", "boss"),
    [
        ("my new boss is this guy Marcus Delgado.", "Marcus Delgado"),
        ("my new manager is a woman called Ruth.", "Ruth"),
    ],
)
def test_a_manager_said_to_be_a_person_named_so(tier: SpacyTier, text: str, boss: str) -> None:
    assert ("has-manager", boss) in said_by(tier, text, "Lin")


def test_a_manager_said_to_be_a_person_without_a_name_is_none(tier: SpacyTier) -> None:
    assert not {f for f in said_by(tier, "my boss is a guy who likes Excel.", "Lin") if f[0] == "has-manager"}


@pytest.mark.parametrize(
    ("text", "firm"),
    [
        ("I am a warehouse coordinator in DHL since January.", "DHL"),  # learners' English: "in" a firm
        ("I am an engineer in Infosys.", "Infosys"),
        ("I'm a data analyst in the finance team at Aviva.", "Aviva"),  # a team's firm
        ("As a nurse at St James's, I see this every day.", "St James's"),  # a fronted "as": any main verb
        (
            "As the newly appointed Head of Finance at Orvane Technologies, I will take over the supplier"
            " relationship.",
            "Orvane Technologies",
        ),
    ],
)
def test_a_roles_firm_said_with_in_or_a_fronted_as_is_the_employer(
    tier: SpacyTier, text: str, firm: str
) -> None:
    assert ("works-at", firm) in work(tier, text)


@pytest.mark.parametrize(
    "text", ["I'm a nurse in Clontarf.", "I'm a barista in Shoreditch.", "I work as a nurse in Manchester."]
)
def test_a_role_in_a_place_is_no_employer(tier: SpacyTier, text: str) -> None:
    assert work(tier, text) == set()


def test_a_fronted_as_gives_the_role_and_a_late_as_of_seeing_does_not(tier: SpacyTier) -> None:
    said = triples(tier, "As the new Head of Finance at Orvane Technologies, I will sign it.", "Lin")
    assert ("Lin", "has-role", "Head of Finance") in said
    assert not [t for t in triples(tier, "I see myself as a leader.", "Lin") if t[1] == "has-role"]


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("I'm making $20 an hour at Target", ("works-at", "Target")),
        ("I get paid $19 an hour at Walmart", ("works-at", "Walmart")),
        ("I'm on £15.20 an hour at Go North West", ("works-at", "Go North West")),
        ("I'm on 42k at Aviva", ("works-at", "Aviva")),  # "at" hung on the amount
        ("i'm a barista at the blue door cafe in leeds", ("works-at", "blue door cafe")),
        ("i'm a chef at the olive tree restaurant", ("works-at", "olive tree restaurant")),
    ],
)
def test_where_an_hourly_pay_or_a_role_is_had_in_chat_is_the_employer(
    tier: SpacyTier, text: str, fact: tuple[str, str]
) -> None:
    assert fact in work(tier, text)


@pytest.mark.parametrize(
    "text",
    [
        "I'm on holiday at Center Parcs",  # a stay, not a job
        "I'm on 20k at the moment",
        "I'm a stylist at the hair salon on main street",  # what the place is, no name
        "I'm a nurse at the local clinic",
        "If I took it I'd be on 45k at Monzo",
    ],
)
def test_a_stay_or_an_unnamed_workplace_is_no_employer(tier: SpacyTier, text: str) -> None:
    assert work(tier, text) == set()


@pytest.mark.parametrize(
    ("text", "title"),
    [
        ("I got the team lead role", "team lead"),  # "team lead" parsed a clause
        ("got the assistant manager spot!!", "assistant manager"),
        ("I got the promotion to senior nurse", "senior nurse"),
        ("got promoted to shift supervisor today", "shift supervisor"),  # the time word is no title
    ],
)
def test_a_post_won_names_the_speakers_title(tier: SpacyTier, text: str, title: str) -> None:
    assert ("has-role", title) in said_by(tier, text, "Lin")


@pytest.mark.parametrize(
    "text",
    [
        "I hope to get the team lead role",
        "I didn't get the team lead role",
        "my sister got the team lead role",
        "got a parking spot",
        "we got the top spot in the league",
        "she got the promotion to head nurse",
    ],
)
def test_no_title_from_a_post_wished_lost_anothers_or_no_post(tier: SpacyTier, text: str) -> None:
    assert not {f for f in said_by(tier, text, "Lin") if f[0] == "has-role"}


@pytest.mark.parametrize(
    ("text", "firm"),
    [
        ("I opened my own salon, Hyacinth's Hair Studio", "Hyacinth's Hair Studio"),
        ("me and leanne bought the blowhole coffee co down on terralong st", "blowhole coffee co"),
        ("we took over the Red Lion pub last year", "Red Lion"),
        ("I've started a company called Brightloop", "Brightloop"),
        ("I set up my own business, Clearview Cleaning", "Clearview Cleaning"),
        ("Been with Tesco since 2019", "Tesco"),  # "I've" dropped
        ("I've been with Tesco 6 years now", "Tesco"),  # the "for" dropped
        ("been with the NHS 10 years", "NHS"),  # the firm parsed a modifier of the years
        ("They made me permanent at Lidl", "Lidl"),  # a job kept
        ("got made permanent at Lidl!!", "Lidl"),
        ("I've just finished my probation at Asda", "Asda"),
    ],
)
def test_a_business_made_or_taken_on_or_a_firm_one_has_been_with_is_the_employer(
    tier: SpacyTier, text: str, firm: str
) -> None:
    assert ("works-at", firm) in work(tier, text)


@pytest.mark.parametrize(
    "text",
    [
        "we might open a cafe called The Daily Grind",
        "my sister opened a salon called Curl Up",
        "my sister and her husband bought the Red Lion pub",
        "I bought a Mars bar",  # a thing bought, not a business
        "my sister passed her probation at Asda",  # hers
        "they made Tom permanent at Lidl",
        "I didn't pass my probation at Asda",
        "we bought an IKEA kitchen",
        "I didn't buy the Red Lion pub",
        "we bought the shop",
        "I opened the shop, Monday",
        "I had been with Tesco for 5 years before that",
    ],
)
def test_no_employer_from_a_business_planned_anothers_unnamed_or_a_past_perfect(
    tier: SpacyTier, text: str
) -> None:
    assert not {f for f in work(tier, text) if f[0] == "works-at"}


@pytest.mark.parametrize(
    "text",
    ["I've been at Aldi 6 years.", "ive been at aldi 6 yrs", "Been at Deloitte 18 months, time to move on."],
)
def test_been_at_a_firm_for_years_without_for_is_the_employer(tier: SpacyTier, text: str) -> None:
    # the parse makes the firm a modifier of the counted years
    assert {f[1] for f in work(tier, text) if f[0] == "works-at"} & {"Aldi", "Deloitte"}


def test_a_past_stay_at_a_firm_or_days_at_home_is_no_employer_now(tier: SpacyTier) -> None:
    assert not {f for f in work(tier, "I was at Aldi 6 years.") if f[0] == "works-at"}
    assert not {f for f in work(tier, "I've been at home 3 days with flu.") if f[0] == "works-at"}


@pytest.mark.parametrize(
    ("text", "role"),
    [
        ("My new role is Head of Finance.", "Head of Finance"),  # was "Head"
        ("My job is Director of Operations now.", "Director of Operations"),  # was employer "Director"
        ("New job: Head of Product at Monzo", "Head of Product"),
        ("My job is a delivery driver.", "delivery driver"),
        ("Been a paramedic for 12 years.", "paramedic"),  # "I've" dropped: up to now, not the past
    ],
)
def test_a_title_of_a_field_a_job_named_or_held_for_years_is_the_role(
    tier: SpacyTier, text: str, role: str
) -> None:
    assert role in roles(tier, text)


def test_an_employer_of_a_field_or_driven_for_is_whole(tier: SpacyTier) -> None:
    assert ("works-at", "Bank of America") in work(tier, "Job: Bank of America")  # was "Bank"
    assert not {f for f in work(tier, "My job is Director of Operations now.") if f[0] == "works-at"}
    assert ("works-at", "Arriva") in work(tier, "I drive a bus for Arriva.")
    assert ("works-at", "Monzo") in work(tier, "New job: Head of Product at Monzo")
    assert not {f for f in work(tier, "I'd drive a bus for Arriva if they asked.") if f[0] == "works-at"}


def test_a_stay_that_is_no_state_gives_no_role(tier: SpacyTier) -> None:
    assert not roles(tier, "Been a nightmare week.")


@pytest.mark.parametrize(
    ("text", "boss"),
    [
        ("Priya is the new store manager.", "Priya"),  # as "the new store manager is Priya" is
        ("Priya is the manager.", "Priya"),
        ("I report into Priya Shah.", "Priya Shah"),
    ],
)
def test_the_manager_said_of_a_name_or_reported_into_is_the_speakers(
    tier: SpacyTier, text: str, boss: str
) -> None:
    assert boss in {o for p, o in said_by(tier, text, "Lin") if p == "has-manager"}


@pytest.mark.parametrize(
    "text",
    [
        "Priya is the manager at my gym.",  # another place's
        "Priya is the manager of the football team.",
        "Priya was the manager.",  # the past
        "Is Priya the manager?",
        "Priya is a manager.",  # a kind of job, nobody's boss
    ],
)
def test_the_manager_of_another_place_past_asked_or_any_is_not_mine(tier: SpacyTier, text: str) -> None:
    assert not {o for p, o in said_by(tier, text, "Lin") if p == "has-manager"}


def test_a_name_said_to_be_our_team_lead_is_the_speakers_team_lead(tier: SpacyTier) -> None:
    """The small model reads "our team lead" as "our team" leading: the title is still the speaker's."""
    assert ("has-team-lead", "Priya") in said_by(tier, "Priya is our team lead now", "Lin")
    assert not {p for p, _ in said_by(tier, "Priya is their team lead", "Lin") if "lead" in p}
    assert ("has-role", "team lead") in said_by(tier, "I'm the team lead now", "Lin")  # the speaker's role


@pytest.mark.parametrize(
    ("text", "firm"),
    [
        ("I'm on the tills at Asda.", "Asda"),  # a post worked somewhere
        ("I'm on nights at the Royal Infirmary.", "Royal Infirmary"),
        ("I'm a TA at Oakfield Primary.", "Oakfield Primary"),  # a teaching assistant works there
    ],
)
def test_a_post_or_shift_worked_somewhere_or_a_tas_school_is_the_employer(
    tier: SpacyTier, text: str, firm: str
) -> None:
    assert ("works-at", firm) in work(tier, text)
    assert firm not in {o for p, o in said_by(tier, text, "Lin") if p == "attends"}


@pytest.mark.parametrize(
    "text", ["I was on nights at the Royal Infirmary.", "I'm on the bus at Victoria.", "Ta very much!"]
)
def test_a_post_left_a_ride_or_thanks_is_no_job(tier: SpacyTier, text: str) -> None:
    said = said_by(tier, text, "Lin")
    assert not {f for f in said if f[0] in {"works-at", "has-role"}}


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("Nurse here, quick question about pensions", ("has-role", "Nurse")),
        ("first time poster, mum of 3 and part time pharmacist here", ("has-role", "part time pharmacist")),
        ("G'day. Retired teacher here with too much time on my hands.", ("worked-as", "teacher")),
    ],
)
def test_a_job_here_introduces_the_speaker(tier: SpacyTier, text: str, fact: tuple[str, str]) -> None:
    assert fact in said_by(tier, text, "Lin")


@pytest.mark.parametrize(
    "text",
    [
        "the teacher here is great",
        "we have a nurse here every day",
        "the manager here said no",
        "also doctor here say i have celiac disease",  # a subject: what the doctor says
    ],
)
def test_someone_elses_job_here_is_no_introduction(tier: SpacyTier, text: str) -> None:
    assert not {f for f in said_by(tier, text, "Lin") if f[0] in {"has-role", "worked-as"}}


def test_been_a_title_for_a_time_is_the_title_now(tier: SpacyTier) -> None:
    # "I've" dropped and "for 20 years" hung on the title: a state up to now, not "was-a"
    assert ("has-role", "plumber") in said_by(tier, "Been a plumber for 20 years.", "Lin")


def test_employed_by_a_firm_the_model_tagged_a_person(tier: SpacyTier) -> None:
    # "Capita" is tagged a person; no first name leads it, so it can be an employer
    assert {("works-at", "Capita"), ("has-role", "call handler")} <= said_by(
        tier, "I'm employed by Capita as a call handler.", "Lin"
    )
    assert not work(tier, "I was hired by Sarah Jones.")


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("I drove for Stagecoach for ten years", ("worked-at", "Stagecoach")),  # tagged a person
        (
            "I finished my contract with the University of Leeds, now I'm a lecturer",
            ("worked-at", "University of Leeds"),
        ),
        ("Just finished my placement at St Thomas's", ("worked-at", "St Thomas's")),
        ("I ended my internship at Google", ("worked-at", "Google")),
    ],
)
def test_a_firm_driven_for_or_a_term_served_out(tier: SpacyTier, text: str, fact: tuple[str, str]) -> None:
    assert fact in work(tier, text)


@pytest.mark.parametrize(
    "text",
    [
        "I drive for Dave now",  # a person's driver
        "Finally finished my contract with EE, going SIM only",  # a phone's contract
        "I finished my job at Asda at 5 and went home",  # a day's work
        "I need to finish my contract with Sky before I switch",
    ],
)
def test_a_person_driven_for_or_a_phone_contract_is_no_past_job(tier: SpacyTier, text: str) -> None:
    assert not {f for f in work(tier, text) if f[0] == "worked-at"}
    assert ("works-at", "Dave") not in work(tier, text)


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("The new manager will be Linh", ("has-manager", "Linh")),  # a manager set to come
        ("The new manager will be announced soon", None),
        ("new mgr would be linh", None),  # an offer's manager: only a maybe
    ],
)
def test_a_manager_set_to_come(tier: SpacyTier, text: str, fact: tuple[str, str] | None) -> None:
    managers = {f for f in said_by(tier, text, "Lin") if f[0] == "has-manager"}
    assert managers == ({fact} if fact else set())


@pytest.mark.parametrize(
    "text",
    ["I'm made up to hear that, ta.", "I was made up to see her again.", "I'm made up to bits for her."],
)
def test_made_up_to_feel_something_is_no_title(tier: SpacyTier, text: str) -> None:
    assert not roles(tier, text)  # Liverpool's "made up": delighted


@pytest.mark.parametrize(
    ("text", "role"),
    [
        ("My job title changed to Principal Engineer.", "Principal Engineer"),
        ("My role's been changed to team lead.", "team lead"),
        ("My title was updated to Senior Designer last week.", "Senior Designer"),
    ],
)
def test_the_speakers_title_changed_to_a_new_one(tier: SpacyTier, text: str, role: str) -> None:
    assert role in roles(tier, text)


@pytest.mark.parametrize(
    "text", ["My role changed to part time.", "My job changed to nights.", "Her title changed to director."]
)
def test_hours_shifts_or_anothers_title_changed_are_not_the_speakers_title(
    tier: SpacyTier, text: str
) -> None:
    assert not roles(tier, text)
