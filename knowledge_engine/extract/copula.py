"""An "'s" that means "is" or "has", written out for the fact parse: "Dan's working at Tesco".

Why: the small English model reads "Name's" as a possessive almost always, so "Dan's working at
Tesco now", "Hannah's at Boots", "Tom's a nurse at the Royal" and "Mia's been at Oakfield since
September" parse as "Dan's working", "Hannah's at", "Tom's nurse": no subject, no verb, no fact.
Chat says people's news this way all the time, and their kin's ("my partner's called Sam",
"my son's at Oakfield") and their costs ("Rent's £1,200 now"). Where the word after the "'s" (or
after an adverb such as "just", "now", "still") cannot follow a possessive, the fact rules get a
second parse of the text with the "'s" written out ("Dan is working", "Mia has been"). Entities
and their offsets still come from the text as written; facts are strings, so their parse may differ
in length.
"""

from __future__ import annotations

import re

from knowledge_engine.extract.lexicon import (
    CAR_NOUNS,
    FAMILY_NOUNS,
    PAY_WORDS,
    PET_NOUNS,
    RELATION_PREDICATES,
)
from knowledge_engine.extract.truecase import names


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# After "Name's", these words make the "'s" an "is": an article, a preposition, a state.
_IS_NEXT = _words(
    """a an the my our your his her their at in from on with off into over back home here there still
    now currently also married engaged pregnant retired unemployed freelance self-employed single divorced
    working going moving starting doing living staying teaching studying training leaving joining
    taking getting looking trying retiring coming switching changing applying interviewing dating
    seeing running managing heading helping waiting thinking planning hoping settling renting buying
    selling driving nursing"""
)
# ... and these make it a "has": a past participle of the perfect ("Mia's been at Oakfield").
_HAS_NEXT = _words(
    """been got gotten gone had started left moved finished taken found become decided accepted joined
    landed quit switched changed bought sold passed lost won signed applied"""
)
# Adverbs skipped to find the word that decides ("Dan's just started", "Tom's now at Lidl").
_ADVERBS = _words("just also still now finally already really never always not actually currently")
# Adverbs that are never between a possessive and its noun, and say "is" whatever follows.
_STATE_ADVERBS = _words("still now currently really also not actually always")
# Capitalised words whose "'s" the model already reads right, or that are no one's name.
_NOT_NAMES = _words(
    """it that what there here he she who where how when why let this everything nothing something
    everyone someone one today tomorrow yesterday"""
)
# "my partner's called Sam", "my son's at Oakfield": a relation noun after an owner word.
_RELATION_NOUNS = (
    frozenset(RELATION_PREDICATES)
    | frozenset(FAMILY_NOUNS)
    | _words("brother sister friend flatmate roommate housemate colleague")
    | CAR_NOUNS  # "my car's a Kia Ceed"
)
_PAY_NOUNS = frozenset(PAY_WORDS)  # "Rent's £1,200 now", "my salary's 40k"
_JOB_WORDS = _words("title job role position")  # "My title's Senior Analyst now"
_NAMED = _words("called named")
# Words before a name whose "'s" is the name's own: "at McDonald's", "to St Anne's", "of Lloyd's".
_NAME_LEADS = _words("at in to from for with by near of into st st. saint the")
_S = re.compile(  # (?<![\w-]), not \b: no start inside "a-b-c-..." (quadratic on a long one)
    r"(?<![\w-])(?:(my|our|his|her|their|the)\s+)?([A-Za-z][\w-]*)['’]s\s+(\S+)(?:\s+([A-Za-z-]+))?", re.I
)
_AMOUNT = re.compile(r"[£$€¥₹]?\d")


# "me mam", "me girlfriend Róisín", "me old man Frank": Irish, British and Australian chat's "me" for
# "my" before whom or what one has (same length: "me" -> "my"); "me" anywhere else stays.
_OWNED = sorted(map(re.escape, _RELATION_NOUNS | PET_NOUNS), key=len, reverse=True)
_ME_OWNER = re.compile(
    r"\b([Mm])e(?=\s+(?:(?:old|other|little|big|eldest|youngest)\s+)?(?:man|lady|fella|half|"
    + "|".join(_OWNED)
    + r")\b)"
)


def written_out(text: str) -> str:
    """`text` with each "'s" that means "is" or "has" written out, and chat's "me" for "my" before a
    relation ('me mam'); unchanged when neither is there."""
    return _S.sub(_expand, _ME_OWNER.sub(lambda m: m.group(1) + "y", text))


def _expand(match: re.Match[str]) -> str:
    owner, noun, first, second = match.group(1, 2, 3, 4)
    if owner is None and _inside_a_name(match):
        return match.group(0)
    if owner is None and noun.islower() and noun in _RELATION_NOUNS and _opens_a_sentence(match):
        owner = "my"  # "car's a Golf", "wife's a nurse": chat drops the "my" of a line's opening
    verb = _verb(owner, noun, first, (second or "").lower())
    if verb is None:
        return match.group(0)
    cut = match.end(2) - match.start(0)  # the "'s" right after the noun
    whole = match.group(0)
    return f"{whole[:cut]} {verb}{whole[cut + 2 :]}"


def _opens_a_sentence(match: re.Match[str]) -> bool:
    """Nothing but a stop, a line break or spaces before the match."""
    before = match.string[: match.start()].rstrip()
    return not before or before[-1] in ".!?\n"


def _inside_a_name(match: re.Match[str]) -> bool:
    """ "at Sainsbury's in Leeds", "St Mark's in September": the "'s" of a place's name, after a
    preposition or another word of the name."""
    before = match.string[: match.start()].split()
    if not before:
        return False
    word = before[-1].strip("(\"'")
    return word.lower() in _NAME_LEADS or (word[:1].isupper() and not word.endswith((".", "!", "?", ",")))


def _verb(owner: str | None, noun: str, first: str, second: str) -> str | None:
    """'is', 'has' or None (a possessive, or words that do not tell) for the "'s" after `noun`."""
    low, word = noun.lower(), first.rstrip(".,!?;:").lower()
    if low in _PAY_NOUNS and _AMOUNT.match(first):
        return "is"
    if low in _PAY_NOUNS and (owner is None or owner.lower() in {"my", "our", "the"}):
        return _verb_for(word, second)  # "rent's gone up to 1,250", "my salary's going up"
    if owner is not None and owner.lower() == "the":  # "The cat's called Tinkerbell"
        return "is" if low in PET_NOUNS and word in _NAMED else None
    if owner is not None:
        if (
            low in _JOB_WORDS
            and owner.lower() in {"my", "our"}
            and (first[:1].isupper() or word in {"a", "an"})
        ):
            return "is"  # "My title's Senior Analyst now", "my job's a nightmare" (not "my job's pension")
        if low not in _RELATION_NOUNS:
            return None
        if low in RELATION_PREDICATES and first[:1].isupper() and word in names():
            return "is"  # "my manager's Rachel Lim": a first name after a person's relation word
        return "is" if word in _NAMED else _verb_for(word, second)
    if low in {"he", "she"}:  # "She's been at Boots for six years": the model reads a passive "is"
        return "has" if _verb_for(word, second) == "has" else None
    if not noun[:1].isupper() or low in _NOT_NAMES:
        return None
    return _verb_for(word, second)


def _verb_for(first: str, second: str) -> str | None:
    """'is' or 'has' by the word after the "'s" (or after its adverb); None when it does not tell."""
    word = second if first in _ADVERBS and second else first
    if word in _HAS_NEXT:
        return "has"
    if word in _IS_NEXT or first in _STATE_ADVERBS:
        return "is"  # "Tom's now a manager", "Dan's still unsure"
    return None
