"""Notes a user pastes: one "key: value" per line, the key a word for what the value is.

Why: people hand an assistant their facts as notes to tidy or forms to fill ("- job: Senior analyst,
Westpac (since 2021)", "Home: Clapham", "Car: 2017 Skoda Fabia", "Husband Karl – electrician", "Old
job: barista at Pret"). Such a line has no verb, so no clause rule reads it; its key says what the
value is. `sentences._fragments` finds the key (after a bullet and "my", "new", "old", ...) and the
separator; this module reads the value for the keys it names: a home, a car, a job (with its
employer after a comma or its title in brackets), and a line led by a person ("Me – teacher at
Hillside Primary", "Husband Karl – electrician"). A key with "old", "previous", "former", "ex" (or
"before:") gives what was, not what is.

A line led by someone else's name is about them, not the speaker ("- Hana: in Osaka now", "Liesl –
moved to Stellenbosch", "Rosa – VW Golf"): the rules read such a value with a dropped "I", so the
facts a sentence of that line gave the speaker become the named person's (`_line_facts_owned`), or
no one's when the key is someone unnamed ("Dad – in Galway now").
"""

from __future__ import annotations

import re

from spacy.tokens import Span, Token

from knowledge_engine.extract import places
from knowledge_engine.extract.cars import car_spans
from knowledge_engine.extract.dependency.context import _Ctx, _emit
from knowledge_engine.extract.dependency.grammar import _is_school
from knowledge_engine.extract.dependency.lines import _job_fragment, _name_run
from knowledge_engine.extract.dependency.names import (
    _key_owner,
    _key_person,
    _kin_or_pet_key,
    _line_key,
    _line_start,
    _person_cased,
    _year_word,
)
from knowledge_engine.extract.dependency.nouns import _pet_predicate, _relation_predicate
from knowledge_engine.extract.lexicon import PET_NOUNS, RELATION_PREDICATES
from knowledge_engine.extract.truecase import names as first_names

HOME_KEYS = frozenset(
    {"home", "location", "based", "city", "town", "lives", "live", "living", "address", "area", "suburb"}
)
CAR_KEYS = frozenset({"car", "vehicle", "motor", "drives", "ride"})
# A key for the job, beside those of FRAGMENT_JOB_KEYS: "Work: Deloitte (audit associate)"
MORE_JOB_KEYS = frozenset({"work", "company", "firm"})
# Before a key, or as one: what was ("Old job: barista at Pret", "before: analyst at ANZ")
PAST_OWNERS = frozenset({"old", "previous", "prev", "former", "ex", "past"})
PAST_KEYS = frozenset({"before", "previously", "prior"})
NOW_KEYS = frozenset({"current", "currently", "now"})
_SELF = frozenset({"me", "myself", "i"})
SEPARATORS = frozenset({":", "-", "–", "—", "="})
_YEARS = re.compile(r"(?:19|20)\d\d")


def _person_value(words: list[Token]) -> str | None:
    """The name a note gives a person ("husband: Tomasz", "child: Amara, age 3"): a proper name, or
    capitalised words the first of which is a known first name (the model may tag "Tomasz" a noun)."""
    name = _name_run(words)
    if name is not None:
        return name
    end = 0
    while end < min(len(words), 3) and words[end].is_alpha and words[end].is_title and not words[end].is_stop:
        end += 1
    if end == 0 or words[0].lower_ not in first_names():
        return None
    return words[0].doc[words[0].i : words[end - 1].i + 1].text


def _listed_age(words: list[Token], person: str, ctx: _Ctx) -> None:
    """'Amara, age 3', 'Theo (7)': the child's age beside the name in a note."""
    rest = [t for t in words[len(person.split()) :] if t.text not in {",", "(", ")"}]
    if rest and rest[0].lower_ in {"age", "aged"}:
        rest = rest[1:]
    if rest and rest[0].text.isdigit() and 0 < int(rest[0].text) < 30:
        _emit(ctx, person, "is-aged", rest[0].text, 0.5, obj_tok=None)


_SPAN_WORDS = frozenset({"-", "–", "to", "now", "present", "current", "today"})
_STILL = frozenset({"now", "present", "current", "today"})


def _cv_line(words: list[Token], ctx: _Ctx) -> bool:
    """'2019-2022 Junior dev @ Kinetiq Labs' (what was), '2022-now Backend engineer @ Norrsken Pay'
    (what is): a CV's line, years first, then a title at an employer. A line whose verb follows the
    years ("2018 started at UiPath") is a clause's (names._dropped_subject)."""
    k = 0
    while k < len(words) and (_year_word(words[k]) or (k > 0 and words[k].lower_ in _SPAN_WORDS)):
        k += 1
    rest = words[k + 1 :] if k < len(words) and words[k].text == ":" else words[k:]  # "2012 - 2016: ..."
    if k == 0 or not rest or rest[0].pos_ in {"VERB", "AUX"}:
        return False
    if not any(t.text in {"@", "at", ","} for t in rest[:6]):
        return False
    span = "".join(t.text_with_ws for t in words[:k]).lower()
    still = any(w in span for w in _STILL)
    past = not still and sum(1 for t in words[:k] for _ in _YEARS.finditer(t.text)) >= 2
    _job_fragment(rest, True, ctx, past=past)
    return True


def _home_note(words: list[Token], past: bool, ctx: _Ctx) -> None:
    """'Home: Clapham', 'Lives: Lambeth', 'based in Surry Hills' -> lives-in (lived-in)."""
    while words and words[0].lower_ in {"in", "at", "near"}:
        words = words[1:]
    name = _name_run(words)
    if name is None and words and places.fold(words[0].text) in places.places():
        name = words[0].text.capitalize()  # "home: leeds"
    if name:
        pred = "lived-in" if past else "lives-in"
        _emit(ctx, ctx.me, pred, name, 0.55, obj_tok=None, obj_type="location")


def _car_note(words: list[Token], past: bool, ctx: _Ctx) -> None:
    """'Car: 2017 Skoda Fabia', 'car = corsa' -> has-car (had-car): the car the value names."""
    if not words:
        return
    spans = car_spans(words[0].doc[words[0].i : words[-1].i + 1])
    if spans:
        pred = "had-car" if past else "has-car"
        _emit(ctx, ctx.me, pred, spans[0].text, 0.55, obj_tok=None, obj_type="product", ends=past)


def _person_note(key: list[Token], value: list[Token], ctx: _Ctx) -> bool:
    """'Me – teacher at Hillside Primary' (the speaker's job), 'Husband Karl – electrician' (the
    relation, and the named person's job): a line led by whom it describes."""
    if len(key) == 1 and key[0].lower_ in _SELF:
        _job_fragment(value, True, ctx)
        return True
    if key and not _kin_or_pet_key(key[0]):
        person = _key_person(key, ctx)  # "- Priya: accountant at KPMG", "Aisha – designer at Figma"
        if person is None or person == ctx.me:
            return False
        ex = len(value) > 2 and value[0].lower_ == "ex" and value[1].text == "-"  # "Derek – ex-fireman"
        _job_fragment(value[2:] if ex else value, True, ctx, who=person, past=ex)
        _their_things(value, person, ctx)
        return True
    if not key:
        return False
    name = _name_run(key[1:])
    if name is None or len(name.split()) != len(key) - 1:
        return False
    person = _person_cased(name)
    _emit(ctx, ctx.me, _relation_predicate(key[0]), person, 0.55, obj_tok=None, obj_type="person")
    _job_fragment(value, True, ctx, who=person)
    return True


_IN_A_SCHOOL_NAME = frozenset({"'", "’", "'s", "’s", "&", "of", "the"})


def _their_things(value: list[Token], person: str, ctx: _Ctx) -> None:
    """What a line led by a person names of theirs: a school ("- Ayesha: Bradford Girls' Grammar"), a
    car ("Rosa – Golf", "Hamid – drives a Prius"), a pet ("- Grete: cat called Pixel")."""
    doc = value[0].doc
    words = list(value)
    while words and words[-1].is_punct:
        words = words[:-1]
    named = words and all(t.is_title or t.text in _IN_A_SCHOOL_NAME for t in words)
    name = doc[words[0].i : words[-1].i + 1].text if named else None
    if name and _is_school(name):  # the whole value a school's name ("Bradford Girls' Grammar")
        _emit(ctx, person, "attends", name, 0.55, obj_tok=None, obj_type="organization")
    cars = car_spans(doc[value[0].i : value[-1].i + 1])
    if cars and cars[0].start <= value[0].i + 3:
        _emit(ctx, person, "has-car", cars[0].text, 0.55, obj_tok=None, obj_type="product")
    if len(value) >= 3 and value[0].lemma_.lower() in PET_NOUNS and value[1].lower_ in {"called", "named"}:
        pet = _person_value(value[2:])
        if pet:
            _emit(ctx, person, _pet_predicate(value[0]), pet, 0.55, obj_tok=None, obj_type="unknown")


def _note_line(words: list[Token], ctx: _Ctx) -> bool:
    """A note line read whole, and whether it was one: a CV's line (`_cv_line`), 'current: X at Y' and
    'before: X at Y' (a job by its time), 'Me – teacher at X' and 'Husband Karl – electrician' (a line
    led by whom it describes). The other keys are `sentences._fragments`'."""
    if _cv_line(words, ctx):
        return True
    sep = next((k for k, t in enumerate(words[:4]) if t.text in SEPARATORS), None)
    if sep is None or sep == 0 or sep + 1 >= len(words):
        return False
    key, value = words[:sep], words[sep + 1 :]
    if key[-1].lower_ == "that" and len(key) == 2:
        key = key[:1]  # "before that: grad role at Suncorp"
    if len(key) == 1 and key[0].lower_ in NOW_KEYS | PAST_KEYS:
        _job_fragment(value, True, ctx, past=key[0].lower_ in PAST_KEYS)
        return True
    return _person_note(key, value, ctx)


_RELATIONS = frozenset(RELATION_PREDICATES.values())  # "Wife: Ingrid": is-married-to, the key's relation
_FIRST_PERSON_WORDS = frozenset({"i", "im", "me", "my", "mine", "we", "our", "us", "myself"})


def _line_facts_owned(sent: Span, first: int, ctx: _Ctx) -> None:
    """The speaker's facts a sentence of a line led by another person gave ("Liesl – moved to
    Stellenbosch", "Ravi – now at Wipro": the rules read a dropped "I") are that person's; a key
    that names no one ("Dad – in Galway now") leaves them no one's. Not where the line speaks of
    the speaker too ("- Hana: my old flatmate")."""
    if any(t.is_space and "\n" in t.text for t in sent[:-1]) or ctx.message.role != "user":
        return  # a sentence over several lines: whose each line is, is not one key's
    key_words = _line_key(sent[-1])
    owner = _key_owner(key_words, ctx)
    if owner == ctx.me or any(t.lower_ in _FIRST_PERSON_WORDS for t in _the_line(sent)):
        return
    key = " ".join(t.text for t in key_words or [])
    # "Husband Karl – electrician", "Wife: Ingrid": the speaker's relation to the person the line names
    # stays the speaker's when the key is that relation
    relation = owner is None
    mine = [
        f
        for f in ctx.out[first:]
        if f.subject == ctx.me
        and not (key and f.object in key)
        and not (relation and (f.predicate.startswith("has-") or f.predicate in _RELATIONS))
    ]
    if not mine:
        return
    kept = [f for f in ctx.out[first:] if not any(f is m for m in mine)]
    moved = [f.model_copy(update={"subject": owner}) for f in mine] if owner else []
    ctx.out[first:] = kept + moved


def _the_line(sent: Span) -> Span:
    """The whole line a sentence ends on, from its start."""
    return sent.doc[_line_start(sent[-1]) : sent[-1].i + 1]
