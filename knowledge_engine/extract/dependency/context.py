"""Per-message state and the one exit of every rule.

Why one exit: `_emit` applies predicate aliases, folds a ward or department into its employer,
marks endings and types both ends of a triple the same way whichever rule found it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from spacy.tokens import Span, Token

from knowledge_engine.extract.cars import Cars
from knowledge_engine.extract.dependency.grammar import _is_irrealis
from knowledge_engine.extract.lexicon import (
    CLEAN_VALUE,
    ENDING_PREDICATES,
    IRREGULAR_PAST,
    IRREGULAR_PRESENT,
    KIN_PREFIX,
    MAX_VALUE_WORDS,
    PERSON_SUBJECT_PREDICATES,
    PREDICATE_ALIASES,
    PREDICATE_OBJECT_TYPES,
    PRONOUN,
    VALUE_PREDICATES,
)
from knowledge_engine.extract.nlp import LABEL_TYPES
from knowledge_engine.extract.regex import MONEY
from knowledge_engine.model.extraction import FactCandidate
from knowledge_engine.model.predicates import store_families
from knowledge_engine.model.records import EntityType, Message


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


def _strip_det(span: Span, keep_possessive: bool = False) -> str:
    toks = list(span)
    while toks and toks[0].pos_ == "DET":
        toks = toks[1:]
    while toks and toks[-1].tag_ == "POS" and not (keep_possessive and len(toks) > 1):
        toks = toks[:-1]
    return span.doc[toks[0].i : toks[-1].i + 1].text if toks else span.text


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
    # "__pronoun__:m|Ciarán", "__kin__:husband": resolved or dropped by the tier
    unresolved = subject.startswith((PRONOUN, KIN_PREFIX))
    boss = obj.startswith(PRONOUN) and predicate in MANAGER_PREDICATES  # "she's my boss": who, the tier says
    if subject.lower() == obj.lower() or not predicate or not (boss or _clean(obj)):
        return
    if _amount_for_a_name(predicate, obj):
        return
    if not (unresolved or _clean(subject)):
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


_TITLES = frozenset({"is-a", "is-an", "has-role"})
_NAMED_TYPES = frozenset({"person", "location", "organization"})


def _amount_for_a_name(predicate: str, obj: str) -> bool:
    """An amount where a title, person, place or firm belongs: "Yaar, my salary is 9 lakh" (the vocative
    made it Yaar's title), "... the pay cut, from €72k to €65k" (is-from €72k)."""
    typed = predicate in _TITLES or PREDICATE_OBJECT_TYPES.get(predicate) in _NAMED_TYPES
    return typed and MONEY.fullmatch(obj) is not None


# A ward, unit or department someone works in is part of their employer: it neither is one nor ends one.
_UNIT_PREDICATES = {"works-at": "works-in", "worked-at": "worked-in", "works-for": "works-in"}
MANAGER_PREDICATES = frozenset(store_families()["manager"])


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


# A verb rule (clauses._VERB_RULES): the verb, its direct objects, the subject, whether the clause is
# past, the message's state -> whether it read the clause.
VerbRule = Callable[[Token, list[Token], str, bool, _Ctx], bool]
