"""A past-tense verb that opens a message is written in lower case for the parse.

Why: chat drops the "I" ("Left Nationwide for Santander last month", "Married Priya in 2015",
"Lost my job at Boots"), and the small English model, trained on edited text, reads a capital
before a name as part of the name ("Quit Deliveroo" one organisation, "Married Priya" one person)
or tags the verb as a base form ("Lost" a VB with the lemma "lost"). In lower case it parses the
verb as the past verb it is, and the rules for a dropped subject (dependency.names._dropped_subject)
read the clause as the speaker's. Only the case of one letter changes, so the text keeps its length
and every offset stays valid.

A word counts as a past form when the lemmatizer's exception table lists it as a verb form ("left",
"got", "married") or it is a regular "-ed" form of a verb the word index knows ("joined",
"diagnosed"). A first name ("Rose"), a place the gazetteer knows and "-ing" forms (they parse well
as they are) are left alone.

Only the message's first word: after a full stop or a new line the capital is what tells the small
model a new sentence starts ("Ugh. diagnosed with asthma" parses "Ugh" as the subject;
"Thanks!\nsold the Corsa and bought a Yaris" loses the Yaris).
"""

from __future__ import annotations

import re
import threading
from typing import TYPE_CHECKING

from knowledge_engine.extract import places, truecase
from knowledge_engine.extract.nlp import irregular_forms, word_index
from knowledge_engine.observe import counters

if TYPE_CHECKING:
    from spacy.language import Language

_OPENING_WORD = re.compile(r"[A-Z][a-z]{2,15}(?![\w'’-])[ \t]{1,3}\w")  # a word follows it
_LOOKBACK = 8  # at most this many spaces, quotes or brackets before the opening word
_OPENERS = ' \t"“(*'

# Verbs whose past is their base form, so no exception table lists it: "Quit Deliveroo", "Put in my notice"
_SAME_IN_THE_PAST = frozenset({"quit", "put", "cut", "set", "shut", "split"})

_lock = threading.Lock()
_pasts: dict[int, frozenset[str]] = {}


def opening_past(text: str, pasts: frozenset[str]) -> str:
    """`text` with its opening word in lower case when it is one of `pasts` and more words follow
    (not a one-word reply such as "Married."); same length."""
    start = len(text) - len(text.lstrip(_OPENERS))
    m = _OPENING_WORD.match(text, start) if start <= _LOOKBACK else None
    if m is None or m.group().split()[0].lower() not in pasts:
        return text
    return text[:start] + text[start].lower() + text[start + 1 :]


def past_forms(nlp: Language) -> frozenset[str]:
    """The past verb forms of a loaded pipeline's lemmatizer, built once per pipeline."""
    key = id(nlp.vocab)
    with _lock:
        found = _pasts.get(key)
    if found is None:
        found = _build(nlp)
        with _lock:
            found = _pasts.setdefault(key, found)
    return found


def _build(nlp: Language) -> frozenset[str]:
    index = word_index(nlp.vocab) or {}
    verbs = frozenset(index.get("verb", ()))
    forms = irregular_forms(nlp).get("verb", frozenset())
    irregular = {f for f in forms if f.isalpha() and not f.endswith(("ing", "s"))}
    irregular |= _SAME_IN_THE_PAST  # "Quit Deliveroo, starting at Octopus": no exception lists a past = base
    regular = {f"{v}ed" for v in verbs if v.isalpha()} | {f"{v}d" for v in verbs if v.endswith("e")}
    known = places.places()
    names = truecase.names()
    return frozenset(w for w in irregular | regular if w not in names and places.fold(w) not in known)


def lower_all(nlp: Language, texts: list[str]) -> list[str]:
    """The texts with their sentence-opening past verbs in lower case; counts the texts changed."""
    pasts = past_forms(nlp)
    out = [opening_past(t, pasts) for t in texts]
    changed = sum(1 for a, b in zip(texts, out, strict=True) if a is not b)
    if changed:
        counters.inc("extract.spacy.opening_verbs_lowered", changed)
    return out
