"""Conditions named after a person ("Crohn's", "Parkinson's") kept one word for the parse.

Why: spaCy splits "Crohn's" into "Crohn" + "'s" and the small model reads a possessive: "I was
diagnosed with Crohn's last year" became "with [Crohn's last year]" (a date), "I have Crohn's" a
"have" with no object, and "I'm living with Crohn's" lived with a person. A tokenizer special case
per form keeps the name one token (norm "crohn's"), which the parser takes as the noun it is and the
health rules find in `lexicon.CONDITIONS`. Only names seldom a person's in chat ("Addison's mum" is
a child's): no Addison, Huntington, Paget or Bell. Same text, same offsets.
"""

from __future__ import annotations

from typing import cast

from spacy.language import Language
from spacy.symbols import NORM, ORTH
from spacy.tokenizer import Tokenizer

from knowledge_engine.extract.lexicon import EPONYMOUS_CONDITIONS

_APOSTROPHES = ("'", "’")


def forms(name: str) -> list[str]:
    """'crohn' -> "crohn's", "Crohn's", "CROHN'S" and the same with a curly apostrophe."""
    return [
        case + apostrophe + ("S" if case.isupper() else "s")
        for case in (name, name.capitalize(), name.upper())
        for apostrophe in _APOSTROPHES
    ]


def install(nlp: Language) -> None:
    """Add one special case per written form of each condition to a loaded pipeline's tokenizer."""
    tokenizer = cast(Tokenizer, nlp.tokenizer)
    for name in EPONYMOUS_CONDITIONS:
        for form in forms(name):
            tokenizer.add_special_case(form, [{ORTH: form, NORM: name + "'s"}])
