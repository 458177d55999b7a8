"""An offer, then its acceptance (issue 14): 'Helix offered me a job' ... 'I accepted it' is works-at Helix,
through the real spaCy tier and a workspace, across sessions; an acceptance with no offer stores nothing."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from knowledge_engine.config import SpacyConfig, load_config
from knowledge_engine.extract.spacy_ner import SpacyTier
from knowledge_engine.model.records import Message
from knowledge_engine.observe import counters
from knowledge_engine.store.workspace import Workspace

T0 = datetime(2026, 3, 1, 9, tzinfo=UTC)


@pytest.fixture(scope="module")
def tier() -> SpacyTier:
    return SpacyTier(SpacyConfig(workers=0))


def tell(tier: SpacyTier, ws: Workspace, lines: list[tuple[int, str, str]], speaker: str = "Maya") -> None:
    """(day, session, text) user messages, extracted and applied in order."""
    msgs = [
        Message(
            id=f"{speaker}{i}",
            text=t,
            role="user",
            session=s,
            speaker=speaker,
            timestamp=T0 + timedelta(days=d),
        )
        for i, (d, s, t) in enumerate(lines)
    ]
    for msg, ex in zip(msgs, tier.extract(msgs), strict=True):
        ws.apply(msg, [ex])


def jobs(ws: Workspace, subject: str) -> set[tuple[str, str]]:
    return {
        (f.predicate, f.object)
        for f in ws.facts.query(subject=subject)
        if f.predicate in {"works-at", "worked-at"}
    }


def test_an_accepted_offer_is_the_new_job_across_sessions(tier: SpacyTier, workspace: Path) -> None:
    ws = Workspace(workspace, load_config({"storage": {"writeDebounceMs": 0}}))
    tell(
        tier,
        ws,
        [
            (0, "s1", "I work at Northwind Labs as a data engineer."),
            (10, "s2", "Big news: Helix Robotics offered me a job in Berlin!"),
            (12, "s2", "Paul's been offered a job with Sunshine Coast Council."),
            (12, "s2", "He took the Council one!"),
            (30, "s3", "I accepted it."),
        ],
    )
    assert jobs(ws, "Maya") == {("works-at", "Helix Robotics")}  # Northwind went to history
    assert jobs(ws, "Paul") == {("works-at", "Sunshine Coast Council")}
    offers = {f.object for f in ws.facts.query(predicate="has-offer-from")}
    assert offers == {"Helix Robotics", "Sunshine Coast Council"}
    ws.close()


@pytest.mark.parametrize(
    ("text", "subject"),
    [
        ("I've been offered a job at Halden and I'm taking it.", "Maya"),
        ("Tom has been offered a job at Halden and he's taking it.", "Tom"),
    ],
)
def test_an_offer_taken_in_the_same_breath_is_the_new_job(
    tier: SpacyTier, workspace: Path, text: str, subject: str
) -> None:
    ws = Workspace(workspace, load_config({"storage": {"writeDebounceMs": 0}}))
    tell(tier, ws, [(0, "s1", text)])
    assert jobs(ws, subject) == {("works-at", "Halden")}
    ws.close()


@pytest.mark.parametrize(
    "text",
    [
        "Got an offer from Halden. Should I take it?",
        "Take it easy, the offer from Halden can wait.",
        "I'll take it up with HR, the offer from Halden is wrong.",
    ],
)
def test_take_it_said_of_no_offer_taken_is_no_job(tier: SpacyTier, workspace: Path, text: str) -> None:
    # guards: "take it" was never read before; these must stay unread now that it may be
    ws = Workspace(workspace, load_config({"storage": {"writeDebounceMs": 0}}))
    tell(tier, ws, [(0, "s1", text)])
    assert jobs(ws, "Maya") == set()
    ws.close()


def test_an_acceptance_with_no_offer_stores_nothing(tier: SpacyTier, workspace: Path) -> None:
    ws = Workspace(workspace, load_config({"storage": {"writeDebounceMs": 0}}))
    before = counters.snapshot().get("facts.acceptances_unresolved", 0)
    tell(
        tier,
        ws,
        [(0, "s1", "I got an offer from Monzo!"), (2, "s1", "I took the Google one.")],
        speaker="Ann",
    )
    tell(tier, ws, [(3, "s1", "I accepted it.")], speaker="Bob")  # Ann's offer is not Bob's
    assert jobs(ws, "Ann") == set() and jobs(ws, "Bob") == set()
    assert not [f for f in ws.facts.all() if f.predicate == "accepted-offer"]
    assert counters.snapshot().get("facts.acceptances_unresolved", 0) == before + 2
    ws.close()


def test_the_role_an_offer_named_becomes_the_role_once_accepted(tier: SpacyTier, workspace: Path) -> None:
    ws = Workspace(workspace, load_config({"storage": {"writeDebounceMs": 0}}))
    tell(
        tier,
        ws,
        [
            (0, "s1", "I'm a clinical pharmacist at the General."),
            (10, "s2", "Queensway Carleton offered me the Pharmacy Clinical Coordinator position."),
            (12, "s2", "I accepted, and my start date is January 6th."),  # accepted, no object said
        ],
        speaker="Lin",
    )
    facts = [f for f in ws.facts.all() if f.subject == "Lin"]  # with history
    current = {(f.predicate, f.object) for f in facts if f.invalid_at is None}
    assert {("works-at", "Queensway Carleton"), ("has-role", "Pharmacy Clinical Coordinator")} <= current
    assert ("has-offered-role", "Pharmacy Clinical Coordinator") in current
    # the old job and role went to history when the offer was accepted, not when it was made
    ended = {(f.predicate, f.object): f.invalid_at for f in facts if f.invalid_at is not None}
    assert ended.keys() == {("works-at", "General"), ("has-role", "clinical pharmacist")}
    assert set(ended.values()) == {T0 + timedelta(days=12)}
    ws.close()


def test_the_pay_an_offer_named_becomes_the_salary_once_accepted(tier: SpacyTier, workspace: Path) -> None:
    ws = Workspace(workspace, load_config({"storage": {"writeDebounceMs": 0}}))
    tell(
        tier,
        ws,
        [
            (0, "s1", "I'm an intern at Zoho, my stipend is 40k per month."),
            (10, "s2", "GOT IT!!! I got an offer from Freshworks. 18 LPA CTC"),
            (12, "s2", "I accepted, I start in June."),
        ],
        speaker="Meera",
    )
    facts = [f for f in ws.facts.all() if f.subject == "Meera"]
    current = {(f.predicate, f.object) for f in facts if f.invalid_at is None}
    assert {("works-at", "Freshworks"), ("has-salary", "18 LPA")} <= current
    ended = {(f.predicate, f.object) for f in facts if f.invalid_at is not None}
    assert ("has-salary", "40k") in ended  # the stipend went to history with the acceptance
    ws.close()


def offers(ws: Workspace, subject: str) -> dict[str, bool]:
    """Offer -> still open (valid), with history."""
    return {
        f.object: f.invalid_at is None
        for f in ws.facts.all()
        if f.subject == subject and f.predicate == "has-offer-from"
    }


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("GOT IT!!! freshworks offer came. 18 LPA CTC", "freshworks"),
        ("The Stripe offer came through this morning.", "Stripe"),
        ("Amazon's offer came through yesterday!", "Amazon"),
        ("got the monzo offer today", "monzo"),
    ],
)
def test_an_offer_named_before_the_word_is_an_offer(
    tier: SpacyTier, workspace: Path, text: str, name: str
) -> None:
    ws = Workspace(workspace, load_config({"storage": {"writeDebounceMs": 0}}))
    tell(tier, ws, [(0, "s1", text)], speaker="Ravi")
    assert offers(ws, "Ravi") == {name: True}
    assert jobs(ws, "Ravi") == set()  # an offer is no job yet
    ws.close()


@pytest.mark.parametrize(
    "text",
    [
        "The job offer came through!",
        "If the Stripe offer comes I will take it.",
        "Still waiting, no Stripe offer yet.",
        "Did the Stripe offer come through?",
        "Got a verbal offer today.",
    ],
)
def test_no_named_offer_where_none_arrived(tier: SpacyTier, workspace: Path, text: str) -> None:
    ws = Workspace(workspace, load_config({"storage": {"writeDebounceMs": 0}}))
    tell(tier, ws, [(0, "s1", text)], speaker="Ravi")
    assert offers(ws, "Ravi") == {}
    ws.close()


@pytest.mark.parametrize(
    "text",
    [
        "Two weeks into the new job now. The commute is fine.",
        "2 weeks into job. everyone is nice",
        "First day at the new job tomorrow, wish me luck",
        "Started my new job on Monday and the team is lovely.",
        "also i have migraines since the new job, i think it's the screens",
    ],
)
def test_a_new_job_started_is_the_open_offer(tier: SpacyTier, workspace: Path, text: str) -> None:
    ws = Workspace(workspace, load_config({"storage": {"writeDebounceMs": 0}}))
    tell(
        tier,
        ws,
        [
            (0, "s1", "I'm an intern at Zoho, my stipend is 40k per month."),
            (10, "s2", "GOT IT!!! freshworks offer came. 18 LPA CTC"),
            (40, "s3", text),
        ],
        speaker="Meera",
    )
    assert jobs(ws, "Meera") == {("works-at", "freshworks")}  # Zoho went to history
    current = {(f.predicate, f.object) for f in ws.facts.query(subject="Meera")}
    assert ("has-salary", "18 LPA") in current
    ws.close()


@pytest.mark.parametrize(
    "text",
    [
        "I'm looking for a new job, this place is awful.",
        "Should I take the new job?",
        "If I get the new job I will move.",
        "Not sure about the new job offer yet.",
    ],
)
def test_a_new_job_wished_for_takes_no_offer(tier: SpacyTier, workspace: Path, text: str) -> None:
    ws = Workspace(workspace, load_config({"storage": {"writeDebounceMs": 0}}))
    tell(
        tier,
        ws,
        [(0, "s1", "I work at Zoho."), (10, "s2", "The Stripe offer came through!"), (12, "s2", text)],
        speaker="Ravi",
    )
    assert jobs(ws, "Ravi") == {("works-at", "Zoho")}
    ws.close()


def test_a_new_job_started_takes_no_offer_already_taken_or_older_than_the_job(
    tier: SpacyTier, workspace: Path
) -> None:
    """The offer from a year ago was taken then; the new job said later is another one, named by a rule."""
    ws = Workspace(workspace, load_config({"storage": {"writeDebounceMs": 0}}))
    tell(
        tier,
        ws,
        [
            (0, "s1", "The Stripe offer came through!"),
            (2, "s1", "I accepted it."),
            (300, "s2", "I start at Monzo on Monday."),
            (320, "s3", "Two weeks into the new job now."),
        ],
        speaker="Ravi",
    )
    said = {f.object: f.invalid_at is None for f in ws.facts.all() if f.predicate == "works-at"}
    assert said == {"Stripe": False, "Monzo": True}
    ws.close()


@pytest.mark.parametrize(
    "text",
    [
        "I turned down the Flipkart offer.",
        "I declined Flipkart's offer because the pay was low.",
        "Said no to the Flipkart offer, the commute is crazy.",
        "Update: I didn't end up taking the Flipkart offer. Staying where I am.",
    ],
)
def test_an_offer_turned_down_is_no_job(tier: SpacyTier, workspace: Path, text: str) -> None:
    ws = Workspace(workspace, load_config({"storage": {"writeDebounceMs": 0}}))
    tell(tier, ws, [(0, "s1", "The Flipkart offer came through!"), (2, "s1", text)], speaker="Meera")
    assert offers(ws, "Meera") == {"Flipkart": False}
    assert jobs(ws, "Meera") == set()
    ws.close()


def test_a_declined_offer_ends_and_the_other_one_is_the_new_job(tier: SpacyTier, workspace: Path) -> None:
    ws = Workspace(workspace, load_config({"storage": {"writeDebounceMs": 0}}))
    tell(
        tier,
        ws,
        [
            (0, "s1", "I got an offer from Freshworks!"),
            (3, "s1", "The Flipkart offer came through too."),
            (5, "s2", "I turned down the Flipkart offer, the commute is crazy."),
            (40, "s3", "First week at the new job done."),
        ],
        speaker="Meera",
    )
    assert offers(ws, "Meera") == {"Freshworks": True, "Flipkart": False}
    declined = [f for f in ws.facts.all() if f.predicate == "declined-offer-from"]
    assert [(f.subject, f.object) for f in declined] == [("Meera", "Flipkart")]
    assert jobs(ws, "Meera") == {("works-at", "Freshworks")}  # never Flipkart, though it came later
    ws.close()


@pytest.mark.parametrize(
    "text",
    [
        "I GOT IT!!! They rang this morning. Starting 13th April.",
        "Got the job!! I start in May.",
        "We got it! Handing my resignation in tomorrow.",
    ],
)
def test_a_job_won_after_an_interview_is_the_interviewing_firm(
    tier: SpacyTier, workspace: Path, text: str
) -> None:
    """No offer was ever named: the interview said before stands for it."""
    ws = Workspace(workspace, load_config({"storage": {"writeDebounceMs": 0}}))
    tell(
        tier,
        ws,
        [
            (0, "s1", "Sign it off as me – Jo Bell, TA, Brackenwood Primary."),
            (10, "s2", "Got an interview Thursday at a practice in Harrogate – Valley Gardens Dental."),
            (14, "s3", text),
        ],
        speaker="Jo Bell",
    )
    said = {f.object: f.invalid_at is None for f in ws.facts.all() if f.predicate == "works-at"}
    assert said == {"Brackenwood Primary": False, "Valley Gardens Dental": True}
    ws.close()


def test_a_job_won_is_the_newest_interview_or_offer_and_with_neither_stores_nothing(
    tier: SpacyTier, workspace: Path
) -> None:
    ws = Workspace(workspace, load_config({"storage": {"writeDebounceMs": 0}}))
    tell(
        tier,
        ws,
        [
            (0, "s1", "The Stripe offer came through!"),
            (2, "s1", "I've got an interview at Deloitte on Monday."),
            (5, "s2", "Got the job!! I start in May."),
        ],
        speaker="Ravi",
    )
    assert jobs(ws, "Ravi") == {("works-at", "Deloitte")}  # the interview came after the offer
    other = Workspace(workspace.parent / "other", load_config({"storage": {"writeDebounceMs": 0}}))
    tell(tier, other, [(0, "s1", "I GOT IT!!! Starting in April.")], speaker="Ravi")
    assert jobs(other, "Ravi") == set()
    ws.close()
    other.close()


@pytest.mark.parametrize(
    "text",
    [
        "got it, thanks",  # no job spoken of
        "Tom has an interview at Google, fingers crossed",  # someone else's interview
        "Should I do the interview at Meta?",
        "If I get an interview at Meta I'll cry",
    ],
)
def test_no_interview_or_job_won_where_none_was_said(tier: SpacyTier, workspace: Path, text: str) -> None:
    ws = Workspace(workspace, load_config({"storage": {"writeDebounceMs": 0}}))
    tell(tier, ws, [(0, "s1", text)], speaker="Ravi")
    assert not [
        f for f in ws.facts.all() if f.subject == "Ravi" and f.predicate in {"has-interview-at", "works-at"}
    ]
    ws.close()


def test_the_manager_a_job_would_bring_is_the_manager_once_it_is_taken(
    tier: SpacyTier, workspace: Path
) -> None:
    ws = Workspace(workspace, load_config({"storage": {"writeDebounceMs": 0}}))
    tell(
        tier,
        ws,
        [
            (0, "s1", "I work at Northwind Labs. Raj has been my manager for six years."),
            (
                10,
                "s2",
                "The interview was with Colleen Fitzgerald, who would be my direct manager if I get it.",
            ),
            (20, "s3", "Big news: Helix Robotics offered me a job!"),
            (25, "s3", "I accepted it."),
        ],
    )
    bosses = {f.object: f.invalid_at is None for f in ws.facts.all() if f.predicate == "has-manager"}
    assert bosses == {"Raj": False, "Colleen Fitzgerald": True}
    ws.close()


def test_a_manager_a_job_would_bring_is_no_manager_while_the_job_is_not_taken(
    tier: SpacyTier, workspace: Path
) -> None:
    ws = Workspace(workspace, load_config({"storage": {"writeDebounceMs": 0}}))
    tell(tier, ws, [(0, "s1", "help me prep the final round. panel w/ VP + would-be manager Tom Haskins")])
    current = {(f.predicate, f.object) for f in ws.facts.query(subject="Maya")}
    assert ("has-prospective-manager", "Tom Haskins") in current
    assert not [f for f in ws.facts.all() if f.predicate == "has-manager"]
    ws.close()


@pytest.mark.parametrize(
    ("offer", "started"),
    [
        ("Got an offer from Monzo. Senior engineer. 62k.", "I started at Monzo last week, it's great."),
        # the employer's initials: "VGH" for Victoria General Hospital
        (
            "Bonne nouvelle!! I got the offer at Victoria General Hospital. Clinical nurse educator. "
            "$49.80 an hour.",
            "Hi! I started at VGH last week. It is very different, more office.",
        ),
    ],
)
def test_a_job_started_at_an_offers_employer_takes_its_terms(
    tier: SpacyTier, workspace: Path, offer: str, started: str
) -> None:
    ws = Workspace(workspace, load_config({"storage": {"writeDebounceMs": 0}}))
    before = counters.get("facts.offers_started")
    first = "I'm a staff nurse, I'm on $44.10 an hour."
    tell(tier, ws, [(0, "s1", first), (10, "s2", offer), (40, "s3", started)])
    current = {(f.predicate, f.object) for f in ws.facts.query(subject="Maya")}
    offered_pay = {("has-salary", o) for p, o in current if p == "has-salary-offer"}
    offered_role = {("has-role", o) for p, o in current if p == "has-offered-role"}
    assert offered_pay and offered_role and offered_pay | offered_role <= current
    assert ("has-salary", "$44.10") not in current  # the old pay went to history
    assert counters.get("facts.offers_started") == before + 1
    ws.close()


def test_a_job_at_the_current_employer_takes_no_offer_of_its_own(tier: SpacyTier, workspace: Path) -> None:
    """An offer from the firm the speaker already works at is told by its own words (a promotion)."""
    ws = Workspace(workspace, load_config({"storage": {"writeDebounceMs": 0}}))
    tell(
        tier,
        ws,
        [
            (0, "s1", "I work at Monzo, I'm on 50k."),
            (10, "s2", "Got an offer from Monzo. Team lead. 62k."),
            (40, "s3", "I work at Monzo still, it's fine."),
        ],
    )
    current = {(f.predicate, f.object) for f in ws.facts.query(subject="Maya")}
    assert ("has-salary", "62k") not in current
    ws.close()


def test_a_firms_possessive_name_is_the_offers_firm(tier: SpacyTier, workspace: Path) -> None:
    """ "St George's have offered me the post" ... "completed two weeks at St George's": one firm."""
    ws = Workspace(workspace, load_config({"storage": {"writeDebounceMs": 0}}))
    tell(
        tier,
        ws,
        [
            (0, "s1", "At present I am the Pharmacist Manager at Kemble Chemists."),
            (10, "s2", "St George's have offered me the post. Specialist pharmacist. £53,755."),
            (40, "s3", "Good evening. I have now completed two weeks at St George's. It is demanding."),
        ],
    )
    facts = ws.facts.query(subject="Maya", include_history=True)
    jobs = {(f.object, f.invalid_at is None) for f in facts if f.predicate == "works-at"}
    assert ("Kemble Chemists", False) in jobs  # the old job ended with the new one
    assert ("has-salary", "£53,755") in {(f.predicate, f.object) for f in facts if f.invalid_at is None}
    ws.close()


def test_a_job_started_at_an_offers_employer_brings_the_manager_it_would(
    tier: SpacyTier, workspace: Path
) -> None:
    """The manager named at the interview becomes the manager when the job at that firm is said to
    have started, as with an acceptance."""
    ws = Workspace(workspace, load_config({"storage": {"writeDebounceMs": 0}}))
    tell(
        tier,
        ws,
        [
            (0, "s1", "I work at Northwind Labs. Raj has been my manager for six years."),
            (10, "s2", "Got an offer from Helix Robotics. Team lead. 62k."),
            (12, "s2", "The interview was with Colleen Fitzgerald, who would be my direct manager."),
            (40, "s3", "I started at Helix Robotics last week, it's great."),
        ],
    )
    bosses = {f.object: f.invalid_at is None for f in ws.facts.all() if f.predicate == "has-manager"}
    assert bosses == {"Raj": False, "Colleen Fitzgerald": True}
    ws.close()


def said(tier: SpacyTier, text: str, speaker: str) -> set[tuple[str, str]]:
    msg = Message(id="m", text=text, role="user", speaker=speaker)
    return {(f.predicate, f.object) for f in tier.extract([msg])[0].facts if f.subject == speaker}


def test_the_role_an_offer_is_for_is_the_role_once_accepted(tier: SpacyTier, workspace: Path) -> None:
    ws = Workspace(workspace, load_config({"storage": {"writeDebounceMs": 0}}))
    tell(
        tier,
        ws,
        [
            (0, "s1", "I got an offer from Deloitte for the senior analyst role!"),
            (2, "s1", "I accepted it this morning."),
        ],
        speaker="Ines",
    )
    current = {(f.predicate, f.object) for f in ws.facts.query(subject="Ines")}
    assert {("works-at", "Deloitte"), ("has-role", "senior analyst")} <= current
    ws.close()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I accepted the offer from Deloitte for the senior analyst role!", {("has-role", "senior analyst")}),
        (
            "I said yes to the Monzo offer, product designer, 52k.",
            {("has-role", "product designer"), ("has-salary", "52k")},
        ),
        ("I accepted the offer at Ocado: data engineer, 55k", {("has-role", "data engineer")}),
    ],
)
def test_the_terms_of_an_offer_taken_are_the_speakers_now(
    tier: SpacyTier, text: str, expected: set[tuple[str, str]]
) -> None:
    assert expected <= said(tier, text, "Oisin")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Got the offer from Monzo for product designer!", {("has-offered-role", "product designer")}),
        (
            "They offered me the senior nurse post at St Mary's.",
            {("has-offer-from", "St Mary's"), ("has-offered-role", "senior nurse")},
        ),
    ],
)
def test_the_role_an_offer_names_is_offered(
    tier: SpacyTier, text: str, expected: set[tuple[str, str]]
) -> None:
    assert expected <= said(tier, text, "Nuala")


@pytest.mark.parametrize(
    "text",
    [
        "I turned down the offer from Deloitte for the senior analyst role.",
        "I didn't accept the offer for the manager role.",
        "should I accept the offer from Aviva for the claims handler job?",
    ],
)
def test_an_offer_declined_or_weighed_gives_no_role(tier: SpacyTier, text: str) -> None:
    assert not {p for p, _ in said(tier, text, "Cian")} & {"has-role", "has-offered-role"}
