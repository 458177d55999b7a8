"""Whether a capitalised name the small model mistyped or left untagged may be a firm.

Why: the model knows the big firms; one it does not know, after "at" or "for" ("been at Ocado",
"hired me at Brightwater"), comes out a place, a person or no entity at all, and then neither the
rules nor relations by example read a job. Such a name is taken for a firm only when it is none of
what else a bare capitalised name there usually is: a first name, a kin word, a place the gazetteer
knows, a day, a month, a holiday, a car.
"""

from __future__ import annotations

from knowledge_engine.extract import lexicon, places
from knowledge_engine.extract.dates import MONTHS, WEEKDAYS
from knowledge_engine.extract.kin import KIN_WORDS
from knowledge_engine.extract.truecase import names as first_names

_NOT_FIRMS = frozenset(MONTHS) | frozenset(WEEKDAYS) | lexicon.HOLIDAYS | {"mum", "mom", "dad", "covid"}


def first_name_led(name: str) -> bool:
    """No name, or one whose first word is a person's first name ("with Tom", "Dave let me go"): no
    firm's."""
    words = name.lower().split()
    return not words or words[0] in first_names()


def unknown_firm(name: str) -> bool:
    """No first name opens `name`, and it is no kin word, known place, day, month, holiday or car."""
    words = name.casefold().split()
    return not (
        first_name_led(name)
        or name.casefold() in KIN_WORDS
        or places.fold(name) in places.places()
        or any(w in _NOT_FIRMS for w in words)
        or any(w in lexicon.CAR_NAMES for w in name.split())
    )
