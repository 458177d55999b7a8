"""A name's "'s" that means "is" or "has", written out for the fact parse: "Dan's working at Tesco".

Why: the small English model reads "Name's" as a possessive almost always, so "Dan's working at
Tesco now", "Hannah's at Boots", "Tom's a nurse at the Royal" and "Mia's been at Oakfield since
September" parse as "Dan's working", "Hannah's at", "Tom's nurse": no subject, no verb, no fact.
Chat says people's news this way all the time. Where the word after the "'s" (or after an adverb
such as "just", "now", "still") cannot follow a possessive, the fact rules get a second parse of the
text with the "'s" written out ("Dan is working", "Mia has been"). Entities and their offsets still
come from the text as written; facts are strings, so their parse may differ in length.
"""

from __future__ import annotations

import re


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# After "Name's", these words make the "'s" an "is": an article, a preposition, a state.
_IS_NEXT = _words(
    """a an the at in from on with off into over back home here there still now currently also
    married engaged pregnant retired unemployed freelance self-employed single divorced
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
_NAME_S = re.compile(r"\b([A-Z][\w-]*)['’]s\s+([A-Za-z-]+)(?:\s+([A-Za-z-]+))?")


def written_out(text: str) -> str:
    """`text` with each name's "'s" that means "is" or "has" written out; unchanged when none does."""
    return _NAME_S.sub(_expand, text)


def _expand(match: re.Match[str]) -> str:
    name, first, second = match.group(1), match.group(2), match.group(3)
    whole = match.group(0)
    if name.lower() in _NOT_NAMES:
        return whole
    verb = _verb_for(first.lower(), (second or "").lower())
    if verb is None:
        return whole
    return f"{name} {verb}" + whole[whole.index("s", len(name)) + 1 :]


def _verb_for(first: str, second: str) -> str | None:
    """'is', 'has' or None (a possessive, or a word that does not tell)."""
    word = second if first in _ADVERBS and second else first
    if word in _HAS_NEXT:
        return "has"
    if word in _IS_NEXT or first in _STATE_ADVERBS:
        return "is"  # "Tom's now a manager", "Dan's still unsure"
    return None
