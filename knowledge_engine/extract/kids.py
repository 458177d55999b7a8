"""The speaker's children named by their ages: "she keeps the kids when I'm out, Caleb is 12 and
Maddie's 8".

Why: a parent introduces children in passing, by a word for the kids and then each name with an
age, never as "my son Caleb". A name given a child's age in a message that speaks of the speaker's
own kids ("the kids", "my kids", "our two boys") is a child of the speaker. Not when the kids are
someone else's ("her kids", "my sister's kids"), and not a name with an adult's age.

The chat form "Maddie's 8" parses as a possessive; `possessive_ages` reads it as an age.
"""

from __future__ import annotations

from spacy.tokens import Doc, Token

from knowledge_engine.extract.lexicon import NUMBER_WORDS, OTHER_POSSESSIVES, SPEAKER_SUBJECTS

KID_WORDS = frozenset({"kids", "children", "boys", "girls", "kiddos", "twins"})
_OWN = frozenset({"my", "our", "the"})
# "I'm a mum of two", "Mum of 3 here!": a parent by the number of their children
_PARENT_NOUNS = frozenset({"mum", "mom", "mam", "mother", "dad", "father", "parent", "mummy", "mommy"})
MAX_CHILD_AGE = 17


def speaks_of_own_kids(doc: Doc) -> bool:
    """'the kids', 'my kids', 'our two boys', "I'm a mum of two" in the message, and no other owner's
    kids."""
    own = False
    for tok in doc:
        own = own or _parent_of(tok)
        if tok.lower_ not in KID_WORDS:
            continue
        owner = next((c for c in tok.children if c.dep_ in {"poss", "det"}), None)
        if owner is None:  # "we have two kids", "I've got two kids": the speaker's by the verb
            subj = next((c for c in tok.head.children if c.dep_ == "nsubj"), None)
            had = tok.dep_ == "dobj" and tok.head.lemma_ in {"have", "get"}
            own = own or (had and subj is not None and subj.lower_ in SPEAKER_SUBJECTS)
            continue
        possessed = owner.tag_ == "NNP" or any(c.dep_ == "case" for c in owner.children)
        if owner.lower_ in OTHER_POSSESSIVES or possessed:
            return False  # "her kids", "Tom's kids", "my sister's kids"
        own = own or owner.lower_ in _OWN
    return own


def _parent_of(tok: Token) -> bool:
    """'a mum of two' said of the speaker, or opening the message ("Mum of 3 here!"); "my mum of 80
    years" is someone else, and "of 80 years" no count of children."""
    if tok.lower_ not in _PARENT_NOUNS or any(c.dep_ == "poss" for c in tok.children):
        return False
    count = [p for c in tok.children if c.dep_ == "prep" and c.lower_ == "of" for p in c.children]
    if not any(p.dep_ == "pobj" and p.like_num and p.ent_type_ != "DATE" for p in count):
        return False
    subj = next((c for c in tok.head.children if c.dep_ == "nsubj"), None)
    said_of_me = tok.dep_ == "attr" and subj is not None and subj.lower_ in SPEAKER_SUBJECTS
    return said_of_me or tok.i == tok.sent.start


def child_age(age: str) -> bool:
    """A child's age in years, in figures or in words ("Leo's four now")."""
    years = int(age) if age.isdigit() else NUMBER_WORDS.get(age.casefold())
    return years is not None and years <= MAX_CHILD_AGE


def possessive_ages(doc: Doc) -> list[tuple[Token, str]]:
    """'Maddie's 8' (and, or the end of the clause, after it): (the name, its age)."""
    out: list[tuple[Token, str]] = []
    for tok in doc[1:-1]:
        name, num = doc[tok.i - 1], doc[tok.i + 1]
        after = doc[num.i + 1] if num.i + 1 < len(doc) else None
        ends = after is None or after.is_punct or after.lower_ in {"and", "now", "too"}
        if tok.lower_ in {"'s", "’s"} and name.pos_ == "PROPN" and num.like_num and ends:
            out.append((name, num.text))
    return out
