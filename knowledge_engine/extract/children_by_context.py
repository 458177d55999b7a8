"""The speaker's children told by context, never by a kin word: "Isla's staying at Wee Sparrows
nursery", "Sofia is 5 now, she loves Escola Básica".

Why: parents speak of their children by first name and seldom say "my daughter"; the rules then store
that Isla attends a nursery and is 3, and never that she is the speaker's child, so "who are my kids?"
finds nothing. A person a user message gives a child's age or a school (not a university: a grown-up
may study there) is taken as the speaker's child unless the speaker tied that name to anyone by another
relation, in this message or before (a niece, a friend, a dog, a partner's son: `KinNames.related`).
Not when the sentence naming them speaks of someone else's child or friend ("she has a son too,
Jaylen, he's 10", "his pal Ryan"), nor when the message speaks of the speaker's pupils or students (a
teacher's class), nor for the speaker themself.
"""

from __future__ import annotations

import re
from collections.abc import Collection

from knowledge_engine.extract.kids import child_age
from knowledge_engine.extract.kin import tied_names
from knowledge_engine.extract.lexicon import ANIMAL_NOUNS, PRONOUN
from knowledge_engine.extract.pupils import school_place
from knowledge_engine.extract.text import SENTENCES
from knowledge_engine.extract.truecase import world_names
from knowledge_engine.model.extraction import Extraction, FactCandidate
from knowledge_engine.model.records import Message
from knowledge_engine.observe import counters

# A fact that puts a person at a school: `attends` (the rules made the place a school), or being at,
# starting at or going to a place whose name has a school word
_AT_PLACE = frozenset({"starts-at", "started-at", "goes-to", "is-at", "is-in", "stays-at", "joins", "joined"})
# Someone else's child in the sentence that names a person: "her son", "Tom's kids", "she has a son
# too, Jaylen", "my niece" (a niece is no child of the speaker's either)
_CHILD_WORDS = r"sons?|daughters?|kids?|child|children|boys?|girls?|bab(?:y|ies)|stepsons?|stepdaughters?"
_OTHERS = re.compile(
    rf"\b(?:his|her|their|your|\w+['’]s) (?:\w+ )?(?:{_CHILD_WORDS})\b|"
    rf"\b(?:he|she|they)(?:['’]s| has| have| had)? (?:got )?(?:a|an|one|two|three|\d) (?:\w+ )?"
    rf"(?:{_CHILD_WORDS})\b|"
    r"\b(?:nieces?|nephews?|cousins?|grandsons?|granddaughters?|grandkids?|godsons?|goddaughters?)\b",
    re.I,
)
# A friend, teacher or carer is one only beside the name ("his pal Ryan", "Ryan, Leo's best friend",
# "Ryan is a classmate"): a child's own teacher or friends elsewhere in the sentence ("Maya is 7 and her
# teacher says...") are no sign the named child is someone else's
_FRIEND_WORDS = (
    r"pals?|friends?|mates?|buddy|buddies|besties?|classmates?|students?|pupils?|teachers?|tutors?|coach|"
    r"head|headteacher|headmistress|headmaster|principal|nanny|childminder|teaching"
)
_FRIEND_WORD = re.compile(rf"\b(?:{_FRIEND_WORDS})\b", re.I)
_BEFORE_NAME = re.compile(rf"\b(?:{_FRIEND_WORDS})\W+(?:\w+\W+)?$", re.I)
_DET = r"(?:a|an|the|my|our|his|her|their|your|\w+['’]s)"
# "Ryan, Leo's best friend", "Ryan's a classmate": after "'s" a determiner ("Maya's teacher" is hers)
_AFTER_NAME = re.compile(
    rf"^(?:['’]s\s+{_DET}\s+|(?:,|\(|\s+is|\s+was)\s*(?:{_DET}\s+)?)(?:\w+\s+)?(?:{_FRIEND_WORDS})\b", re.I
)
# The speaker teaches, tutors or minds other people's children
_CARER = re.compile(
    r"\b(?:my|our) (?:class|classes|pupils|students|learners|kids at (?:work|school))\b|"
    r"\bI (?:teach|tutor|coach|babysit|mind|nanny)\b|\b(?:childminder|childminding|nanny|babysitting)\b",
    re.I,
)
# An age alone may be a pet's ("Biscuit turned 4"): it makes a child in a message that speaks of children
_CHILD_TALK = re.compile(
    r"\b(?:kids?|kiddos?|children|sons?|daughters?|boys|girls|baby|babies|toddler|nursery|preschool|daycare|"
    r"creche|school|schools|class|teacher|homework|term|uniform|playdate|birthday party|year \d{1,2}|"
    r"grade \d{1,2}|\d{1,2}(?:st|nd|rd|th) grade)\b",
    re.I,
)
# A message about an animal: its age may be a pet's ("Biscuit turned 4, new chew toy from the vet")
_PET_TALK = re.compile(
    rf"\b(?:{'|'.join(sorted(map(re.escape, ANIMAL_NOUNS)))}|pets?|vets?|walkies|paws?|fur|barks?|barking|"
    r"kibble|leash|lead|litter|chew|chews|treats|neutered|spayed|groomer|kennel|cattery|breed)\b",
    re.I,
)
_NAME = re.compile(r"[A-ZÀ-Þ][\w'’-]*(?: [A-ZÀ-Þ][\w'’-]*){0,2}")
_TITLES = frozenset({"mr", "mrs", "ms", "miss", "mx", "dr", "prof", "sir", "madam", "mme", "herr", "frau"})


def own_children(msg: Message, ex: Extraction, related: Collection[str]) -> list[FactCandidate]:
    """`has-child` facts for the people `ex` gives a child's age or a school, in a user message;
    `related` is every name (casefolded) the speaker tied to a relation before."""
    if msg.role != "user" or _CARER.search(msg.text):
        return []
    me = (msg.speaker or "").strip() or "user"
    tied = {n.casefold() for n in [*related, *tied_names(ex.facts)]}
    out: list[FactCandidate] = []
    for fact in ex.facts:
        name = fact.subject
        if name.casefold() in tied or name == me or not _a_child(fact, msg.text) or not _a_name(name):
            continue
        if _other_owner(msg.text, name):
            continue
        tied.add(name.casefold())
        counters.inc("extract.spacy.child_by_context")
        out.append(
            FactCandidate(
                subject=me,
                predicate="has-child",
                object=name,
                tier="spacy",
                confidence=0.45,
                object_type="person",
                object_type_implied=True,
            )
        )
    return out


def _a_child(fact: FactCandidate, text: str) -> bool:
    # the small model often tags a lone first name an organisation ("Callum starts at Whitehill Secondary")
    lone = fact.subject_type == "organization" and " " not in fact.subject
    if not (fact.subject_type in (None, "person") or lone) or fact.ends:
        return False
    if fact.predicate == "is-aged":
        if not child_age(fact.object) or fact.object == "0":
            return False
        # a first name's age alone ("Ella turns 8 next week"): a child unless the message speaks of
        # animals (a pet's birthday); any other name needs the child talk ("Acme is 5 years old")
        if _CHILD_TALK.search(text) is not None:
            return True
        first = fact.subject.split()[0].casefold()  # "Wanjiru turned 9": any country's first names
        person = fact.subject_type in (None, "person") and first in world_names()
        return person and _PET_TALK.search(text) is None
    if fact.predicate == "attends":
        return True
    return fact.predicate in _AT_PLACE and school_place(fact.object)


def _a_name(subject: str) -> bool:
    """A person's name as written: capitalised words, not an unresolved pronoun or a kin slot."""
    if subject.startswith(PRONOUN) or ":" in subject or _NAME.fullmatch(subject) is None:
        return False
    return subject.split()[0].casefold().rstrip(".") not in _TITLES  # "Mrs Okafor": a teacher


def _other_owner(text: str, name: str) -> bool:
    """A sentence naming `name` speaks of someone's child ("she has a son too, Jaylen") or makes the
    name a friend or teacher ("his pal Ryan"); when no sentence names it (a he/she read as the name),
    any does."""
    pattern = re.compile(rf"(?<!\w){re.escape(name)}(?!\w)")
    naming = [s for s in SENTENCES.findall(text) if pattern.search(s)]
    if not naming:
        return any(_OTHERS.search(s) or _FRIEND_WORD.search(s) for s in SENTENCES.findall(text) or [text])
    return any(_OTHERS.search(s) or _beside(s, pattern) for s in naming)


def _beside(sentence: str, name: re.Pattern[str]) -> bool:
    """A friend or teacher word right before or after the name."""
    return any(
        _BEFORE_NAME.search(sentence[: m.start()]) or _AFTER_NAME.match(sentence[m.end() :])
        for m in name.finditer(sentence)
    )
