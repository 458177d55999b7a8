"""The city a home's district is in, said right after it: "a duplex in Belmont, thats in Dayton", "our
new flat is in Chorlton, south Manchester", "we got a place in Ponsonby, Auckland".

Why: people name where they live by its neighbourhood and add the city as an aside. Read alone, the
district is the home and the city is lost (or, worse, read as a place left), so "where do I live?"
gets a neighbourhood no one outside it knows. The city counts only when it is a place (the model's
GPE/LOC, or a town the gazetteer knows) named right after the district: after a comma, "that's in",
"it's in", or a few words of direction ("east end of", "south", "a suburb of"); and only a city the
gazetteer knows to be larger than the district, not a country or a state.
"""

from __future__ import annotations

import re

from spacy.tokens import Doc, Span

from knowledge_engine.extract import places, truecase

_PLACE_LABELS = frozenset({"GPE", "LOC"})
# Words between the district and its city: "thats in", "it's a suburb of", "east end of", "just outside"
_BRIDGE = frozenset(
    {
        "that", "thats", "that's", "'s", "s", "which", "is", "it", "its", "it's", "in", "of", "the", "a",
        "north", "south", "east", "west", "central", "greater", "inner", "outer", "northern", "southern",
        "eastern", "western", "north-east", "north-west", "south-east", "south-west", "end", "side", "part",
        "suburb", "outskirts", "just", "outside", "near", "area", "district", "neighbourhood", "neighborhood",
    }
)  # fmt: skip
MAX_BRIDGE = 5


def city_after(doc: Doc, start: int, end: int) -> Span | None:
    """The city named right after the district at characters [start, end) of `doc`, or None."""
    district = doc.char_span(start, end, alignment_mode="expand")
    if district is None:
        return None
    i = district.end
    if i >= len(doc) or doc[i].text not in {",", "(", "-", "–"}:
        return None
    i += 1
    bridge = 0
    while i < len(doc) and doc[i].lower_ in _BRIDGE and bridge < MAX_BRIDGE:
        i, bridge = i + 1, bridge + 1
    return _place_at(doc, i, district)


def _place_at(doc: Doc, i: int, district: Span) -> Span | None:
    """The place named at token i: the model's GPE/LOC there, or a run of capitalised words the
    gazetteer knows (the model tags "Dayton" a person as often as a place)."""
    ent = next((e for e in doc.ents if e.start == i), None)
    city = ent if ent is not None and ent.label_ in _PLACE_LABELS else _known_run(doc, i)
    if city is None or not _holds(city.text, district.text):
        return None
    return city


def _known_run(doc: Doc, i: int) -> Span | None:
    run = 0
    while (
        run < places.MAX_WORDS  # the gazetteer holds no longer name
        and i + run < len(doc)
        and doc[i + run].is_alpha
        and doc[i + run].text[:1].isupper()
    ):
        run += 1
    return next(
        (doc[i : i + n] for n in range(run, 0, -1) if places.fold(doc[i : i + n].text) in places.places()),
        None,
    )


def _holds(city: str, district: str) -> bool:
    """A city larger than the district, not a country or a state ("Leeds, England": no district)."""
    known = places.places()
    people = known.get(places.fold(city), 0)
    return known.get(places.fold(district), 0) < people < places.COUNTRY_OR_STATE


# "Dayton's home", "Leeds is home now", "Bristol has always been home" (not "home office", "home by six").
# A name starts only after no word character (a lookbehind, not \b, and possessive words): one pass
# over a long "A-A-A-..." is linear, not one pass from every letter.
_WORD = r"[A-Z][^\W\d_]*+(?:-[^\W\d_]++)*+"
_IS_HOME = re.compile(
    rf"(?<![\w'’-])({_WORD}(?: {_WORD}){{0,2}})(?:'s|’s| is| has (?:always |now )?been)"
    r"(?: (?:now|still|really|always|very much|definitely))? home"
    r"(?:\b(?! ?\w)| (?:now|for us|for me|these days)\b)"
)


def home_places(text: str) -> list[str]:
    """The places a message calls home ("yeah I'm not moving the kids, Dayton's home"): a town the
    gazetteer knows and no first name ("Austin's home" may be Austin back from uni)."""
    out = []
    for m in _IS_HOME.finditer(text):
        name = m.group(1)
        if places.fold(name) in places.places() and not any(
            w.lower() in truecase.names() for w in name.split()
        ):
            out.append(name)
    return out
