"""A child at a school or university is a pupil there, not an employee: "my son Rupert is now at Durham
University", "She started at Scoil Bhríde in September" (she: the daughter named before).

Why: the rules read "X is at / started at / joined an organisation" as a job, which is right for an
adult and wrong for the speaker's child: the child's school is then stored as their employer, and a
question about it finds no schooling. Who is a child: a name the speaker gave as their child, son or
daughter, in this message or before (`KinNames.children`, kin.py). What is a place of
learning: a school word of the lexicon in its name, or university / college, or any place when the
message speaks of school ("starts at Bishop Challoner in September ... the school is two buses
away"). Unless the sentence that names the place speaks of work ("my son got a job at the
university"): a grown child may work there (work said of another in another sentence does not count).
"""

from __future__ import annotations

import re
from collections.abc import Collection

from knowledge_engine.extract.lexicon import SCHOOL_WORDS
from knowledge_engine.extract.text import SENTENCES
from knowledge_engine.model.extraction import Extraction, FactCandidate
from knowledge_engine.observe import counters

# Where an adult would work and a child studies: said only of a child, not of anyone at a school
_HIGHER = frozenset({"university", "uni", "college", "universidad", "université", "universität"})
_AS_PUPIL = {
    "works-at": "attends",
    "works-for": "attends",
    "joins": "attends",
    "worked-at": "attended",
    "is-at": "attends",
    "stays-at": "attends",  # "osian is staying at llys celyn" (beside school talk)
}
_WORK = re.compile(
    r"\b(?:job|jobs|work\w*|employ\w*|hired|staff|teach\w*|taught|lectur\w*|intern\w*|shifts?|"
    r"part-time|full-time|paid|salary|wages?|manager|apprentice\w*)\b",
    re.I,
)


# A message that speaks of school: a child's place in it is a school whatever its name ("Amara starts at
# Bishop Challoner in September ... the school is two buses away")
_SCHOOL_TALK = re.compile(
    r"\b(?:school|schools|class|classmates?|teachers?|headteacher|pupils?|uniform|term|nursery|primary|"
    r"secondary|parents['’]? evening|"
    r"kindergarten|reception|(?:year|grade|yr) \d{1,2}|\d{1,2}(?:st|nd|rd|th) (?:grade|standard))\b",
    re.I,
)


def schooled(text: str, ex: Extraction, children: Collection[str]) -> Extraction:
    """`ex` with each job of one of the speaker's `children` at a place of learning read as schooling."""
    kids = {c.casefold() for c in children}
    if not kids or not any(f.predicate in _AS_PUPIL for f in ex.facts):
        return ex
    school_talk = _SCHOOL_TALK.search(text) is not None
    facts = [
        _as_pupil(f, school_talk) if f.subject.casefold() in kids and not _work_said(text, f) else f
        for f in ex.facts
    ]
    if facts == ex.facts:
        return ex
    return ex.model_copy(update={"facts": facts})


def _as_pupil(fact: FactCandidate, school_talk: bool) -> FactCandidate:
    predicate = _AS_PUPIL.get(fact.predicate)
    if predicate is None or not (school_talk or learning_place(fact.object)):
        return fact
    counters.inc("extract.spacy.child_schooled")
    return fact.model_copy(update={"predicate": predicate, "object_type": "organization"})


def _work_said(text: str, fact: FactCandidate) -> bool:
    """Work spoken of in the sentences that name the child's place ("my son got a job at the
    university"); work said of someone else elsewhere in the message ("My husband works nights at
    Heathrow") leaves the child a pupil."""
    place = fact.object.casefold()
    sentences = [s for s in SENTENCES.findall(text) if place in s.casefold()] or [text]
    return any(_WORK.search(s) for s in sentences)


def learning_place(name: str) -> bool:
    """A school, nursery, college or university by a word of its name."""
    return school_place(name) or any(w in _HIGHER for w in name.casefold().split())


def school_place(name: str) -> bool:
    """A school or nursery by a word of its name (not a university: grown-ups study there)."""
    return any(w.strip(".,'’") in SCHOOL_WORDS for w in name.casefold().split())
