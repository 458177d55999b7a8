"""A move told by its arrival: "Hello again from Knocknacarra! ... The move went grand", "We made it
to Denver!! Living in Wash Park, renting a little house".

Why: after announcing a move without its destination ("I'm moving on the 17th of May"), people
write the next message from the new place, and name the place only in the greeting or in "made it
to X". Read alone, a greeting from a place is as likely a holiday, so the place counts as the new
home only when the same message speaks of the move or the new home (lexicon.MOVE_CUES), and never
when it speaks of a trip (lexicon.TRIP_CUES: a flight, a holiday, a hotel).
"""

from __future__ import annotations

from spacy.tokens import Doc, Span, Token

from knowledge_engine.extract.lexicon import MOVE_CUES, SPEAKER_SUBJECTS, TRIP_CUES

GREETINGS = frozenset({"hello", "hi", "hey", "greetings", "howdy", "hiya"})
_PLACE_LABELS = frozenset({"GPE", "LOC", "FAC"})
_PEOPLE_LABELS = frozenset({"PERSON", "NORP"})


def arrival_places(doc: Doc, ents: dict[int, str]) -> list[Token]:
    """The place tokens a user message says the speaker arrived at to live (see the module's doc).
    `ents` maps a token index to its entity label."""
    words = {t.lower_ for t in doc} | {t.lemma_.lower() for t in doc}
    if not words & MOVE_CUES or words & TRIP_CUES:
        return []
    found: list[Token] = []
    for sent in doc.sents:
        opener = next((t for t in sent if not t.is_punct), None)
        if opener is not None and opener.lower_ in GREETINGS:
            found += [p for p in _greeting_from(opener, sent.end) if ents.get(p.i) not in _PEOPLE_LABELS]
        found += [p for p in _made_it_to(sent) if ents.get(p.i) in _PLACE_LABELS]
    return found


def _greeting_from(opener: Token, end: int) -> list[Token]:
    """'Hello (again) from X!': the place, within the first few words of the greeting."""
    doc = opener.doc
    for tok in doc[opener.i + 1 : min(end, opener.i + 4)]:
        if tok.lower_ == "from":
            pobjs = [c for c in tok.children if c.dep_ == "pobj" and c.pos_ == "PROPN"]
            # "from Tom and the kids": people, not a place
            return [p for p in pobjs if not any(c.dep_ == "conj" for c in p.children)]
    return []


def _made_it_to(sent: Span) -> list[Token]:
    """'We made it to Denver!!': the speaker's arrival (not another's, not a plan)."""
    out: list[Token] = []
    for verb in (t for t in sent if t.lemma_ == "make" and t.tag_ in {"VBD", "VBN"}):
        kids = list(verb.children)
        subj = next((c for c in kids if c.dep_ == "nsubj"), None)
        if subj is None or subj.lower_ not in SPEAKER_SUBJECTS or not any(c.lower_ == "it" for c in kids):
            continue
        for prep in (c for c in kids if c.dep_ == "prep" and c.lower_ == "to"):
            out += [c for c in prep.children if c.dep_ == "pobj"]
    return out
