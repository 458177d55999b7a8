"""spaCy dependency-parse fact tier: zero-LLM subject-predicate-object triples.

Why rule-based: this tier runs on every message with no model beyond the spaCy pipeline that
already parsed it, so it must be fast and, above all, precise. Wrong facts are worse than
missing ones, so every construction we are unsure of (questions, conditionals, modals, hedges,
negation, unresolved pronouns, unnamed subjects) yields nothing. The rules and the predicate
vocabulary are documented in docs/extraction-facts.md.
"""

from __future__ import annotations

import itertools
import logging
import re
from dataclasses import dataclass, field

from spacy.tokens import Doc, Span, Token

from knowledge_engine.extract import home_city, job_news, places, still_at
from knowledge_engine.extract.arrival import arrival_places
from knowledge_engine.extract.cars import Cars
from knowledge_engine.extract.dates import MONTHS
from knowledge_engine.extract.kids import child_age, possessive_ages, speaks_of_own_kids
from knowledge_engine.extract.lexicon import (
    ADJECTIVE_ENDINGS,
    ANIMAL_NOUNS,
    ANNOUNCE_VERBS,
    APPROXIMATORS,
    ASPECTUAL,
    CAR_GET_VERBS,
    CAR_MODELS,
    CAR_NAMES,
    CAR_NOUNS,
    CAREER_VERBS,
    CHAT_VERBS_OPENING,
    CHILDCARE_NOUNS,
    CLEAN_VALUE,
    CLINICIANS,
    CONDITION_ADJECTIVES,
    CONDITION_COMPOUNDS,
    CONDITIONAL_MARKS,
    CONDITIONS,
    CURRENCY_WORDS,
    DATE_WORDS,
    DEGREE_NOUNS,
    DIET_ADJECTIVES,
    DISEASE_HEADS,
    DISTRICT_NOUNS,
    DONE_BY_PERFECT,
    EMOTIVE_ADJECTIVES,
    ENDED_STATE,
    ENDING_PREDICATES,
    EVALUATIVE,
    FACTIVE_VERBS,
    FAMILY_NOUNS,
    FAMILY_VERBS,
    FEMALE_KIN,
    FIRM_NOUNS,
    FIRST_PERSON,
    FIRST_PERSON_POSS,
    FOR_VERBS,
    FRAGMENT_GLUE,
    FRAGMENT_IRREALIS,
    FRAGMENT_JOB_KEYS,
    FRAGMENT_LEADS,
    FRAGMENT_OWNERS,
    FRAGMENT_ROLE_KEYS,
    GENERIC_OBJECTS,
    HEADED_ROLES,
    HEDGE_VERBS,
    HEDGES,
    HIRE_VERBS,
    HOLIDAYS,
    HOME_FIND_VERBS,
    HOME_NOUNS,
    IRREGULAR_PAST,
    IRREGULAR_PRESENT,
    JOB_END_VERBS,
    JOB_GET_VERBS,
    JOB_NOUNS,
    JOB_TITLE_NOUNS,
    LEAD_WORDS,
    LIGHT_VERBS,
    MALE_KIN,
    MANAGER_NOUNS,
    MARKS,
    MAX_SENTENCE_TOKENS,
    MAX_VALUE_WORDS,
    MODALS,
    MONEY_SHORT,
    MOVE_VERBS,
    MULTIPLE_BIRTHS,
    NAME_BREAKS,
    NET_MARKED_AFTER,
    NEUTRAL_MODIFIERS,
    NOT_NAME_ENDINGS,
    NOT_NAMES,
    NUMBER_WORDS,
    OFFER_GET_VERBS,
    OLD_HOME_WORDS,
    OWN_JOB_NOUNS,
    PASSIVE_PREPS,
    PAST_JOB_MODS,
    PAY_CUES,
    PAY_MARKED,
    PAY_MARKED_AFTER,
    PAY_WORDS,
    PENSION_NOUNS,
    PERSON_NOUNS,
    PERSON_SUBJECT_PREDICATES,
    PET_BREEDS,
    PET_NOUNS,
    PLAIN_ADJECTIVES,
    PREDICATE_ALIASES,
    PREDICATE_OBJECT_TYPES,
    PRONOUN,
    PURCHASE_WORDS,
    QUANTITY_HEADS,
    RECOVERY_VERBS,
    RELATION_PREDICATES,
    SALARY_NOUNS,
    SCHEDULED_MODALS,
    SCHEDULED_VERBS,
    SCHOOL_WORDS,
    SCHOOL_YEAR,
    SCHOOL_YEAR_SAID,
    SHIFT_NOUNS,
    SKIP_ENT_LABELS,
    SPEAKER_SUBJECTS,
    START_VERBS,
    STUDENT_NOUNS,
    TAKE_HOME,
    TAKE_HOME_NOUNS,
    TIME_PARTS,
    TITLE_HEADS,
    TRAINEESHIPS,
    UNREAL_JOB_MODS,
    VALUE_NOUNS,
    VALUE_PREDICATES,
    VERB_FAMILIES,
    VERB_PREPS,
    VISIT_WORDS,
    WH_TAGS,
    WORK_FIELDS,
    WORK_FOR_VERBS,
    WORK_NOUNS,
    WORK_PREDICATES,
    WORK_VERBS,
)
from knowledge_engine.extract.nlp import LABEL_TYPES, word_index
from knowledge_engine.extract.pets import pet_of_breed, pets_in
from knowledge_engine.extract.regex import CURRENCY_CODES
from knowledge_engine.extract.truecase import COMMON_PLACE_POPULATION
from knowledge_engine.extract.truecase import names as first_names
from knowledge_engine.model.extraction import FactCandidate
from knowledge_engine.model.predicates import (
    ACCEPTED_OFFER,
    DECLINED_OFFER,
    DISTRICT_FACT,
    OFFER_PREDICATE,
    OFFERED_PAY,
    OFFERED_ROLE,
    STARTED_JOB,
)
from knowledge_engine.model.records import EntityType, Message
from knowledge_engine.observe import counters, emit


@dataclass
class _Ctx:
    """Per-message state: who "I" is, and the entity spans of the doc."""

    message: Message
    ents: dict[int, Span]
    out: list[FactCandidate] = field(default_factory=list)
    dropped: set[int] = field(default_factory=set)  # verbs whose "I" the chat left out
    names: dict[int, str] = field(default_factory=dict)  # lower-case names: "my boyfriend jonas"
    moved: str | None = None  # who moved, without saying where yet: "we moved!! hamburg altona"
    titled: bool = False  # a line that was only the speaker's title: "Teaching assistant now."
    ended: set[int] = field(default_factory=set)  # verbs of an ended state: "I no longer work at X"
    ending: bool = False  # the clause being read says its relation ended (its facts carry `ends`)
    cars: Cars = field(default_factory=lambda: Cars(_is_irrealis))  # the speaker's cars, by their names

    @property
    def me(self) -> str:
        if self.message.speaker and self.message.speaker.strip():
            return self.message.speaker.strip()
        return "assistant" if self.message.role == "assistant" else "user"


# --------------------------------------------------------------------------- public API


def extract_triples(doc: Doc, message: Message, keep_pronouns: bool = False) -> list[FactCandidate]:
    """Triples from one parsed message; the speaker resolves first-person subjects.

    With `keep_pronouns`, a he/she of a user message that names nobody before it gives facts
    whose subject is `PRONOUN`, for the caller to resolve from earlier messages of the session
    (spacy_ner.SessionPeople); without it they are dropped.
    A doc without a dependency parse (parser disabled) is a counted skip, not an error.
    """
    if not doc.has_annotation("DEP"):
        counters.inc("extract.spacy.facts_skipped_unparsed")
        return []
    try:
        facts = _extract(doc, message)
        return facts if keep_pronouns else [f for f in facts if not is_pronoun(f.subject)]
    except Exception as exc:  # a parse shape the rules did not foresee must not stop ingestion
        counters.inc("extract.spacy.facts_failed")
        emit("facts.spacy.failed", level=logging.WARNING, message_id=message.id, error=type(exc).__name__)
        return []


def is_pronoun(subject: str) -> bool:
    """An unresolved he/she subject (`PRONOUN`, or `PRONOUN:f` / `PRONOUN:m` with its gender)."""
    return subject.startswith(PRONOUN)


def pronoun_gender(subject: str) -> str | None:
    """'f' for an unresolved she, 'm' for he, None when unknown."""
    return subject.rpartition(":")[2] if subject.startswith(PRONOUN + ":") else None


def _extract(doc: Doc, message: Message) -> list[FactCandidate]:
    ctx = _Ctx(message=message, ents={t.i: e for e in doc.ents for t in e})
    before, prev = 0, None  # the previous sentence and where its facts start
    for sent in doc.sents:
        if len(sent) > MAX_SENTENCE_TOKENS:
            counters.inc("extract.spacy.facts_skipped_long_sentence")
            continue
        first = len(ctx.out)
        _sentence_facts(sent, ctx)
        # "Aoife started at Salerno last week. She's in first year.": the year may come next (then
        # the place's sentence is the one that must not speak of teaching or work)
        follows = prev is not None and sent[0].lower_ in {"she", "he"}
        start, place = (before, prev) if follows and prev is not None else (first, sent)
        if SCHOOL_YEAR_SAID.search(sent.text) and not any(t.lemma_.lower() in _TEACHING for t in place):
            said = (_at_school(f, ctx) for f in ctx.out[start:])
            ctx.out[start:] = [f for f in said if not SCHOOL_YEAR.fullmatch(f.object)]  # "is-in Grade 10"
        before, prev = first, sent
    if message.role == "user":
        _arrived(doc, ctx)
        _kids_by_age(doc, ctx)
    return dedupe_facts([_at_named_school(f, ctx) for f in ctx.out])


def _kids_by_age(doc: Doc, ctx: _Ctx) -> None:
    """Children named by their ages beside a word for the speaker's kids (extract/kids.py): 'she keeps
    the kids when I'm out, Caleb is 12 and Maddie's 8' -> has-child Caleb, Maddie (and their ages)."""
    for tok, age in possessive_ages(doc):  # "Maddie's 8": the parse reads a possessive
        name = _name_of(tok, ctx, person=True)
        aged = any(f.subject == name and f.predicate == "is-aged" for f in ctx.out)
        if name and name != ctx.me and not aged:
            _emit(ctx, name, "is-aged", age, 0.55, obj_tok=None, subj_type="person")
    if not speaks_of_own_kids(doc):
        return
    related = {f.object for f in ctx.out if f.predicate.startswith("has-") or f.predicate == "is-married-to"}
    for fact in list(ctx.out):
        if fact.predicate == "is-aged" and fact.subject not in related | {ctx.me} and child_age(fact.object):
            _emit(ctx, ctx.me, "has-child", fact.subject, 0.5, obj_tok=None, obj_type="person")
            related.add(fact.subject)


def _arrived(doc: Doc, ctx: _Ctx) -> None:
    """A move told by its arrival (extract/arrival.py): 'Hello again from Knocknacarra! ... The move
    went grand' -> moved-to Knocknacarra, unless the message already gave the speaker's home there."""
    homes = {f.object for f in ctx.out if f.subject == ctx.me and f.predicate in {"lives-in", "moved-to"}}
    for tok in arrival_places(doc, {i: e.label_ for i, e in ctx.ents.items()}):
        name = _name_of(tok, ctx)
        if name and name not in homes:
            _emit(ctx, ctx.me, "moved-to", name, 0.55, obj_tok=None, obj_type="location")


# Where someone else is "at" a place in a sentence that gives their school year, the place is their
# school ("Chloé is in Grade 10 at Lakeside"), unless the sentence speaks of teaching or work.
_AT_PLACE = frozenset({"works-at", "is-at", "goes-at", "started-at", "starts-at"})
_TEACHING = frozenset({"teach", "taught", "teacher", "work", "job", "staff", "employ", "hire", "coach"})


def _at_school(fact: FactCandidate, ctx: _Ctx) -> FactCandidate:
    if fact.predicate not in _AT_PLACE or fact.subject == ctx.me:
        return fact
    counters.inc("extract.spacy.school_year")
    return fact.model_copy(update={"predicate": "attends", "object_type": "organization"})


# Being at a place whose name says it is a school ("settled at Didsbury Road Primary", "happy in
# St Anne's Primary", "loves Wee Sparrows nursery") is attending it, for anyone but the speaker.
_AT_SCHOOL_NAMED = re.compile(
    r"(?:is-)?(?:settled|happy|doing-well|thriving|enrolled|registered)-(?:at|in)|is-at|is-in|loves"
)


def _at_named_school(fact: FactCandidate, ctx: _Ctx) -> FactCandidate:
    if fact.subject == ctx.me or not _is_school(fact.object):
        return fact
    if fact.predicate in {"was-at", "was-in"}:  # "Ella was at Parkside Primary before"
        counters.inc("extract.spacy.school_named")
        return fact.model_copy(update={"predicate": "attended", "object_type": "organization"})
    if not _AT_SCHOOL_NAMED.fullmatch(fact.predicate):
        return fact
    counters.inc("extract.spacy.school_named")
    return fact.model_copy(update={"predicate": "attends", "object_type": "organization"})


def _sentence_facts(sent: Span, ctx: _Ctx) -> None:
    """The facts of one sentence, appended to ctx.out."""
    _relation_sweep(sent, ctx)  # "my husband Tom" holds in a question or a plan too
    _districts(sent, ctx)  # "Kreuzberg is a lively area": geography, whoever says it
    _pets_named(sent, ctx)
    if _is_question(sent):
        if ctx.message.role == "user":
            _the_move(sent, ctx, own_only=True)  # "Any tips for our move to Bristol?": asked about
        return
    _age_facts(sent, ctx)
    if ctx.message.role == "user":
        for part in _form_parts(sent):
            _fragments(part, ctx)
    for verb in sent:
        _pay_facts(verb, ctx)
        _salary_change(verb, ctx)
        if verb.lemma_ == "start" and ctx.message.role == "user":
            _pay_starts_at(verb, ctx)
        _promoted_me(verb, ctx)  # "They promoted me to X": whoever "they" are, the title is mine
        _made_me_redundant(verb, ctx)
    if ctx.message.role == "user":
        _monthly_rent(sent, ctx)
        _pay_marked(sent, ctx)
        _last_day(sent, ctx)
        _firm_called_job(sent, ctx)
        _since_moving(sent, ctx)
        _the_move(sent, ctx)
        _moved_here(sent, ctx)
        _rent_in(sent, ctx)
        _offers(sent, ctx)
        _home_it(sent, ctx)
        _still_at(sent, ctx)
        _condition_news(sent, ctx)
        _pay_arrow(sent, ctx)
    before = len(ctx.out)
    for root in (t for t in sent if t.dep_ == "ROOT"):
        for clause_root in _clause_roots(root):
            for head, subjects, past in _clauses(clause_root, ctx):
                ctx.ending = head.i in ctx.ended or _used_to(head)
                _clause_facts(head, subjects, past, ctx)
            ctx.ending = False
    if ctx.message.role == "user" and not any(f.predicate == "has-role" for f in ctx.out[before:]):
        _i_am_title(sent, ctx)
    if ctx.message.role == "user":
        _cars_named(sent, ctx)
        _pets_by_breed(before, ctx)
        _home_of_mine(sent, ctx)  # after the clauses: "moved into our flat in X" is read there
        _in_an_org(sent, before, ctx)
        _job_of_mine(sent, before, ctx)
        _start_pay(sent, before, ctx)
        _years_at(sent, before, ctx)
        _role_as_mine(sent, before, ctx)
        _employer_of_role(sent, before, ctx)
        _home_city(sent, before, ctx)


def _job_of_mine(sent: Span, before: int, ctx: _Ctx) -> None:
    """'My new job at Atlassian starts Monday', 'my job at Lidl is boring', "Dan's job with the NHS"
    -> the owner works-at the employer, whatever the sentence says of the job; 'my old job at X'
    -> worked-at. A clause rule that read the employer already wins; a dream job is no job."""
    seen = {f.object.lower() for f in ctx.out[before:] if f.predicate in WORK_PREDICATES}
    for job in (t for t in sent if t.pos_ == "NOUN" and t.lemma_.lower() in OWN_JOB_NOUNS):
        poss = next((c for c in job.children if c.dep_ == "poss"), None)
        mods = {c.lower_ for c in job.children if c.dep_ == "amod"}
        lost = _negated(job.head) and job.head.lemma_ in {"have", "get", "keep"}  # "don't have my job at X"
        if poss is None or mods & UNREAL_JOB_MODS or _supposed(job.head) or lost:
            continue
        owner = _owner(poss, ctx, job) or _named_subject(poss, job, ctx)
        verb = job.head if job.dep_ == "dobj" else job  # "enjoying my job at Lidl": 'at' on the verb
        above = next((a for a in job.ancestors if a.pos_ == "VERB"), None) if job.dep_ == "pobj" else None
        if above is not None:
            verb = above  # "commuting back to her job at the Guardian": 'at' on the verb too
        for pobj in (p for prep in _preps(job, verb, {"at", "with"}) for p in _employers(prep, ctx)):
            if _is_date(pobj, ctx) or pobj.lower_ in HOLIDAYS:
                continue  # "my job at Christmas is carving the turkey": a time, not a place
            name = _name_of(pobj, ctx, with_of=True) or _cased_entity(pobj, ctx)
            if not owner or not name or name.lower() in seen:
                continue
            ending = job.dep_ == "nsubj" and job.head.lemma_ in JOB_END_VERBS  # "my job at Boots ended"
            ended = ending and _is_past(job.head)
            if ending and not ended:
                continue  # "my job at Boots ends in May": held until then
            past = ended or bool(mods & PAST_JOB_MODS)
            pred = _workplace_pred(name, past)
            _emit(ctx, owner, pred, name, 0.55, obj_tok=None, obj_type="organization", ends=ended)
            seen.add(name.lower())


def _named_subject(poss: Token, job: Token, ctx: _Ctx) -> str | None:
    """'Shona loves her job at the Guardian', 'Tom is commuting back to his job at X': his/her is the
    named subject of the job's clause."""
    if poss.lower_ not in {"his", "her"}:
        return None
    verb = next((a for a in job.ancestors if a.pos_ in {"VERB", "AUX"}), None)
    subj = next((c for c in verb.children if c.dep_ == "nsubj"), None) if verb is not None else None
    if subj is None or subj.tag_ == "PRP":
        return None
    return _name_of(subj, ctx, person=True) or _name_of(
        next((c for c in subj.children if c.dep_ == "appos"), subj), ctx, person=True
    )


def _employers(prep: Token, ctx: _Ctx) -> list[Token]:
    """The objects of 'at'/'with', or the organisation right after it that the parse hung elsewhere
    ('My new job at Atlassian starts Monday': 'Atlassian' parsed as an adjective of 'starts'; the
    small model types shops and firms as anything, so any name counts)."""
    pobjs = [p for p in _pobjs(prep) if p.pos_ == "PROPN" or p.i in ctx.ents]
    ent = ctx.ents.get(prep.i + 1)
    if pobjs or ent is None or ent.label_ in SKIP_ENT_LABELS | {"PERSON"} or ent.start != prep.i + 1:
        return pobjs  # "my role at Sarah's wedding": a person's event, no employer
    return [ent.root] if ent.root.dep_ != "poss" else []


def _cased_entity(tok: Token, ctx: _Ctx) -> str | None:
    """The entity a capitalised word the parse took for no name begins ('Atlassian' as an adjective)."""
    ent = ctx.ents.get(tok.i)
    if ent is None or ent.label_ in SKIP_ENT_LABELS or not tok.text[:1].isupper():
        return None
    return _strip_det(ent, keep_possessive=False) or None


def _supposed(verb: Token) -> bool:
    """A modal, hedged or conditional clause; a negated one still speaks of a job held ("I don't like
    my job at Aldi")."""
    return _is_irrealis(verb) and not _negated(verb)


def _start_pay(sent: Span, before: int, ctx: _Ctx) -> None:
    """'Starting at Amazon in April as a shift manager, 34k': an amount listed on its own after a
    new job of the speaker's, in the same sentence, is its pay."""
    new_job = any(f.subject == ctx.me and f.predicate in {"works-at", "has-role"} for f in ctx.out[before:])
    if not new_job or any(f.predicate.startswith("has-salary") for f in ctx.out[before:]):
        return
    words = [t for t in sent if not t.is_space]
    while words and words[-1].is_punct:
        words.pop()
    cut = max((k for k, t in enumerate(words) if t.text in {",", ";", ":", "-", "–"}), default=None)
    tail = words[cut + 1 :] if cut is not None else []
    if tail and tail[0].is_currency:
        tail = tail[1:]  # "£34,000": the sign is its own token
    if _start_role(tail, before, ctx):
        return
    if len(tail) != 1 or not (MONEY_SHORT.match(tail[0].text) or tail[0].ent_type_ == "MONEY"):
        return
    value = _money_value(tail[0], ctx) or _amount(tail[0])
    if value and _big_enough(value):  # "34k": the small model may tag it a date
        _emit(ctx, ctx.me, "has-salary", value, 0.5, obj_tok=None)


def _years_at(sent: Span, before: int, ctx: _Ctx) -> None:
    """'I spent five years at the BBC', 'I left teaching after ten years at Kingsway High' -> the
    speaker worked there (works-at when the clause is not past: "I've got ten years at Tesco")."""
    seen = {f.object.lower() for f in ctx.out[before:] if f.predicate in WORK_PREDICATES}
    for span in (t for t in sent if t.lemma_.lower() in {"year", "month"} and _counted(t)):
        verb = next((a for a in span.ancestors if a.pos_ in {"VERB", "AUX"}), None)
        if verb is None or _supposed(verb) or not _by_me(verb, ctx):
            continue
        heads = [span, verb] if verb.lemma_ == "spend" else [span]  # "spent five years at the BBC"
        work = any(t.lemma_.lower() in _TEACHING for t in sent)  # "left teaching after ten years at X"
        for pobj in (p for h in heads for prep in _preps(h, h, {"at"}) for p in _pobjs(prep)):
            name = _name_of(pobj, ctx, with_of=True)
            if name and name.lower() not in seen and _employer_named(pobj, name, ctx):
                past = _is_past(verb)
                pred = ("worked-at" if past else "works-at") if work else _workplace_pred(name, past)
                _emit(ctx, ctx.me, pred, name, 0.5, obj_tok=None, obj_type="organization")
                seen.add(name.lower())


_HOME_NOW = frozenset({"lives-in", "moved-to", "moves-to", "is-in", "rents-in", "settled-in"})


def _home_city(sent: Span, before: int, ctx: _Ctx) -> None:
    """'a duplex in Belmont, thats in Dayton', 'in Chorlton, south Manchester' -> the speaker's home
    in the district is also one in the city after it (extract/home_city.py), and the district is-in
    the city (a district of a home never ends the city's: store.facts); 'Dayton's home' -> lives-in."""
    named = {f.object.lower() for f in ctx.out[before:] if f.subject == ctx.me}
    for place in home_city.home_places(sent.text):  # "yeah I'm not moving the kids, Dayton's home"
        ctx.out[before:] = [
            f for f in ctx.out[before:] if (f.subject, f.predicate, f.object) != (place, "is-a", "home")
        ]
        if place.lower() not in named:
            named.add(place.lower())
            _emit(ctx, ctx.me, "lives-in", place, 0.55, obj_tok=None, obj_type="location")
    homes = [f for f in ctx.out[before:] if f.subject == ctx.me and f.predicate in _HOME_NOW and not f.ends]
    text = sent.doc.text
    for home in homes:
        at = text.find(home.object, sent.start_char, sent.end_char)
        city = home_city.city_after(sent.doc, at, at + len(home.object)) if at >= 0 else None
        if city is None or city.text.lower() in named:
            continue
        named.add(city.text.lower())
        _emit(ctx, home.object, *DISTRICT_FACT, 0.5, obj_tok=None, subj_type="location")
        _emit(
            ctx, home.object, "is-in", city.text, 0.5, obj_tok=None, obj_type="location", subj_type="location"
        )
        _emit(ctx, ctx.me, home.predicate, city.text, 0.5, obj_tok=None, obj_type="location")


def _speakers_clause(verb: Token, ctx: _Ctx) -> bool:
    """Whether the verb's clause is the speaker's: its own subject, or the one of the clause a
    subjectless one joins ("I live in X and make 54k as a ...", "Left my job as a ..., now I'm ...");
    not a subordinate clause with no subject of its own ("I want to work as a ...")."""
    clause = verb
    while clause.dep_ in {"conj", "acomp", "advcl"} and not _has_subject(clause):
        clause = clause.head
    return _by_me(clause, ctx) and (_has_subject(clause) or clause.dep_ == "ROOT")


def _employer_of_role(sent: Span, before: int, ctx: _Ctx) -> None:
    """'a position as practice manager at Elm Tree Surgery', 'on nights as a care assistant at Sunrise
    Care Home' -> works-at: the named organisation "at" the title of a role this sentence gave the
    speaker (worked-at for a role held once). An employer the sentence named already wins."""
    roles = {
        f.object.lower(): f.predicate == "worked-as"
        for f in ctx.out[before:]
        if f.subject == ctx.me and f.predicate in {"has-role", "worked-as"}
    }
    seen = {f.object.lower() for f in ctx.out[before:] if f.predicate in WORK_PREDICATES}
    if not roles or seen:
        return
    for title in (t for t in sent if t.pos_ in {"NOUN", "PROPN"} and _is_title_word(t)):
        past = next((p for r, p in roles.items() if title.lower_ in r.split()), None)
        verb = next((a for a in title.ancestors if a.pos_ in {"VERB", "AUX"}), None)
        if past is None or verb is None or not _speakers_clause(verb, ctx):
            continue  # "my sister is a nurse at X": not the speaker's nursing
        for pobj in (p for prep in _preps(title, title, {"at"}) for p in _employers(prep, ctx)):
            name = _name_of(pobj, ctx, with_of=True)
            if name and _employer_named(pobj, name, ctx) and not _is_date(pobj, ctx):
                pred = "worked-at" if past else "works-at"  # a role at a school is a job there
                _emit(ctx, ctx.me, pred, name, 0.5, obj_tok=None, obj_type="organization")
                return


# Verbs whose "as a ..." is no job: "I treat it as a job", "went as a pirate", "I see myself as a leader"
_NOT_ROLE_AS = frozenset(
    {"treat", "see", "regard", "view", "consider", "describe", "dress", "go", "come", "count", "know", "use",
     "think", "feel", "like", "love", "hate", "act", "pose", "volunteer", "cast", "play", "introduce"}
)  # fmt: skip


def _role_as_mine(sent: Span, before: int, ctx: _Ctx) -> None:
    """'make about $54,000 as a dental hygienist', 'where I serve as a delivery manager', 'As a nurse,
    I find this hard', 'do shifts at X as a healthcare assistant' -> the speaker's role: an occupation
    after "as" in a clause of the speaker's, whatever its verb (the clause rules read it only beside
    a work verb). A reading the sentence already gave wins ("trains-as", "qualified-as"); a past
    clause gives worked-as."""
    said = {
        f.object.lower() for f in ctx.out[before:] if f.predicate == "has-role" or f.predicate.endswith("-as")
    }
    for prep in (t for t in sent if t.lower_ == "as" and t.dep_ == "prep"):
        verb = next((a for a in [prep.head, *prep.head.ancestors] if a.pos_ in {"VERB", "AUX"}), None)
        if verb is None or verb.lemma_ in _NOT_ROLE_AS or _supposed(verb) or _negated(verb):
            continue
        if not _speakers_clause(verb, ctx):
            continue
        for pobj in (p for p in _pobjs(prep) if p.pos_ in {"NOUN", "PROPN"} and _is_title_word(p)):
            role = _object_phrase(pobj, ctx, with_of=True)
            if role and role.lower() not in said:
                past = _is_past(verb) and not any(c.lower_ in {"now", "still"} for c in verb.children)
                _emit(ctx, ctx.me, "worked-as" if past else "has-role", _drop_new(role), 0.5, obj_tok=None)
                said.add(role.lower())


def _counted(noun: Token) -> bool:
    return any(c.dep_ == "nummod" for c in noun.children)


def _by_me(verb: Token, ctx: _Ctx) -> bool:
    """The clause's subject is the speaker ("I", "we"), or chat left it out."""
    subjects = [c for c in verb.children if c.dep_ in {"nsubj", "nsubjpass"}]
    return ctx.message.role == "user" and all(s.lower_ in SPEAKER_SUBJECTS for s in subjects)


def _start_role(tail: list[Token], before: int, ctx: _Ctx) -> bool:
    """'started at accenture last week, analyst role': a title listed after the new job."""
    if any(f.predicate == "has-role" for f in ctx.out[before:]):
        return False
    words = [t for t in tail if t.dep_ != "det"]
    if words and words[-1].lower_ in {"role", "position", "post", "job"}:
        words = words[:-1]
    titled = 0 < len(words) <= 4 and _is_title_word(words[-1])
    if not titled or not all(t.pos_ in {"NOUN", "PROPN", "ADJ"} for t in words):
        return False
    _emit(ctx, ctx.me, "has-role", _drop_new(" ".join(t.text for t in words)), 0.5, obj_tok=None)
    return True


def _negated(verb: Token) -> bool:
    return any(c.dep_ == "neg" or c.lower_ in {"never", "not", "n't"} for c in verb.children)


def _cars_named(sent: Span, ctx: _Ctx) -> None:
    """The speaker's cars said around a purchase or in passing (extract/cars.py), unless the
    sentence's clauses named the same car already ('bought a 2019 Golf' is not also 'Golf')."""
    said = [f.object.lower() for f in ctx.out if f.predicate in {"has-car", "drives", "sold"}]
    for car in ctx.cars.owned(sent):
        if not any(car.text.lower() in o or o in car.text.lower() for o in said):
            _emit(ctx, ctx.me, "has-car", car.text, 0.6, obj_tok=car.root, obj_type="product")


def _pets_named(sent: Span, ctx: _Ctx) -> None:
    """The speaker's pets named by what they are (extract/pets.py): 'Jess is the dog', 'we have dog,
    paçoca' (held in a line that goes on to ask: "..., can dog fly to europe?")."""
    if ctx.message.role == "user":
        _pets(pets_in(sent, lambda tok: _name_of(tok, ctx, person=True)), ctx)


def _pets_by_breed(before: int, ctx: _Ctx) -> None:
    """A name the clauses made a breed ("Banjo ... he's a red kelpie": is-a red kelpie) is a pet."""
    found = []
    for fact in ctx.out[before:]:
        kind = pet_of_breed(fact.object) if fact.predicate == "is-a" and fact.subject != ctx.me else None
        if kind:
            found.append((kind, fact.subject))
    _pets(found, ctx)


def _pets(found: list[tuple[str, str]], ctx: _Ctx) -> None:
    said = {f.object for f in ctx.out if f.predicate.startswith("has-")}
    for kind, name in found:
        if _capitalised(name) not in said:  # "my brother Sam" is no pet, "my dog Rex" is said once
            _emit(ctx, ctx.me, f"has-{kind}", _capitalised(name), 0.55, obj_tok=None, obj_type="unknown")


def _clause_roots(root: Token) -> list[Token]:
    """Independent clauses the parser hung below the root in chat-style run-on sentences.

    "I live in Berlin now, so I want to find a club" parses the first clause as a ccomp of
    "want"; "Update: I accepted the offer" parses it as an acl of "Update". Such a clause is
    kept when it comes before the root and the root is not a hedge or report ("..., I think").
    """
    roots = [root]
    if root.pos_ not in {"VERB", "AUX"}:
        roots += [c for c in root.children if c.dep_ in {"acl", "appos"} and _has_subject(c)]
        return roots
    if root.lemma_ in {"say", "tell"} and _clinician_subject(root):
        # "doctor says i am lactose intolerant": a finding reported, not the speaker's hedge
        return roots + [
            c
            for c in root.children
            if c.dep_ == "ccomp"
            and _has_subject(c)
            and all(a.i - c.i <= 3 for a in c.children if a.dep_ in {"attr", "dobj", "acomp"})
        ]  # a finding said whole; "I am anaemic, so iron tablets" runs two clauses into one
    # "I found out I have celiac disease", "turns out I'm coeliac": what was learned is asserted;
    # also as the root's conjunct ("pulled a sickie, turns out I've got shingles")
    for learned in (v for v in [root, *_verb_conjuncts(root)] if _factive(v)):
        roots += [c for c in learned.children if c.dep_ == "ccomp" and c.i > learned.i and _has_subject(c)]
    roots += _felt_clauses(root)
    roots += _announced(root)
    if root.lemma_ in HEDGE_VERBS and not _judges_someone(root):
        return roots
    for child in root.children:
        if child.dep_ == "advcl" and child.i > root.i and _has_subject(child) and _asserted_reason(child):
            roots.append(child)  # "the landlord is selling up so we're moving to Dalmarnock"
        elif child.dep_ == "advcl" and _has_subject(child) and _past_of_time(child):
            roots.append(child)  # "we lived in Swindon before we bought the house in Marlborough"
        if child.dep_ == "ccomp" and child.i < root.i and _has_subject(child) and not _has_mark(child, MARKS):
            # chains of run-on clauses: "Jenna got hired at X, so she's out of Y, she's thrilled"
            reported = child.lemma_ in HEDGE_VERBS and not _clinician_subject(child)  # "doctor says" stays
            roots += [] if reported else _clause_roots(child)
    return roots


def _announced(root: Token) -> list[Token]:
    """'Please note that ...', 'I should inform you that ...', 'just to let you know that ...', 'I must
    tell you that ...': what the speaker tells is asserted (the modal is politeness, not doubt)."""
    verb = root
    if verb.lemma_ in {"want", "like", "need"}:  # "I wanted to let you know", "I'd like to inform you"
        verb = next((c for c in verb.children if c.dep_ == "xcomp"), verb)
    if verb.lemma_ == "let":
        verb = next((c for c in verb.children if c.dep_ == "ccomp" and c.lemma_ == "know"), verb)
    if verb.lemma_ not in ANNOUNCE_VERBS and not (verb.lemma_ == "know" and verb.head.lemma_ == "let"):
        return []
    subjects = [c for c in root.children if c.dep_ == "nsubj"]
    if any(s.lower_ not in SPEAKER_SUBJECTS for s in subjects) or _is_question(root.sent):
        return []  # "Tom told me that ...": his word; "can you note that ...?"
    if any(c.dep_ == "neg" for v in {root, verb} for c in v.children):
        return []
    return [c for c in verb.children if c.dep_ == "ccomp" and c.i > verb.i and _has_subject(c)]


def _felt_clauses(root: Token) -> list[Token]:
    """'I'm so relieved we finally moved to Vancouver', 'so glad Dan got the job': the clause a
    feeling is about happened (EMOTIVE_ADJECTIVES); a hedged or negated feeling asserts nothing."""
    if _is_irrealis(root) or any(n.dep_ == "neg" for n in root.children):
        return []
    return [
        c
        for a in root.children
        if a.dep_ == "acomp" and a.lower_ in EMOTIVE_ADJECTIVES
        for c in a.children
        if c.dep_ == "ccomp" and _has_subject(c) and not _has_mark(c, MARKS - {"that"})
    ]


def _factive(root: Token) -> bool:
    """A verb of learning whose clause states a fact ('found out', 'learned', 'turns out'); asked,
    negated or hedged it states nothing."""
    out = any(c.dep_ == "prt" and c.lower_ == "out" for c in root.children)
    learned = root.lemma_ in FACTIVE_VERBS or (root.lemma_ in {"find", "turn"} and out)
    return learned and not _is_irrealis(root)


def _past_of_time(clause: Token) -> bool:
    """'before we bought the house', 'after she left Tesco', "it's been a year since we moved from
    Bangalore": a clause of time in the simple past happened (one in the present is a plan: 'before
    we move')."""
    # "since I was a kid" dates a state, asserts nothing worth a fact
    since = _has_mark(clause, {"since"}) and clause.lemma_ != "be"
    marked = _has_mark(clause, {"before", "after"}) or since
    return clause.tag_ == "VBD" and marked and not _is_irrealis(clause)


def _asserted_reason(clause: Token) -> bool:
    """A clause of consequence or cause ('so we're moving', 'because I work at X') states a fact;
    one of condition or time ('if', 'when') does not."""
    so = any(c.dep_ == "advmod" and c.lower_ == "so" and c.i < clause.i for c in clause.children)
    return (so and not _has_mark(clause, MARKS)) or _has_mark(clause, {"because", "cos", "coz", "cause"})


def _clinician_subject(root: Token) -> bool:
    """'doctor says ...' (the parser may hang a run-on line's first noun beside it: "small question -
    doctor says ...")."""
    subjects = [c for c in root.children if c.dep_ == "nsubj"]
    return any(c.lemma_.lower() in CLINICIANS for c in subjects) and not _is_irrealis(root)


def _judges_someone(root: Token) -> bool:
    """'..., she seems nice': a remark on a named or third person, not a hedge on what came before
    (as 'I think', 'it seems', 'they say' are)."""
    subj = next((c for c in root.children if c.dep_ == "nsubj"), None)
    return root.lemma_ == "seem" and subj is not None and subj.lower_ in {"he", "she"}


def _has_subject(verb: Token) -> bool:
    return verb.pos_ in {"VERB", "AUX"} and any(c.dep_ in {"nsubj", "nsubjpass"} for c in verb.children)


# --------------------------------------------------------------------------- sentence filters


def _is_question(sent: Span) -> bool:
    """Questions assert nothing: trailing '?', a leading wh-word, or aux-subject inversion."""
    words = [t for t in sent if not t.is_punct]
    if not words or sent.text.rstrip().endswith("?"):
        return True
    first = words[0]
    if first.tag_ in WH_TAGS:
        return True
    return first.dep_ == "aux" and len(words) > 1 and words[1].dep_ in {"nsubj", "nsubjpass"}


def _is_irrealis(verb: Token) -> bool:
    """Negated, modal, hedged or conditional clauses are not stored as facts."""
    for child in verb.children:
        low = child.lower_
        if child.dep_ == "neg" or low in {"never", "not", "n't"}:
            return True
        if child.dep_ == "aux" and (child.tag_ == "MD" or low in MODALS):
            if low in SCHEDULED_MODALS and verb.lemma_ in SCHEDULED_VERBS:
                continue  # "I'll start at Acme on June 8": a date set, not a plan
            if low in SCHEDULED_MODALS and verb.lemma_ == "be" and _manager_subject(verb):
                continue  # "my teamlead will be Birgit": who one reports to from the start
            if low in SCHEDULED_MODALS and verb.lemma_ == "go" and _to_school(verb):
                continue  # "Ollie will be going to Westfield Juniors after half term": a school place
            if low in SCHEDULED_MODALS and verb.lemma_ in MOVE_VERBS and verb.tag_ == "VBG":
                continue  # "we shall be moving to Bath in March": an arrangement, as "we're moving"
            return True
        negated = low in HEDGES or any(g.dep_ == "neg" for g in child.children)
        if child.dep_ == "advmod" and negated and not _detached(child, verb):
            return True
        if child.dep_ == "advcl" and child.i < verb.i and _has_mark(child, CONDITIONAL_MARKS):
            return True
        if child.dep_ == "mark" and low in CONDITIONAL_MARKS:  # "if i got the job at X, ..." as the root
            return True
        if child.dep_ == "xcomp" and child.lemma_ == "go" and verb.lemma_ == "be":
            return True
    return verb.lemma_ == "go" and any(c.dep_ == "xcomp" for c in verb.children)


def _to_school(verb: Token) -> bool:
    """'going to Westfield Juniors': a named school after the verb's 'to'."""
    return any(
        p.pos_ == "PROPN" and _is_school(p.doc[p.left_edge.i : p.i + 1].text)
        for prep in verb.children
        if prep.dep_ == "prep" and prep.lower_ == "to"
        for p in _pobjs(prep)
    )


def _detached(mod: Token, verb: Token) -> bool:
    """'not sure, I'm 66' / 'not really, I work at X': a negated word opening the line and closed
    by a comma answers the last question; it does not negate the clause after it."""
    right = mod.right_edge.i + 1
    doc = verb.doc
    return (
        mod.i < verb.i
        and mod.left_edge.i == verb.sent.start
        and right < len(doc)
        and doc[right].text == ","
        and any(c.dep_ == "nsubj" and c.i > right for c in verb.children)
    )


def _has_mark(verb: Token, marks: set[str]) -> bool:
    return any(c.dep_ == "mark" and c.lower_ in marks for c in verb.children)


# --------------------------------------------------------------------------- clauses


def _clauses(root: Token, ctx: _Ctx) -> list[tuple[Token, list[str], bool]]:
    """Main clause and its verb conjuncts, each with resolved subjects and tense (past?)."""
    result: list[tuple[Token, list[str], bool]] = []
    subjects = _subjects(root, ctx)
    dropped = [] if subjects else _dropped_subject(root, ctx)
    subjects = subjects or dropped
    if dropped:
        ctx.dropped.add(root.i)
    if subjects and _ended_state(root):
        ctx.ended.add(root.i)
        return [(root, subjects, True)]  # "I no longer work at X": worked there, and no more
    if root.pos_ not in {"VERB", "AUX"} or _is_irrealis(root):
        return result
    # "Left Walmart after 9 years, now I'm a shift lead at Costco": the opening clause is the speaker's
    lead = dropped or ([ctx.me] if subjects == [ctx.me] and ctx.message.role == "user" else [])
    for advcl in (c for c in root.children if lead and c.dep_ == "advcl" and c.i < root.i):
        if advcl.tag_ == "VBG" and not _has_mark(advcl, MARKS) and not _is_irrealis(advcl):
            _add_clause(advcl, lead, result)  # "Living in Wash Park now, renting a house ..."
            ctx.dropped.add(advcl.i)
        elif advcl.tag_ != "VBG" and _leading_clause(advcl) and not _is_irrealis(advcl):
            result.append((advcl, lead, True))  # "Taught maths at X for 31 years, finished up ..."
            ctx.dropped.add(advcl.i)
    if not subjects and root.lemma_ == "be":
        subj_tok = next((c for c in root.children if c.dep_ == "nsubj"), None)
        if subj_tok is not None:
            _possessive_copular(root, subj_tok, ctx)
            _job_is_at(root, subj_tok, ctx)
            _home_costs(root, subj_tok, ctx)
    _add_clause(root, subjects, result)
    trailing = [c for c in root.children if c.dep_ == "advcl" and c.i > root.i]
    for advcl in trailing:
        if (
            advcl.tag_ == "VBG"
            and (advcl.lemma_ in START_VERBS or advcl.lemma_ in _TRAILING_VERBS)
            and not (advcl.lemma_ in {"live", "stay"} and _is_past(root))  # "I met Tom, living in Leeds then"
            and not any(c.dep_ in {"nsubj", "nsubjpass", "mark", "aux"} for c in advcl.children)
            and not _is_irrealis(advcl)
        ):
            # "he quit Unilever, joining Nestle next month", "Sreejith is in Dubai, working in Emirates NBD",
            # "I'm a nurse at St Vincent's, earning A$98,000", "working as CA in Deloitte, staying in
            # Andheri with parents" (a list of such clauses hangs each on the one before)
            _add_clause(advcl, subjects, result)
            trailing += [c for c in advcl.children if c.dep_ == "advcl" and c.i > advcl.i]
        elif _trailing_home(advcl, root):
            _add_clause(advcl, subjects, result)  # "we moved to Bristol, living in Clifton now"
            _district_of_move(advcl, root, ctx)
    for conj in _verb_conjuncts(root):
        if _is_irrealis(conj) or _inherits_negation(root, conj):
            continue
        own = _subjects(conj, ctx)
        has_own = any(c.dep_ in {"nsubj", "nsubjpass"} for c in conj.children)
        _add_clause(conj, own if has_own else subjects, result)
    return result


# Subjectless "-ing" clauses after a clause that are its subject's: work, pay, and a home ("staying in")
_TRAILING_VERBS = frozenset({"work", "earn", "live", "stay"})


def _trailing_home(advcl: Token, root: Token) -> bool:
    """'We moved to Bristol last month, living in Clifton now': a subjectless '-ing' home verb after a
    move is where the movers live."""
    return (
        advcl.tag_ == "VBG"
        and advcl.lemma_ in {"live", "rent", "stay"}
        and root.lemma_ in MOVE_VERBS
        and not any(c.dep_ in {"nsubj", "nsubjpass", "mark", "aux"} for c in advcl.children)
        and not _is_irrealis(advcl)
    )


def _district_of_move(advcl: Token, root: Token, ctx: _Ctx) -> None:
    """The home named after a move to a city is a part of it ("moved to Bristol, living in Clifton"):
    a district, so that the store keeps the city beside it. A known big place is no district."""
    cities = [n for prep in _preps(root, root, {"to"}) for p in _pobjs(prep) if (n := _name_of(p, ctx))]
    homes = [n for prep in _preps(advcl, advcl, {"in"}) for p in _pobjs(prep) if (n := _name_of(p, ctx))]
    for home in homes:
        for city in cities:
            if home.lower() != city.lower() and not places.big_place(home):
                _emit(ctx, home, *DISTRICT_FACT, 0.55, obj_tok=None, subj_type="location")
                _emit(ctx, home, "is-in", city, 0.55, obj_tok=None, obj_type="location", subj_type="location")


def _ended_state(verb: Token) -> bool:
    """'I no longer work at X', "we don't live in Y anymore": a negated state verb with an
    ending adverb is the state in the past, not a denial (and not a plan: no modal)."""
    ending = [c for c in verb.children if c.dep_ == "advmod" and c.lower_ in ENDED_STATE]
    negated = any(c.dep_ == "neg" for c in verb.children) or any(  # "no longer": "no" hangs on "longer"
        g.dep_ == "neg" for c in ending for g in c.children
    )
    if not negated or verb.lemma_ not in FAMILY_VERBS:
        return False
    if any(c.dep_ == "aux" and (c.tag_ == "MD" or c.lower_ in MODALS) for c in verb.children):
        return False
    return bool(ending) or any(t.lower_ in ENDED_STATE and t.dep_ == "advmod" for t in verb.subtree)


def _verb_conjuncts(verb: Token) -> list[Token]:
    found: list[Token] = []
    for child in verb.children:
        if child.dep_ == "conj" and child.pos_ in {"VERB", "AUX"}:
            found.append(child)
            found.extend(_verb_conjuncts(child))
    return found


def _inherits_negation(root: Token, conj: Token) -> bool:
    """'I don't live in X or work at Y': a conjunct with no own auxiliary shares the negation."""
    own_aux = any(c.dep_ in {"aux", "nsubj"} for c in conj.children)
    return not own_aux and any(c.dep_ == "neg" for c in root.children)


def _add_clause(verb: Token, subjects: list[str], out: list[tuple[Token, list[str], bool]]) -> None:
    """Follow 'used to' (past) and aspectual verbs ('started working at') to the content verb."""
    if not subjects:
        return
    past = _is_past(verb)
    xcomp = next((c for c in verb.children if c.dep_ == "xcomp" and c.pos_ in {"VERB", "AUX"}), None)
    if xcomp is not None and verb.lemma_ == "use" and verb.tag_ == "VBD":
        if not _is_irrealis(xcomp):
            out.append((xcomp, subjects, True))
        return
    if xcomp is not None and verb.lemma_ in ASPECTUAL and not any(c.dep_ == "dobj" for c in verb.children):
        if not _is_irrealis(xcomp):  # "I started working at Acme": works there now
            out.append((xcomp, subjects, False))
        return
    out.append((verb, subjects, past))


def _is_past(verb: Token) -> bool:
    if verb.tag_ == "VBD":
        return True
    if (
        verb.tag_ == "VBN"
        and verb.dep_ == "ROOT"
        and not any(c.dep_ in {"aux", "auxpass"} for c in verb.children)
    ):
        return True  # "Settled in Leeds now": a participle opening a chat line
    return any(
        c.dep_ in {"aux", "auxpass"} and c.tag_ == "VBD" and c.lemma_ != "do" for c in verb.children
    ) or any(c.dep_ == "aux" and c.lower_ == "did" for c in verb.children)


# --------------------------------------------------------------------------- subjects and noun phrases


def _subjects(verb: Token, ctx: _Ctx) -> list[str]:
    """Resolved subject names of a verb; unresolvable subjects (he, it, 'my sister') are dropped."""
    names: list[str] = []
    for child in verb.children:
        if child.dep_ not in {"nsubj", "nsubjpass"}:
            continue
        for tok in [child, *_conjuncts(child)]:
            name = _resolve_subject(tok, ctx)
            if name:
                names.append(name)
                names += _listed_in_apposition(tok, name, ctx)
    return names


def _stranded_pair(verb: Token, ctx: _Ctx) -> list[str]:
    """'Ahmed and I got married': the parser may hang the first of the pair off the verb as a
    modifier, with its "and"; that name is the other subject."""
    for tok in verb.children:
        paired = any(c.dep_ == "cc" and c.lower_ == "and" for c in tok.children)
        if tok.dep_ in {"npadvmod", "dep", "nmod"} and tok.pos_ == "PROPN" and paired and tok.i < verb.i:
            name = _name_of(tok, ctx, person=True)
            return [name] if name else []
    return []


def _listed_in_apposition(tok: Token, first: str, ctx: _Ctx) -> list[str]:
    """'Our twins, Ada and Ezra, have both got places': Ezra is a subject too."""
    appos = next((c for c in tok.children if c.dep_ == "appos"), None)
    if appos is None or tok.pos_ == "PROPN":
        return []
    others = (_name_of(c, ctx, person=True) for c in _conjuncts(appos))
    return [n for n in others if n and n != first]


def _dropped_subject(verb: Token, ctx: _Ctx) -> list[str]:
    """Chat drops the "I": "Started at Quillon today!", "Living in Wash Park now", "Moved to Leeds".

    Only in a user message, for a clause that opens the sentence with a past or -ing verb and has
    no subject, auxiliary or object clause of its own (imperatives use the base form: no fact).
    """
    training = verb.lemma_ == "do" and any(
        c.dep_ == "dobj" and (c.lower_ in DEGREE_NOUNS or c.lower_ in TRAINEESHIPS) for c in verb.children
    )  # "currently doing an internship at Deloitte"
    home = verb.lemma_ in HOME_FIND_VERBS and any(
        c.dep_ == "dobj" and c.lemma_.lower() in HOME_NOUNS for c in verb.children
    )  # "found a place in Caboolture"
    if (
        ctx.message.role != "user"
        or verb.tag_ not in {"VBD", "VBG", "VBN"}
        or (verb.lemma_ in LIGHT_VERBS and not training and not home)
    ):
        return []
    # "Been living in Newcastle ten years": the perfect's "been" left of a dropped "I've"
    been = {c.i for c in verb.children if c.dep_ == "aux" and c.lower_ == "been" and verb.tag_ == "VBG"}
    kids = [c for c in verb.children if c.i not in been]
    if any(c.dep_ in {"nsubj", "nsubjpass", "expl", "aux", "auxpass", "csubj"} for c in kids):
        return []
    sent = verb.sent
    lead = {t.i for c in verb.children if c.dep_ == "advcl" and _leading_clause(c) for t in c.subtree}
    before = [t for t in sent[: verb.i - sent.start] if t.i not in lead | been]
    if any(t.pos_ not in {"ADV", "INTJ", "PUNCT", "CCONJ", "SPACE"} for t in before):
        return []
    return [ctx.me]


def _leading_clause(advcl: Token) -> bool:
    """A subjectless clause the parser hung below the next one: "Living in Wash Park now, renting ...",
    or one opening the sentence in the past: "Taught maths at X for 31 years, finished up last June"."""
    if advcl.tag_ == "VBG":
        return True
    return (
        advcl.tag_ in {"VBD", "VBN"}
        and advcl.i == advcl.sent.start
        and not any(c.dep_ in {"nsubj", "nsubjpass", "mark", "aux", "auxpass"} for c in advcl.children)
    )


def _bare_name(tok: Token) -> bool:
    """A listed name with no owner or noun of its own: "my sons Leo and Max" lists Max, "my fiancé Théo
    and our dog Bear" does not list Bear (the dog has its own relation)."""
    return not any(c.dep_ in {"poss", "compound"} and c.pos_ in {"PRON", "NOUN"} for c in tok.children)


def _conjuncts(tok: Token) -> list[Token]:
    found: list[Token] = []
    for child in tok.children:
        if child.dep_ == "conj":
            found.append(child)
            found.extend(_conjuncts(child))
    return found


def _resolve_subject(tok: Token, ctx: _Ctx) -> str | None:
    low = tok.lower_
    if low in VALUE_NOUNS:
        return None  # "Salary is £61,000": a capitalised common noun, not a name
    if tok.tag_ == "PRP":
        if low in FIRST_PERSON:
            return ctx.me
        if low == "we" and ctx.message.role == "user":
            return ctx.me
        if low in {"he", "she"}:
            return _only_person_before(tok, ctx)
        return None  # you, they, it: unresolved
    name = _name_of(tok, ctx) or _opening_name(tok)
    if name:
        _appos_relation(tok, name, ctx)
        return name
    appos = next((c for c in tok.children if c.dep_ == "appos" and _name_of(c, ctx)), None)
    appos = appos if appos is not None else _name_by_commas(tok, ctx)
    if appos is not None:
        name = _name_of(appos, ctx, person=True)  # "Our twins, Ava and Noah": one at a time
        if name:
            _possessive_relation(tok, name, ctx)
            for other in filter(None, (_name_of(c, ctx, person=True) for c in _conjuncts(appos))):
                _possessive_relation(tok, other, ctx)  # ... and Noah
            return name
    return None


def _name_by_commas(noun: Token, ctx: _Ctx) -> Token | None:
    """'Tom, my husband of ten years, is ...', 'My partner of six years, Sam, got ...': a name set off
    by commas beside a possessed kin noun whose "of" phrase made the parser hang the two apart."""
    if not _is_kin(noun) or not _my_or_our(noun):
        return None
    doc, first, last = noun.doc, noun.left_edge.i, noun.right_edge.i
    if not any(c.dep_ == "prep" for c in noun.children):
        return None
    before = doc[first - 2] if first >= 2 and doc[first - 1].text == "," else None
    after = doc[last + 2] if last + 3 < len(doc) and doc[last + 1].text == "," else None
    if before is not None and (before.i == before.sent.start) and doc[last + 1].text == ",":
        named = before  # "Tom, my husband of ten years, is a plumber"
    elif after is not None and doc[after.i + 1].text == "," and noun.i == noun.sent.start + 1:
        named = after  # "My partner of six years, Sam, got a new job"
    else:  # "My boss at Tesco, Karen, is leaving": the name hung on the place, no person itself
        placed = (p for prep in noun.children if prep.dep_ == "prep" for p in _pobjs(prep) if p.ent_type_)
        hung = (a for p in placed if p.ent_type_ != "PERSON" for a in p.children if a.dep_ == "appos")
        found = next(hung, None)
        if found is None or found.i != found.head.i + 2 or doc[found.i - 1].text != ",":
            return None
        named = found
    ent = ctx.ents.get(named.i)
    return named if named.pos_ == "PROPN" and ent is not None and ent.label_ == "PERSON" else None


def _my_or_our(noun: Token) -> bool:
    """Said with "my" or "our" (the speaker's, or their household's)."""
    return any(c.dep_ == "poss" and c.lower_ in {"my", "our"} for c in noun.children)


def _opening_name(tok: Token) -> str | None:
    """'Theo goes to Clapham Terrace': a first name opening a sentence that the small model tagged a
    common noun; a known first name, or one the message also writes as a name elsewhere, that is no
    relation word and no English adverb, adjective or verb."""
    if tok.pos_ != "NOUN" or not (tok.is_title and tok.is_alpha) or tok.i != tok.sent.start:
        return None
    if _is_kin_word(tok):
        return None
    named = any(t.text == tok.text and t.pos_ == "PROPN" for t in tok.doc if t.i != tok.i)
    if not named and tok.lower_ not in first_names():
        return None
    return None if _english_non_noun(tok) else tok.text


def _english_non_noun(tok: Token) -> bool:
    """Listed by the parser's word index as an English adverb, adjective or verb ("Recently", "Will"):
    a capitalised word that may be no name. A noun may be one ("Raj", "Theo" are listed as nouns)."""
    index = word_index(tok.vocab) or {}
    return any(tok.lower_ in index.get(pos, ()) for pos in ("adv", "adj", "verb"))


def _appos_relation(tok: Token, name: str, ctx: _Ctx) -> None:
    """'Carlos, my dad, ...' -> speaker has-dad Carlos."""
    for child in tok.children:
        if child.dep_ == "appos" and child.pos_ == "NOUN":
            _possessive_relation(child, name, ctx)


def _possessive_relation(noun: Token, name: str, ctx: _Ctx) -> None:
    """'my sister Maria' / "Alex's manager, Sam" -> owner has-sister/has-manager name."""
    poss = next((c for c in noun.children if c.dep_ == "poss"), None)
    if noun.like_num or (poss is None and not _the_spouse(noun, ctx)):  # "Maddie's 8": an age (kids.py)
        return
    owner = _owner(poss, ctx, noun) if poss is not None else ctx.me
    if owner and owner != name:
        _emit(ctx, owner, _relation_predicate(noun), name, 0.6, obj_tok=None, obj_type=_kin_type(noun))


def _named(tok: Token, ctx: _Ctx) -> bool:
    """A proper noun, or a word the model tagged a person's name whatever its part of speech."""
    ent = ctx.ents.get(tok.i)
    return tok.pos_ == "PROPN" or (ent is not None and ent.label_ == "PERSON")


def _the_spouse(noun: Token, ctx: _Ctx, named: Token | None = None) -> bool:
    """'the hubby Craig', 'the other half, Dev', 'the missus': said with 'the', a spouse word is the
    speaker's own (British chat); 'the manager' or 'the son' is nobody's in particular. The 'the' may
    hang on the name the spouse word is a compound of (`named`). So is a pet named beside "the dog"
    ("The dog, Moss, is loving the beach")."""
    the = any(c.dep_ == "det" and c.lower_ == "the" for c in (named or noun).children)
    # "husband ryan drives for uber": chat drops the "my" of a spouse word opening the sentence
    bare = noun.i == noun.sent.start and not any(c.dep_ in {"det", "poss"} for c in (named or noun).children)
    spouse = RELATION_PREDICATES.get(noun.lemma_.lower()) == "is-married-to" or _other_half(noun)
    pet = the and noun.lemma_.lower() in PET_NOUNS and named is None  # "The dog, Moss, loves the beach"
    return (((the or bare) and spouse) or pet) and ctx.message.role == "user"


def _kin_type(noun: Token) -> EntityType | None:
    """A relative or a colleague is a person; a pet is not."""
    return None if noun.lemma_.lower() in ANIMAL_NOUNS else "person"


def _owner(poss: Token, ctx: _Ctx, noun: Token | None = None) -> str | None:
    if poss.lower_ in FIRST_PERSON_POSS:
        return ctx.me
    if poss.lower_ == "our":  # "our son Leo": the speaker's family; "our team": not the speaker's
        # "Graham, our ward manager": the boss of a group the speaker is in is the speaker's boss
        family = noun is not None and (
            noun.lemma_.lower() in FAMILY_NOUNS
            or noun.lower_ in MULTIPLE_BIRTHS
            or _children_word(noun)
            or _is_manager_noun(noun)
        )
        return ctx.me if family and ctx.message.role == "user" else None
    return _name_of(poss, ctx)


def _relation_predicate(noun: Token) -> str:
    """'my husband' -> is-married-to, 'our son' -> has-child, 'my best friend' -> has-best-friend."""
    if noun.lower_ in MULTIPLE_BIRTHS or _children_word(noun):
        return "has-child"  # "our twins" are children; "my twin" (one) is a sibling
    if _other_half(noun):
        return "has-partner"
    if noun.lemma_.lower() in PET_BREEDS:
        return _pet_predicate(noun)  # "a cockapoo called Teddy" -> has-dog
    if _is_manager_noun(noun) and not any(
        c.dep_ == "amod" and c.lower_ not in NEUTRAL_MODIFIERS for c in noun.children
    ):
        return "has-manager"  # "my ward manager", "my line manager", "my team lead", "my teamlead"
    rel = _relation_noun(noun)
    doc = noun.doc
    lemma = noun.lemma_.lower()
    if doc[noun.i + 1 : noun.i + 5].text.replace(" ", "").lower() == "-in-law":
        return f"has-{rel}-in-law"  # "my mother-in-law" is not my mother
    if rel == _kebab(lemma) and lemma in RELATION_PREDICATES:
        return RELATION_PREDICATES[lemma]  # "fiancée" (kebab-case would spell it "fianc-e")
    if noun.lemma_.lower() in SALARY_NOUNS:
        return "has-salary"  # "my base salary", "my annual salary"
    return RELATION_PREDICATES.get(rel, "has-" + rel)


_CHILDREN_PLURALS = frozenset({"boys", "girls", "kiddos", "kiddies"})


def _children_word(noun: Token) -> bool:
    """Words a parent uses for their children that name no kin: "my eldest, Grace" (a rank with no
    noun: "my eldest sister" has one), "my two girls are Ruby and Mae", "our boys", "my little one".
    Plural only for boys and girls: "my girl Sophie" may be a partner."""
    if noun.lower_ in _CHILD_RANKS:
        return True
    little = any(c.dep_ == "amod" and c.lower_ == "little" for c in noun.children)
    return noun.lower_ in _CHILDREN_PLURALS or (little and noun.lower_ in {"one", "ones"})


def _is_manager_noun(noun: Token) -> bool:
    """'manager', 'boss', 'team lead', 'my lead' (a team's), 'my head nurse' (a ward's)."""
    lemma = noun.lemma_.lower()
    if lemma in MANAGER_NOUNS:
        return True
    kids = list(noun.children)
    if lemma == "lead":
        return any(c.lower_ == "team" or (c.dep_ == "poss" and c.lower_ in {"my", "our"}) for c in kids)
    return lemma in HEADED_ROLES and any(c.lower_ == "head" and c.dep_ in {"compound", "amod"} for c in kids)


def _manager_subject(verb: Token) -> bool:
    return any(c.dep_ == "nsubj" and _is_manager_noun(c) for c in verb.children)


def _relation_noun(noun: Token) -> str:
    """'my new manager' -> manager, 'my best friend' -> best-friend, 'my former boss' -> former-boss."""
    mods = [
        c.lower_
        for c in noun.children
        if c.dep_ in {"amod", "compound"} and c.i < noun.i and c.lower_ not in NEUTRAL_MODIFIERS
    ]
    return _kebab(" ".join([*mods, noun.lemma_.lower()]))


def _name_of(tok: Token, ctx: _Ctx, person: bool = False, with_of: bool = False) -> str | None:
    """The proper name a token stands for: its entity span, or its PROPN compound chain.

    With `person`, an entity span joining names ("Noah and Ella", typed as one organisation by
    the small model) is cut at the conjunction around `tok`: people are named one at a time.
    With `with_of`, a name "of" a name is one name ("Port of Rotterdam").
    """
    if tok.i in ctx.names:
        return ctx.names[tok.i]
    ent = ctx.ents.get(tok.i)
    if ent is not None and (_name_before_date(tok, ent) or _place_tagged_a_date(tok, ent)):
        ent = None  # "at Lidl last week" tagged one date: the name is Lidl
    elif ent is not None and ent.label_ in SKIP_ENT_LABELS:
        return None
    if tok.pos_ != "PROPN" or _is_kin_word(tok):
        return None  # "Mum had a fall", "Hubby's name is Dev": a relation, not a name
    if tok.is_sent_start and tok.lower_ in CHAT_VERBS_OPENING:
        return None  # "Got offered a job at X": chat's dropped "I", not someone called Got
    # Union of the entity span and the compound/number chain: NER often splits "2015 Honda Civic".
    chain = [
        c.i
        for c in tok.children
        if c.dep_ in {"compound", "nummod"} and c.pos_ in {"PROPN", "NUM"} and not _relation_word(c)
    ]  # "my gf priya": the tagger may call a lower-case "gf" a name
    start = min([tok.i, *chain, *([ent.start] if ent is not None else [])])
    if start <= tok.head.i < tok.i and tok.head.pos_ == "VERB":
        start = tok.head.i + 1  # "Left Walmart last year": the opening verb the model ran into the name
    end = max([tok.i, *(c.i for c in tok.rights if c.dep_ == "nummod")])  # "iPhone 15"
    if ent is not None:
        end = max(end, ent.end - 1)
    # the small model runs a name into what follows ("Brightwave on the 3rd of March")
    end = min([end, *(t.i - 1 for t in tok.doc[tok.i + 1 : end + 1] if t.lower_ in NAME_BREAKS)])
    # ... or runs the name and a role into one ("Wipro as Technical Lead", "Head of Design at Helix"): no
    # name holds a lower-case "as" or "at"
    start = max([start, *(t.i + 1 for t in tok.doc[start : tok.i] if t.text in {"as", "at"})])
    end = min([end, *(t.i - 1 for t in tok.doc[tok.i + 1 : end + 1] if t.text in {"as", "at"})])
    while (
        ent is not None and ent.label_ == "PERSON" and start < tok.i and tok.doc[start].lower_ in _KIN_OPENERS
    ):
        start += 1  # "Hubby Manoj got transfer ...": the model ran the kin word into a person's name
    if person:
        cuts = [t.i for t in tok.doc[start : end + 1] if t.dep_ == "cc" or t.text == ","]
        start = max([start, *(c + 1 for c in cuts if c < tok.i)])
        end = min([end, *(c - 1 for c in cuts if c > tok.i)])
    inner = _of_object(tok) if with_of else None
    if inner is not None and inner.pos_ == "PROPN" and inner.i > end:
        end = inner.i
    if end + 1 < len(tok.doc) and tok.doc[end + 1].tag_ == "POS" and tok.dep_ in {"pobj", "dobj", "attr"}:
        end += 1  # "at St Anne's", "at McDonald's": the possessive is part of the name
    # a date the small model runs into the name ("my brother tom yesterday") is no part of it
    end = min([end, *(t.i - 1 for t in tok.doc[tok.i + 1 : end + 1] if _is_date(t, ctx))])
    while end > tok.i and tok.doc[end].is_punct and tok.doc[end].text in ".,!?;:":
        end -= 1  # an entity span that swallowed the full stop ("is Gethin.")
    name = _strip_det(tok.doc[start : end + 1], keep_possessive=tok.dep_ in {"pobj", "dobj", "attr"})
    return _capitalised(name)


_KIN_OPENERS = FEMALE_KIN | MALE_KIN  # not "Mother Earth Foods": only in a span tagged a person


def _a_city(name: str) -> bool:
    """'transfer to Bhubaneswar' tagged a person: a big place no first name spells ("Austin" may be
    a son)."""
    return places.big_place(name) and not any(w.lower() in first_names() for w in name.split())


def _unkinned(name: str) -> str:
    """A person's name without the kin word the model ran into it ("Hubby Manoj" -> "Manoj")."""
    words = name.split()
    while len(words) > 1 and words[0].lower() in _KIN_OPENERS:
        words = words[1:]
    return " ".join(words)


def _name_before_date(tok: Token, ent: Span) -> bool:
    """A name the model ran into the date after it: 'Lidl last week', 'Arup next month'."""
    doc = tok.doc
    return (
        ent.label_ == "DATE"
        and tok.i == ent.start
        and tok.pos_ == "PROPN"
        and tok.lower_ not in MONTHS
        and ent.end - ent.start > 1
        and doc[tok.i + 1].lower_ in {"last", "next", "this"}
    )


def _place_tagged_a_date(tok: Token, ent: Span) -> bool:
    """'... for eleven years, and I live in Winnipeg': a lone capitalised place the gazetteer knows,
    which the small model tagged a date after other dates in the sentence."""
    return (
        ent.label_ in {"DATE", "TIME"}
        and len(ent) == 1
        and tok.pos_ == "PROPN"
        and tok.is_title
        and tok.lower_ not in MONTHS
        and tok.lower_ not in HOLIDAYS
        and tok.lower_ not in DATE_WORDS
        and tok.lower_ not in _TIME_NOT_PLACE
        and places.fold(tok.text) in places.places()
    )


_TIME_NOT_PLACE = frozenset({"spring", "summer", "autumn", "fall", "winter", "date", "term", "semester"})


def _is_date(tok: Token, ctx: _Ctx) -> bool:
    ent = ctx.ents.get(tok.i)
    return (ent is not None and ent.label_ in {"DATE", "TIME"}) or tok.lower_ in DATE_WORDS


def _capitalised(name: str) -> str:
    """Chat writes names in lower case ("katrin", "hamburg"): a name is stored capitalised."""
    return " ".join(w[:1].upper() + w[1:] for w in name.split(" ")) if name.islower() else name


def _strip_det(span: Span, keep_possessive: bool = False) -> str:
    toks = list(span)
    while toks and toks[0].pos_ == "DET":
        toks = toks[1:]
    while toks and toks[-1].tag_ == "POS" and not (keep_possessive and len(toks) > 1):
        toks = toks[:-1]
    return span.doc[toks[0].i : toks[-1].i + 1].text if toks else span.text


def _object_phrase(tok: Token, ctx: _Ctx, with_of: bool = False, prefer_name: bool = True) -> str | None:
    """Noun phrase of an object without determiners: compounds, adjectives, numbers, names."""
    if tok.tag_ in {"PRP", "PRP$", "EX"} or tok.tag_ in WH_TAGS or tok.pos_ in {"PRON", "NUM"}:
        return None
    ent = ctx.ents.get(tok.i)
    if ent is not None and ent.label_ in SKIP_ENT_LABELS:
        return None
    named = _called_name(tok, ctx) if prefer_name else None
    if named:
        return named
    if tok.lemma_.lower() in QUANTITY_HEADS:
        inner = _of_object(tok)
        return _object_phrase(inner, ctx) if inner is not None else None
    eponym = _eponym(tok)
    if eponym is not None:
        return eponym
    if tok.pos_ == "PROPN":
        text = _name_of(tok, ctx) or tok.text
    elif tok.lower_ in GENERIC_OBJECTS or any(c.dep_ == "poss" for c in tok.children):
        return None
    else:
        mods = [c for c in tok.subtree if c.i <= tok.i and _is_modifier_of(c, tok)]
        start = min([tok.i, *(m.i for m in mods)])
        end = max([tok.i, *(c.i for c in tok.rights if c.dep_ == "nummod")])  # "iPhone 15"
        text = tok.doc[start : end + 1].text
    inner = _of_object(tok) if with_of else None
    if inner is not None:
        tail = _object_phrase(inner, ctx)
        if tail and not text.endswith(tail):  # the entity span may already hold "of X"
            text = f"{text} of {tail}"
    return text


def _eponym(tok: Token) -> str | None:
    """ "Parkinson's disease", "Crohn's disease", "Bell's palsy": a condition named after a person
    (the parse makes the name its owner)."""
    if tok.lemma_.lower() not in DISEASE_HEADS | {"palsy", "lymphoma"}:
        return None
    owner = next((c for c in tok.children if c.dep_ == "poss" and c.pos_ == "PROPN"), None)
    if owner is None or owner.i + 2 != tok.i or tok.doc[owner.i + 1].tag_ != "POS":
        return None
    return tok.doc[owner.i : tok.i + 1].text


def _is_modifier_of(tok: Token, head: Token) -> bool:
    """True if tok is inside head's compound/amod/nummod chain (left side only)."""
    cur = tok
    while cur.i != head.i:
        if cur.dep_ not in {"compound", "amod", "nummod", "nmod", "punct", "quantmod", "npadvmod"}:
            return False
        if cur.dep_ == "amod" and cur.lower_ in EVALUATIVE:
            return False
        cur = cur.head
    return True


def _of_object(tok: Token) -> Token | None:
    for prep in tok.children:
        if prep.dep_ == "prep" and prep.lower_ == "of":
            return next((c for c in prep.children if c.dep_ == "pobj"), None)
    return None


def _called_name(tok: Token, ctx: _Ctx) -> str | None:
    """'a band called The Lumens', 'a cat named Pixel', 'kids, Lily and Ben' -> the name. Not past a
    firm the parse hung it over: "an assistant at a small firm called Heywood & Co" names the firm."""
    for acl in tok.children:
        if any(t.lemma_.lower() in FIRM_NOUNS for t in tok.doc[tok.i + 1 : acl.i]) and tok.i < acl.i:
            continue
        if acl.dep_ == "acl" and acl.lemma_ in {"call", "name"}:
            oprd = next((c for c in acl.children if c.dep_ in {"oprd", "attr", "dobj"}), None)
            if oprd is not None:
                return _name_of(oprd, ctx) or (oprd.text if oprd.pos_ == "PROPN" else None)
    return None


# --------------------------------------------------------------------------- constructions


def _clause_facts(verb: Token, subjects: list[str], past: bool, ctx: _Ctx) -> None:
    past = past or (verb.lemma_ in DONE_BY_PERFECT and _perfect(verb))  # "Tom's left the bank": he left
    if _is_be(verb) and not any(c.dep_ == "auxpass" for c in verb.children):
        subj_tok = next((c for c in verb.children if c.dep_ == "nsubj"), None)
        _copular(verb, subj_tok, subjects, past, ctx)
        return
    if verb.lemma_ in {"bear"} and any(c.dep_ == "auxpass" for c in verb.children):
        for subject in subjects:
            _prep_objects(verb, subject, "born", ctx)
        return
    if _passive(verb):
        if verb.lemma_ in {"marry", "engage"} and len(subjects) == 1:
            subjects = [*_stranded_pair(verb, ctx), *subjects]  # "Ahmed and I got married in 2012"
        if verb.lemma_ in {"marry", "engage"} and len(subjects) == 2:  # "Tom and I got married"
            pred = "is-married-to" if verb.lemma_ == "marry" else "has-partner"
            _emit(ctx, subjects[1], pred, subjects[0], 0.6, obj_tok=None, obj_type="person")
            return
        for subject in subjects:
            if not _hired(verb, subject, ctx) and not _laid_off(verb, subject, ctx):
                _passive_state(verb, subject, past, ctx)
        return
    if verb.lemma_ in MOVE_VERBS and _moved(verb, subjects, ctx):
        return
    base = _verb_form(verb, past)
    prt = [c.lower_ for c in verb.children if c.dep_ == "prt"]
    pred = _kebab(" ".join([base, *prt]))
    for subject in subjects:
        if _engaged(verb, subject, ctx) or _condition(verb, subject, past, ctx):
            continue
        if _became(verb, subject, ctx) or _proposed(verb, subject, ctx):  # "Sarah became my boss"
            continue
        _home_with(verb, subject, past, ctx)
        _sold_home(verb, subject, past, ctx)
        _named_possessions(verb, subject, ctx)
        if (
            (past and _career_as(verb, subject, ctx))
            or _car_owned(verb, subject, ctx)
            or _work_facts(verb, subject, past, ctx)
            or _accepted(verb, subject, ctx)
        ):
            continue
        _likes(verb, subject, past, ctx)  # adds to the plain object rules, never instead of them
        if subject == ctx.me and _found_home(verb, subject, ctx):
            continue
        if verb.lemma_ in LIGHT_VERBS:
            continue  # "I found a flat in Kreuzberg": the place belongs to the flat, not to me
        if verb.i not in ctx.dropped or (
            verb.lemma_ in {"buy", "sell", "adopt", "lease", "leave", "quit"}
            and any(c.dep_ == "dobj" and c.pos_ == "PROPN" for c in verb.children)
        ):  # "married now :) jonas and lena lol": too loose without a subject; "bought the RAV4" is not
            _direct_objects(verb, subject, pred, ctx)
        _prep_objects(verb, subject, pred, ctx, past)


def _likes(verb: Token, subject: str, past: bool, ctx: _Ctx) -> None:
    """'I love hiking', 'I enjoy running in the mornings' (a gerund the parser hangs as a clause),
    "I've taken up climbing" (a pastime begun) -> loves / enjoys / likes. A wish ("I'd love to
    ..."), a past liking, a pronoun or a plain noun say nothing here. A list ("I love hiking,
    photography and old novels") is still read by the plain object rules."""
    if past or _is_irrealis(verb):
        return
    taken_up = verb.lemma_ == "take" and any(c.dep_ == "prt" and c.lower_ == "up" for c in verb.children)
    if verb.lemma_ not in {"love", "like", "enjoy", "adore"} and not taken_up:
        return
    pred = "likes" if taken_up else f"{verb.lemma_}s"
    for obj in (c for c in verb.children if c.dep_ in {"xcomp", "dobj"}):
        if not obj.lower_.endswith("ing") or obj.tag_ not in {"VBG", "NN"}:
            continue
        if obj.lower_ in {"thing", "nothing", "something", "anything", "everything"}:
            continue
        end = max([obj.i, *(c.i for c in obj.children if c.dep_ in {"dobj", "compound"} and c.i > obj.i)])
        _emit(ctx, subject, pred, obj.doc[obj.i : end + 1].text, 0.5, obj_tok=None)


def _passive(verb: Token) -> bool:
    """A passive clause; not "she's got a place" / "he's got a new job", which the parser reads as a
    passive of "get" with an object ("has got": active)."""
    if not any(c.dep_ == "auxpass" for c in verb.children):
        return False
    has_got = verb.lower_ == "got" and any(
        c.dep_ == "auxpass" and c.lower_ in {"'s", "’s"} for c in verb.children
    )
    return not (has_got and any(c.dep_ == "dobj" for c in verb.children))


def _found_home(verb: Token, subject: str, ctx: _Ctx) -> bool:
    """'We've found a house to rent in Leeds', 'found a place in Caboolture', 'bought a flat in
    Leith' -> moves-to: a home found or bought is where the speaker is moving (a later
    'sorry, X not Y' corrects it). True when the clause was read here."""
    signed = verb.lemma_ == "sign"
    finding = verb.lemma_ in HOME_FIND_VERBS or signed
    if not finding or ctx.message.role != "user" or _is_irrealis(verb):
        return False
    found = False
    homes = _signed_for(verb) if signed else [(c, c) for c in verb.children if c.dep_ == "dobj"]
    homes += [  # "found a house to rent in Leeds": the parser makes the house the subject of "rent"
        (h, comp)
        for comp in verb.children
        if comp.dep_ in {"ccomp", "xcomp"}
        for h in comp.children
        if h.dep_ == "nsubj"
    ]
    for home, clause in ((h, c) for h, c in homes if h.lemma_.lower() in _HOME_OR_LEASE):
        heads = [home, verb, clause, *(c for c in home.children if c.dep_ in {"relcl", "acl"})]
        if any(_for_someone(prep) for h in heads for prep in h.children if prep.lower_ == "for"):
            continue  # "I found a flat in Kreuzberg for my sister": hers, not mine
        for pobj in (
            p
            for h in heads
            for prep in h.children
            if prep.dep_ == "prep" and prep.lower_ == "in"
            for p in _pobjs(prep)
        ):
            name = _name_of(pobj, ctx)
            if name:
                _emit(ctx, subject, "moves-to", name, 0.55, obj_tok=pobj, obj_type="location")
                found = True
    return found


_LEASE_NOUNS = frozenset({"lease", "tenancy", "rental"})
_HOME_OR_LEASE = frozenset(HOME_NOUNS) | _LEASE_NOUNS


def _signed_for(verb: Token) -> list[tuple[Token, Token]]:
    """'signed for a flat in Shoreditch', 'signed a lease on a flat in X', 'signed a lease in Hyde
    Park': a lease signed is a home the signer is moving to (the lease stands for the home)."""
    leases = [c for c in verb.children if c.dep_ == "dobj" and c.lemma_.lower() in _LEASE_NOUNS]
    held = [
        p
        for h in (verb, *leases)
        for prep in h.children
        if prep.dep_ == "prep" and prep.lower_ in {"for", "on"}
        for p in _pobjs(prep)
        if p.lower_ in HOME_NOUNS or p.lemma_.lower() in HOME_NOUNS
    ]
    return [(home, verb) for home in held] or [(lease, verb) for lease in leases]


def _home_it(sent: Span, ctx: _Ctx) -> None:
    """'We've found a house to rent in Leeds! It's in Headingley' -> moves-to Headingley; 'Our new
    flat is lovely. It's in Altona.' -> lives-in Altona: "it" is the home the message spoke of
    before (found or bought: where the speaker is moving; theirs now: where they live)."""
    root = sent.root
    if not _is_be(root) or root.tag_ == "VBD" or _is_irrealis(root):
        return
    if not any(c.dep_ == "nsubj" and c.lower_ == "it" for c in root.children):
        return
    predicate = _home_before(sent.doc[: sent.start])
    if predicate is None:
        return
    ins = [c for c in root.children if c.dep_ == "prep" and c.lower_ == "in"]
    for pobj in (p for prep in ins for p in _pobjs(prep)):
        ent = ctx.ents.get(pobj.i)
        name = _name_of(pobj, ctx) if ent is None or ent.label_ in {"GPE", "LOC", "FAC"} else None
        if name and pobj.pos_ == "PROPN":
            _emit(ctx, ctx.me, predicate, name, 0.55, obj_tok=pobj, obj_type="location")


def _home_of_mine(sent: Span, ctx: _Ctx) -> None:
    """'rent is R9,500 for my place in melville', 'our house in Clontarf needs a roof', '$1,150 for a
    3 bedroom duplex in Belmont' (a rent line) -> lives-in the place: the speaker's home is there.
    Not an old or second home ('my old flat in Leith', 'our holiday cottage in Kerry'), nor
    another's ('my sister's flat'), nor in a plan or a question."""
    rent_line = any(t.lemma_.lower() in {"rent", "mortgage"} for t in sent) and any(
        t.like_num or t.ent_type_ == "MONEY" for t in sent
    )
    said = {f.object for f in ctx.out if f.subject == ctx.me}
    for home in (t for t in sent if t.lemma_.lower() in HOME_NOUNS | {"duplex", "townhouse", "semi"}):
        owners = {c.lower_ for c in home.children if c.dep_ == "poss"}
        mine = owners & {"my", "our"} or (rent_line and not owners)
        if _past_home(home) or not mine or _is_irrealis(home.head):
            continue
        after = home.right_edge.i + 1  # "rent is £900 for my flat in Leith": "in" hangs on "is"
        ins = [c for c in home.children if c.lower_ == "in"]
        ins += [sent.doc[after]] if after < sent.end and sent.doc[after].lower_ == "in" else []
        for pobj in (p for prep in ins for p in _pobjs(prep)):
            ent = ctx.ents.get(pobj.i)
            name = _name_of(pobj, ctx) if ent is None or ent.label_ in {"GPE", "LOC", "FAC"} else None
            if name and pobj.pos_ == "PROPN" and name not in said:  # "moved into our flat in X"
                _emit(ctx, ctx.me, "lives-in", name, 0.55, obj_tok=pobj, obj_type="location")


def _in_an_org(sent: Span, before: int, ctx: _Ctx) -> None:
    """'He is in SBI', 'now I am in PhysicsWallah as academic counsellor' (Indian English: "in" a firm
    is working there): a person's is-in an organisation the model tagged one, no place the gazetteer
    knows, is works-at. The speaker's own only with a role said ("as ..."): "I'm in Tesco" is the shop."""
    orgs = {
        e.text for e in ctx.ents.values() if e.label_ == "ORG" and e.start >= sent.start and e.end <= sent.end
    }
    with_role = any(t.lower_ == "as" for t in sent)
    for k in range(before, len(ctx.out)):
        fact = ctx.out[k]
        if (
            fact.predicate != "is-in"
            or fact.object not in orgs
            or fact.subject_type in {"location", "organization"}
        ):
            continue
        if places.fold(fact.object) in places.places() or (fact.subject == ctx.me and not with_role):
            continue
        ctx.out[k] = fact.model_copy(
            update={"predicate": "works-at", "object_type": "organization", "object_type_implied": True}
        )


def _home_before(span: Span) -> str | None:
    """The predicate for a home an earlier part of the message spoke of: found or bought ("found a
    house", "found a house to rent") -> moves-to; the speaker's own now ("our new flat") -> lives-in."""
    for tok in (t for t in span if t.lemma_.lower() in HOME_NOUNS):
        verb = tok.head.head if tok.dep_ == "nsubj" and tok.head.dep_ in {"ccomp", "xcomp"} else tok.head
        finders = {c.lower_ for c in verb.children if c.dep_ == "nsubj"}
        if tok.dep_ in {"dobj", "nsubj"} and verb.lemma_ in HOME_FIND_VERBS and not _is_irrealis(verb):
            return "moves-to" if finders <= {"i", "we"} else None  # not "my sister found a flat"
        if _my_or_our(tok) and not _past_home(tok):
            return "lives-in"
    return None


def _past_home(home: Token) -> bool:
    """'our old flat', 'my last place', 'the holiday cottage': a home that says nothing of now."""
    return any(c.lower_ in OLD_HOME_WORDS for c in home.children)


def _for_someone(prep: Token) -> bool:
    """'for my sister', 'for Mum', 'for them': a beneficiary, not a price or a duration."""
    return any(
        p.pos_ in {"PROPN", "PRON"} or _is_kin(p) or any(c.dep_ == "poss" for c in p.children)
        for p in _pobjs(prep)
    )


def _is_be(verb: Token) -> bool:
    """'be', and the 'm' of chat's "im"/"i m" (the tokenizer splits it off and loses the lemma)."""
    return verb.lemma_ == "be" or (verb.lower_ == "m" and verb.i > 0 and verb.doc[verb.i - 1].lower_ == "i")


def _moved(verb: Token, subjects: list[str], ctx: _Ctx) -> bool:
    """'we moved last month, now in Bristol' -> lives-in Bristol; 'we moved!!' keeps the mover for
    the next sentence ('hamburg altona.', 'now in Leeds'). True when the clause was read here."""
    done = _is_past(verb) or _perfect(verb)
    if _is_irrealis(verb) or not done or ctx.me not in subjects:  # "we moved", "we've moved"
        return False
    preps = [c for c in verb.children if c.dep_ == "prep"]
    back = [c for p in verb.children if p.dep_ in {"advmod", "prt"} and p.lower_ in {"back", "up", "down"}
            for c in p.children if c.dep_ == "prep"]  # fmt: skip  # "moved back to my childhood home in X"
    for prep in (p for p in [*preps, *back] if p.lower_ in {"into", "to"}):  # "moved into a flat in Gràcia"
        for home in (t for t in _pobjs(prep) if t.lemma_.lower() in HOME_NOUNS):
            for pobj in (p for inner in _preps(home, verb, {"in"}) for p in _pobjs(inner)):
                name = _name_of(pobj, ctx)
                if name:
                    _emit(ctx, ctx.me, "moved-to", name, 0.6, obj_tok=pobj)
                    return True
    if _moved_out(verb, preps, ctx):
        _now_in(preps, ctx)  # "moved out of my parents place in phoenix, now in tempe"
        return True
    if any(c.dep_ == "dobj" for c in verb.children) or any(p.lower_ not in {"in"} for p in preps):
        return False
    found = _now_in(preps, ctx)
    if not preps and not any(c.dep_ == "prt" for c in verb.children):
        ctx.moved = ctx.me
    return found


def _now_in(preps: list[Token], ctx: _Ctx) -> bool:
    """'moved, now in X': the parser hangs "in X" on the move -> lives-in X."""
    found = False
    for prep in (p for p in preps if p.lower_ == "in"):
        if prep.i > 0 and prep.doc[prep.i - 1].lower_ in {"now", "currently"}:
            for pobj in _pobjs(prep):
                name = _name_of(pobj, ctx)
                if name:
                    _emit(ctx, ctx.me, "lives-in", name, 0.6, obj_tok=pobj)
                    found = True
    return found


def _districts(sent: Span, ctx: _Ctx) -> None:
    """'Kreuzberg is a lively area', 'Clifton, a suburb of Bristol', 'Headingley is part of Leeds',
    'the Kreuzberg district' -> X is-a district (and X is-in Y when the city is named): a home there
    stays beside the home city (store.facts)."""
    for noun in (t for t in sent if t.lemma_.lower() in DISTRICT_NOUNS or t.lower_ == "part"):
        place = _district_place(noun)
        name = _name_of(place, ctx) if place is not None else None
        ent = ctx.ents.get(place.i) if place is not None else None
        if not name or (ent is not None and ent.label_ in SKIP_ENT_LABELS):
            continue  # a PERSON label is the small model's guess: no person is "a lively area"
        if noun.lemma_.lower() == "area" and ent is not None and ent.label_ == "GPE":
            continue  # "Leeds is a great area for families": a city the tagger knows, not a district
        if noun.lower_ != "part":
            _emit(ctx, name, *DISTRICT_FACT, 0.6, obj_tok=None, subj_type="location")
        for city in (p for prep in _preps(noun, noun, {"of", "in"}) for p in _pobjs(prep)):
            city_name = _name_of(city, ctx) or _tagged_place(city, ctx)
            if city_name:
                _emit(
                    ctx,
                    name,
                    "is-in",
                    city_name,
                    0.6,
                    obj_tok=city,
                    obj_type="location",
                    subj_type="location",
                )


def _tagged_place(tok: Token, ctx: _Ctx) -> str | None:
    """A capitalised place the tagger called a common noun ("part of Leeds"): its GPE/LOC span."""
    ent = ctx.ents.get(tok.i)
    return ent.text if ent is not None and ent.label_ in {"GPE", "LOC"} and tok.text[:1].isupper() else None


def _district_place(noun: Token) -> Token | None:
    """The named place a district noun describes: copular subject, apposition head or compound."""
    if noun.dep_ == "attr" and noun.head.lemma_ == "be":
        subj = next((c for c in noun.head.children if c.dep_ == "nsubj"), None)
        return subj if subj is not None and subj.pos_ == "PROPN" else None
    if noun.dep_ == "appos" and noun.head.pos_ == "PROPN":
        return noun.head
    if noun.lower_ != "part" and noun.tag_ == "NN" and any(c.lower_ == "the" for c in noun.children):
        # "the Kreuzberg district"; not "most Colorado districts" (school districts of a state)
        return next((c for c in noun.children if c.dep_ == "compound" and c.pos_ == "PROPN"), None)
    return None


def _moved_out(verb: Token, preps: list[Token], ctx: _Ctx) -> bool:
    """'we moved out of Lisbon', 'moved away from Leeds': the home there ended (moved-out-of)."""
    inner = [
        q for p in preps if p.lower_ == "out" for q in p.children if q.dep_ == "prep" and q.lower_ == "of"
    ]
    away = [c for c in verb.children if c.dep_ == "advmod" and c.lower_ == "away"]
    inner += [q for a in away for q in a.children if q.dep_ == "prep" and q.lower_ == "from"]
    left = [p for prep in inner for p in _pobjs(prep)]
    # "moved out of my flat in Leeds", "out of my parents place in phoenix": the home's place
    left += [
        q
        for h in left
        if h.lemma_.lower() in HOME_NOUNS
        for inn in _preps(h, verb, {"in"})
        if inn.i == h.right_edge.i + 1 or inn.head.i == h.i  # not "..., now in tempe"
        for q in _pobjs(inn)
    ]
    names = [(name, p) for p in left if (name := _name_of(p, ctx))]
    for name, pobj in names:
        _emit(ctx, ctx.me, "moved-out-of", name, 0.6, obj_tok=pobj)
    return bool(names)


def _used_to(verb: Token) -> bool:
    """'I used to work at X': the state held and holds no more."""
    return verb.dep_ == "xcomp" and verb.head.lemma_ == "use" and verb.head.tag_ == "VBD"


def _last_day(sent: Span, ctx: _Ctx) -> None:
    """'My last day at Northwind was October 9', 'Friday was Tom's last day at the bank': the job
    ended (worked-at, an ending; the sentence's date becomes its `valid_at`). Only in the past:
    'my last day is Friday' is a plan."""
    for day in (t for t in sent if t.lemma_ == "day" and any(c.lower_ == "last" for c in t.children)):
        be = day.head
        was = day.dep_ in {"nsubj", "attr"} and be.lemma_ == "be" and be.tag_ == "VBD"
        had = day.dep_ == "dobj" and be.lemma_ == "have" and (be.tag_ == "VBD" or _perfect(be))
        if not (was or had) or (had and not _by_me(be, ctx)):  # "Just had my last day at Boots"
            continue
        owner_tok = next((c for c in day.children if c.dep_ == "poss"), None)
        owner = _owner(owner_tok, ctx, day) if owner_tok is not None else None
        for pobj in (p for prep in _preps(day, be, {"at", "with"}) for p in _pobjs(prep)):
            name = _name_of(pobj, ctx, with_of=True)
            if owner and name:
                _emit(ctx, owner, "worked-at", name, 0.6, obj_tok=None, obj_type="organization", ends=True)


def _fragments(sent: Span, ctx: _Ctx) -> None:
    """Chat lines without a verb, the speaker's: 'salary 54k now', 'rent: 1200/month', 'new job:
    Acme', 'Current job: barista at Grindhouse', 'new role - senior buyer at X', and after a move
    with no place ('we moved!!'): 'now in Leeds', 'hamburg altona.'.

    Only a line that opens with the key word (after 'update:', 'my', 'new', ...) and has no
    conditional, modal or question in it; the value must follow the key at once."""
    words = [t for t in sent if not t.is_space]
    if any(t.lower_ in FRAGMENT_IRREALIS for t in words) or sent.text.rstrip().endswith("?"):
        return
    i = 0
    while i < len(words) and (words[i].is_punct or words[i].lower_ in FRAGMENT_LEADS):
        i += 1
    moved, ctx.moved = ctx.moved, None
    if moved is not None:
        _moved_to(words[i:], moved, ctx)
    titled, ctx.titled = ctx.titled, False
    verbs = [t for t in words if t.pos_ in {"VERB", "AUX"}]
    # "Teaching assistant now.": a title opening with an -ing word the model makes the line's verb
    ing = bool(verbs) and verbs == words[i : i + 1] and verbs[0].tag_ == "VBG"
    ing_title = ing and i + 1 < len(words) and _is_job(words[i + 1])
    if not verbs or ing_title:
        if titled:
            _workplace_line(words[i:], ctx)
        _title_line(words[i:], ctx)
        _rent_line(words[i:], ctx)
    _bracketed_title(words, ctx)
    while i < len(words) and words[i].lower_ in FRAGMENT_OWNERS:
        i += 1
    if i + 2 < len(words) and words[i].pos_ == "NOUN" and _is_manager_noun(words[i + 1]):
        i += 1  # "new ward manager: ..."
    if i + 1 >= len(words):
        return
    key = words[i].lower_
    if key == "base" and words[i + 1].lower_ in SALARY_NOUNS:
        i += 1
    if key == "job" and words[i + 1].lower_ == "title":
        key, i = "title", i + 1
    j = i + 1
    while j < len(words) and (words[j].lower_ in FRAGMENT_GLUE or words[j].text in {":", "-", "–", "—", "="}):
        j += 1
    if j >= len(words) or (j == i + 1 and key in FRAGMENT_JOB_KEYS and words[j].pos_ == "VERB"):
        return
    if key in PAY_WORDS:
        value = _money_value(words[j], ctx) or _amount(words[j])
        if value and _big_enough(value):
            pred = "has-rent" if key in {"rent", "mortgage"} else "has-salary"
            _emit(ctx, ctx.me, pred, value, 0.55, obj_tok=None)
    elif key in FRAGMENT_JOB_KEYS or key in FRAGMENT_ROLE_KEYS:
        _job_fragment(words[j:], key in FRAGMENT_ROLE_KEYS, ctx)
    elif _is_manager_noun(words[i]) and j > i + 1 and words[i + 1].lower_ != "of":  # not "manager of Arsenal"
        # "new manager: kavya reddy", "boss - Dana Ortiz"
        name = _name_run(words[j:]) or _lowercase_name_run(words[j])
        if name:
            _emit(ctx, ctx.me, "has-manager", name, 0.55, obj_tok=None, obj_type="person")
    elif j > i + 1 and words[j - 1].text in {":", "-", "–", "—"} and _kin_or_pet_key(words[i]):
        name = _name_run(words[j:])  # "Wife: Ingrid.", "Cat: Nori. Vet Tues.", "son - Leo"
        if name:
            _emit(ctx, ctx.me, _relation_predicate(words[i]), name, 0.55, obj_tok=None)


_TRAVEL = frozenset(
    {"fly", "flight", "trip", "holiday", "vacation", "hotel", "conference", "airport", "visit"}
)


def _still_at(sent: Span, ctx: _Ctx) -> None:
    """'Nope, still at Sainsbury's', 'In Leeds now' (extract/still_at.py): the speaker's employer
    after "at" (a name that can be one), home after "in" (a place)."""
    if any(t.lower_ in FRAGMENT_IRREALIS or t.lower_ in VISIT_WORDS or t.lemma_ in _TRAVEL for t in sent):
        return  # "In London now, flying back Monday": a trip
    for prep, tok in still_at.state_places(sent):
        name = _name_of(tok, ctx, with_of=True)
        if not name or _is_date(tok, ctx):
            continue
        if prep == "at" and _employer_named(tok, name, ctx):
            _emit(ctx, ctx.me, _workplace_pred(name, False), name, 0.5, obj_tok=None, obj_type="organization")
        elif prep == "in" and _place_named(tok, name, ctx):
            _emit(ctx, ctx.me, "lives-in", name, 0.5, obj_tok=None, obj_type="location")


def _place_named(tok: Token, name: str, ctx: _Ctx) -> bool:
    """A place by the model's tag or the gazetteer (the model tags many towns a person)."""
    ent = ctx.ents.get(tok.i)
    return (ent is not None and ent.label_ in {"GPE", "LOC"}) or places.fold(name) in places.places()


def _form_parts(sent: Span) -> list[Span]:
    """A line of "key: value" pairs parted by semicolons ("occupation: civil engineer; employer:
    Larsen & Toubro; spouse: Meenal"), each read as a line of its own."""
    cuts = [t.i for t in sent if t.text == ";"]
    if not cuts:
        return [sent]
    bounds = [sent.start - 1, *cuts, sent.end]
    return [sent.doc[a + 1 : b] for a, b in itertools.pairwise(bounds) if b > a + 1]


def _kin_or_pet_key(tok: Token) -> bool:
    """A line's key that names whom or what the speaker has: a spouse, child or pet word."""
    lemma = tok.lemma_.lower()
    spouse_or_child = RELATION_PREDICATES.get(lemma) in {"is-married-to", "has-partner", "has-child"}
    return tok.pos_ in {"NOUN", "PROPN"} and (spouse_or_child or lemma in PET_NOUNS)


_NOT_A_TITLE_LINE = FRAGMENT_IRREALIS | {"not", "n't", "never", "if"}


def _i_am_title(sent: Span, ctx: _Ctx) -> None:
    """'im freelance translator since 2021', 'i am software engineer in TCS': typed chat the small
    model parses badly ("freelance" as the root). Read by the words, not the parse: I + am/'m,
    at most an article or 'now', then up to four words ending in an occupation noun."""
    lows = {t.lower_ for t in sent}
    if not lows & {"i", "im"} or lows & _NOT_A_TITLE_LINE or sent.text.rstrip().endswith("?"):
        return
    words = [t for t in sent if not t.is_space]
    for i, tok in enumerate(words):
        if tok.lower_ == "im":
            j = i + 1
        elif tok.lower_ == "i" and i + 1 < len(words) and words[i + 1].lower_ in {"m", "'m", "am"}:
            j = i + 2
        else:
            continue
        while j < len(words) and words[j].lower_ in {"a", "an", "now", "currently", "still", "just"}:
            j += 1
        end = j
        while end < len(words) and end - j < 6 and _title_part(words[end]):
            end += 1
        if end > j and _is_job(words[end - 1]) and words[end - 1].tag_ != "NNS":
            title = sent.doc[words[j].i : words[end - 1].i + 1].text
            _emit(ctx, ctx.me, "has-role", _drop_new(title), 0.5, obj_tok=None)
            return


def _title_part(tok: Token) -> bool:
    """A word of a title typed after "I'm a": a noun or adjective, a school year's number ("year 6
    teacher"), or the parts of "self-employed"."""
    if tok.is_alpha:
        return tok.pos_ in {"NOUN", "ADJ", "PROPN"} or (tok.tag_ == "VBN" and tok.dep_ == "amod")
    return tok.text == "-" or (tok.like_num and tok.text.isdigit() and len(tok.text) <= 2)


def _title_line(words: list[Token], ctx: _Ctx) -> None:
    """A verbless line opening with a job title and where or since when: 'staff nurse at the QEUH,
    ward 7B', 'charge nurse from 1st July!!', 'Still a cashier at Tesco.' -> the speaker's role (and
    employer)."""
    if words and words[0].lower_ in {"still", "currently"}:  # not a bare "A nurse at X.": whose?
        words = words[2:] if len(words) > 1 and words[1].lower_ in {"a", "an"} else words[1:]
    end = 0
    while (
        end < len(words)
        and end < 5
        and words[end].is_alpha
        and (words[end].pos_ in {"NOUN", "ADJ", "PROPN"} or (end == 0 and words[0].tag_ == "VBG"))
    ):
        end += 1
    if end == 0 or not _is_job(words[end - 1]) or words[end - 1].tag_ == "NNS":
        return
    if end >= len(words):
        words = [*words, words[-1]]  # a title with no full stop: the check below reads it as the end
    if all(t.is_punct for t in words[end:]) and _after_job_news(words[0]):
        # "Got the job at Arla!! Head of Design." / "Promotion came through. Team Lead."
        title = words[0].doc[words[0].i : words[end - 1].i + 1].text
        _emit(ctx, ctx.me, "has-role", _drop_new(title), 0.45, obj_tok=None)
        return
    nxt = words[end].lower_
    if nxt == "now" and all(t.is_punct for t in words[end + 1 :]):  # "Teaching assistant now."
        title = words[0].doc[words[0].i : words[end - 1].i + 1].text
        _emit(ctx, ctx.me, "has-role", _drop_new(title), 0.5, obj_tok=None)
        ctx.titled = True
        return
    rest = words[end + 1 :]
    while rest and rest[0].lower_ in {"the", "a"}:
        rest = rest[1:]
    org = _name_run(rest) if nxt in {"at", "with"} else None
    dated = nxt in {"from", "since"} and bool(rest) and _is_date(rest[0], ctx)
    if not org and not dated:
        return
    title = words[0].doc[words[0].i : words[end - 1].i + 1].text
    _emit(ctx, ctx.me, "has-role", _drop_new(title), 0.5, obj_tok=None)
    if org:
        _emit(ctx, ctx.me, _workplace_pred(org, False), org, 0.5, obj_tok=None, obj_type="organization")


def _workplace_line(words: list[Token], ctx: _Ctx) -> None:
    """After a line that was only the speaker's title, a line that is only a name is where:
    'Teaching assistant now. Larkrise Primary.'"""
    body = [t for t in words if not t.is_punct]
    name = _name_run(body)
    ent = ctx.ents.get(body[0].i) if body else None
    org = ent is None or ent.label_ not in {"PERSON", "DATE", "GPE"}
    if name and len(name.split()) == len(body) and org:
        _emit(ctx, ctx.me, "works-at", name, 0.5, obj_tok=None, obj_type="organization")


def _bracketed_title(words: list[Token], ctx: _Ctx) -> None:
    """A job title and workplace in brackets, in a line of the speaker's own work: 'I sell software for
    a living (account exec at Northwind)', 'I work in sales (account manager at Brightwave)'."""
    if not any(t.dep_ == "nsubj" and t.lower_ in FIRST_PERSON for t in words):
        return
    # the brackets describe the speaker's line of work, not a person just named ("I met Tom (engineer
    # at Arup)", "my sister (nurse at X)")
    opens = [
        k
        for k, t in enumerate(words)
        if t.text == "(" and k > 0 and words[k - 1].pos_ != "PROPN" and not _is_kin_word(words[k - 1])
    ]
    for k in opens:
        close = next((m for m in range(k + 1, len(words)) if words[m].text == ")"), None)
        inner = words[k + 1 : close] if close is not None else []
        if inner and not any(t.pos_ in {"VERB", "AUX"} for t in inner):
            _title_line([*inner, words[close]] if close is not None else inner, ctx)


def _after_job_news(first: Token) -> bool:
    """The sentence before this one (same message) tells of the speaker's job, in its words: a job,
    role, position, offer, promotion, hiring, work ("I work at Nando's. Shift manager.")."""
    sent = first.sent
    if sent.start == 0:
        return False
    before = first.doc[sent.start - 1].sent
    return any(
        t.lemma_.lower() in JOB_NOUNS or t.lemma_.lower() in {"promotion", "promote", "hire", "work"}
        for t in before
    ) and (
        any(t.lower_ in FIRST_PERSON or t.lower_ in FIRST_PERSON_POSS for t in before)
        or not any(t.dep_ in {"nsubj", "nsubjpass"} for t in before)  # "Got the job!!": the "I" left out
    )


def _rent_line(words: list[Token], ctx: _Ctx) -> None:
    """'£725 a month, 2 bed', '22k rent': an amount a verbless line gives a home for a month."""
    if words and words[0].is_currency:
        words = words[1:]  # "£725": the amount token, whose sign _money_value/_amount keep
    if not words:
        return
    value = _money_value(words[0], ctx) or _amount(words[0])
    if not value or not _big_enough(value):
        return
    low = [t.lower_ for t in words]
    monthly = "month" in low[1:4] or "pcm" in low[1:3] or "/month" in "".join(low[:4])
    home = any(t.lemma_.lower() in HOME_NOUNS | {"bed", "bedroom", "bhk", "rent"} for t in words)
    if (monthly and home) or (len(low) > 1 and low[1] == "rent"):
        _emit(ctx, ctx.me, "has-rent", value, 0.5, obj_tok=None)


def _pay_starts_at(verb: Token, ctx: _Ctx) -> None:
    """'band 6, starts at 39k', 'the salary starts at £39,000' -> has-salary (pay, not a time)."""
    subj = next((c for c in verb.children if c.dep_ == "nsubj"), None)
    if subj is not None and subj.lower_ not in PAY_WORDS | {
        "it",
        "job",
        "role",
        "post",
        "position",
        "band",
        "grade",
    }:
        return
    if _is_irrealis(verb) or _is_past(verb):
        return
    for pobj in (p for prep in _preps(verb, verb, {"at", "on"}) for p in _pobjs(prep)):
        value = _money_value(pobj, ctx) or (_amount(pobj) if MONEY_SHORT.match(pobj.text) else None)
        if value and _big_enough(value) and not _is_date(pobj, ctx):
            _emit(ctx, ctx.me, "has-salary", value, 0.5, obj_tok=None)


def _monthly_rent(sent: Span, ctx: _Ctx) -> None:
    """'It's in Headingley, three bedrooms, £1,350 a month' -> has-rent: an amount a month in a
    line (or after a line) about a home, and no word of pay, buying or a hypothetical."""
    doc = sent.doc
    for tok in sent:
        if not (tok.like_num or MONEY_SHORT.match(tok.text)) or tok.i + 2 >= len(doc):
            continue
        after = [doc[tok.i + 1].lower_, doc[tok.i + 2].lower_]
        if after[0] in CURRENCY_WORDS:
            after = [doc[tok.i + 2].lower_, doc[tok.i + 3].lower_ if tok.i + 3 < len(doc) else ""]
        if after not in (["a", "month"], ["per", "month"]) and after[0] not in {"pcm", "/month", "monthly"}:
            continue
        prev = doc[sent.start - 1].sent if sent.start > 0 else sent
        if any(t.dep_ == "poss" and t.lower_ not in {"my", "our"} for t in sent):
            return  # "Tom's rent: 900 a month", "their flat is 1,100 a month": someone else's
        # "we pay 1,200 a month in rent": paying is no word of one's pay (the noun "pay" is)
        words = {t.lemma_.lower() for t in (*prev, *sent) if not (t.lemma_ == "pay" and t.pos_ == "VERB")}
        home = words & (HOME_NOUNS | {"bedroom", "bed", "rent", "bhk", "landlord", "lease"})
        if not home or words & (PAY_CUES | PURCHASE_WORDS | FRAGMENT_IRREALIS) or _is_question(sent):
            return
        value = _money_value(tok, ctx) or _amount(tok)
        if value and _big_enough(value):
            _emit(ctx, ctx.me, "has-rent", value, 0.5, obj_tok=None)
        return


def _pay_marked(sent: Span, ctx: _Ctx) -> None:
    """An amount that says it is pay by its own words, with no pay noun or verb: 'band 5 so about
    33k before tax', '18 LPA CTC', '62k euro per annum gross'. In a message about a job offer
    it is the offer's pay (has-salary-offer, made the salary when the offer is accepted)."""
    words = {t.lemma_.lower() for t in sent}
    if _is_question(sent) or words & (PURCHASE_WORDS | FRAGMENT_IRREALIS | CAR_NOUNS | HOME_NOUNS | {"rent"}):
        return
    doc = sent.doc
    amounts = [e for e in sent.ents if e.label_ == "MONEY"]
    amounts += [
        doc[t.i : t.i + 1]
        for t in sent
        if MONEY_SHORT.match(t.text) and ctx.ents.get(t.i, doc[t.i : t.i]).label_ in {"", "CARDINAL", "DATE"}
    ]  # "33k", "50k": an amount in thousands the model took for a number or a date
    for amount in amounts:
        after = " ".join(t.lower_ for t in doc[amount.end : min(amount.end + 3, len(doc))])
        unit = PAY_MARKED.search(amount.text)
        if not (unit or PAY_MARKED_AFTER.match(after)):
            continue
        if any(f.predicate.startswith("has-salary") for f in ctx.out):
            return  # a rule with a pay word read this line already
        value = _money_value(amount[-1], ctx)
        offer = any(t.lemma_.lower() == "offer" for t in doc)
        pred = OFFERED_PAY if offer else TAKE_HOME if NET_MARKED_AFTER.match(after) else "has-salary"
        if value and (unit or _big_enough(value)):
            _emit(ctx, ctx.me, pred, value, 0.5, obj_tok=None)
        return


def _lowercase_name_run(tok: Token) -> str | None:
    """'sandeep', 'kavya reddy' as a whole value (a line ends there): the name, capitalised."""
    doc = tok.doc
    end = tok.i + 1
    while end < len(doc) and end - tok.i < 3 and doc[end].is_alpha and not doc[end].is_stop:
        end += 1
    if end < len(doc) and not doc[end].is_punct:
        return None
    words = doc[tok.i : end]
    if any(
        t.is_stop
        or t.lower_ in NOT_NAMES
        or t.lower_ in JOB_TITLE_NOUNS
        or t.pos_ not in {"NOUN", "PROPN", "ADJ"}
        or (t.pos_ == "ADJ" and (t.lower_ in PLAIN_ADJECTIVES or t.lower_.endswith(ADJECTIVE_ENDINGS)))
        for t in words
    ):
        return None  # "manager will be happy": an adjective the small model cannot tell from "sandeep"
    return _capitalised(words.text)


def _big_enough(value: str) -> bool:
    """An amount of pay or rent: 'k', or at least 100 ('salary 2 days late' is no salary)."""
    digits = re.sub(r"[.,](\d{3})", r"\1", value)
    number = re.search(r"\d+", digits)
    if number is None:
        return False
    return int(number.group()) >= 100 or bool(re.search(r"\d\s*[kK]", value))


def _name_run(words: list[Token]) -> str | None:
    """The proper name the words open with ('Harrow & Finch', 'Brightwell Labs')."""
    end = 0
    while end < len(words) and (
        words[end].pos_ == "PROPN"
        or (
            words[end].text in {"&", "and"}
            and end + 1 < len(words)
            and words[end + 1].pos_ == "PROPN"
            and end > 0
        )
    ):
        end += 1
    if end == 0 or not words[0].text[:1].isupper():
        return None
    return words[0].doc[words[0].i : words[end - 1].i + 1].text


def _job_fragment(words: list[Token], role_key: bool, ctx: _Ctx) -> None:
    """'Brightwell Labs!' (an employer) or 'barista at Grindhouse' / 'senior buyer' (a title)."""
    name = _name_run(words)
    if name is not None and not role_key:
        if not _no_employer(words[0], ctx):
            _emit(
                ctx, ctx.me, _workplace_pred(name, False), name, 0.55, obj_tok=None, obj_type="organization"
            )
        return
    end = 0
    while (
        end < len(words) and end < 6 and words[end].is_alpha and words[end].pos_ in {"NOUN", "ADJ", "PROPN"}
    ):
        end += 1
    if end == 0 or not _is_title_word(words[end - 1]):
        at = next((k for k, t in enumerate(words[:5]) if t.lower_ in {"at", "with"}), None)
        after = words[at + 1 :] if at is not None else []
        org = _name_run(after) if after and not _no_employer(after[0], ctx) else None
        if org:  # "new job: casual at Bunnings Caloundra"
            _emit(ctx, ctx.me, _workplace_pred(org, False), org, 0.55, obj_tok=None, obj_type="organization")
        return
    title = words[0].doc[words[0].i : words[end - 1].i + 1].text
    _emit(ctx, ctx.me, "has-role", _drop_new(title), 0.55, obj_tok=None)
    if end + 1 < len(words) and words[end].lower_ in {"at", "with", "for"}:
        org = _name_run(words[end + 1 :])
        if org:
            _emit(ctx, ctx.me, _workplace_pred(org, False), org, 0.55, obj_tok=None, obj_type="organization")


def _no_employer(first: Token, ctx: _Ctx) -> bool:
    """'my job at Christmas', 'my role at Sarah's wedding': a feast or a person's event."""
    ent = ctx.ents.get(first.i)
    owner = (
        ent is not None
        and ent.label_ == "PERSON"
        and ent.end < len(first.doc)
        and first.doc[ent.end].tag_ == "POS"
    )
    return owner or _is_date(first, ctx) or first.lower_ in HOLIDAYS


def _moved_to(words: list[Token], mover: str, ctx: _Ctx) -> None:
    """After 'we moved!!': a line that is only a place ('hamburg altona.', 'now in Leeds')."""
    while words and words[0].lower_ in {"now", "finally", "currently", "in", "to"}:
        words = words[1:]
    body = [t for t in words if not t.is_punct]
    while body and body[-1].lower_ in {"now", "finally", "then"}:  # "Moved. Bath now."
        body = body[:-1]
        words = [t for t in words if t.i <= body[-1].i or t.is_punct] if body else []
    if not body or len(body) > 3 or len(words) - len(body) > 1:
        return
    if not all(t.is_alpha and t.pos_ in {"PROPN", "NOUN"} and not t.is_stop for t in body):
        return
    place = _capitalised(body[0].doc[body[0].i : body[-1].i + 1].text)
    known = places.fold(place) in places.places()  # "Moved. Bath now.": the model's common noun "bath"
    if not known and not any(t.pos_ == "PROPN" or ctx.ents.get(t.i) is not None for t in body):
        return
    _emit(ctx, mover, "lives-in", place, 0.55, obj_tok=None, obj_type="location")


def _home_costs(verb: Token, subj_tok: Token, ctx: _Ctx) -> None:
    """'The flat is smaller but only 950 euro a month' -> has-rent: a home's monthly amount.

    A home priced in the thousands is bought, not rented: only amounts under 10,000 (or said
    per month) count, and nothing when the line speaks of buying, a price or a deposit."""
    if subj_tok.lemma_.lower() not in HOME_NOUNS or ctx.message.role != "user" or _is_irrealis(verb):
        return
    if any(c.lower_ in PAY_CUES for c in subj_tok.children):
        return  # "my take-home is 2,080 a month": pay
    if any(c.dep_ == "advcl" and _has_mark(c, CONDITIONAL_MARKS) for c in verb.children):
        return
    dets = {c.lower_ for c in subj_tok.children if c.dep_ in {"det", "poss"}}
    if dets - {"the", "my", "our", "this"}:
        return
    sent = verb.sent
    if any(t.lemma_.lower() in PURCHASE_WORDS for t in sent):
        return
    for tok in verb.subtree:
        value = _money_value(tok, ctx) or (_amount(tok) if tok.like_num else None)
        if not value:
            continue
        digits = re.sub(r"[^\d]", "", value.split(".")[0] if re.search(r"\.\d{2}$", value) else value)
        monthly = any(t.lower_ in {"month", "monthly", "pcm", "pm", "warm", "cold"} for t in sent)
        if digits and (monthly or int(digits) < 10000) and int(digits) >= 100:
            _emit(ctx, ctx.me, "has-rent", value, 0.5, obj_tok=None)
            return


def _condition(verb: Token, subject: str, past: bool, ctx: _Ctx) -> bool:
    """'I have asthma', "I've had type 1 diabetes since I was a kid", 'Joan has dementia' ->
    has-condition (a simple past 'had' is over: nothing); 'Hana beat breast cancer' -> recovered-from."""
    if verb.lemma_ in RECOVERY_VERBS:
        return _recovered(verb, subject, ctx)
    if verb.lower_ in {"type", "types"}:
        return _typed_by_verb(verb, subject, past, ctx)
    if verb.lemma_ not in {"have", "get"} or (past and verb.lemma_ == "have" and verb.tag_ == "VBD"):
        return False
    have_got = verb.lemma_ == "get" and _perfect(verb) and not past  # "I've got high blood pressure"
    if verb.lemma_ == "get" and not have_got and not any(c.lower_ in {"diagnosed"} for c in verb.children):
        return False
    found = False
    objects = [c for c in verb.children if c.dep_ == "dobj"]
    for dobj in [*objects, *(c for o in objects for c in _conjuncts(o))]:  # "... pressure and sleep apnea"
        if _names_condition(dobj):
            obj = _object_phrase(dobj, ctx, prefer_name=False)
            if obj and _typed(dobj) is not None:
                obj = f"type {obj}"  # the parser splits "type 1 diabetes" into two objects
            if obj:
                _emit(ctx, subject, "has-condition", obj, 0.55, obj_tok=None)
                found = True
    return found


def _names_condition(noun: Token) -> bool:
    """'asthma', 'celiac disease', 'high blood pressure', 'a slipped disc' (an article only before a
    two-word condition: "a disease" alone says nothing)."""
    mods = [c for c in noun.children if c.dep_ in {"amod", "compound"}]
    compound = any((noun.lemma_.lower(), c.lower_) in CONDITION_COMPOUNDS for c in mods)
    named_disease = (noun.lemma_.lower() in DISEASE_HEADS and bool(mods)) or compound
    if not (noun.lower_ in CONDITIONS or noun.lemma_.lower() in CONDITIONS or named_disease):
        return False
    dets = [c for c in noun.children if c.dep_ in {"det", "poss"}]
    return not dets or (compound and all(d.lower_ in {"a", "an"} for d in dets))


def _recovered(verb: Token, subject: str, ctx: _Ctx) -> bool:
    """'my wife Hana beat breast cancer', 'he survived a stroke', 'I've recovered from sepsis'."""
    if _is_irrealis(verb):
        return False
    objs = [c for c in verb.children if c.dep_ == "dobj"]
    for prep in (c for c in verb.children if c.dep_ == "prep" and c.lower_ == "from"):
        objs += [c for c in prep.children if c.dep_ == "pobj"]
    found = False
    for obj in objs:
        illness = _object_phrase(obj, ctx, prefer_name=False)
        if illness and (_names_condition(obj) or obj.lower_ in {"cancer", "stroke"}):
            _emit(ctx, subject, "recovered-from", illness, 0.55, obj_tok=None)
            found = True
    return found


def _typed_by_verb(verb: Token, subject: str, past: bool, ctx: _Ctx) -> bool:
    """'Diana has type 2 diabetes': the small model's verb "type" with "has" as its auxiliary."""
    dobj = next((c for c in verb.children if c.dep_ == "dobj"), None)
    have = [c for c in verb.children if c.dep_ == "aux" and c.lemma_ == "have"]
    illness = _typed(dobj) if dobj is not None else None
    if illness is None or not have or dobj is None or dobj.doc[dobj.i - 2] != verb:
        return False
    if past or any(a.tag_ == "VBD" for a in have) or _is_irrealis(verb):
        return True  # a misparse all the same: no "types" fact
    _emit(ctx, subject, "has-condition", illness, 0.55, obj_tok=None)
    return True


def _typed(illness: Token) -> str | None:
    """'type 2 diabetes' for "diabetes" after "type" and a number (the parse splits them), else None."""
    doc = illness.doc
    if illness.i < 2 or doc[illness.i - 2].lower_ != "type" or not doc[illness.i - 1].like_num:
        return None
    return f"type {doc[illness.i - 1].text} {illness.text.lower()}"


def _became(verb: Token, subject: str, ctx: _Ctx) -> bool:
    """'Sarah became my boss in May', 'Dave took over as my manager' -> the owner's relation to the
    subject, as 'Sarah is my boss' says it."""
    if _is_irrealis(verb):
        return False
    if verb.lemma_ == "become":
        nouns = [c for c in verb.children if c.dep_ == "attr"]
        for title in (n for n in nouns if not any(c.dep_ == "poss" for c in n.children)):
            _attr_fact(title, subject, "is", False, ctx)  # "I've just become team lead at Ocado": now is
    elif verb.lemma_ == "take" and any(c.dep_ == "prt" and c.lower_ == "over" for c in verb.children):
        nouns = [p for prep in _preps(verb, verb, {"as"}) for p in _pobjs(prep)]
    else:
        return False
    found = False
    for noun in nouns:
        poss = next((c for c in noun.children if c.dep_ == "poss"), None)
        owner = _owner(poss, ctx, noun) if poss is not None else None
        if owner and owner != subject and noun.pos_ == "NOUN":
            _emit(ctx, owner, _relation_predicate(noun), subject, 0.6, obj_tok=None, obj_type="person")
            found = True
    return found


def _home_with(verb: Token, subject: str, past: bool, ctx: _Ctx) -> None:
    """'I live with my boyfriend Marco in Bath', "I'm living with my parents in Swindon": the parse
    hangs the place on the people lived with; it is where the subject lives."""
    if verb.lemma_ != "live" or _is_irrealis(verb):
        return
    mates = [p for prep in _preps(verb, verb, {"with"}) for p in _pobjs(prep)]
    mates += [c for m in mates for c in m.children if c.dep_ == "appos"]  # "my boyfriend Marco in Bath"
    for mate in mates:
        for place in (p for prep in _preps(mate, mate, {"in"}) for p in _pobjs(prep)):
            ent = ctx.ents.get(place.i)
            name = _name_of(place, ctx)
            if name and (ent is None or ent.label_ in {"GPE", "LOC", "FAC"}):
                pred = "lived-in" if past else "lives-in"
                _emit(ctx, subject, pred, name, 0.55, obj_tok=place, obj_type="location")


def _proposed(verb: Token, subject: str, ctx: _Ctx) -> bool:
    """'Dan proposed!!' in the speaker's message: Dan is the speaker's partner (a toast or a plan
    proposed has an object; "proposed to Sarah" is someone else's)."""
    if verb.lemma_ != "propose" or subject == ctx.me or ctx.message.role != "user" or _is_irrealis(verb):
        return False
    to = [p for prep in _preps(verb, verb, {"to"}) for p in _pobjs(prep)]
    if any(c.dep_ in {"dobj", "ccomp", "xcomp"} for c in verb.children) or any(p.lower_ != "me" for p in to):
        return False
    _emit(ctx, ctx.me, "has-partner", subject, 0.55, obj_tok=None, obj_type="person")
    return True


def _engaged(verb: Token, subject: str, ctx: _Ctx) -> bool:
    """'I got engaged to Daniel', 'we got married to ...': a partner now, whatever the tense."""
    if verb.lemma_ not in {"get", "become"}:
        return False
    found = False
    for acomp in (c for c in verb.children if c.dep_ in {"acomp", "oprd", "xcomp"}):
        if acomp.lower_ not in {"engaged", "married"}:
            continue
        for pobj in (p for prep in _preps(acomp, verb, {"to"}) for p in _pobjs(prep)):
            name = _name_of(pobj, ctx, person=True)
            if name:
                pred = "has-partner" if acomp.lower_ == "engaged" else "is-married-to"
                _emit(ctx, subject, pred, name, 0.6, obj_tok=None, obj_type="person")
                found = True
    return found


def _passive_state(verb: Token, subject: str, past: bool, ctx: _Ctx) -> None:
    """'Ben is obsessed with dinosaurs' -> is-obsessed-with; 'got promoted to VP of X' -> is-a."""
    be = "was" if past else "is"
    if verb.lemma_ == "offer":
        return  # "I've been offered a job at X": an offer, not yet a job
    if verb.lemma_ == "promote":
        _promoted_infinitive(verb, subject, ctx)
    if verb.lemma_ == "retire":  # "I'm retired from the NHS": as "I retired from the NHS"
        for pobj in (p for prep in _preps(verb, verb, {"from"}) for p in _pobjs(prep)):
            name = _name_of(pobj, ctx)
            if name and _employer_named(pobj, name, ctx):
                org: EntityType = "organization"
                _emit(ctx, subject, "retired-from", name, 0.6, obj_tok=None, obj_type=org, ends=True)
        return
    for prep in (c for c in verb.children if c.dep_ == "prep" and c.lower_ in PASSIVE_PREPS):
        for pobj in (c for c in prep.children if c.dep_ == "pobj"):
            if verb.lemma_ == "promote" and prep.lower_ == "to":
                obj = _object_phrase(pobj, ctx, with_of=True)
                if obj:
                    _emit(ctx, subject, "has-role", obj, 0.55, obj_tok=None)
                continue
            obj = _name_of(pobj, ctx) or _object_phrase(pobj, ctx)
            if obj:
                _emit(ctx, subject, _kebab(f"{be} {verb.lower_} {prep.lower_}"), obj, 0.55, obj_tok=pobj)


def _promoted_infinitive(verb: Token, subject: str, ctx: _Ctx) -> None:
    """'promoted to team lead' parses 'lead' as a verb after infinitive 'to': read it as the title."""
    for xcomp in (c for c in verb.children if c.dep_ == "xcomp"):
        to = next((c for c in xcomp.children if c.dep_ == "aux" and c.lower_ == "to"), None)
        words = list(xcomp.doc[to.i + 1 : xcomp.right_edge.i + 1]) if to is not None else []
        while words and words[-1].is_punct:
            words.pop()
        if 0 < len(words) <= 4 and all(w.pos_ in {"NOUN", "PROPN", "ADJ", "VERB"} for w in words):
            _emit(ctx, subject, "has-role", " ".join(w.text for w in words), 0.55, obj_tok=None)


def _direct_objects(verb: Token, subject: str, pred: str, ctx: _Ctx) -> None:
    for dobj in (c for c in verb.children if c.dep_ == "dobj"):
        for tok in [dobj, *_conjuncts(dobj)]:
            obj = _object_phrase(tok, ctx, prefer_name=False)
            if obj:
                _emit(ctx, subject, pred, obj, 0.55, obj_tok=tok)


def _named_possessions(verb: Token, subject: str, ctx: _Ctx) -> None:
    """'I adopted a cat named Pixel' / 'I have a sister called Maria' -> has-cat Pixel."""
    if verb.lemma_ not in {"have", "adopt", "get", "own"}:
        return
    for dobj in _listed_objects(verb):
        named = [(dobj, _called_name(dobj, ctx))]
        for appos in (c for c in dobj.children if c.dep_ == "appos"):  # "two kids, Lily and Ben"
            # "a brother and two sisters, Ana and Jo": the names hang on "brother", but are the sisters'
            nearest = max((n for n in [dobj, *_conjuncts(dobj)] if n.pos_ == "NOUN" and n.i < appos.i),
                          key=lambda n: n.i, default=dobj)  # fmt: skip
            named += [(nearest, _name_of(t, ctx, person=True)) for t in [appos, *_conjuncts(appos)]]
        if dobj.lower_ in MULTIPLE_BIRTHS or (dobj.tag_ == "NNS" and _is_kin(dobj)):
            # "We have twins, Noah and Ella": the parser makes the names conjuncts of "twins"
            named += [(dobj, _name_of(t, ctx, person=True)) for t in _conjuncts(dobj) if t.pos_ == "PROPN"]
        for noun, name in named:
            if name:
                _emit(ctx, subject, _relation_predicate(noun), name, 0.6, obj_tok=None, obj_type="person")


def _sold_home(verb: Token, subject: str, past: bool, ctx: _Ctx) -> None:
    """'We sold the flat in Hackney': the home there is left (lived-in, an ending of the home)."""
    if verb.lemma_ != "sell" or not past or subject != ctx.me or _is_irrealis(verb):
        return
    for home in (c for c in verb.children if c.dep_ == "dobj" and c.lemma_.lower() in HOME_NOUNS):
        if any(c.dep_ == "poss" and c.lower_ not in FIRST_PERSON_POSS for c in home.children):
            continue  # "we sold my mum's house in Leeds": hers
        for pobj in (p for prep in _preps(home, verb, {"in"}) for p in _pobjs(prep)):
            name = _name_of(pobj, ctx)  # a home's "in" names a place, whatever the model's tag
            if name and not _is_date(pobj, ctx):
                _emit(ctx, subject, "lived-in", name, 0.55, obj_tok=None, obj_type="location", ends=True)


def _listed_objects(verb: Token) -> list[Token]:
    """The verb's objects and the common nouns listed with them: "a three-bed semi in Solihull, two
    kids - Ruby and Alfie - and a very anxious greyhound called Pepper" (kids an apposition of the
    semi, the greyhound a conjunct of the kids)."""
    found = [c for c in verb.children if c.dep_ == "dobj"]
    for noun in found:
        found += [c for c in noun.children if c.dep_ in {"conj", "appos"} and c.pos_ == "NOUN"]
    return found


def _family(verb: Token, prep: str, pred: str, past: bool) -> str:
    """The verb family's predicate for a verb + preposition (VERB_FAMILIES), else the plain one. A
    move in the present perfect ("we've moved to Leeds") is done: its past form."""
    family = VERB_FAMILIES.get((verb.lemma_.lower(), prep))
    done = past or (family is not None and family[0] == "moves-to" and _perfect(verb))
    chosen = family and (family[1] if done else family[0])
    if not chosen and prep == "from" and verb.lemma_ in MOVE_VERBS and _perfect(verb):
        return "moved-from"  # "I have moved from the Wirral": a home left
    left = verb.lemma_ in {"shift", "emigrate", "relocate"} and (past or _perfect(verb))
    if not chosen and prep == "from" and left:
        return "moved-from"  # "I have shifted from Chennai to Gurgaon", "I relocated from Johannesburg"
    return chosen or f"{pred}-{prep}"


def _perfect(verb: Token) -> bool:
    """'have moved', "we've moved": a present perfect (a past "had moved" is _is_past's)."""
    return verb.tag_ == "VBN" and any(c.dep_ == "aux" and c.lemma_ == "have" for c in verb.children)


def _prep_objects(verb: Token, subject: str, pred: str, ctx: _Ctx, past: bool = False) -> None:
    has_dobj = any(c.dep_ == "dobj" for c in verb.children)
    preps = [c for c in verb.children if c.dep_ == "prep"]
    if verb.lemma_ in MOVE_VERBS or verb.lemma_ in {"go", "come"}:
        preps += _particle_preps(verb)
    if verb.lemma_ in WORK_VERBS:  # "teaches 7th grade science at Lamar": the place hangs on the object
        preps += [
            c
            for d in verb.children
            if d.dep_ == "dobj"
            for c in d.children
            if c.dep_ == "prep" and c.lower_ == "at"
        ]
    for prep in preps:
        p = prep.lower_
        if p not in VERB_PREPS and not (p == "on" and verb.lemma_ == "work"):
            continue
        if has_dobj and p in {"to", "into", "from"}:
            continue  # "migrating our pipeline to Snowflake": the object moves, not the subject
        if p == "for" and verb.lemma_ not in FOR_VERBS:
            continue  # "flying to Tokyo for a conference": purpose, not a relation
        if p == "from" and verb.lemma_ == "come" and verb.tag_ == "VBG":
            continue  # "she's coming from the Royal Alex": a move, not where she is from
        for pobj in (c for c in prep.children if c.dep_ == "pobj"):
            for tok in [pobj, *_conjuncts(pobj)]:
                if p != "with" and _a_month(tok, ctx):
                    continue  # "moving to Bristol in may": when, not where
                if p == "in" and tok.lower_ == "order":
                    continue  # "in order to be closer to family": a purpose
                family = _family(verb, p, pred, past)
                if p in {"from", "to"} and verb.lemma_ in MOVE_VERBS and _job_move(preps, ctx):
                    family = "worked-at" if p == "from" else "works-at"  # "moved from Barclays to HSBC"
                if family in {"lives-in", "lived-in"} and _kind_beside_place(tok, preps, ctx):
                    continue  # "living in Ballina in the same house": the place, not "same house"
                ent = ctx.ents.get(tok.i)
                if verb.lemma_ == "work" and _works_for(tok, p, ent, ctx):
                    family = "worked-at" if past else "works-at"
                study_in = verb.lemma_ == "study" and p == "in"  # the name looked up only then
                if study_in and not _place_named(tok, _name_of(tok, ctx) or "", ctx):
                    family = "studied-at" if past else "studies-at"  # "studying in Bishop Cotton School"
                _prep_object(verb, subject, family, tok, ctx)


def _works_for(tok: Token, prep: str, ent: Span | None, ctx: _Ctx) -> bool:
    """'I work in Google' (a company, not a field), 'been working with Wipro for six years': an
    organisation by the model's tag; after "with" (or an untagged one after "in") also a name that is
    no person's first name and no place (the model tags "Wipro" a person), not "with Tom"."""
    name = _name_of(tok, ctx) or ""
    if name.lower() in WORK_FIELDS:
        return False  # "I work in Finance": a field, not a firm
    if ent is not None and ent.label_ == "ORG":
        return prep in {"in", "with"}
    # "I was working in Mindtree": after "in" only a name the model left untagged ("in Shoreditch"
    # is tagged a place, as a town the gazetteer lacks would be)
    after_in = prep == "in" and ent is None
    if not (prep == "with" or after_in) or tok.pos_ != "PROPN":
        return False
    if ent is not None and ent.label_ in {"GPE", "LOC", "NORP"}:
        return False
    words = name.lower().split()
    return bool(words) and words[0] not in first_names() and places.fold(name) not in places.places()


def _particle_preps(verb: Token) -> list[Token]:
    """'moved up to Ridgeway Secondary', 'went back to Leeds': the parser may hang the preposition on
    the particle, tagged an adverb (only before a name)."""
    ups = {"up", "back", "down"}
    particles = (c for c in verb.children if c.dep_ in {"advmod", "prt"} and c.lower_ in ups)
    preps = [c for part in particles for c in part.children if c.dep_ == "prep"]
    return [p for p in preps if any(o.pos_ == "PROPN" for o in _pobjs(p))]  # not "went back to work"


def _job_move(preps: list[Token], ctx: _Ctx) -> bool:
    """'I moved from Barclays to HSBC': a move from one organisation to another is a new job. Both
    ends named, both tagged organisations, and neither a place the gazetteer knows."""
    ends = {p.lower_: list(_pobjs(p)) for p in preps if p.lower_ in {"from", "to"}}
    if set(ends) != {"from", "to"}:
        return False
    return _organisations([o for group in ends.values() for o in group], ctx)


def _manages_me(verb: Token, dobjs: list[Token], subject: str, ctx: _Ctx) -> bool:
    """'Priya manages me', 'Dana supervises us' -> the speaker's manager; 'I work under Dave' -> Dave."""
    if verb.lemma_ not in {"manage", "supervise", "work"} or ctx.message.role != "user" or _is_irrealis(verb):
        return False  # (the lemma first: this runs for every clause)
    managed = any(d.lower_ in {"me", "us"} for d in dobjs) and not subject.startswith(PRONOUN)
    if verb.lemma_ in {"manage", "supervise"} and subject != ctx.me and managed:
        _emit(ctx, ctx.me, "has-manager", subject, 0.55, obj_tok=None, obj_type="person")
        return True
    if verb.lemma_ == "work" and subject == ctx.me and not _is_past(verb):
        bosses = [p for prep in _preps(verb, verb, {"under"}) for p in _pobjs(prep) if p.pos_ == "PROPN"]
        names = [n for n in (_name_of(b, ctx, person=True) for b in bosses) if n]
        for name in names:
            _emit(ctx, ctx.me, "has-manager", name, 0.55, obj_tok=None, obj_type="person")
        return bool(names)
    return False


def _boss_opening(noun: Token, ctx: _Ctx) -> None:
    """'New boss Fiona starts Monday', 'boss - Karen': a boss word opening chat without its "my",
    named beside it, is the speaker's boss (as "husband ryan" is the speaker's husband)."""
    after = noun.doc[noun.i + 1] if noun.i + 1 < len(noun.doc) else None
    if not _is_manager_noun(noun) or noun.left_edge.i != noun.sent.start or after is None or after.is_punct:
        return  # "new boss: grace obi" is a line's key and value (_fragments)
    if any(c.dep_ in {"det", "poss", "prep"} for c in noun.children):
        return  # "the boss", "manager of Arsenal, Mikel": nobody's or another's
    for appos in (c for c in noun.children if c.dep_ == "appos" and c.pos_ == "PROPN"):
        name = _name_of(appos, ctx, person=True)
        if name:
            _emit(ctx, ctx.me, "has-manager", name, 0.55, obj_tok=None, obj_type="person")


def _organisations(toks: list[Token], ctx: _Ctx) -> bool:
    """Every token tagged an organisation and none a place the gazetteer knows."""
    known = places.places()
    return all(
        (ent := ctx.ents.get(o.i)) is not None and ent.label_ == "ORG" and places.fold(o.text) not in known
        for o in toks
    )


def _left_for(verb: Token, dobjs: list[Token], subject: str, ctx: _Ctx) -> bool:
    """'Left Nationwide for Santander', 'left mcdonalds last week now at costa': the second
    organisation is the new job (both organisations: "left London for Paris" is a move)."""
    new = [p for prep in _preps(verb, verb, {"for"}) for p in _pobjs(prep)]
    new += [  # "now at X" hung on the leaving
        p
        for prep in _preps(verb, verb, {"at"})
        if prep.i > 0 and prep.doc[prep.i - 1].lower_ == "now"
        for p in _pobjs(prep)
    ]
    olds = [d for d in dobjs if d.pos_ == "PROPN"]
    if not new or not olds or not all(_firm_like(t, ctx) for t in olds) or _is_irrealis(verb):
        return False
    names = [n for n in (_name_of(t, ctx) for t in new if _firm_like(t, ctx, placed=False)) if n]
    for name in names:  # (placed=False: Santander is a city too)
        _emit(ctx, subject, "works-at", name, 0.55, obj_tok=None, obj_type="organization")
    for old in (n for n in (_name_of(t, ctx) for t in olds) if n and names):
        _emit(ctx, subject, "worked-at", old, 0.6, obj_tok=None, obj_type="organization", ends=True)
    return bool(names)


def _firm_like(tok: Token, ctx: _Ctx, placed: bool = True) -> bool:
    """A name that may be a firm: no person's name and (with `placed`) no place the gazetteer
    knows; without, only none the model tags a place (its labels on a shop's name are a coin toss)."""
    ent = ctx.ents.get(tok.i)
    label = ent.label_ if ent is not None else ""
    if tok.pos_ != "PROPN" or label in {"PERSON", "EVENT", *SKIP_ENT_LABELS} or tok.lower_ in first_names():
        return False
    if tok.lower_ in HOLIDAYS or tok.lower_ in MONTHS:
        return False
    return places.fold(tok.text) not in places.places() if placed else label != "GPE"


def _a_month(tok: Token, ctx: _Ctx) -> bool:
    """'in may', 'in June' the model left untagged or tagged a name: a month, alone."""
    ent = ctx.ents.get(tok.i)
    alone = not any(c.dep_ in {"compound", "nummod"} for c in tok.children)
    full_name = len(tok) > 3 or tok.lower_ == "may"  # not "jan", "mar": names and words too
    return (
        tok.lower_ in MONTHS
        and full_name
        and alone
        and (ent is None or ent.label_ in {"DATE", "PERSON", "ORG", "GPE"})
    )


def _prep_object(verb: Token, subject: str, pred: str, tok: Token, ctx: _Ctx) -> None:
    name = _name_of(tok, ctx)
    place = [c for c in tok.children if c.dep_ == "compound" and c.pos_ == "PROPN" and c.i < tok.i]
    if tok.lemma_.lower() in TIME_PARTS and place:  # "moving to Dalmarnock end of July"
        name = tok.doc[place[0].i : place[-1].i + 1].text
        _emit(ctx, subject, PREDICATE_ALIASES.get(pred, pred), name, 0.6, obj_tok=None, obj_type="location")
        return
    appos = next((c for c in tok.children if c.dep_ == "appos"), None)
    if name is None and appos is not None:
        name = _name_of(appos, ctx)
        if name:
            _possessive_relation(tok, name, ctx)
    if name is None and pred in {"lives-in", "lived-in"}:
        where = _home_place(tok, ctx)
        if where is not None:  # "I live in a shared house in Headingley": Headingley, not "shared house"
            tok, name = where
    obj = name or _object_phrase(tok, ctx)
    school = (name is not None and _is_school(name)) or tok.lemma_.lower() in SCHOOL_WORDS
    if obj and pred in {"goes-to", "went-to"} and school:
        pred = "attends" if pred == "goes-to" else "attended"  # "Mia goes to Oakwood Elementary"
    elif obj and pred in {"moves-to", "moved-to"} and name is not None and _is_school(name):
        pred = "attends"  # "Ella's moving up to Oakfield High": a school changed, not a home
    if obj:
        conf = 0.65 if name else 0.55
        _emit(ctx, subject, PREDICATE_ALIASES.get(pred, pred), obj, conf, obj_tok=tok)


def _kind_beside_place(tok: Token, preps: list[Token], ctx: _Ctx) -> bool:
    """A home said by its kind ("a flat", "the same house") beside a named place of the same verb."""
    kind = tok.pos_ == "NOUN" or tok.lower_ in HOME_NOUNS  # "a flat" is often tagged an adjective
    if not kind or _name_of(tok, ctx) or _home_place(tok, ctx):
        return False
    return any(_name_of(p, ctx) for prep in preps if prep.lower_ == "in" for p in _pobjs(prep))


def _home_place(home: Token, ctx: _Ctx) -> tuple[Token, str] | None:
    """The named place a home said by its kind is in ("a coloc in X", "a small town in Ohio")."""
    if home.pos_ != "NOUN":
        return None
    ins = [prep for prep in home.children if prep.dep_ == "prep" and prep.lower_ == "in"]
    for pobj in (p for prep in ins for p in _pobjs(prep)):
        name = _name_of(pobj, ctx)
        if name:
            return pobj, name
    return None


def _copular(verb: Token, subj_tok: Token | None, subjects: list[str], past: bool, ctx: _Ctx) -> None:
    """'X is a designer', 'My sister is Maria', 'Maria is my sister', 'X is from Y', 'X is married to Y'."""
    be = "was" if past else "is"
    if subj_tok is not None and not subjects:
        _possessive_copular(verb, subj_tok, ctx)
        return
    for subject in subjects:
        for child in [*verb.children, *_listed_attrs(verb)]:
            if child.dep_ == "attr" and (amount := _on_amount(child, past, ctx)):
                _emit(ctx, subject, "has-salary", amount, 0.55, obj_tok=None)
            elif child.dep_ in {"attr", "conj"}:
                if not _condition_state(child, subject, past, ctx):
                    _attr_fact(child, subject, be, past, ctx)
                if child.pos_ == "PROPN" and subject == ctx.me and not past:
                    _introduced(child, ctx)
            elif child.dep_ == "acomp" and child.pos_ == "VERB" and child.tag_ in {"VB", "VBP"}:
                for clause in [child, *_conjuncts(child)]:  # "I'm 27, live in Tulsa, and make $54,000"
                    _clause_facts(clause, [subject], past, ctx)
            elif child.dep_ == "acomp":
                if child.lower_ in DIET_ADJECTIVES and not past:
                    _emit(ctx, subject, "is-a", child.lower_, 0.6, obj_tok=None)
                if _condition_state(child, subject, past, ctx):
                    continue
                for prep in (c for c in child.children if c.dep_ == "prep"):
                    for pobj in (c for c in prep.children if c.dep_ == "pobj"):
                        obj = _name_of(pobj, ctx) or _object_phrase(pobj, ctx)
                        if obj:
                            pred = _kebab(f"{be} {child.lemma_} {prep.lower_}")
                            _emit(ctx, subject, pred, obj, 0.6, obj_tok=pobj)
            elif child.dep_ == "prep" and child.lower_ in {"from", "in", "at"}:
                _be_prep(child, subject, be, ctx)
            elif child.dep_ == "prep" and child.lower_ == "with" and not past:
                _been_with(child, subject, ctx)
            elif child.dep_ == "prep" and child.lower_ == "into" and not past and not _is_irrealis(verb):
                for pobj in _pobjs(child):  # "I'm really into pottery these days" -> likes
                    obj = _name_of(pobj, ctx) or _object_phrase(pobj, ctx)
                    if obj:
                        _emit(ctx, subject, "likes", obj, 0.5, obj_tok=pobj)
            elif child.dep_ == "prep" and child.lower_ == "on" and not past:  # "I'm on £48,000"
                for pobj in _pobjs(child):
                    hourly = any(c.dep_ == "npadvmod" and c.lemma_ == "hour" for c in pobj.children)
                    # "on 12.50 an hour": an hourly amount is pay without its sign
                    money = _money_value(pobj, ctx) or (_amount(pobj) if hourly else None)
                    if money:
                        _emit(ctx, subject, "has-salary", money, 0.55, obj_tok=None)


def _introduced(name: Token, ctx: _Ctx) -> None:
    """'I'm Sofía, 34, a vet living in Valencia': what a speaker's self-introduction sets beside the
    name is theirs (an age, a role and the clause that role carries)."""
    for appos in (c for c in name.children if c.dep_ == "appos"):
        age = _number(appos) if appos.pos_ == "NUM" else None
        if age is not None and 10 <= age <= 110:
            _emit(ctx, ctx.me, "is-aged", str(age), 0.55, obj_tok=None, subj_type="person")
        elif appos.pos_ == "NOUN" and any(d.lower_ in {"a", "an"} for d in appos.children):
            _attr_fact(appos, ctx.me, "is", False, ctx)
            for acl in (c for c in appos.children if c.dep_ == "acl" and c.tag_ == "VBG"):
                _clause_facts(acl, [ctx.me], False, ctx)  # "... a vet living in Valencia"


def _listed_attrs(verb: Token) -> list[Token]:
    """'I'm 34 and a nurse at St James's', 'Aaliyah is 15 and a sophomore at X': a noun with its
    article joined to the attribute is another one (a bare name is not: "my sisters are Ana and Jo")."""
    return [
        c
        for a in verb.children
        if a.dep_ == "attr"
        for c in _conjuncts(a)
        if c.pos_ == "NOUN" and any(d.dep_ == "det" and d.lower_ in {"a", "an"} for d in c.children)
    ]


def _on_amount(attr: Token, past: bool, ctx: _Ctx) -> str | None:
    """ "I'm on £38,000 a year": the model hangs "on" on the amount (a quantifier), not on "am"."""
    if past or not any(c.dep_ == "quantmod" and c.lower_ == "on" for c in attr.children):
        return None
    return _money_value(attr, ctx)


def _condition_state(tok: Token, subject: str, past: bool, ctx: _Ctx) -> bool:
    """'I'm lactose intolerant', "he's diabetic", "I'm a type 2 diabetic" -> has-condition, worded as
    said (a simple past 'was' is over: nothing)."""
    if past or tok.lower_ not in CONDITION_ADJECTIVES:
        return False
    start = tok.i
    while start > tok.left_edge.i and tok.doc[start - 1].dep_ not in {"det", "advmod", "punct", "cc"}:
        start -= 1  # "lactose", "type 2", "gluten": the words that say which
    _emit(ctx, subject, "has-condition", tok.doc[start : tok.i + 1].text.lower(), 0.55, obj_tok=None)
    return True


def _be_prep(prep: Token, subject: str, be: str, ctx: _Ctx) -> None:
    """'is from Porto' always; 'is in/at X' only for named places and organisations."""
    for pobj in (c for c in prep.children if c.dep_ == "pobj"):
        if _at_firm_called(prep, pobj, subject, be, ctx):
            continue
        pobj = _org_owner(pobj, ctx)
        obj = _name_of(pobj, ctx)
        if obj is None and prep.lower_ == "from":
            obj = _object_phrase(pobj, ctx)
        if obj and _stayed(prep, pobj):
            be = "is"  # "Been at Boots for six years": still there
        if obj and _lived_in(prep, pobj, be, ctx):
            _emit(ctx, subject, "lives-in", obj, 0.6, obj_tok=pobj)  # "we've been in Didsbury for five years"
        elif obj and _at_organisation(prep, pobj, ctx):
            school = any(w in SCHOOL_WORDS for w in obj.lower().split())
            now, before = ("attends", "attended") if school else ("works-at", "worked-at")
            pred = now if be == "is" else before
            _emit(ctx, subject, pred, obj, 0.55, obj_tok=pobj, obj_type="organization")
        elif obj and not (prep.lower_ == "at" and _a_visit(prep)):
            _emit(ctx, subject, f"{be}-{prep.lower_}", obj, 0.6, obj_tok=pobj)


def _rent_in(sent: Span, ctx: _Ctx) -> None:
    """ "Rent's gone up to $580 a week in Bondi", 'the mortgage in Auckland eats the lot': the
    speaker's rent or mortgage is paid where they live (not 'rents in London are crazy': plural,
    anyone's; not a question, a plan or the past); 'we pay £1,100 rent in Stockport'."""
    for cost in (t for t in sent if t.lower_ in {"rent", "mortgage"} and _rent_said(t, ctx)):
        verb = cost.head
        owners = [c.lower_ for c in cost.children if c.dep_ in {"poss", "det"}]
        if any(o not in {"my", "our", "the"} for o in owners) or _is_irrealis(verb) or _is_past(verb):
            continue
        if _used_to(verb):
            continue  # "we used to pay £700 rent in Hull"
        if any(t.tag_ in {"JJR", "RBR"} for t in verb.subtree):
            continue  # "rent is cheaper up in Hilliard": a comparison, not where one pays it
        if not owners and not any(t.like_num or t.ent_type_ == "MONEY" for t in verb.subtree):
            continue  # "Rent's gone up to $580 a week in Bondi": a bare "rent" needs its amount
        for pobj in (p for h in (cost, verb) for prep in _preps(h, h, {"in"}) for p in _pobjs(prep)):
            ent = ctx.ents.get(pobj.i)
            name = _name_of(pobj, ctx)
            if name and ent is not None and ent.label_ in {"GPE", "LOC"}:
                _emit(ctx, ctx.me, "lives-in", name, 0.5, obj_tok=None, obj_type="location")


def _rent_said(cost: Token, ctx: _Ctx) -> bool:
    """'Rent is ...' (the subject), or 'we pay £1,100 rent' (what the speaker pays)."""
    paid = cost.dep_ == "dobj" and cost.head.lemma_ == "pay" and _by_me(cost.head, ctx)
    return cost.dep_ == "nsubj" or paid


def _since_moving(sent: Span, ctx: _Ctx) -> None:
    """ "I'm so lonely since moving to Phoenix", 'after moving to Leeds we ...' -> moved-to: the move
    the speaker's clause dates itself from happened."""
    for move in (t for t in sent if t.dep_ == "pcomp" and t.tag_ == "VBG" and t.lemma_ in MOVE_VERBS):
        prep = move.head
        if prep.lower_ not in {"since", "after"} or not _by_me(prep.head, ctx) or _is_irrealis(prep.head):
            continue
        for pobj in (p for to in _preps(move, move, {"to"}) for p in _pobjs(to)):
            name = _name_of(pobj, ctx)
            ent = ctx.ents.get(pobj.i)
            if name and (ent is None or ent.label_ in {"GPE", "LOC"}):
                _emit(ctx, ctx.me, "moved-to", name, 0.55, obj_tok=None, obj_type="location")


def _the_move(sent: Span, ctx: _Ctx, own_only: bool = False) -> None:
    """'a packing list for the move to Edinburgh on the 20th', 'terrified about our move to Toronto
    next month' -> moves-to (after "since"/"after": moved-to). "The move" in a user's turn is the
    speaker's when it is theirs ("our", "my") or dated (a plan without a date stays a plan). In a
    question (`own_only`) only "my"/"our" move: the question asks about a move already planned."""
    for move in (t for t in sent if t.lemma_.lower() == "move" and t.pos_ == "NOUN"):
        dets = {c.lower_ for c in move.children if c.dep_ in {"det", "poss"}}
        dated = any(ctx.ents.get(t.i) is not None and ctx.ents[t.i].label_ == "DATE" for t in move.subtree)
        done = move.dep_ == "pobj" and move.head.lower_ in {"since", "after"}
        the_dated = "the" in dets and (dated or done) and not own_only
        # in a question the modal is the asking's ("Can you help me plan my move to Leeds?")
        if not (dets & {"our", "my"} or the_dated) or (_is_irrealis(move.head) and not own_only):
            continue
        for pobj in (p for to in _preps(move, move, {"to"}) for p in _pobjs(to)):
            home = _home_place(pobj, ctx) if pobj.lemma_.lower() in HOME_NOUNS else None  # "my in-laws' place
            tok, name = home if home is not None else (pobj, _name_of(pobj, ctx))  # in Reading"
            ent = ctx.ents.get(tok.i)
            known = name is not None and places.fold(name) in places.places()  # "Bristol", tagged ORG
            if name and (ent is None or ent.label_ in {"GPE", "LOC"} or known):
                pred = "moved-to" if done else "moves-to"
                _emit(ctx, ctx.me, pred, name, 0.55, obj_tok=None, obj_type="location")


def _moved_here(sent: Span, ctx: _Ctx) -> None:
    """'What's fun in Lyon? We only moved here in March' -> moved-to Lyon: "here" is the one place
    the message names, in another sentence (two or more places, or one in the same sentence: nothing)."""
    for verb in (t for t in sent if t.lemma_ in MOVE_VERBS | {"live"} and t.pos_ == "VERB"):
        here = any(c.dep_ == "advmod" and c.lower_ == "here" for c in verb.children)
        if not here or not _by_me(verb, ctx) or _is_irrealis(verb):
            continue
        named = {_strip_det(e) for e in ctx.ents.values() if e.label_ == "GPE"} | _big_places(sent.doc)
        if len(named) != 1 or any(n in sent.text for n in named):
            continue  # "born and raised in Gdansk, moved here at 19": the clause's own place is another
        place = named.pop()
        done = _is_past(verb) or _perfect(verb)
        pred = "lives-in" if verb.lemma_ == "live" else "moved-to" if done else "moves-to"
        _emit(ctx, ctx.me, pred, place, 0.55, obj_tok=None, obj_type="location")


def _big_places(doc: Doc) -> set[str]:
    """Capitalised words of a message the gazetteer knows as big places (the model calls "Lyon" a
    person)."""
    known = places.places()
    found = {t.text for t in doc if t.pos_ == "PROPN" and t.is_title}
    return {w for w in found if known.get(places.fold(w), 0) >= COMMON_PLACE_POPULATION}


def _firm_called_job(sent: Span, ctx: _Ctx) -> None:
    """'I'm a receptionist at a dental practice called Bright Smiles', 'I do admin for a law firm
    called Harper Lowe' -> works-at: a firm named where the speaker's role or work is (the model
    calls such a name a person). A copula's own 'at a company called X' is _at_firm_called's, and
    'I work for a startup called X' the verb's own."""
    for firm in (t for t in sent if t.lemma_.lower() in FIRM_NOUNS and t.dep_ == "pobj"):
        prep, name = firm.head, _called_name(firm, ctx)
        if name is None or prep.lower_ not in {"at", "for"}:
            continue
        head = prep.head
        role = head.dep_ == "attr" and _is_be(head.head)  # "I'm a receptionist at ..."
        verb = head.head if role else head
        if not (role or verb.lemma_ == "do") or not _by_me(verb, ctx) or _is_irrealis(verb):
            continue
        if any(c.dep_ in {"nsubj", "nsubjpass"} for c in verb.children):  # a subject, and it is me
            past = verb.tag_ == "VBD"
            pred = "worked-at" if past else "works-at"
            _emit(ctx, ctx.me, pred, name, 0.55, obj_tok=None, obj_type="organization")


def _at_firm_called(prep: Token, pobj: Token, subject: str, be: str, ctx: _Ctx) -> bool:
    """ "I'm in sales, at a software company called Brightwave" -> works-at Brightwave."""
    if prep.lower_ != "at" or pobj.lemma_.lower() not in FIRM_NOUNS:
        return False
    name = _called_name(pobj, ctx)
    if name:
        pred = "works-at" if be == "is" else "worked-at"
        _emit(ctx, subject, pred, name, 0.55, obj_tok=None, obj_type="organization")
    return bool(name)


def _org_owner(pobj: Token, ctx: _Ctx) -> Token:
    """ "at The Ottawa Hospital's General Campus": the organisation that owns the site the model left
    unnamed is where one is; any other object stays as it is."""
    poss = next((c for c in pobj.children if c.dep_ == "poss"), None)
    if poss is None or pobj.i in ctx.ents:
        return pobj
    ent = ctx.ents.get(poss.i)
    return poss if ent is not None and ent.label_ == "ORG" else pobj


def _at_organisation(prep: Token, pobj: Token, ctx: _Ctx) -> bool:
    """'Tom is at Deloitte now', "I've been at Google for five years", 'she's at Riverside Primary':
    a person at a named organisation works or studies there, unless the clause says it is a visit
    ('at Tesco right now', 'at the Hilton tonight')."""
    ent = ctx.ents.get(pobj.i)
    if prep.lower_ == "at" and ent is None and pobj.pos_ == "PROPN" and _stayed(prep, pobj):
        # "She's been at Boots for six years": an untagged name where one has been for years
        return not _visit_words(prep)
    if prep.lower_ != "at" or ent is None:
        return False
    # "I've been at Nubank for 4 years": years at a name is a job, however the model typed the name
    if ent.label_ != "ORG" and not (
        ent.label_ in {"GPE", "PERSON", "NORP", "PRODUCT"} and _stayed(prep, pobj)
    ):
        return False
    return not _visit_words(prep)


def _visit_words(prep: Token) -> bool:
    """The clause says when one is there: 'at Tesco right now', 'at the Hilton tonight'."""
    return any(t.lower_ in VISIT_WORDS for t in prep.head.subtree)


def _a_visit(prep: Token) -> bool:
    """'I'm at the Hilton for a conference all week', 'at Tesco right now': a stay, not a place of
    one's own (the clause names a time of visit or an event one is there for)."""
    events = {"conference", "meeting", "wedding", "party", "course", "interview", "appointment", "gig"}
    return _visit_words(prep) or any(
        t.lemma_.lower() in events and t.head.lower_ == "for" for t in prep.head.subtree
    )


def _lived_in(prep: Token, pobj: Token, be: str, ctx: _Ctx) -> bool:
    """Present perfect 'have been in <place> for N years / since X': where one lives."""
    name = _name_of(pobj, ctx)  # a place by the model's tag or the gazetteer ("Cardiff" is tagged anything)
    if be != "is" or prep.lower_ != "in" or name is None or not _place_named(pobj, name, ctx):
        return False
    return _stayed(prep, pobj)


def _been_with(prep: Token, subject: str, ctx: _Ctx) -> None:
    """'I've been with Leah for two years' -> has-partner; 'been with Tesco since 2019' -> works-at:
    a present perfect of duration with a person is a couple, with a firm a job."""
    verb = prep.head
    spans = [p for q in _preps(verb, verb, {"for"}) for p in _pobjs(q)]
    long = any(p.lemma_.lower() in {"year", "month", "decade", "age"} for p in spans) or bool(
        _preps(verb, verb, {"since"})
    )  # not "with Tom for the whole afternoon"
    for pobj in _pobjs(prep):
        if not long or not _stayed(prep, pobj) or _is_irrealis(verb):
            continue
        name = _name_of(pobj, ctx, person=True)
        ent = ctx.ents.get(pobj.i)
        tagged = ent is not None and ent.label_ == "PERSON"
        person = pobj.lower_ in first_names()
        if tagged and not person:
            continue  # "been with Arup for five years": the model tags firms a person too; no guess
        if name and person and subject == ctx.me:
            _emit(ctx, subject, "has-partner", name, 0.55, obj_tok=None, obj_type="person")
        elif name and _firm_like(pobj, ctx) and not any(c.lower_ == "we" for c in verb.children):
            _emit(ctx, subject, "works-at", name, 0.55, obj_tok=None, obj_type="organization")  # not a
            # household's bank: "we've been with Nationwide since 2015"


def _stayed(prep: Token, pobj: Token) -> bool:
    """'have been <prep> X for N years / since ...': a present perfect of duration (chat drops the
    "I've": "Been at Boots for six years")."""
    verb = prep.head
    span = [c.lower_ for c in verb.children if c.dep_ == "prep"] + [c.lower_ for c in pobj.children]
    if verb.lower_ == "been" and _perfect_or_dropped(verb) and bool({"for", "since"} & set(span)):
        return True
    return _been_there(verb)


def _been_there(verb: Token) -> bool:
    """'im at korvus, been there since 2022', 'I drive for Buckeye, been there going on 6 years': a
    clause beside this one says how long the speaker has been there."""
    beside = [c for c in verb.children if c.dep_ == "conj"]
    if verb.dep_ in {"ccomp", "conj"}:
        beside.append(verb.head)
    for other in beside:
        words = {t.lower_ for t in other.subtree}
        if other.lower_ == "been" and "there" in words and _long_stay(other):
            return True
    return False


def _long_stay(verb: Token) -> bool:
    """'since 2022', 'since March', 'for 3 years', 'going on 6 years': a stay of months or years (a
    job), not 'since 6am' or 'since Friday' (a visit)."""
    words = [t.lower_ for t in verb.subtree]
    if {"years", "yrs", "year", "months", "month"} & set(words):
        return True
    after = [words[i + 1] for i, w in enumerate(words[:-1]) if w == "since"]
    return any(w in MONTHS or (w.isdigit() and len(w) == 4) for w in after)


def _perfect_or_dropped(verb: Token) -> bool:
    """A present perfect, said whole or with its "I've" dropped at the start of a sentence."""
    if _perfect(verb):
        return True
    bare = not any(c.dep_ in {"aux", "auxpass", "nsubj", "nsubjpass"} for c in verb.children)
    return bare and verb.i == verb.sent.start


def _attr_fact(attr: Token, subject: str, be: str, past: bool, ctx: _Ctx) -> None:
    if attr.like_num:
        return  # "Caleb is 12 and Maddie's 8": ages (_age_facts, extract/kids.py), no relation "has-8"
    if any(c.dep_ == "poss" for c in attr.children):
        owner = _owner(next(c for c in attr.children if c.dep_ == "poss"), ctx, attr)
        if owner and owner != subject:  # "Jordan is my best friend"
            _emit(ctx, owner, _relation_predicate(attr), subject, 0.6, obj_tok=None, obj_type="person")
        return
    lead = _lead_role(attr)
    if lead is not None:  # "He's a team lead now": the parse splits the title
        if not past:
            _emit(ctx, subject, "has-role", lead, 0.6, obj_tok=None)
        _org_of_role(attr, subject, past, ctx)
        return
    if attr.lemma_ == "fan":  # "I'm a huge fan of X" -> likes X
        inner = _of_object(attr)
        obj = (_name_of(inner, ctx) or _object_phrase(inner, ctx)) if inner is not None else None
        if obj and not past:
            _emit(ctx, subject, "likes", obj, 0.55, obj_tok=inner)
        return
    has_det = any(c.dep_ == "det" for c in attr.children)
    now = any(c.dep_ == "advmod" and c.lower_ == "now" for c in attr.head.children) or any(
        c.dep_ == "amod" and c.lower_ == "new" for c in attr.children
    )
    if (
        not past
        and attr.pos_ in {"NOUN", "PROPN"}
        and (now or not has_det)
        and (_is_title(attr) or _is_job(attr))
    ):
        obj = _object_phrase(attr, ctx, with_of=True, prefer_name=False)
        if obj:  # "I'm now Head of Design", "I'm now a team lead": the current job title
            _emit(ctx, subject, "has-role", _drop_new(obj), 0.6, obj_tok=None)
        _org_of_role(attr, subject, past, ctx)
        return
    if attr.pos_ not in {"NOUN", "PROPN"} or (attr.pos_ == "PROPN" and not has_det):
        return  # "X is Y" identity, numbers, pronouns: skip
    if any(c.dep_ == "amod" and (c.lower_ in EVALUATIVE or _intensified(c)) for c in attr.children):
        return  # "Lisbon is a great city", "Jonas is a very calm manager": opinions, not facts
    det = next((c.lower_ for c in attr.children if c.dep_ == "det"), None)
    has_of = _of_object(attr) is not None
    if det in {"the"} and not has_of and not _at_org(attr, ctx):
        return
    if det not in {None, "a", "an", "the"}:
        return
    obj = _object_phrase(attr, ctx, with_of=True)
    if obj and not past and _is_job(attr):  # "Sara is a nurse": her job now, one at a time
        _emit(ctx, subject, "has-role", _drop_new(obj), 0.6, obj_tok=None)
    elif obj:
        _emit(ctx, subject, f"{be}-a", _drop_new(obj), 0.6, obj_tok=None)
    _org_of_role(attr, subject, past, ctx)


def _lead_role(attr: Token) -> str | None:
    """'a team lead', 'a shift leader' that the small model parses as a noun and a verb ('team' the
    attribute, 'lead' a clause) or as a subject and its noun ('team' the subject of 'lead')."""
    doc = attr.doc
    if attr.lower_ in LEAD_WORDS and attr.i > 0:
        before = doc[attr.i - 1]
        split = before.pos_ == "NOUN" and before.dep_ in {"nsubj", "npadvmod", "dobj"}
        return f"{before.lower_} {attr.lower_}" if split else None
    after = doc[attr.i + 1] if attr.i + 1 < len(doc) else None
    if attr.pos_ == "NOUN" and after is not None and after.lower_ in LEAD_WORDS and after.pos_ == "VERB":
        return f"{attr.lower_} {after.lower_}"
    return None


def _org_of_role(attr: Token, subject: str, past: bool, ctx: _Ctx) -> None:
    """'a designer at Figma' -> works-at Figma; 'a PhD student at ETH' -> studies-at ETH."""
    org = _at_org(attr, ctx)
    if org is not None:
        verb = "studies-at" if attr.lemma_.lower() in STUDENT_NOUNS else "works-at"
        if past:
            verb = "studied-at" if verb == "studies-at" else "worked-at"
        _emit(ctx, subject, verb, org, 0.5, obj_tok=None, obj_type="organization")


def _intensified(adj: Token) -> bool:
    return any(c.dep_ == "advmod" for c in adj.children)


def _at_org(attr: Token, ctx: _Ctx) -> str | None:
    """'a designer at Figma' -> Figma (a role at a named organisation implies works-at)."""
    inner = _of_object(attr)  # "head of sales at Umbrella": the parser hangs "at" on "sales"
    for prep in [*attr.children, *(inner.children if inner is not None else [])]:
        # "a civil engineer with Queensland Rail", "a designer for Acme": a job's employer too
        job = prep.lower_ in {"with", "for"} and (_is_job(attr) or _is_title(attr))
        if prep.dep_ == "prep" and (prep.lower_ == "at" or job):
            pobj = next((c for c in prep.children if c.dep_ == "pobj"), None)
            if pobj is not None and pobj.pos_ == "PROPN":
                return _name_of(pobj, ctx)
            if pobj is not None and pobj.pos_ == "NOUN":
                return _org_behind(pobj, ctx)
    return None


# Sites of an organisation: "a line manager at Amazon's fulfilment centre", "at Stripe's Dublin office"
_SITES = frozenset(
    {"office", "offices", "centre", "center", "branch", "store", "shop", "site", "plant", "factory",
     "warehouse", "depot", "hq", "headquarters", "campus", "studio", "lab"}
)  # fmt: skip


def _org_behind(noun: Token, ctx: _Ctx) -> str | None:
    """The organisation that owns a site said as a common noun: a named owner of a site word
    ("Amazon's fulfilment centre", "Stripe's Dublin office"), or one the model tags an
    organisation (_org_owner)."""
    owner = _org_owner(noun, ctx)
    if owner is noun and noun.lemma_.lower() in _SITES:
        owner = next((c for c in noun.children if c.dep_ == "poss" and c.pos_ == "PROPN"), noun)
    if owner is noun and noun.lemma_.lower() in FIRM_NOUNS:
        return _called_name(noun, ctx) or _called_after(noun, ctx)
    return _name_of(owner, ctx) if owner is not noun else None


def _called_after(firm: Token, ctx: _Ctx) -> str | None:
    """'an assistant at a small firm in Bolton called Heywood & Co': the parse hung "called" on the
    role, past the firm; the first such name after the firm is its name."""
    for acl in firm.doc[firm.i + 1 : firm.i + 6]:
        if acl.dep_ == "acl" and acl.lemma_ in {"call", "name"} and acl.head in firm.ancestors:
            oprd = next((c for c in acl.children if c.dep_ in {"oprd", "attr", "dobj"}), None)
            return _name_of(oprd, ctx) if oprd is not None else None
    return None


def _drop_new(text: str) -> str:
    """A title without "new"/"current"/"former" or an age before it ("52-year-old truck driver")."""
    return re.sub(r"^(?:new|current|former|\d{1,3}[- ]years?[- ]old)\s+", "", text, flags=re.IGNORECASE)


def _job_is_at(verb: Token, subj_tok: Token, ctx: _Ctx) -> None:
    """'My new job is at Acme' -> the owner works-at Acme."""
    poss = next((c for c in subj_tok.children if c.dep_ == "poss"), None)
    if poss is None or subj_tok.lemma_.lower() not in {
        "job",
        "work",
        "office",
        "workplace",
        "position",
        "role",
    }:
        return
    owner = _owner(poss, ctx, subj_tok)
    mods = {c.lower_ for c in subj_tok.children if c.dep_ == "amod"}
    past = _is_past(verb)  # "My last job was at Aviva": the job that ended there
    if past and not mods & PAST_JOB_MODS:
        return
    for pobj in (p for prep in _preps(verb, verb, {"at", "with"}) for p in _pobjs(prep)):
        name = _name_of(pobj, ctx)
        if owner and name:
            _emit(ctx, owner, _workplace_pred(name, past), name, 0.55, obj_tok=None, obj_type="organization")


def _home_in(verb: Token, subj_tok: Token, poss: Token | None, ctx: _Ctx) -> bool:
    """'our new place is in Headingley', 'my flat is in Leith' -> the speaker lives-in there (an old or
    a past home, or a hypothetical one, says nothing of now)."""
    if poss is None or poss.lower_ not in {"my", "our"} or subj_tok.lemma_.lower() not in HOME_NOUNS:
        return False
    if verb.tag_ == "VBD" or _is_irrealis(verb) or _past_home(subj_tok):
        return False
    found = False
    for prep in (c for c in verb.children if c.dep_ == "prep" and c.lower_ == "in"):
        for pobj in _pobjs(prep):
            ent = ctx.ents.get(pobj.i)
            name = _name_of(pobj, ctx) if ent is None or ent.label_ in {"GPE", "LOC", "FAC"} else None
            if name and pobj.pos_ == "PROPN":
                _emit(ctx, ctx.me, "lives-in", name, 0.55, obj_tok=pobj, obj_type="location")
                found = True
    return found


def _home_is(verb: Token, subj_tok: Token, poss: Token | None, attr: Token, ctx: _Ctx) -> bool:
    """'Home is Cardiff these days', 'my home is Leeds now' -> the speaker lives-in the named place."""
    mine = poss is None or poss.lower_ in {"my", "our"}
    if subj_tok.lower_ != "home" or not mine or ctx.message.role != "user":
        return False
    if verb.tag_ == "VBD" or _is_irrealis(verb) or any(c.dep_ in {"det", "amod"} for c in subj_tok.children):
        return False  # "home was Leeds", "my old home is ...", "the home is ...": not where one lives now
    ent = ctx.ents.get(attr.i)
    name = _name_of(attr, ctx) if ent is None or ent.label_ in {"GPE", "LOC"} else None
    if name and (ent is not None or places.fold(name) in places.places()):  # untagged: a known town
        _emit(ctx, ctx.me, "lives-in", name, 0.55, obj_tok=attr, obj_type="location")
    return bool(name)


def _possessive_copular(verb: Token, subj_tok: Token, ctx: _Ctx) -> None:
    """'My sister is Maria', "Alex's manager is Sam", 'My email is x@y.z' -> owner has-<noun> value."""
    poss = next((c for c in subj_tok.children if c.dep_ == "poss"), None)
    attr = next((c for c in verb.children if c.dep_ == "attr"), None)
    if _home_in(verb, subj_tok, poss, ctx):
        return
    if subj_tok.lower_ in PAY_WORDS and any(
        c.dep_ == "advcl" and _has_mark(c, CONDITIONAL_MARKS) for c in verb.children
    ):
        return  # "the base is $140,000 if I negotiate" (unlike "my email is X if you need it")
    if attr is None and _is_manager_noun(subj_tok):  # "manager will be sandeep": a name tagged adjective
        attr = next((c for c in verb.children if c.dep_ == "acomp" and c.i == verb.i + 1), None)
    if attr is None and subj_tok.lemma_ == "name":  # "My cat's name is Simba": Simba an adjective
        attr = next((c for c in verb.children if c.dep_ == "acomp" and _named(c, ctx)), None)
    if attr is None or (subj_tok.pos_ != "NOUN" and subj_tok.lower_ not in VALUE_NOUNS):
        return
    named = next((c for c in subj_tok.children if c.dep_ == "compound" and _kin_or_pet_key(c)), None)
    if subj_tok.lemma_ == "name" and named is not None and poss is not None:
        subj_tok = named  # "My cat name is Simba": the cat's name, "'s" left out
    if poss is not None and subj_tok.lemma_ == "name" and (poss.pos_ == "NOUN" or _is_kin_word(poss)):
        subj_tok, poss = poss, next((c for c in poss.children if c.dep_ == "poss"), None)
        if poss is None and _is_kin(subj_tok) and ctx.message.role == "user":
            owner_me: str | None = ctx.me  # "Hubby's name is Dev": chat drops the "my"
            value = _name_of(attr, ctx, person=True)
            if value and value != owner_me:
                _emit(
                    ctx, ctx.me, _relation_predicate(subj_tok), value, 0.55, obj_tok=None, obj_type="person"
                )
            return
        if poss is None:  # "My husband's name is Tom": the relation is the husband
            return
    if _home_is(verb, subj_tok, poss, attr, ctx):
        return
    if poss is None:  # chat drops the "my": "Salary is £61,000", "rent is only 980 euro", "The base is $X"
        dets = [c.lower_ for c in subj_tok.children if c.dep_ in {"det", "poss", "prep"}]
        if subj_tok.lower_ in {"rent", "mortgage"}:  # "Rent on the new place is 1350"
            dets = [d for d in dets if d not in {"on", "for"}]
        bare = not dets or (dets == ["the"] and subj_tok.lower_ in PAY_WORDS)
        known = subj_tok.lower_ in PAY_WORDS or _is_manager_noun(subj_tok)  # "new ward manager is X"
        if not bare or not known or ctx.message.role != "user":
            return
        owner: str | None = ctx.me
    else:
        owner = _owner(poss, ctx, subj_tok)
    pred = "has-salary" if subj_tok.lower_ == "base" else _relation_predicate(subj_tok)
    value = _value_of(attr, ctx)
    if value is None and attr.lemma_.lower() in PERSON_NOUNS:  # "His manager is a guy called Pete"
        value = _called_name(attr, ctx)
    if value is None and subj_tok.lower_ in PAY_WORDS:
        value = _amount(attr)
    if (
        (poss is None or subj_tok.lower_ == "base")
        and subj_tok.lower_ in PAY_WORDS
        and not (value and _has_digit(value))
    ):
        return  # a bare "base"/"salary" subject holds only an amount
    if pred == "has-manager" and value is None and attr.is_lower and attr.is_alpha and not attr.is_stop:
        value = _lowercase_name_run(attr)  # "manager will be sandeep"
    if value is None and pred == "has-role":  # "my new title is senior engineer"
        value = _object_phrase(attr, ctx, with_of=True)
    if owner and value and owner != value:
        _emit(ctx, owner, pred, value, 0.6, obj_tok=attr)
        if subj_tok.tag_ == "NNS":  # "My kids are Lily and Max": each name of a plural is one of them
            for other in (v for c in _conjuncts(attr) if (v := _name_of(c, ctx)) and v != owner):
                _emit(ctx, owner, pred, other, 0.6, obj_tok=None)


def _value_of(attr: Token, ctx: _Ctx) -> str | None:
    """A named value: a proper name, an email/URL, or a money amount."""
    if attr.like_email or attr.like_url:
        return attr.text
    money = _money_value(attr, ctx)
    if money:
        return money
    amount = [c for c in attr.children if c.dep_ == "nummod" and c.i < attr.i]
    if attr.pos_ == "NOUN" and amount:  # "1,450 euros" when NER misses the money span
        if attr.lower_ in CURRENCY_WORDS:
            return attr.doc[amount[0].i : attr.i + 1].text
        return _amount(amount[0])  # "980 euro warm": the amount and its currency
    return _name_of(attr, ctx)


# --------------------------------------------------------------------------- family and work relations


def _relation_sweep(sent: Span, ctx: _Ctx) -> None:
    """Relations named in passing, wherever they sit in the parse.

    "my husband Tom and our son Leo, he's four" hangs the nouns anywhere (subject, object,
    fragment); the appositive itself states the relation, so every possessed relation noun with
    a name in apposition counts: "my husband Tom", "Carlos, my dad", "my new boss, Priya".
    """
    user = ctx.message.role == "user"
    for tok in sent:
        if tok.pos_ == "NOUN" and tok.lemma_.lower() in WORK_NOUNS:
            _workplace_of_relation(tok, ctx)
        if user and tok.lemma_ in _FIRST_SPANS:
            _first_day(tok, ctx)
        _child_by_rank(tok, ctx)
        if tok.lemma_ in {"call", "name"} and any(c.dep_ == "auxpass" for c in tok.children):
            _called_relation(tok, ctx)
        if ctx.message.role == "user" and tok.lemma_ in {"call", "name"} and tok.tag_ == "VBD":
            _pet_named(tok, ctx)
        if tok.pos_ == "NOUN" and tok.lemma_.lower() in PET_NOUNS and ctx.message.role == "user":
            _pet_called(tok, ctx)
        if tok.pos_ == "PROPN":
            _bracketed_age(tok, ctx)
        if tok.pos_ == "PROPN":
            _compound_relation(tok, ctx)
        if tok.pos_ in {"NOUN", "ADJ"} and (_is_kin(tok) or _is_manager_noun(tok)):
            _lowercase_relation(tok, ctx)
        if tok.pos_ in {"NOUN", "ADJ"} and _is_kin(tok):
            _adjacent_relation(tok, ctx)
        if user and tok.pos_ == "NOUN":
            lemma = tok.lemma_.lower()
            if lemma in CONDITIONS or tok.lower_ in CONDITIONS:  # the lemmatizer makes "diabete"
                _possessed_condition(tok, ctx)
            elif lemma in CHILDCARE_NOUNS:
                _child_of_childcare(tok, ctx)
        if tok.pos_ == "NOUN" and user:
            _boss_opening(tok, ctx)
        if tok.pos_ != "NOUN" or not any(c.dep_ == "poss" for c in tok.children):
            continue
        for appos in (c for c in tok.children if c.dep_ == "appos" and c.pos_ == "PROPN"):
            for name_tok in [appos, *(t for t in _conjuncts(appos) if t.pos_ == "PROPN" and _bare_name(t))]:
                name = _name_of(name_tok, ctx, person=True)
                if name:
                    _possessive_relation(tok, name, ctx)
        if tok.dep_ == "appos" and tok.head.pos_ == "PROPN":  # "Carlos, my dad, ..."
            name = _name_of(tok.head, ctx, person=True)
            if name:
                _possessive_relation(tok, name, ctx)


_FLARE_VERBS = frozenset({"flare", "play", "act", "kick"})  # "flaring up", "playing up", "acting up"


def _condition_news(sent: Span, ctx: _Ctx) -> None:
    """The speaker's condition said by what it does or what a clinician found, with no "I have":
    'Sciatica flaring up again', 'Eczema is playing up', 'the doctor thinks it's just migraines'."""
    for verb in (t for t in sent if t.pos_ in {"VERB", "AUX"} and not _is_irrealis(t)):
        if verb.lemma_ in _FLARE_VERBS and (verb.lemma_ == "flare" or _has_particle(verb, "up")):
            for subj in (c for c in verb.children if c.dep_ == "nsubj" and _bare_or_mine(c)):
                if _names_condition(subj):
                    _emit(ctx, ctx.me, "has-condition", subj.text.lower(), 0.5, obj_tok=None)
        if verb.lemma_ in {"say", "think", "reckon", "confirm"} and _clinician_subject(verb):
            _clinician_found(verb, ctx)


def _clinician_found(verb: Token, ctx: _Ctx) -> None:
    """'the doctor thinks it's just migraines': the speaker's, when the message names no one else
    ("took Leo to the GP, she said it's tonsillitis" is Leo's)."""
    others = {"he", "she", "him", "her", "his"}
    if any(_is_kin(t) or t.lower_ in others or t.ent_type_ == "PERSON" for t in verb.doc):
        return
    for found in (c for c in verb.children if c.dep_ == "ccomp" and c.lemma_ == "be"):
        it = any(c.dep_ == "nsubj" and c.lower_ in {"it", "it's"} for c in found.children)
        if not it or _is_irrealis(found):
            continue
        for attr in (c for c in found.children if c.dep_ == "attr" and _names_condition(c)):
            illness = _object_phrase(attr, ctx, prefer_name=False)
            if illness:
                _emit(ctx, ctx.me, "has-condition", illness, 0.5, obj_tok=None)


def _has_particle(verb: Token, word: str) -> bool:
    return any(c.dep_ == "prt" and c.lower_ == word for c in verb.children)


def _bare_or_mine(noun: Token) -> bool:
    """No determiner, or the speaker's own ("my eczema"): not "her asthma", "the migraine"."""
    dets = [c for c in noun.children if c.dep_ in {"det", "poss"}]
    return all(d.lower_ in FIRST_PERSON_POSS for d in dets)


def _possessed_condition(tok: Token, ctx: _Ctx) -> None:
    """'my asthma', 'because of my asthma prescription': the speaker has the condition."""
    owner = tok.head if tok.dep_ == "compound" else tok
    if any(c.dep_ == "poss" and c.lower_ in FIRST_PERSON_POSS for c in owner.children):
        _emit(ctx, ctx.me, "has-condition", tok.text.lower(), 0.55, obj_tok=None)
    _typed_condition(tok, ctx)


def _typed_condition(tok: Token, ctx: _Ctx) -> None:
    """'I have type 2 diabetes': the small model makes "type" the verb and "have" its auxiliary; read
    it as the speaker's condition all the same (a clause in the past, negated or hedged: nothing)."""
    head, illness = tok.head, _typed(tok)
    if tok.dep_ != "dobj" or head.lower_ != "type" or illness is None:
        return
    aux = [c for c in head.children if c.dep_ == "aux"]
    if not any(a.lemma_ == "have" and a.tag_ != "VBD" for a in aux):
        return
    who = _typed_subject([c for c in head.children if c.dep_ == "nsubj"], ctx)
    if who is None or _is_irrealis(head) or not _asserted_clause(head):
        return
    _emit(ctx, who, "has-condition", illness, 0.55, obj_tok=None)


def _typed_subject(subjects: list[Token], ctx: _Ctx) -> str | None:
    """The speaker, or the name among the subjects ("my mum Diana has type 2 diabetes" parses with
    "mum" and "Diana" both as subjects of a noun "type")."""
    if any(s.lower_ == "i" for s in subjects):
        return ctx.me
    names = [t for s in subjects for t in (s, *s.children) if t.pos_ == "PROPN" and t.dep_ != "compound"]
    return _name_of(names[0], ctx, person=True) if names else None


def _asserted_clause(head: Token) -> bool:
    """A clause said as true: a statement's own root, or what a clinician said or one found out
    ("the GP says I have ...") - not a question and not "I think I have ..."."""
    if head.dep_ == "ROOT":
        return not _is_question(head.sent)
    root = head.head
    return head.dep_ == "ccomp" and (
        (root.lemma_ in {"say", "tell"} and _clinician_subject(root)) or _factive(root)
    )


def _child_of_childcare(noun: Token, ctx: _Ctx) -> None:
    """ "Callum's teacher", "Ruby's daycare closes at 5:30": in a parent's chat, a named person with
    a daycare, a nursery or a teacher is the speaker's child (a weak reading: confidence 0.5). The
    small model calls some first names an organisation ("Callum"); a known first name is a name."""
    doc = noun.doc
    if noun.i < 2 or doc[noun.i - 1].lower_ not in {"'s", "’s"}:  # by the words: the parse often
        return  # hangs "Ruby's daycare closes" anywhere
    for poss in (t for t in [doc[noun.i - 2]] if t.pos_ == "PROPN" and t.text[:1].isupper()):
        ent = ctx.ents.get(poss.i)
        name = _name_of(poss, ctx, person=True)
        named = ent is None or ent.label_ == "PERSON" or (len(ent) == 1 and poss.lower_ in first_names())
        if name and named and name != ctx.me:
            _emit(ctx, ctx.me, "has-child", name, 0.5, obj_tok=None, obj_type="person")


_FIRST_SPANS = {"day", "week", "month", "shift"}


def _first_day(noun: Token, ctx: _Ctx) -> None:
    """'Just finished my first week at Helix', 'First day at Acme tomorrow', "Tom's first shift at
    Tesco is on Sunday" -> works-at: a first day somewhere is a job begun there (a hypothetical one
    is not)."""
    if not any(c.dep_ == "amod" and c.lower_ == "first" for c in noun.children):
        return
    verb = noun.head if noun.dep_ in {"npadvmod", "dobj", "nsubj", "pobj"} else noun
    if _is_irrealis(verb) or any(c.dep_ == "neg" for c in verb.children):
        return
    poss = next((c for c in noun.children if c.dep_ == "poss"), None)
    if poss is None or poss.lower_ in FIRST_PERSON_POSS:
        owner: str | None = ctx.me
    else:
        owner = _name_of(poss, ctx, person=True) if poss.pos_ == "PROPN" else None
    if owner is None:
        return
    places = [p for prep in _preps(noun, verb, {"at", "with"}) for p in _pobjs(prep)]
    for pobj in (p for p in places if p.pos_ == "PROPN"):
        ent = ctx.ents.get(pobj.i)
        name = _name_of(pobj, ctx)
        # "at" a name the model calls a place is still a workplace here ("first day at Copperfield")
        if name and (ent is None or ent.label_ not in {"PERSON", "LOC", "DATE", "TIME"}):
            _emit(ctx, owner, "works-at", name, 0.55, obj_tok=None, obj_type="organization")


_CHILD_RANKS = {"youngest", "eldest", "oldest"}


def _child_by_rank(tok: Token, ctx: _Ctx) -> None:
    """'our youngest, Kayden', 'my eldest Sophie' -> has-child: a rank among one's children said
    with no noun ('my eldest sister' has one: no child)."""
    if tok.lower_ not in _CHILD_RANKS or ctx.message.role != "user":
        return
    if tok.dep_ == "amod" and tok.head.pos_ == "PROPN":  # "our youngest Zane"
        owner, named = tok.head, [tok.head]
    elif tok.pos_ in {"ADJ", "NOUN"} and tok.dep_ not in {"amod", "compound"}:  # "Our youngest, Kayden,"
        owner, named = tok, [c for c in tok.children if c.dep_ == "appos" and c.pos_ == "PROPN"]
    else:
        return
    if not _my_or_our(owner):
        return
    for tok_name in named:
        name = _name_of(tok_name, ctx, person=True)
        if name:
            _emit(ctx, ctx.me, "has-child", name, 0.55, obj_tok=None, obj_type="person")


def _workplace_of_relation(noun: Token, ctx: _Ctx) -> None:
    """'My manager at Copperleaf is Nadia': the owner works at Copperleaf ('my old boss at X': worked)."""
    poss = next((c for c in noun.children if c.dep_ == "poss"), None)
    owner = _owner(poss, ctx, noun) if poss is not None else None
    if owner is None:
        return
    former = any(c.lower_ in {"old", "former", "ex", "previous"} for c in noun.children if c.dep_ == "amod")
    for pobj in (p for prep in _preps(noun, noun, {"at"}) for p in _pobjs(prep)):
        name = _name_of(pobj, ctx)
        if name and _employer_named(pobj, name, ctx):  # "my colleagues at Arup" (tagged a person)
            pred = "worked-at" if former else "works-at"
            _emit(ctx, owner, pred, name, 0.5, obj_tok=None, obj_type="organization")


def _called_relation(verb: Token, ctx: _Ctx) -> None:
    """'Our cat is called Mochi', 'My manager is named Dana' -> has-cat Mochi, has-manager Dana."""
    noun = next((c for c in verb.children if c.dep_ == "nsubjpass" and c.pos_ == "NOUN"), None)
    oprd = next((c for c in verb.children if c.dep_ in {"oprd", "attr", "dobj"} and c.pos_ == "PROPN"), None)
    if noun is not None and oprd is not None and not _is_irrealis(verb):
        name = _name_of(oprd, ctx, person=True)
        if name:
            _possessive_relation(noun, name, ctx)


def _pet_predicate(noun: Token) -> str:
    lemma = noun.lemma_.lower()
    return f"has-{PET_BREEDS.get(lemma, lemma)}"


def _pet_called(noun: Token, ctx: _Ctx) -> None:
    """'A rescue greyhound called Biscuit.' (a line of its own), 'our dog is a lab called Bo' ->
    the speaker's has-dog; another owner ('her dog called Rex') gives nothing here."""
    name = _called_name(noun, ctx)
    if not name:
        return
    poss = next((c for c in noun.children if c.dep_ == "poss"), None)
    verbless = noun.dep_ == "ROOT" or (noun.head.dep_ == "ROOT" and noun.head.lemma_ == "be" and poss is None)
    owner = _owner(poss, ctx, noun) if poss is not None else (ctx.me if verbless else None)
    if (
        owner
        and poss is None
        and noun.dep_ == "ROOT"
        and any(c.lower_ in {"his", "her", "their"} for c in noun.sent)
    ):
        return
    if owner:
        _emit(ctx, owner, _pet_predicate(noun), _capitalised(name), 0.55, obj_tok=None, obj_type="unknown")


def _pet_named(verb: Token, ctx: _Ctx) -> None:
    """'adopted a kitten from CUPA!! named her biscuit' -> has-kitten Biscuit (the animal the
    speaker adopted, got or brought home earlier in the message, named by a pronoun)."""
    doc = verb.doc
    if verb.i + 2 >= len(doc) or doc[verb.i + 1].lower_ not in {"her", "him", "it"}:
        return
    word = doc[verb.i + 2]
    if not word.is_alpha or word.is_stop or word.lower_ in NOT_NAMES:
        return
    subj = next((c for c in verb.children if c.dep_ == "nsubj"), None)
    if subj is not None and subj.lower_ not in FIRST_PERSON | {"we"}:
        return
    animals = [
        t
        for t in doc[: verb.i]
        if t.lemma_.lower() in PET_NOUNS
        and t.dep_ == "dobj"
        and t.head.lemma_ in {"adopt", "get", "rescue", "buy"}
    ]
    if animals:
        _emit(
            ctx,
            ctx.me,
            _pet_predicate(animals[-1]),
            _capitalised(word.text),
            0.55,
            obj_tok=None,
            obj_type="unknown",
        )


def _bracketed_age(name_tok: Token, ctx: _Ctx) -> None:
    """'our kids Leo (4) and Mia (7)' -> is-aged, for a name the message makes a person."""
    doc = name_tok.doc
    if name_tok.i + 3 >= len(doc) or doc[name_tok.i + 1].text != "(" or doc[name_tok.i + 3].text != ")":
        return
    age = _number(doc[name_tok.i + 2])
    name = _name_of(name_tok, ctx, person=True)
    ent = ctx.ents.get(name_tok.i)
    related = any(f.object == name and f.object_type == "person" for f in ctx.out)
    if age is not None and name and (related or (ent is not None and ent.label_ == "PERSON")):
        _emit(ctx, name, "is-aged", str(age), 0.55, obj_tok=None, subj_type="person")


def _compound_relation(name_tok: Token, ctx: _Ctx) -> None:
    """'my sister katrin': the parser makes the relation noun a compound of the name."""
    for noun in name_tok.children:
        poss = next((c for t in (name_tok, noun) for c in t.children if c.dep_ == "poss"), None)
        kin = noun.pos_ == "NOUN" or _relation_word(noun)  # "my gf priya": "gf" tagged a name
        the = poss is None and (_the_spouse(noun, ctx) or _the_spouse(noun, ctx, name_tok))
        if (poss is not None or the) and noun.dep_ == "compound" and kin and _is_kin(noun):
            name = _name_of(name_tok, ctx, person=True)
            owner = _owner(poss, ctx, noun) if poss is not None else ctx.me
            if name and owner and owner != name and not name.lower().startswith(noun.lower_):
                _emit(
                    ctx, owner, _relation_predicate(noun), name, 0.6, obj_tok=None, obj_type=_kin_type(noun)
                )


def _lowercase_relation(noun: Token, ctx: _Ctx) -> None:
    """'my boyfriend jonas wants ...', 'met my new boss priya': a lower-case word right after a
    possessed relation noun, which the parse ties to it, is that person's name (capitalised)."""
    doc = noun.doc
    if noun.i + 1 >= len(doc):
        return
    nxt = doc[noun.i + 1]
    low = nxt.lower_
    if not (nxt.is_lower and nxt.is_alpha and len(low) > 1) or nxt.pos_ not in {"NOUN", "PROPN"}:
        return
    if nxt.is_stop or low in NOT_NAMES or low.endswith(NOT_NAME_ENDINGS) or _is_date(nxt, ctx):
        return
    if low in JOB_TITLE_NOUNS or low in FAMILY_NOUNS or low in WORK_NOUNS or low in RELATION_PREDICATES:
        return
    tied = (
        (nxt.dep_ == "appos" and nxt.head.i == noun.i)
        or (noun.dep_ == "compound" and noun.head.i == nxt.i)
        or (nxt.head.i == noun.head.i and nxt.dep_ == noun.dep_ and nxt.head.i != nxt.i)
    )
    after = doc[nxt.i + 1] if nxt.i + 1 < len(doc) else None
    if not tied or (
        after is not None and after.pos_ in {"NOUN", "PROPN"} and after.is_lower and not _is_date(after, ctx)
    ):
        return
    poss = next((c for t in (noun, nxt) for c in t.children if c.dep_ == "poss"), None)
    owner = _owner(poss, ctx, noun) if poss is not None else None
    if owner is None:
        return
    name = _capitalised(nxt.text)
    ctx.names[nxt.i] = name
    if owner != name:
        _emit(ctx, owner, _relation_predicate(noun), name, 0.6, obj_tok=None, obj_type=_kin_type(noun))


def _adjacent_relation(noun: Token, ctx: _Ctx) -> None:
    """'my fiancé Joost', 'My stepson Mateo' read from the words when the parse is broken
    (the small model tags "stepson" an adjective, or hangs "fiancé" on the verb)."""
    doc = noun.doc
    after = noun.i + 1
    if _other_half(noun) and after + 1 < len(doc) and doc[after].text == ",":
        after += 1  # "My other half, Chris, is a chef" (parsed as no apposition)
    if noun.i < 1 or after >= len(doc) or not (doc[after].pos_ == "PROPN" or _known_first_name(doc[after])):
        return
    before = doc[noun.i - 1]
    if _other_half(noun) and before.lower_ == "other" and noun.i >= 2:
        before = doc[noun.i - 2]
    if before.dep_ == "amod" and before.head == noun:  # "Our old dog Bess": the owner before the adjective
        before = next((c for c in noun.children if c.dep_ == "poss"), before)
    if before.tag_ == "PRP$":
        owner = _owner(before, ctx, noun)
    elif before.tag_ == "POS" and noun.i >= 2:
        owner = _name_of(doc[noun.i - 2], ctx)
    else:
        return
    name = _name_of(doc[after], ctx, person=True) or (doc[after].text if doc[after].pos_ != "PROPN" else None)
    if name and owner and owner != name:
        _emit(ctx, owner, _relation_predicate(noun), name, 0.6, obj_tok=None, obj_type=_kin_type(noun))


def _known_first_name(tok: Token) -> bool:
    """'Raj' in "my husband Raj just got ...": a capitalised word right after a relation word, which the
    small model tagged an adverb or a noun (before "just", "finally"); in a sentence that capitalises
    only its names (not a headline), it is the name, unless it is an English adverb, adjective or
    verb ("Raj" is listed only as a noun)."""
    if not (tok.is_title and tok.is_alpha) or tok.is_stop or tok.i == tok.sent.start:
        return False
    if _english_non_noun(tok):
        return False  # "my mum Recently moved": a word capitalised by mistake
    words = [t for t in tok.sent if t.is_alpha]
    return sum(t.is_title for t in words) * 2 <= len(words)


def _relation_word(tok: Token) -> bool:
    """A relation word in lower case ("gf", "hubby", "bro"), never part of a name."""
    low = tok.text
    return low.islower() and (low in RELATION_PREDICATES or low in FAMILY_NOUNS)


def _is_kin_word(tok: Token) -> bool:
    """A capitalised relation word standing alone ("Mum", "Hubby"), not part of a longer name."""
    low = tok.lower_
    alone = not any(c.dep_ == "compound" for c in tok.children) and tok.dep_ != "compound"
    return alone and (low in RELATION_PREDICATES or low in FAMILY_NOUNS) and low not in SALARY_NOUNS


def _is_kin(noun: Token) -> bool:
    lemma = noun.lemma_.lower()
    return (
        _other_half(noun)
        or lemma in FAMILY_NOUNS
        or lemma in RELATION_PREDICATES
        or lemma in {"friend", "cousin", "colleague"}
        or noun.lower_ in MULTIPLE_BIRTHS  # "our twins, Ava and Noah"
        or _children_word(noun)  # "our two boys, Sam and Theo"
    )


def _other_half(noun: Token) -> bool:
    """'my other half': the speaker's partner."""
    return noun.lower_ == "half" and any(c.dep_ == "amod" and c.lower_ == "other" for c in noun.children)


def _number(tok: Token) -> int | None:
    text = tok.lower_
    tens = _tens_of(tok)
    if tens is not None and text in NUMBER_WORDS:  # "fifty-two"
        return _number_word(tens.lower_, text)
    value = NUMBER_WORDS.get(text)
    if value is None and text.isdigit():
        value = int(text)
    return value if value is not None and 0 < value < 120 else None


def _beside_a_number(tok: Token, num: Token) -> bool:
    """A word under an age that leaves it an age: a conjunction, punctuation, chat blanked to spaces,
    or the tens of "seventy-five" (not a second number: "15 and 12")."""
    if tok.is_space or (tok.dep_ in {"cc", "conj", "punct"} and tok.pos_ != "NUM"):
        return True
    return tok.dep_ == "compound" and tok == _tens_of(num)


def _tens_of(unit: Token) -> Token | None:
    """'fifty' of "fifty-two" (the word two before, joined by a hyphen, under the unit)."""
    doc = unit.doc
    if unit.i < 2 or doc[unit.i - 1].text != "-" or doc[unit.i - 2].head != unit:
        return None
    return doc[unit.i - 2]


def _number_word(tens: str, unit: str) -> int | None:
    """'fifty', 'two' -> 52 (None for a pair that is no such number)."""
    high, low = NUMBER_WORDS.get(tens), NUMBER_WORDS.get(unit)
    if high is None or low is None or high % 10 or not 20 <= high <= 90 or not 0 < low < 10:
        return None
    return high + low


def _age_of(verb: Token) -> int | None:
    """'is four', 'is 4 years old', 'just turned six' -> the age."""
    for child in verb.children:
        bare = all(_beside_a_number(c, child) for c in child.children)
        # "im 24 and work at primark": the parse makes the number right after the verb a modifier
        right_after = child.dep_ in {"npadvmod", "nummod", "advmod"} and child.i == verb.i + 1  # "Turned 40"
        said = child.dep_ in {"attr", "dobj", "acomp"} or right_after
        if said and child.pos_ == "NUM" and bare:
            return _number(child)  # "is 15 and already taller than me": what follows the "and" is no age
        if child.dep_ == "acomp" and child.lower_ == "old":
            years = next((c for c in child.children if c.dep_ == "npadvmod" and c.lemma_ == "year"), None)
            num = next((c for c in years.children if c.dep_ == "nummod"), None) if years is not None else None
            return _number(num) if num is not None else None
        if child.dep_ == "attr" and verb.lemma_ == "be":
            age = _years_said(child)
            if age is not None:
                return age
    return None


def _years_said(attr: Token) -> int | None:
    """'I am 32 years' (Indian English, no "old"), "I'm a 52-year-old truck driver": the age an
    attribute gives its subject; "years" with nothing but its number (not "5 years into ...")."""
    kids = list(attr.children)
    if attr.lemma_ == "year" and len(kids) == 1 and kids[0].dep_ == "nummod" and kids[0].pos_ == "NUM":
        return _number(kids[0])
    old = next((c for c in kids if c.dep_ == "amod" and c.lower_ == "old"), None)
    years = next((c for c in old.children if c.lemma_ == "year"), None) if old is not None else None
    num = next((c for c in years.children if c.dep_ == "nummod"), None) if years is not None else None
    return _number(num) if num is not None else None


def _own_birthday_turn(verb: Token, ctx: _Ctx) -> bool:
    """'its my bday saturday, turning 29', 'Turned 40 last week!': the speaker's age, said with the
    "I" chat drops, at the start of a sentence or a clause."""
    if verb.lemma_ != "turn" or ctx.message.role != "user":
        return False
    if verb.dep_ in {"advcl", "acl", "xcomp", "relcl"}:  # "my dad, turning 70 next week, wants ...": his age
        subj = next((c for c in verb.head.children if c.dep_ == "nsubj"), None)
        if verb.head.pos_ not in {"VERB", "AUX"} or (subj is not None and subj.lower_ not in FIRST_PERSON):
            return False
    before = verb.doc[verb.i - 1] if verb.i > verb.sent.start else None
    return before is None or before.text in {",", "-", "–", ";"} or before.lower_ in {"just", "finally"}


def _age_facts(sent: Span, ctx: _Ctx) -> None:
    """'Our son Leo is four', 'Leo, he's four', 'Mia just turned six' -> is-aged N."""
    for verb in sent:
        if verb.lemma_ not in {"be", "turn"} or _is_irrealis(verb):
            continue
        if verb.lemma_ == "be" and _is_past(verb):
            continue
        if verb.lemma_ == "turn" and any(c.dep_ == "prt" for c in verb.children):
            continue
        age = _age_of(verb)
        subj = next((c for c in verb.children if c.dep_ == "nsubj"), None)
        if age is not None and subj is None and _own_birthday_turn(verb, ctx):
            _emit(ctx, ctx.me, "is-aged", str(age), 0.55, obj_tok=None, subj_type="person")
            continue
        listed = _ages_listed(verb) if subj is not None else []
        age = listed[0] if listed else age
        if age is None or subj is None:
            continue
        if subj.lower_ in {"he", "she"}:
            names = [_pronoun_name(subj, ctx) or _only_person_before(subj, ctx)]
        elif subj.lower_ == "who" and verb.dep_ == "relcl":  # "Our son, Thomas, who is twelve, ..."
            whom = verb.head
            appos = next((c for c in whom.children if c.dep_ == "appos" and c.pos_ == "PROPN"), None)
            names = [_name_of(appos if appos is not None else whom, ctx, person=True)]
        else:
            names = [_resolve_subject(t, ctx) for t in [subj, *_conjuncts(subj)]]
            appos = next((c for c in subj.children if c.dep_ == "appos" and c.pos_ == "PROPN"), None)
            if appos is not None and _is_kin(subj):  # "Our twins, Ava and Noah, turn 6": both are 6
                names += [_name_of(t, ctx, person=True) for t in _conjuncts(appos) if t.pos_ == "PROPN"]
        ages = listed or [age] * len(names)
        if len(ages) != len(names):
            continue  # "Sam, Theo and Ava are 7 and 9": whose is which is not said
        for name, each in zip(names, ages, strict=True):
            if name:
                pet = any(f.object == name and f.object_type != "person" for f in ctx.out)
                subj_type: EntityType | None = None if pet else "person"
                _emit(ctx, name, "is-aged", str(each), 0.6, obj_tok=None, subj_type=subj_type)


def _ages_listed(verb: Token) -> list[int]:
    """'Sam and Theo are 7 and 9': the ages listed, in order, one for each subject listed (empty when
    the verb gives one age: "Ava and Noah are 7" gives it to both)."""
    attr = next((c for c in verb.children if c.dep_ in {"attr", "acomp"} and c.like_num), None)
    listed = [attr, *_conjuncts(attr)] if attr is not None else []
    ages = [_number(t) for t in listed if t.like_num]
    return [a for a in ages if a is not None] if len(ages) > 1 and None not in ages else []


def _only_person_before(pron: Token, ctx: _Ctx) -> str | None:
    """He/she is the one person the message named before it ("my daughter Isla needs a costume,
    she's six"); with two or more candidates (or none) the pronoun stays unresolved."""
    names = {
        _unkinned(_strip_det(ent))
        for ent in set(ctx.ents.values())
        if ent.label_ == "PERSON" and ent.end <= pron.i and ent.text.strip() and not _a_city(ent.text)
    }
    related = (f for f in ctx.out if f.object_type == "person" and f.predicate.startswith(("has-", "is-")))
    names |= {f.object for f in related}
    names = {
        n
        for n in names
        if n != ctx.me
        and n.lower() not in RELATION_PREDICATES
        and n.lower() not in FAMILY_NOUNS
        and not all(w in CAR_NAMES for w in n.split())  # "a used Renault Clio"
    }
    folded = {n.casefold() for n in names}
    # "Dana" and "Dana Reyes" are one person
    distinct = {n for n in folded if not any(o != n and o.startswith(n + " ") for o in folded)}
    if (
        not distinct
        and ctx.message.role == "user"
        and (not any(t.pos_ in {"NOUN", "PROPN"} for t in pron.doc[: pron.i]) or _same_pronoun_before(pron))
    ):
        # the message opens with he/she ("he said yes to airbus"): an earlier one's
        return f"{PRONOUN}:{'f' if pron.lower_ == 'she' else 'm'}"
    if len(distinct) != 1:
        return None
    # the longest spelling, a capitalised one before another ("Zanele" the relation gave, "zanele" the
    # text): a set's order would make the choice differ between processes (hash seeds)
    return max(names, key=lambda n: (len(n), n[:1].isupper(), n))


def _same_pronoun_before(pron: Token) -> bool:
    """'She's a pharmacist. She's been at Boots for six years': every sentence before this one is about
    the same he/she, and no name came between, so this one is still that person."""
    doc = pron.doc
    before = [s for s in doc.sents if s.end <= pron.sent.start]
    if not before or any(t.pos_ == "PROPN" for t in doc[: pron.i]):
        return False
    return all(
        any(t.dep_ in {"nsubj", "nsubjpass"} and t.lower_ == pron.lower_ for t in s)
        and not any(t.dep_ in {"nsubj", "nsubjpass"} and t.lower_ != pron.lower_ for t in s)
        and s[0].lower_ == pron.lower_
        for s in before
    )


def _pronoun_name(pron: Token, ctx: _Ctx) -> str | None:
    """'... Leo, he's four': a he/she right after 'Name,' is that name (the only case resolved)."""
    doc = pron.doc
    if pron.i < 2 or doc[pron.i - 1].text != ",":
        return None
    prev = doc[pron.i - 2]
    ent = ctx.ents.get(prev.i)
    if prev.pos_ != "PROPN" or (ent is not None and ent.label_ not in {"PERSON", "ORG", "GPE"}):
        return None
    return _name_of(prev, ctx, person=True)


def _money_value(tok: Token, ctx: _Ctx) -> str | None:
    """'$85,000', 'about $70,000' -> '$70,000', '85k'; the sign the model leaves outside is kept."""
    doc = tok.doc
    ent = ctx.ents.get(tok.i)
    nums = [c for c in tok.children if c.dep_ in {"nummod", "quantmod"} and c.like_num and c.i < tok.i]
    if tok.lower_ == "grand" and nums:  # "95 grand", "forty two grand" (the model may call it a date)
        start = next(t.i for t in doc[nums[0].left_edge.i : tok.i] if t.like_num)  # not "about"
        return doc[start : tok.i + 1].text
    if ent is not None and ent.label_ == "MONEY":
        start, end = ent.start, ent.end
    elif MONEY_SHORT.match(tok.text):
        start, end = tok.i, tok.i + 1
    else:
        return None
    while start > 0 and doc[start - 1].is_currency:
        start -= 1
    while end - start > 1 and not _currency(doc[start]) and not any(c.isdigit() for c in doc[start].text):
        start += 1  # "about $70,000", "up to $95,000", "a $5,000": the amount
    text = doc[start:end].text
    return text if any(c.isdigit() for c in text) else None


def _currency(tok: Token) -> bool:
    """A sign or a code that belongs to the amount: '$', 'AED 11,500', 'Rs 45,000'."""
    return tok.is_currency or tok.text in CURRENCY_CODES or tok.text in {"Rs", "Rs."}


def _has_digit(text: str) -> bool:
    return any(c.isdigit() for c in text)


def _amount(tok: Token) -> str | None:
    """An amount the NER missed: '54.000', '1.240 euro', '980 euro warm' -> '980 euro', '1200/month'."""
    doc = tok.doc
    num = (
        tok
        if _has_digit(tok.text)
        else next((c for c in tok.children if c.dep_ == "nummod" and _has_digit(c.text)), None)
    )
    if num is None:
        return None
    start = num.i - 1 if num.i > 0 and doc[num.i - 1].is_currency else num.i
    end = num.i + 1
    if end < len(doc) and doc[end].lower_ in CURRENCY_WORDS | {"€", "$", "£"}:
        end += 1
    text = doc[start:end].text.split("/")[0]
    return text if _has_digit(text) and len(text) <= 20 else None


def _is_school(name: str) -> bool:
    return any(w in SCHOOL_WORDS for w in name.lower().split())


def _promoted_me(verb: Token, ctx: _Ctx) -> bool:
    """'They promoted me to senior analyst', "they've made me team lead" -> the speaker's title. The
    small model parses the title after "me" every which way ('lead' a verb, 'head' a clause), so
    the words are read in order: up to five title words after "me" (and "to")."""
    if verb.lemma_ not in {"promote", "make"} or ctx.message.role != "user" or _is_irrealis(verb):
        return False
    doc = verb.doc
    me = verb.i + 1 if verb.i + 1 < len(doc) and doc[verb.i + 1].lower_ == "me" else None
    if me is None:
        return False
    start = me + 1
    if verb.lemma_ == "promote" and start < len(doc) and doc[start].lower_ == "to":
        start += 1
    elif verb.lemma_ == "promote":
        return False
    while start < len(doc) and doc[start].pos_ == "DET":
        start += 1
    words = list(doc[start : min(start + 5, verb.sent.end)])
    end = next((k for k, w in enumerate(words) if _title_ends(w, ctx)), len(words))
    words = words[:end]
    nouny = all(w.pos_ in {"NOUN", "PROPN", "ADJ", "VERB"} or w.lower_ == "of" for w in words)
    titled = any(_is_title_word(w) or w.lower_ in LEAD_WORDS for w in words)
    if not words or not nouny or not (titled or verb.lemma_ == "promote") or words[-1].lower_ == "of":
        return False
    _emit(ctx, ctx.me, "has-role", _drop_new(" ".join(w.text for w in words)), 0.55, obj_tok=None)
    return True


def _title_ends(tok: Token, ctx: _Ctx) -> bool:
    """Where a title said after "me" ends: punctuation, a date, a preposition other than 'of'."""
    return (
        tok.is_punct
        or _is_date(tok, ctx)
        or (tok.pos_ == "ADP" and tok.lower_ != "of")
        or tok.lower_
        in {
            "last",
            "next",
            "this",
            "and",
            "but",
        }
    )


def _shifts_at(verb: Token, dobjs: list[Token], subject: str, past: bool, ctx: _Ctx) -> bool:
    """'doing nights at the Co-op', 'I do contract work for the NHS', 'I pick up shifts at Boots' ->
    works-at: shifts or work done for a named organisation."""
    if verb.lemma_ not in {"do", "work", "pick", "cover"} or past or _is_irrealis(verb):
        return False  # "I did some work for Google once": a client then, no employer now
    found = False
    for dobj in (d for d in dobjs if d.lemma_.lower() in SHIFT_NOUNS):
        for pobj in (p for prep in _preps(dobj, verb, {"at", "for", "with"}) for p in _pobjs(prep)):
            name = _name_of(pobj, ctx, with_of=True) or _short_org(pobj, ctx)
            if name and _org_or_unknown(pobj, ctx):
                _emit(ctx, subject, "works-at", name, 0.55, obj_tok=None, obj_type="organization")
                found = True
    return found


def _school_changed(verb: Token, dobjs: list[Token], subject: str, ctx: _Ctx) -> bool:
    """'We moved Ella from Parkside Primary to Oakfield Primary' (attended, attends); 'Ella got into
    Oakfield Academy' (attends): a school given by a move or an admission."""
    if _is_irrealis(verb):
        return False
    schools = {
        prep.lower_: name
        for prep in verb.children
        if prep.dep_ == "prep" and prep.lower_ in {"from", "to", "into"}
        for p in _pobjs(prep)
        if (name := _name_of(p, ctx)) and _is_school(name)
    }
    if verb.lemma_ == "get" and "into" in schools:
        _emit(ctx, subject, "attends", schools["into"], 0.55, obj_tok=None, obj_type="organization")
        return True
    if verb.lemma_ not in {"move", "switch", "transfer"} or not schools:
        return False
    pupils = [n for d in dobjs if d.pos_ == "PROPN" and (n := _name_of(d, ctx, person=True))]
    for pupil in pupils:
        if "to" in schools:
            _emit(ctx, pupil, "attends", schools["to"], 0.55, obj_tok=None, obj_type="organization")
        if "from" in schools:
            old = schools["from"]
            _emit(ctx, pupil, "attended", old, 0.55, obj_tok=None, obj_type="organization", ends=True)
    return bool(pupils)


def _short_org(tok: Token, ctx: _Ctx) -> str | None:
    """'the NHS', 'the Co-op': an organisation the small model left untagged, written in capitals."""
    word = tok.text
    return word if word[:1].isupper() and (word.isupper() or "-" in word) and len(word) > 1 else None


def _workplace_pred(name: str, past: bool) -> str:
    if _is_school(name):
        return "attended" if past else "attends"
    return "worked-at" if past else "works-at"


def _work_facts(verb: Token, subject: str, past: bool, ctx: _Ctx) -> bool:
    """Jobs, starts and pay; True when the clause was read as one of them.

    'Tom got a job at the city library', 'I accepted an offer from Helix', 'I'll start at Acme on
    June 8', 'Leo will start at Riverside Primary', 'I joined Northwind as a data analyst',
    'I make about $70,000 a year', 'they pay me $85,000', 'they offered me 85k'.
    A new job is current whatever the tense of the getting, so it reads works-at.
    """
    lemma = verb.lemma_
    dobjs = [c for c in verb.children if c.dep_ == "dobj"]
    found = _shifts_at(verb, dobjs, subject, past, ctx) or _school_changed(verb, dobjs, subject, ctx)
    if lemma == "say" and any(c.lower_ == "yes" for c in verb.children):  # "he said yes to Airbus"
        for pobj in (p for prep in _preps(verb, verb, {"to"}) for p in _pobjs(prep)):
            ent = ctx.ents.get(pobj.i)
            name = _name_of(pobj, ctx)
            if name and ent is not None and ent.label_ == "ORG":
                _emit(ctx, subject, "works-at", name, 0.55, obj_tok=None, obj_type="organization")
                found = True
    if lemma in {"quit", "leave", "lose"}:  # "I quit my job at Oracle" -> worked-at Oracle
        for dobj in (d for d in dobjs if d.lemma_.lower() in JOB_NOUNS - {"offer"}):
            pobjs = [p for prep in _preps(dobj, verb, {"at", "with"}) for p in _pobjs(prep)]
            if not pobjs and dobj.lower_ == "job" and any(c.dep_ in {"poss", "det"} for c in dobj.children):
                # "I quit my job": the one current employer ends (store: GENERIC_VALUES)
                _emit(ctx, subject, "left", "job", 0.55, obj_tok=None, ends=True)
                found = True
            for pobj in pobjs:
                name = _name_of(pobj, ctx)
                if name:
                    _emit(
                        ctx, subject, "worked-at", name, 0.6, obj_tok=None, obj_type="organization", ends=True
                    )
                    found = True
    if lemma in {"quit", "leave"}:
        found = _left_for(verb, dobjs, subject, ctx) or found
    found = _manages_me(verb, dobjs, subject, ctx) or found
    particles = [c for c in verb.children if c.dep_ == "prep" and c.lower_ in {"in", "over"}]
    # "handing in my notice": the parser may hang the notice on an "in" preposition
    handed_in = [p for c in particles for p in _pobjs(c)]
    if lemma == "hand" and (
        handed_in or any(c.dep_ in {"prt", "prep"} and c.lower_ in {"in", "over"} for c in verb.children)
    ):
        for dobj in (d for d in [*dobjs, *handed_in] if d.lemma_.lower() in {"notice", "resignation"}):
            # "I handed in my notice at Acme": the job at Acme ends ("my notice" alone: the one job)
            pobjs = [p for prep in _preps(dobj, verb, {"at", "to"}) for p in _pobjs(prep)]
            pobjs += [  # "handed my notice in to the landlord": the "to" hangs on the particle
                p
                for part in particles
                for prep in part.children
                if prep.dep_ == "prep" and prep.lower_ in {"at", "to"}
                for p in _pobjs(prep)
            ]
            names = [n for n in (_name_of(p, ctx) for p in pobjs) if n]
            for name in names:
                _emit(
                    ctx, subject, "resigned-from", name, 0.6, obj_tok=None, obj_type="organization", ends=True
                )
            if not pobjs:
                _emit(ctx, subject, "left", "job", 0.55, obj_tok=None, ends=True)
            found = True
    if lemma in {"get", "have", "win", "secure", "offer"}:  # "Isla's got a place at Brudenell Primary"
        for dobj in (d for d in dobjs if d.lemma_.lower() == "place"):
            for pobj in (p for prep in _preps(dobj, verb, {"at", "in"}) for p in _pobjs(prep)):
                name = _name_of(pobj, ctx)
                if name and _is_school(name) and not _is_irrealis(verb):
                    _emit(ctx, subject, "attends", name, 0.55, obj_tok=pobj)
                    found = True
    if lemma == "work" and not past:  # "Paul works as a civil engineer for Queensland Rail"
        for role in (p for prep in _preps(verb, verb, {"as"}) for p in _pobjs(prep)):
            for prep, pobj in (
                (r, p) for r in _preps(role, verb, {"for", "at", "with", "in"}) for p in _pobjs(r)
            ):
                name = _name_of(pobj, ctx)
                if prep.lower_ == "in" and not _an_org_in(pobj, name, ctx):
                    continue  # "works as a teacher in Leeds": where, not whom
                if name and _employer_named(pobj, name, ctx):  # "working as a barista at Costa"
                    _emit(ctx, subject, "works-at", name, 0.55, obj_tok=None, obj_type="organization")
                    # not `found`: the clause's role ("as a civil engineer") is read as before
    if lemma in WORK_FOR_VERBS and not _is_irrealis(verb):  # "I drive OTR for Buckeye Freightways"
        for pobj in (p for prep in _preps(verb, verb, {"for"}) for p in _pobjs(prep)):
            ent = ctx.ents.get(pobj.i)
            name = _name_of(pobj, ctx)
            if name and ((ent is not None and ent.label_ == "ORG") or _firm_like(pobj, ctx, placed=False)):
                pred = "worked-at" if past else "works-at"
                _emit(ctx, subject, pred, name, 0.55, obj_tok=None, obj_type="organization")
    if lemma in {"rent", "lease"} and not past:  # "renting a little house for $2,900 a month"
        for dobj in (d for d in dobjs if d.lemma_.lower() in HOME_NOUNS):
            for pobj in (p for prep in _preps(dobj, verb, {"for"}) for p in _pobjs(prep)):
                money = _money_value(pobj, ctx)
                if money:
                    _emit(ctx, subject, "has-rent", money, 0.55, obj_tok=None)
                    found = True
    if lemma in {"get", "receive"}:  # "I got a raise to $95,000"
        for dobj in (d for d in dobjs if d.lemma_.lower() in {"raise", "rise", "bump", "increase"}):
            for pobj in (p for prep in _preps(dobj, verb, {"to"}) for p in _pobjs(prep)):
                money = _money_value(pobj, ctx)
                if money:
                    _emit(ctx, subject, "has-salary", money, 0.55, obj_tok=None)
                    found = True
    if lemma in JOB_GET_VERBS:
        for dobj in (d for d in dobjs if d.lemma_.lower() in JOB_NOUNS):
            if dobj.lemma_ == "offer" and lemma not in {"accept", "take"}:
                continue  # an offer received is not a job taken
            for prep in _preps(
                dobj, verb, {"at", "with", "from"} if dobj.lemma_ == "offer" else {"at", "with"}
            ):
                for pobj in _pobjs(prep):
                    obj = _name_of(pobj, ctx) or _object_phrase(pobj, ctx)
                    if obj:
                        pred = _workplace_pred(obj, False)
                        _emit(ctx, subject, pred, obj, 0.6, obj_tok=None, obj_type="organization")
                        found = True
            found = _named_job(dobj, subject, ctx) or _role_as(dobj, verb, subject, ctx) or found
    if lemma in {"do", "pursue", "study"} and not past:  # "doing my MTech at IIT", "doing internship at X"
        for dobj in dobjs:
            kind = dobj.lower_
            if kind not in DEGREE_NOUNS and kind not in TRAINEESHIPS:
                continue
            for pobj in (p for prep in _preps(dobj, verb, {"at", "with"}) for p in _pobjs(prep)):
                idiom = any(c.dep_ == "prep" for c in pobj.children)  # "at zoho side by side"
                obj = _name_of(pobj, ctx) or (None if idiom else _object_phrase(pobj, ctx))
                if obj and kind in DEGREE_NOUNS:
                    _emit(ctx, subject, "studies-at", obj, 0.55, obj_tok=None, obj_type="organization")
                    found = True
                elif obj:
                    _emit(ctx, subject, "works-at", obj, 0.55, obj_tok=None, obj_type="organization")
                    _emit(ctx, subject, "has-role", TRAINEESHIPS[kind], 0.5, obj_tok=None)
                    found = True
    if lemma == "report" and not past:  # "I report to Omar Haddad", "I'll report to Omar"
        for pobj in (p for prep in _preps(verb, verb, {"to"}) for p in _pobjs(prep)):
            ent = ctx.ents.get(pobj.i)
            name = _name_of(pobj, ctx, person=True)
            if name and (ent is None or ent.label_ == "PERSON"):
                _emit(ctx, subject, "has-manager", name, 0.6, obj_tok=None, obj_type="person")
                found = True
    if lemma in {"have", "own"} and not past:  # "we have a 2016 Honda Pilot": a named thing owned
        for dobj in dobjs:
            ent = ctx.ents.get(dobj.i)
            det = next((c.lower_ for c in dobj.children if c.dep_ == "det"), None)
            name = _name_of(dobj, ctx)
            if name and det in {"a", "an"} and (ent is None or ent.label_ in {"PRODUCT", "ORG"}):
                _emit(ctx, subject, "owns", name, 0.55, obj_tok=None, obj_type="product")
                found = True
    if lemma in START_VERBS and dobjs:  # "Callum starts S1 at Whitehill Secondary"
        # "Ella started nursery at Little Acorns": a school started, whatever the tense
        schooling = any(d.lemma_.lower() in SCHOOL_WORDS for d in dobjs)
        work = [d for d in dobjs if d.lower_ == "work"]
        if work and not _is_irrealis(verb):  # "I started work at Acme"
            for pobj in (p for prep in _preps(work[0], verb, {"at", "with", "for"}) for p in _pobjs(prep)):
                name = _name_of(pobj, ctx)
                if name:
                    _emit(ctx, subject, _workplace_pred(name, False), name, 0.55, obj_tok=None)
                    found = True
        for pobj in (p for d in dobjs for prep in _preps(d, verb, {"at"}) for p in _pobjs(prep)):
            named = any(c.dep_ == "compound" and c.pos_ == "PROPN" for c in pobj.children)
            name = _name_of(pobj, ctx) or (_object_phrase(pobj, ctx) if named else None)
            if name and (_is_school(name) or schooling) and (schooling or not past):
                _emit(ctx, subject, "attends", name, 0.55, obj_tok=pobj)
                found = True
    if lemma in START_VERBS and not dobjs:
        for prep in _preps(verb, verb, {"at", "with"}):
            for pobj in _pobjs(prep):
                name = _name_of(pobj, ctx)
                if name:
                    _emit(
                        ctx,
                        subject,
                        _workplace_pred(name, past and lemma != "start"),
                        name,
                        0.6,
                        obj_tok=pobj,
                    )
                    found = True
        found = _role_as(verb, verb, subject, ctx) or found
    if lemma == "join":
        for dobj in dobjs:
            ent = ctx.ents.get(dobj.i)
            name = _name_of(dobj, ctx)
            if name and (ent is None or ent.label_ not in {"PERSON", "GPE", "LOC", "NORP"}):
                _emit(ctx, subject, _workplace_pred(name, False), name, 0.6, obj_tok=dobj)
                found = _role_as(verb, verb, subject, ctx) or True
    if lemma in {"earn", "make"} and not any(c.tag_ == "VBG" for c in verb.children):
        about = [p for prep in _preps(verb, verb, APPROXIMATORS) for p in _pobjs(prep)]  # "earn about 45k"
        for dobj in dobjs + about:  # "I make $20 an hour tutoring" is a side income, not a salary
            money = _money_value(dobj, ctx)
            units = {t.lemma_.lower() for t in dobj.subtree} | {t.lemma_.lower() for t in verb.children}
            if money and not units & {"hour", "day", "week", "shift", "side", "extra"}:
                # "made about 62k last year": pay as it was (history), not the salary now
                _emit(ctx, subject, "earned" if past else "has-salary", money, 0.55, obj_tok=None)
                found = (not past and _paid_at(verb, dobj, subject, ctx)) or True
    return found


def _paid_at(verb: Token, money: Token, subject: str, ctx: _Ctx) -> bool:
    """'I make $72k plus benefits at Target', 'earn about £40k with Aviva': where the pay is earned
    employs the earner (not for pay earned once: "made 62k last year at Aviva" says not whether the
    job goes on). An employer the sentence named already wins."""
    if any(f.subject == subject and f.predicate in WORK_PREDICATES for f in ctx.out):
        return False
    for prep in (*_preps(verb, verb, {"at", "with"}), *_preps(money, money, {"at", "with"})):
        for pobj in _employers(prep, ctx):
            name = _name_of(pobj, ctx, with_of=True)
            if name and _employer_named(pobj, name, ctx) and not _is_date(pobj, ctx):
                pred = _workplace_pred(name, False)
                _emit(ctx, subject, pred, name, 0.5, obj_tok=None, obj_type="organization")
                return True
    return False


def _pay_facts(verb: Token, ctx: _Ctx) -> None:
    """'They pay me $85,000' -> has-salary; 'they offered me 85k', 'he came back with 52k' (the
    employer's counter) -> has-salary-offer (not yet pay)."""
    if _counter_offer(verb, ctx):
        return
    if verb.lemma_ not in {"pay", "offer"} or _is_irrealis(verb):
        return
    if verb.lemma_ == "pay" and _is_past(verb):
        return
    if verb.lemma_ == "pay" and _paid_by_the_hour(verb, ctx):
        return
    dative = next(
        (c for c in verb.children if c.dep_ in {"dative", "dobj"} and c.lower_ in {"me", "us"}), None
    )
    subj = next((c for c in verb.children if c.dep_ == "nsubj"), None)
    if subj is not None and verb.lemma_ == "pay" and subj.lemma_.lower() in JOB_NOUNS - {"offer"}:
        _job_pays(verb, subj, ctx)  # "the new job pays 85k"
        return
    if verb.lemma_ == "pay" and subj is not None and subj.lower_ in SPEAKER_SUBJECTS:
        _rent_paid(verb, ctx)
    if dative is None:
        return
    for dobj in (c for c in verb.children if c.dep_ == "dobj" and c is not dative):
        money = _money_value(dobj, ctx)
        if money:
            pred = "has-salary" if verb.lemma_ == "pay" else OFFERED_PAY
            _emit(ctx, ctx.me, pred, money, 0.55, obj_tok=None)


def _paid_by_the_hour(verb: Token, ctx: _Ctx) -> bool:
    """'I get paid £11.44 an hour', "I'm paid 32k a year", 'they pay £12 an hour' -> has-salary: pay by
    its period, to the speaker (a passive "I") or from an employer's "they" (not "they pay £5 for
    parking": no period of work)."""
    subj = next((c for c in verb.children if c.dep_ in {"nsubj", "nsubjpass"}), None)
    passive = subj is not None and subj.dep_ == "nsubjpass" and subj.lower_ in FIRST_PERSON
    employer = subj is not None and subj.dep_ == "nsubj" and subj.lower_ == "they"
    if not (passive or employer) or ctx.message.role != "user":
        return False
    periods = {"hour", "year", "week", "month"}
    for dobj in (c for c in verb.children if c.dep_ == "dobj"):
        period = any(c.dep_ == "npadvmod" and c.lemma_ in periods for c in dobj.children)
        money = _money_value(dobj, ctx) or _amount(dobj)
        if money and (period or MONEY_SHORT.match(money)):  # "32k": a year's pay; "£50" alone: a one-off
            _emit(ctx, ctx.me, "has-salary", money, 0.55, obj_tok=None)
            return True
    return False


def _rent_paid(verb: Token, ctx: _Ctx) -> None:
    """'We pay £1,450 rent', 'I pay 900 in rent' -> has-rent: an amount the speaker pays, said with
    the word rent (or mortgage) right beside it."""
    for dobj in (c for c in verb.children if c.dep_ == "dobj"):
        kind = dobj.lower_ if dobj.lower_ in {"rent", "mortgage"} else None
        amount = next((c for c in dobj.children if c.dep_ == "nummod"), None) if kind else dobj
        if kind is None:  # "900 in rent"
            kind = next(
                (
                    p.lower_
                    for prep in _preps(verb, verb, {"in", "for"})
                    for p in _pobjs(prep)
                    if p.lower_ in {"rent", "mortgage"}
                ),
                None,
            )
        money = (_money_value(amount, ctx) or _amount(amount)) if amount is not None and kind else None
        if money and _big_enough(money):
            _emit(ctx, ctx.me, "has-rent", money, 0.55, obj_tok=None)


def _counter_offer(verb: Token, ctx: _Ctx) -> bool:
    """'he came back with 52k' in the speaker's message: the other side's offer of pay."""
    back = any(c.dep_ in {"prt", "advmod"} and c.lower_ == "back" for c in verb.children)
    if verb.lemma_ != "come" or not back or ctx.message.role != "user" or _is_irrealis(verb):
        return False
    subj = next((c for c in verb.children if c.dep_ == "nsubj"), None)
    if subj is None or subj.lower_ in {"i", "we"}:
        return False  # "I came back with 2k of shopping"
    found = False
    for pobj in (p for prep in _preps(verb, verb, {"with"}) for p in _pobjs(prep)):
        money = _money_value(pobj, ctx)
        if money and _big_enough(money):
            _emit(ctx, ctx.me, OFFERED_PAY, money, 0.5, obj_tok=None)
            found = True
    return found


def _salary_change(verb: Token, ctx: _Ctx) -> None:
    """'My salary goes up to $95,000', 'Base rises to 95k', "they bumped my salary to £48,000" ->
    has-salary (the new amount)."""
    if _is_irrealis(verb):
        return
    if verb.lemma_ in {"bump", "raise", "increase", "up", "put"}:  # the amount raised by someone
        subj = next((c for c in verb.children if c.dep_ == "dobj"), None)
    elif verb.lemma_ in {"go", "rise", "increase", "jump", "climb", "move", "come"}:  # "comes to €1,950"
        subj = next((c for c in verb.children if c.dep_ == "nsubj"), None)
    else:
        return
    if subj is None or subj.lemma_.lower() not in {*SALARY_NOUNS, *PENSION_NOUNS, "base", "rent"}:
        return  # "my salary went up to £58,000" is the salary now, whatever the tense
    poss = next((c for c in subj.children if c.dep_ == "poss"), None)
    owner = _owner(poss, ctx, subj) if poss is not None else (ctx.me if ctx.message.role == "user" else None)
    if (
        poss is not None
        and poss.lower_ == "our"
        and subj.lemma_.lower() == "rent"
        and ctx.message.role == "user"
    ):
        owner = ctx.me  # the household's rent is the speaker's
    if owner is None:
        return
    targets = [c for c in verb.children if c.dep_ in {"dobj", "npadvmod"}]  # "went up to £1,150"
    targets += [p for prep in _preps(verb, verb, {"to"}) for p in _pobjs(prep)]
    targets += [p for up in verb.children if up.lower_ == "up" for p in _pobjs(up)]  # "going up to £1,100"
    for tok in targets:
        money = _money_value(tok, ctx)
        if money:  # "our rent went up to $2,400": the rent now
            lemma = subj.lemma_.lower()
            pred = "has-rent" if lemma == "rent" else TAKE_HOME if lemma in TAKE_HOME_NOUNS else "has-salary"
            _emit(ctx, owner, pred, money, 0.55, obj_tok=None)
            if pred == "has-salary":  # "my pay went from $22 an hour to $24": the pay before
                _pay_before(verb, owner, ctx)
            return


_ARROWS = frozenset({"→", "->", "=>", "⇒"})
_PAY_NEWS = frozenset({"raise", "rise", "payrise", "pay", "increment", "hike", "bump"})


def _pay_arrow(sent: Span, ctx: _Ctx) -> None:
    """'pay rise came thru!! 52k → 58k': one amount to another in a line about pay is the pay now
    (has-salary) and the pay before (earned); in a line about rent, the rent now."""
    doc = sent.doc
    words = {t.lemma_.lower() for t in doc}  # "pay rise came thru!! 52k → 58k": the news may be a line before
    rent = bool(words & {"rent", "mortgage"})  # "rent 1,200 → 1,350": the rent now
    if not (rent or words & (SALARY_NOUNS | _PAY_NEWS)) or words & FRAGMENT_IRREALIS or _is_question(sent):
        return
    pred, before_pred = ("has-rent", "") if rent else ("has-salary", "earned")
    dashed = (t for t in sent if t.text == ">" and t.i > 0 and doc[t.i - 1].text == "-")  # "52k -> 58k"
    for arrow in [*(t for t in sent if t.text in _ARROWS), *dashed]:
        before = doc[arrow.i - 2] if arrow.text == ">" else doc[arrow.i - 1]
        after = doc[arrow.i + 1] if arrow.i + 1 < len(doc) else None
        old, new = _pay_amount(before, ctx), _pay_amount(after, ctx) if after is not None else None
        if old and new:
            # "salary 40,000 → 44,000": the line's key read the first amount as the pay now
            ctx.out[:] = [f for f in ctx.out if not (f.predicate == pred and f.object == old)]
            _emit(ctx, ctx.me, pred, new, 0.5, obj_tok=None)
            if before_pred:
                _emit(ctx, ctx.me, before_pred, old, 0.5, obj_tok=None)
            return


def _pay_amount(tok: Token, ctx: _Ctx) -> str | None:
    """An amount as pay is written: money, "58k", or a number of thousands ("44,000")."""
    value = _money_value(tok, ctx) or (tok.text if MONEY_SHORT.match(tok.text) else None)
    if value is None and tok.like_num and re.fullmatch(r"\d{1,3},\d{3}", tok.text):
        value = tok.text
    return value


def _pay_before(verb: Token, owner: str, ctx: _Ctx) -> None:
    """The amount a pay change started "from": pay as it was (earned)."""
    for tok in (p for prep in _preps(verb, verb, {"from"}) for p in _pobjs(prep)):
        money = _money_value(tok, ctx)
        if money:
            _emit(ctx, owner, "earned", money, 0.5, obj_tok=None)


def _hired(verb: Token, subject: str, ctx: _Ctx) -> bool:
    """'Jenna got hired at the Denver Public Library as a coordinator' -> works-at + has-role."""
    if verb.lemma_ not in HIRE_VERBS or (
        verb.lemma_ == "take" and not any(c.lower_ == "on" for c in verb.children)
    ):
        return False
    found = False
    for pobj in (p for prep in _preps(verb, verb, {"at", "by"}) for p in _pobjs(prep)):
        obj = _name_of(pobj, ctx, with_of=True)
        ent = ctx.ents.get(pobj.i)
        if obj and (ent is None or ent.label_ != "PERSON"):  # "hired by the City of Utrecht": an employer
            pred = _workplace_pred(obj, False)
            _emit(ctx, subject, pred, obj, 0.6, obj_tok=None, obj_type="organization")
            found = True
    return _role_as(verb, verb, subject, ctx) or found


def _car_owned(verb: Token, subject: str, ctx: _Ctx) -> bool:
    """'We bought a secondhand Skoda Octavia estate', 'we have a 2016 Honda Pilot', 'picked up the
    Fabia' -> has-car (one car at a time: a new one ends the old; 'sold the Corsa' ends it too).
    Not one bought for someone else ('a Polo for my daughter')."""
    if verb.lemma_ not in CAR_GET_VERBS or (
        verb.lemma_ == "pick" and not any(c.dep_ == "prt" and c.lower_ == "up" for c in verb.children)
    ):
        return False
    found = False
    for dobj in (c for c in verb.children if c.dep_ == "dobj" and _is_car(c)):
        if any(p.dep_ == "pobj" for prep in _preps(dobj, verb, {"for"}) for p in prep.children):
            continue
        obj = _object_phrase(dobj, ctx, prefer_name=False)
        if obj:
            _emit(ctx, subject, "drives" if verb.lemma_ == "drive" else "has-car", obj, 0.6, obj_tok=dobj)
            found = True
    return found


def _is_car(tok: Token) -> bool:
    """A car named by its make or model ('Skoda Octavia estate', 'RAV4', 'a 2019 Golf')."""
    words = [tok, *(c for c in tok.children if c.dep_ == "compound")]
    named = any(w.text in CAR_NAMES for w in words)
    return named and (tok.pos_ == "PROPN" or tok.text in CAR_MODELS or tok.lower_ in CAR_NOUNS)


def _offers(sent: Span, ctx: _Ctx) -> None:
    """A job offer received: 'Helix Robotics offered me a job', "Paul's been offered a job with the
    Council", 'I got an offer from Monzo', 'offer from feedzai, senior engineer' -> has-offer-from,
    which a later acceptance naming no employer resolves to (store/offers.py)."""
    for tok in (t for t in sent if t.lemma_ == "offer"):
        verb = tok if tok.pos_ == "VERB" or tok.dep_ == "ROOT" else tok.head
        if _is_irrealis(verb) or any(c.dep_ == "neg" for c in verb.children):
            continue  # "I didn't get the offer", "if I get an offer from X"
        # "offer from feedzai, ...": a lower-case line's first word the tagger makes a verb
        line = tok.dep_ == "ROOT" and _opens_sentence(tok) and not _has_subject(tok)
        line = line and bool(_preps(tok, tok, {"from"}))
        if tok.pos_ == "VERB" and not line:
            _offer_verb(tok, ctx)
        elif line or (tok.pos_ == "NOUN" and (tok.dep_ == "ROOT" or tok.head.lemma_ in OFFER_GET_VERBS)):
            owners = _subjects(tok.head, ctx) if tok.dep_ != "ROOT" else [ctx.me]
            if not owners and ctx.message.role == "user" and _opens_sentence(tok.head):
                owners = [ctx.me]  # "Got an offer from Feedzai: ...": chat dropped the "I"
            orgs = _orgs_of(tok, {"from"}, ctx)
            for org in orgs:
                for owner in owners:
                    _emit(ctx, owner, OFFER_PREDICATE, org, 0.55, obj_tok=None, obj_type="organization")
            if orgs and owners == [ctx.me]:
                _offer_terms(tok, ctx)
    _job_news(sent, ctx)


def _job_news(sent: Span, ctx: _Ctx) -> None:
    """The speaker's offers named before the word ("the Stripe offer came through"), offers turned down,
    and a new job started without its employer's name (extract/job_news.py)."""
    for kind, name in job_news.named_offers(sent):
        predicate = DECLINED_OFFER if kind == "declined" else OFFER_PREDICATE
        _emit(ctx, ctx.me, predicate, name, 0.55, obj_tok=None, obj_type="organization")
    if job_news.job_started(sent):
        _emit(ctx, ctx.me, ACCEPTED_OFFER, STARTED_JOB, 0.5, obj_tok=None)
    for firm in job_news.joined_firms(sent):
        _emit(ctx, ctx.me, "works-at", firm, 0.55, obj_tok=None, obj_type="organization")


def _opens_sentence(tok: Token) -> bool:
    return all(t.is_punct for t in tok.doc[tok.sent.start : tok.i])


def _offer_terms(offer: Token, ctx: _Ctx) -> None:
    """The terms listed after an offer's employer: 'offer from feedzai, senior software engineer, 62k
    euro per year' -> has-offered-role and has-salary-offer (made the role and salary when the offer
    is accepted). Fragments parted by commas or a colon, read in order until one is neither."""
    doc, sent = offer.doc, offer.sent
    pobjs = [p.i for prep in offer.children if prep.dep_ == "prep" for p in _pobjs(prep)]
    start = max(pobjs, default=offer.i)  # the employer's head word ends its name
    fragment: list[Token] = []
    for tok in [*doc[start + 1 : sent.end], None]:
        if tok is not None and tok.text not in {",", ":", ";", "-", "–", "(", ")", "|", "."}:
            fragment.append(tok)
            continue
        if fragment and not _offer_term(fragment, ctx):
            return
        fragment = []


def _offer_term(words: list[Token], ctx: _Ctx) -> bool:
    """One listed term of an offer: its pay or its title; False when it is neither."""
    for tok in words:
        amount = ctx.ents.get(tok.i) is not None or MONEY_SHORT.match(tok.text)
        money = _money_value(tok, ctx) if amount else None
        if money and _big_enough(money):
            _emit(ctx, ctx.me, OFFERED_PAY, money, 0.5, obj_tok=None)
            return True
    words = [t for t in words if t.dep_ != "det"]
    titled = 0 < len(words) <= 6 and _is_title_word(words[-1])
    if titled and all(t.pos_ in {"NOUN", "PROPN", "ADJ", "NUM"} or t.text == "-" for t in words):
        _emit(ctx, ctx.me, OFFERED_ROLE, _drop_new(" ".join(t.text for t in words)), 0.5, obj_tok=None)
        return True
    return False


def _offer_verb(verb: Token, ctx: _Ctx) -> None:
    jobs = [c for c in verb.children if c.dep_ == "dobj" and c.lemma_.lower() in JOB_NOUNS - {"offer"}]
    if not jobs:
        return
    owners: list[str | None]
    if any(c.dep_ == "nsubjpass" for c in verb.children):  # "Paul's been offered a job with X"
        owners = list(_subjects(verb, ctx))
        orgs = [o for j in jobs for o in _orgs_of(j, {"with", "at", "from", "by"}, ctx)]
    else:  # "Helix Robotics offered me a job"
        owners = [_resolve_subject(c, ctx) for c in verb.children if c.dep_ == "dative"]
        subj = next((c for c in verb.children if c.dep_ == "nsubj"), None)
        named = _name_of(subj, ctx) if subj is not None and subj.pos_ == "PROPN" else None
        orgs = [named] if named else []
    for owner in (o for o in owners if o):
        for org in orgs:
            _emit(ctx, owner, OFFER_PREDICATE, org, 0.55, obj_tok=None, obj_type="organization")
        for title in (t for t in map(_offered_title, jobs) if t and orgs):
            _emit(ctx, owner, OFFERED_ROLE, title, 0.5, obj_tok=None)


def _offered_title(job: Token) -> str | None:
    """'the Pharmacy Clinical Coordinator position', 'a senior engineer role' -> the title before the
    job noun (its compound and adjective words), or None ('the job', 'a great job')."""
    words = [c for c in job.children if c.dep_ in {"compound", "amod"} and c.i < job.i]
    if not words or job.lemma_.lower() not in {"position", "role", "job", "post"}:
        return None
    start = min(t.i for w in words for t in w.subtree)  # "Pharmacy Clinical Coordinator": the chain
    span = job.doc[start : job.i]
    titled = any(_is_title_word(t) for t in span)
    if not titled or any(t.lower_ in EVALUATIVE for t in span):
        return None  # "a great job", "the full-time one": no title
    return _drop_new(span.text)


def _orgs_of(noun: Token, preps: set[str], ctx: _Ctx) -> list[str]:
    """Names after a noun's (or its verb's) prepositions: 'an offer from Monzo', 'a job with the Council'."""
    pobjs = (_org_behind_place(p, ctx) for prep in _preps(noun, noun.head, preps) for p in _pobjs(prep))
    return [n for p in pobjs if (n := _name_of(p, ctx) or _proper_lower(p, ctx))]


def _org_behind_place(pobj: Token, ctx: _Ctx) -> Token:
    """'an offer from UK, Royal Berkshire NHS Foundation Trust': the organisation the country leads to."""
    ent = ctx.ents.get(pobj.i)
    if ent is None or ent.label_ != "GPE":
        return pobj
    orgs = [c for c in pobj.children if c.dep_ in {"appos", "conj"} and _label(c, ctx) == "ORG"]
    return orgs[0] if orgs else pobj


def _label(tok: Token, ctx: _Ctx) -> str:
    ent = ctx.ents.get(tok.i)
    return ent.label_ if ent is not None else ""


def _proper_lower(tok: Token, ctx: _Ctx) -> str | None:
    """A lower-case word the tagger still reads as a name ('offer from feedzai'): kept as typed."""
    ent = ctx.ents.get(tok.i)
    if (
        tok.pos_ in {"PROPN", "ADJ", "NOUN"}
        and tok.is_alpha
        and tok.is_lower
        and (ent is None or ent.label_ == "ORG")
    ):
        return tok.text if tok.dep_ == "pobj" and tok.head.lower_ == "from" else None
    return None


def _accepted(verb: Token, subject: str, ctx: _Ctx) -> bool:
    """'I accepted it', 'I took the job', 'he took the Council one', 'he said yes to airbus' with no
    employer the rules could read: an ACCEPTED_OFFER of the name given (or "offer"), which the store
    turns into works-at the offer's organisation, or drops when the subject has no such offer."""
    if ctx.message.role != "user" or _is_irrealis(verb):
        return False
    lemma = verb.lemma_
    said_yes = lemma == "say" and any(c.lower_ == "yes" for c in verb.children)
    if said_yes:
        objs = [p for prep in _preps(verb, verb, {"to"}) for p in _pobjs(prep)]
        if not objs and _about_a_job(verb.doc):  # "... I said yes!! start date is May 13"
            _emit(ctx, subject, ACCEPTED_OFFER, "offer", 0.55, obj_tok=None)
            return True
    elif lemma in {"accept", "take"}:
        objs = [c for c in verb.children if c.dep_ == "dobj"]
        bare = not objs and not any(c.dep_ in {"prep", "ccomp", "xcomp"} for c in verb.children)
        if lemma == "accept" and bare:
            _emit(ctx, subject, ACCEPTED_OFFER, "offer", 0.55, obj_tok=None)  # "I accepted, and I start..."
            return True
    else:
        return False
    for obj in objs:
        ent = ctx.ents.get(obj.i)
        if ent is not None and ent.label_ in {"PERSON", "DATE", "TIME", "GPE", "MONEY"}:
            continue
        if obj.lemma_.lower() in JOB_NOUNS or obj.lower_ == "one" or (obj.lower_ == "it" and lemma != "take"):
            name = next(
                (_name_of(c, ctx) for c in obj.children if c.dep_ == "compound" and c.pos_ == "PROPN"), None
            )
        elif obj.pos_ == "PROPN":
            name = _name_of(obj, ctx)
        else:
            continue
        _emit(ctx, subject, ACCEPTED_OFFER, name or "offer", 0.55, obj_tok=None)
        return True
    return False


def _about_a_job(doc: Doc) -> bool:
    """A message that speaks of a job's terms (an offer, a salary, a start date, an amount): a bare
    'I said yes' in it answers the job, not a proposal."""
    words = {"offer", "job", "role", "position", "salary", "contract", "start"}
    return any(t.lemma_.lower() in words or t.ent_type_ == "MONEY" for t in doc)


def _named_job(job: Token, subject: str, ctx: _Ctx) -> bool:
    """'I accepted the Helix offer', 'took Google's job': the employer named before the job noun."""
    names = [
        name
        for c in job.children
        if c.dep_ in {"compound", "poss"} and c.pos_ == "PROPN" and c.i < job.i and _is_org(c, ctx)
        if (name := _name_of(c, ctx))
    ]
    for name in names[:1]:
        _emit(ctx, subject, "works-at", name, 0.6, obj_tok=None, obj_type="organization")
    return bool(names)


def _laid_off(verb: Token, subject: str, ctx: _Ctx) -> bool:
    """'I was laid off from Northwind', 'Tom got fired from the bank': the job ended (worked-at, an
    ending)."""
    laid_off = verb.lemma_ == "lay" and any(c.dep_ == "prt" and c.lower_ == "off" for c in verb.children)
    redundant = [c for c in verb.children if c.dep_ in {"oprd", "acomp"} and c.lower_ == "redundant"]
    made_redundant = verb.lemma_ == "make" and bool(redundant)  # "I've been made redundant from Arcadia"
    ended = laid_off or made_redundant or verb.lemma_ in {"fire", "sack"}
    done = _is_past(verb) or any(c.dep_ == "aux" and c.lemma_ == "have" for c in verb.children)  # "I've been"
    if not ended or _is_irrealis(verb) or not done:
        return False
    preps = [prep for h in [verb, *redundant] for prep in _preps(h, h, {"from", "at", "by"})]
    names = [
        name
        for pobj in (p for prep in preps for p in _pobjs(prep))
        if (name := _name_of(pobj, ctx, with_of=True)) and _employer_named(pobj, name, ctx)
    ]
    for name in names:
        _emit(ctx, subject, "worked-at", name, 0.6, obj_tok=None, obj_type="organization", ends=True)
    return bool(names)


def _made_me_redundant(verb: Token, ctx: _Ctx) -> None:
    """'They made me redundant at Wilko' -> worked-at Wilko, an ending: whoever 'they' are, the job
    was mine (the passive 'I was made redundant' is _laid_off's)."""
    if verb.lemma_ != "make" or ctx.message.role != "user" or _is_irrealis(verb) or not _is_past(verb):
        return
    for red in (c for c in verb.children if c.lower_ == "redundant"):
        if not any(c.lower_ == "me" for c in [*verb.children, *red.children]):
            continue
        preps = [prep for h in (verb, red) for prep in _preps(h, h, {"from", "at", "by"})]
        for pobj in (p for prep in preps for p in _pobjs(prep)):
            name = _name_of(pobj, ctx, with_of=True)
            if name and _employer_named(pobj, name, ctx):
                _emit(ctx, ctx.me, "worked-at", name, 0.6, obj_tok=None, obj_type="organization", ends=True)


def _is_org(tok: Token, ctx: _Ctx) -> bool:
    """An organisation's name: tagged so, or untagged and no job title ('the Pilot job')."""
    ent = ctx.ents.get(tok.i)
    return ent.label_ == "ORG" if ent is not None else tok.lower_ not in JOB_TITLE_NOUNS


def _employer_named(tok: Token, name: str, ctx: _Ctx) -> bool:
    """A name that can be an employer where the clause says it is one: untagged, an organisation, or
    a place or person tag the small model gives a firm ("Costa", "Arcadia") unless it is a known city
    or country."""
    ent = ctx.ents.get(tok.i)
    if ent is None or ent.label_ not in {"PERSON", "GPE", "LOC", "DATE", "TIME"}:
        return True
    return ent.label_ in {"PERSON", "GPE"} and not places.big_place(name)


def _an_org_in(tok: Token, name: str | None, ctx: _Ctx) -> bool:
    """After "in" a name is an employer only when tagged an organisation and no place the gazetteer
    knows ("working as staff nurse in Apollo Hospitals", not "in Round Rock")."""
    ent = ctx.ents.get(tok.i)
    return (
        bool(name)
        and ent is not None
        and ent.label_ == "ORG"
        and places.fold(name or "") not in places.places()
    )


def _org_or_unknown(tok: Token, ctx: _Ctx) -> bool:
    ent = ctx.ents.get(tok.i)
    return ent is None or ent.label_ not in {"PERSON", "DATE", "TIME", "GPE"}


def _job_pays(verb: Token, subj: Token, ctx: _Ctx) -> None:
    owner_tok = next((c for c in subj.children if c.dep_ == "poss"), None)
    det = next((c.lower_ for c in subj.children if c.dep_ == "det"), None)
    mine = owner_tok is not None and owner_tok.lower_ in FIRST_PERSON_POSS
    if ctx.message.role != "user" or not (mine or (owner_tok is None and det == "the")):
        return
    for dobj in (c for c in verb.children if c.dep_ == "dobj"):
        money = _money_value(dobj, ctx)
        if money:
            _emit(ctx, ctx.me, "has-salary", money, 0.55, obj_tok=None)


def _preps(tok: Token, verb: Token, words: set[str]) -> list[Token]:
    """Prepositions of a noun or of its verb (the parser hangs 'at X' on either)."""
    heads = [tok] if tok.i == verb.i else [tok, verb]
    return [c for h in heads for c in h.children if c.dep_ in {"prep", "agent"} and c.lower_ in words]


def _pobjs(prep: Token) -> list[Token]:
    return [c for c in prep.children if c.dep_ == "pobj"]


def _role_as(tok: Token, verb: Token, subject: str, ctx: _Ctx) -> bool:
    """'... a job at X as a data analyst', 'joined X as a designer' -> has-role."""
    found = False
    for prep in _preps(tok, verb, {"as"}):
        for pobj in _pobjs(prep):
            if pobj.pos_ in {"NOUN", "PROPN"}:
                obj = _object_phrase(pobj, ctx, with_of=True)
                if obj:
                    _emit(ctx, subject, "has-role", _drop_new(obj), 0.55, obj_tok=None)
                    found = True
    return found


def _career_as(verb: Token, subject: str, ctx: _Ctx) -> bool:
    """'I started out as a linesman', 'finished up as district supervisor when I retired', 'she
    retired as head teacher' -> worked-as: a role held once, told as a career's start or end ("started
    out"; a plain "started as" is a job begun, the role now)."""
    if verb.lemma_ not in CAREER_VERBS or _is_irrealis(verb):
        return False
    if verb.lemma_ in {"start", "begin"} and not any(c.lower_ in {"out", "off"} for c in verb.children):
        return False  # "I started as a data analyst at X in March" is the job now
    found = False
    for pobj in (p for prep in _preps(verb, verb, {"as"}) for p in _pobjs(prep)):
        obj = _object_phrase(pobj, ctx, with_of=True) if pobj.pos_ in {"NOUN", "PROPN"} else None
        if obj and any(_is_title_word(t) for t in pobj.subtree):
            _emit(ctx, subject, "worked-as", _drop_new(obj), 0.55, obj_tok=None)
            found = True
    return found


def _is_job(noun: Token) -> bool:
    """A noun naming an occupation ("nurse", "senior translator"); students study, they hold no job."""
    lemma = noun.lemma_.lower()
    return lemma in JOB_TITLE_NOUNS and lemma not in STUDENT_NOUNS and noun.pos_ in {"NOUN", "PROPN"}


def _is_title_word(tok: Token) -> bool:
    """An occupation noun ("nurse") or a title's head word ("Coordinator", "Head")."""
    lower = tok.lower_  # "the dispatcher job": tagged an adjective of lemma "dispatch"
    return _is_job(tok) or lower in TITLE_HEADS or (lower in JOB_TITLE_NOUNS and lower not in STUDENT_NOUNS)


def _is_title(attr: Token) -> bool:
    """A job title written as a name: 'Head of Design', 'Senior Product Manager', 'VP Sales'."""
    words = [t for t in attr.subtree if t.i <= attr.i or t.dep_ in {"prep", "pobj"}]
    return any(t.lower_ in TITLE_HEADS for t in words if t.pos_ in {"PROPN", "NOUN"})


# --------------------------------------------------------------------------- output


def _emit(
    ctx: _Ctx,
    subject: str,
    predicate: str,
    obj: str,
    conf: float,
    obj_tok: Token | None,
    obj_type: EntityType | None = None,
    subj_type: EntityType | None = None,
    ends: bool = False,
) -> None:
    subject, obj = subject.strip(), obj.strip()
    predicate = PREDICATE_ALIASES.get(predicate, predicate)
    if predicate in _UNIT_PREDICATES and _a_unit(obj):
        predicate = _UNIT_PREDICATES[predicate]  # "working in AMU": a ward of the employer, not another
    ends = ends or ctx.ending or predicate in ENDING_PREDICATES
    if subject.lower() == obj.lower() or not predicate or not _clean(subject) or not _clean(obj):
        return
    if predicate in PERSON_SUBJECT_PREDICATES and (predicate != "is-aged" or subj_type):
        subj_type = "person"  # only a person has a spouse, a child, a manager, an age or a job
    subject_type = subj_type or _type_of_text(subject, ctx)
    object_type = _object_type(predicate, obj, obj_tok, obj_type, ctx)
    ctx.out.append(
        FactCandidate(
            subject=subject,
            predicate=predicate,
            object=obj,
            tier="spacy",
            confidence=max(0.5, min(0.7, conf)),
            subject_type=subject_type,
            object_type=object_type,
            subject_type_implied=subject_type == "person" and predicate in PERSON_SUBJECT_PREDICATES,
            object_type_implied=object_type is not None
            and object_type == PREDICATE_OBJECT_TYPES.get(predicate),
            ends=ends,
        )
    )


# A ward, unit or department someone works in is part of their employer: it neither is one nor ends one.
_UNIT_PREDICATES = {"works-at": "works-in", "worked-at": "worked-in", "works-for": "works-in"}
_UNIT_HEADS = frozenset({"unit", "ward", "department", "dept", "division", "team", "section", "wing"})
_UNIT_ABBREVIATIONS = frozenset(
    {"ICU", "NICU", "PICU", "HDU", "CCU", "ITU", "AMU", "MAU", "SCBU", "A&E", "ED", "ER", "OR", "OT"}
)


def _a_unit(name: str) -> bool:
    """'AMU', 'the Acute Medical Unit', 'Cardiology Department', 'platform team': a part of an employer."""
    words = name.split()
    return bool(words) and (name in _UNIT_ABBREVIATIONS or words[-1].lower() in _UNIT_HEADS)


def _object_type(
    predicate: str, obj: str, obj_tok: Token | None, given: EntityType | None, ctx: _Ctx
) -> EntityType | None:
    """The predicate's type wins for a named object; a value (a title, an age) is no entity."""
    if predicate in VALUE_PREDICATES:
        return None
    found = _token_type(obj_tok, ctx) or given or _type_of_text(obj, ctx)
    implied = PREDICATE_OBJECT_TYPES.get(predicate)
    if implied is None or found in {"email", "url"}:
        return found
    named = found is not None or any(w[:1].isupper() or w[:1] in "$€£¥" for w in obj.split())
    if implied == "money":
        named = any(c.isdigit() for c in obj)
    if implied == "organization" and predicate in {"works-at", "worked-at"} and given == "organization":
        named = True
    return implied if named else found


def _clean(text: str) -> bool:
    """Names and noun phrases only: markup, code and table debris are parse accidents."""
    return bool(CLEAN_VALUE.match(text)) and len(text.split()) <= MAX_VALUE_WORDS


def _token_type(tok: Token | None, ctx: _Ctx) -> EntityType | None:
    if tok is None:
        return None
    if tok.like_email:
        return "email"
    if tok.like_url:
        return "url"
    ent = ctx.ents.get(tok.i)
    return LABEL_TYPES.get(ent.label_) if ent is not None else None


def _type_of_text(text: str, ctx: _Ctx) -> EntityType | None:
    if text == ctx.me:  # the speaker; an assistant is not typed as a person
        return None if ctx.message.role == "assistant" else "person"
    for ent in set(ctx.ents.values()):
        if _strip_det(ent) == text:
            return LABEL_TYPES.get(ent.label_)
    return None


def dedupe_facts(facts: list[FactCandidate]) -> list[FactCandidate]:
    """The first of each triple, its ends compared without case (one message may state it twice)."""
    seen: set[tuple[str, str, str]] = set()
    result = []
    for fact in facts:
        key = (fact.subject.casefold(), fact.predicate, fact.object.casefold())
        if key not in seen:
            seen.add(key)
            result.append(fact)
    return result


# --------------------------------------------------------------------------- word forms


def _verb_form(verb: Token, past: bool) -> str:
    lemma = verb.lemma_.lower()
    if past:
        return verb.lower_ if verb.tag_ == "VBD" else _past(lemma)
    if verb.tag_ == "VBZ" and verb.lower_.isalpha():
        return verb.lower_  # already third person; the lemmatizer can be wrong ("hates" -> "hat")
    return _third_person(lemma)


def _past(lemma: str) -> str:
    if lemma in IRREGULAR_PAST:
        return IRREGULAR_PAST[lemma]
    if lemma.endswith("e"):
        return lemma + "d"
    if re.search(r"[^aeiou]y$", lemma):
        return lemma[:-1] + "ied"
    return lemma + "ed"


def _third_person(lemma: str) -> str:
    if lemma in IRREGULAR_PRESENT:
        return IRREGULAR_PRESENT[lemma]
    if re.search(r"(s|sh|ch|x|z|o)$", lemma):
        return lemma + "es"
    if re.search(r"[^aeiou]y$", lemma):
        return lemma[:-1] + "ies"
    return lemma + "s"


def _kebab(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
