"""spaCy dependency-parse fact tier: zero-LLM subject-predicate-object triples.

Why rule-based: this tier runs on every message with no model beyond the spaCy pipeline that
already parsed it, so it must be fast and, above all, precise. Wrong facts are worse than
missing ones, so every construction we are unsure of (questions, conditionals, modals, hedges,
negation, unresolved pronouns, unnamed subjects) yields nothing. The rules and the predicate
vocabulary are documented in docs/extraction-facts.md.

The tier is split by what a rule reads about, each module importing only those listed before it:
`grammar` (does a clause assert anything), `context` (per-message state and the one exit, `_emit`),
`nouns` and `names` (what a word is, who a token names), the topics (`health`, `family`, `couples`,
`kid_lists`, `belongings`, `homes`, `work`, `offers`, `money`), then `clauses`, `lines`, `notes` (a
pasted note's "key: value" lines) and `sentences`, which read a sentence and hand its parts to the topics.
"""

from __future__ import annotations

import logging
import re

from spacy.tokens import Doc

from knowledge_engine.extract.arrival import arrival_places
from knowledge_engine.extract.dependency.context import MANAGER_PREDICATES, _Ctx, _emit, dedupe_facts
from knowledge_engine.extract.dependency.grammar import _is_school
from knowledge_engine.extract.dependency.names import _name_of
from knowledge_engine.extract.dependency.notes import _line_facts_owned
from knowledge_engine.extract.dependency.sentences import _sentence_facts
from knowledge_engine.extract.dependency.work import _TEACHING, _at_a_new_job
from knowledge_engine.extract.kids import child_age, possessive_ages, speaks_of_own_kids
from knowledge_engine.extract.lexicon import (
    FIRST_NAME_MARK,
    KIN_PREFIX,
    MAX_SENTENCE_TOKENS,
    PRONOUN,
    SCHOOL_STAGES,
    SCHOOL_YEAR,
    SCHOOL_YEAR_SAID,
)
from knowledge_engine.model.extraction import FactCandidate
from knowledge_engine.model.records import Message
from knowledge_engine.observe import counters, emit

__all__ = [
    "MANAGER_PREDICATES",
    "dedupe_facts",
    "extract_triples",
    "is_pronoun",
    "pronoun_first_names",
    "pronoun_gender",
    "pronoun_hints",
]


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
        if keep_pronouns:
            return facts
        placeholder = (PRONOUN, KIN_PREFIX)  # the session resolves them; none is stored as it is
        return [
            f for f in facts if not f.subject.startswith(placeholder) and not f.object.startswith(placeholder)
        ]
    except Exception as exc:  # a parse shape the rules did not foresee must not stop ingestion
        counters.inc("extract.spacy.facts_failed")
        emit("facts.spacy.failed", level=logging.WARNING, message_id=message.id, error=type(exc).__name__)
        return []


def is_pronoun(subject: str) -> bool:
    """An unresolved he/she subject (`PRONOUN`, or `PRONOUN:f` / `PRONOUN:m` with its gender)."""
    return subject.startswith(PRONOUN)


def pronoun_gender(subject: str) -> str | None:
    """'f' for an unresolved she, 'm' for he, None when unknown."""
    head = subject.partition("|")[0]
    return head.rpartition(":")[2] if head.startswith(PRONOUN + ":") else None


def pronoun_hints(subject: str) -> list[str]:
    """The names the message wrote before an unresolved he/she (`PRONOUN:m|Ciarán|Intel`), which the
    model did not tag people: the one the session knows as a person is whom it means."""
    hints = subject.split("|")[1:] if is_pronoun(subject) else []
    return [h.removeprefix(FIRST_NAME_MARK) for h in hints if h]


def pronoun_first_names(subject: str) -> list[str]:
    """The hints that are first names of the pronoun's gender (`PRONOUN:f|+Maya|Tesco`): whom it means
    when the session knows none of the hints as a person and there is exactly one."""
    hints = subject.split("|")[1:] if is_pronoun(subject) else []
    return [h.removeprefix(FIRST_NAME_MARK) for h in hints if h.startswith(FIRST_NAME_MARK)]


def _extract(doc: Doc, message: Message) -> list[FactCandidate]:
    ctx = _Ctx(message=message, ents={t.i: e for e in doc.ents for t in e})
    before, prev = 0, None  # the previous sentence and where its facts start
    for sent in doc.sents:
        if len(sent) > MAX_SENTENCE_TOKENS:
            counters.inc("extract.spacy.facts_skipped_long_sentence")
            continue
        first = len(ctx.out)
        _sentence_facts(sent, ctx)
        _line_facts_owned(sent, first, ctx)  # "Liesl – moved to Stellenbosch": Liesl's, not the speaker's
        # "Aoife started at Salerno last week. She's in first year.": the year may come next (then
        # the place's sentence is the one that must not speak of teaching or work)
        follows = prev is not None and sent[0].lower_ in {"she", "he"}
        start, place = (before, prev) if follows and prev is not None else (first, sent)
        if SCHOOL_YEAR_SAID.search(sent.text) and not any(t.lemma_.lower() in _TEACHING for t in place):
            said = (_at_school(f, ctx) for f in ctx.out[start:])
            ctx.out[start:] = [f for f in said if not _school_year(f.object)]  # "is-in Grade 10"
        before, prev = first, sent
    if message.role == "user":
        _arrived(doc, ctx)
        _kids_by_age(doc, ctx)
        _at_a_new_job(doc, ctx)
    # An unnamed assistant's "I" is a letter or a reply it drafts for the user ("I have accepted a
    # position at X"), never a fact about itself; a named sender (a second person in the chat) keeps its.
    drafted = message.role == "assistant" and ctx.me == "assistant"
    facts = dedupe_facts([_at_named_school(f, ctx) for f in ctx.out if not (drafted and f.subject == ctx.me)])
    return _whole_titles(facts)


_TITLE_PREDICATES = frozenset({"has-role", "is-a"})


def _whole_titles(facts: list[FactCandidate]) -> list[FactCandidate]:
    """A title's first words read as a title of their own beside the whole ("my new role is Head of
    Design": "Head" and "Head of Design"; "I'm a band 6 nurse": "band") leave only the whole."""
    roles = [(f.subject, f.object.casefold()) for f in facts if f.predicate == "has-role"]
    cut = [
        f
        for f in facts
        if f.predicate in _TITLE_PREDICATES
        and any(s == f.subject and r.startswith(f.object.casefold() + " ") for s, r in roles)
    ]
    if cut:
        counters.inc("extract.spacy.title_cut", len(cut))
    return [f for f in facts if not any(f is c for c in cut)]


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


def _school_year(obj: str) -> bool:
    return bool(SCHOOL_YEAR.fullmatch(obj)) or obj.lower() in SCHOOL_STAGES


# Where someone else is "at" a place in a sentence that gives their school year, the place is their
# school ("Chloé is in Grade 10 at Lakeside"), unless the sentence speaks of teaching or work.
_AT_PLACE = frozenset({"works-at", "is-at", "goes-at", "started-at", "starts-at"})


def _at_school(fact: FactCandidate, ctx: _Ctx) -> FactCandidate:
    if fact.predicate not in _AT_PLACE or fact.subject == ctx.me:
        return fact
    counters.inc("extract.spacy.school_year")
    return fact.model_copy(update={"predicate": "attends", "object_type": "organization"})


# Being at a place whose name says it is a school ("settled at Didsbury Road Primary", "happy in
# St Anne's Primary", "loves Wee Sparrows nursery", "has settled in well at Hillside Primary", "was
# accepted at Hillside Academy", "transferred to Hillside Primary") is attending it, for anyone but
# the speaker.
_AT_SCHOOL_NAMED = re.compile(
    r"(?:is-|was-)?(?:settled|settles|settling|happy|doing-well|thriving|enrolled|registered|accepted|admitted)"
    r"(?:-in)?-(?:at|in|into)|(?:transferred|transfers|switched|switches|moved|goes)-(?:to|at)|is-at|is-in|loves"
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
