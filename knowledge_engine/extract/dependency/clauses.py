"""A clause's subjects, tense and ending, then its verb's constructions (copular, prepositional
and direct objects), which hand the parts to the topic modules.
"""

from __future__ import annotations

import re

from spacy.tokens import Token

from knowledge_engine.extract import places
from knowledge_engine.extract.dependency.belongings import _car_owned, _named_possessions, _owns_named
from knowledge_engine.extract.dependency.context import VerbRule, _Ctx, _emit, _kebab, _verb_form
from knowledge_engine.extract.dependency.family import (
    _engaged,
    _enrolled_pupil,
    _got_a_place,
    _manages_me,
    _proposed,
    _reports_to,
    _school_changed,
    _started_school,
    _under_boss,
)
from knowledge_engine.extract.dependency.grammar import (
    _announced,
    _asserted_reason,
    _clinician_subject,
    _factive,
    _felt_clauses,
    _has_mark,
    _has_subject,
    _is_be,
    _is_irrealis,
    _is_manager_noun,
    _is_past,
    _is_school,
    _judges_someone,
    _passive,
    _past_of_time,
    _perfect,
    _pobjs,
)
from knowledge_engine.extract.dependency.health import (
    _condition,
    _condition_state,
    _diagnosed_whom,
    _signed_off,
)
from knowledge_engine.extract.dependency.homes import (
    _a_visit,
    _back_in,
    _chose_home,
    _found_home,
    _home_in,
    _home_is,
    _home_place,
    _home_with,
    _job_move,
    _lived_in,
    _lives_near,
    _living_as,
    _moved,
    _origin_line,
    _place_named,
    _sold_home,
    _stayed,
    _transferred,
    _visit_words,
)
from knowledge_engine.extract.dependency.money import (
    _earning_as,
    _earns,
    _getting_a_rate,
    _home_costs,
    _home_priced,
    _net_after,
    _on_amount,
    _pay_cut,
    _raise_to,
    _rate,
    _rented_for,
)
from knowledge_engine.extract.dependency.names import (
    _called_name,
    _conjuncts,
    _dropped_subject,
    _employer_named,
    _kin_or_pet_key,
    _leading_clause,
    _lowercase_name_run,
    _name_of,
    _named,
    _object_phrase,
    _owner,
    _possessive_relation,
    _stranded_pair,
    _subjects,
)
from knowledge_engine.extract.dependency.nouns import (
    _a_month,
    _amount,
    _big_enough,
    _has_digit,
    _is_kin,
    _is_kin_word,
    _is_title,
    _is_title_word,
    _money_value,
    _name_before_a_stay,
    _number,
    _org_owner,
    _preps,
    _relation_predicate,
)
from knowledge_engine.extract.dependency.offers import _accepted, _hired, _laid_off
from knowledge_engine.extract.dependency.work import (
    _acting_title,
    _at_firm_called,
    _at_organisation,
    _attr_fact,
    _became,
    _been_with,
    _career_as,
    _desk_at,
    _duty_at,
    _got_a_job,
    _got_into,
    _handed_in_notice,
    _held_post,
    _job_is_at,
    _joined,
    _made_my_manager,
    _made_title,
    _moved_into_work,
    _my_lead,
    _paid_at,
    _promoted_infinitive,
    _quit_job,
    _role_took,
    _said_yes_to,
    _shifts_at,
    _split_lead,
    _started_at,
    _started_work_at,
    _studies_or_trains_at,
    _team_at,
    _works_as_for,
    _works_for,
    _works_for_org,
)
from knowledge_engine.extract.lexicon import (
    ASPECTUAL,
    CONDITIONAL_MARKS,
    CURRENCY_WORDS,
    DIET_ADJECTIVES,
    DONE_BY_PERFECT,
    ENDED_STATE,
    FAMILY_VERBS,
    FIRM_NOUNS,
    FOR_VERBS,
    HEDGE_VERBS,
    HOME_NOUNS,
    LIGHT_VERBS,
    MARKS,
    MODALS,
    MONEY_SHORT,
    MOVE_VERBS,
    PASSIVE_PREPS,
    PAY_WORDS,
    PERSON_NOUNS,
    PREDICATE_ALIASES,
    SCHOOL_STAGES,
    SCHOOL_WORDS,
    SCHOOL_YEAR,
    START_VERBS,
    TAKE_HOME,
    TIME_PARTS,
    VALUE_NOUNS,
    VERB_FAMILIES,
    VERB_PREPS,
    WORK_FIELDS,
    WORK_VERBS,
)
from knowledge_engine.extract.nlp import listed
from knowledge_engine.model.predicates import (
    DISTRICT_FACT,
)
from knowledge_engine.model.records import EntityType


def _person_beside(noun: Token, ctx: _Ctx) -> str | None:
    """'this guy Marcus Delgado', 'a lady Ruth': the person's name set right after a word for a person."""
    named = next((c for c in noun.children if c.dep_ in {"appos", "compound"} and c.i > noun.i), None)
    ent = ctx.ents.get(named.i) if named is not None else None
    if named is None or named.pos_ != "PROPN" or (ent is not None and ent.label_ != "PERSON"):
        return None
    return _name_of(named, ctx, person=True)


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
    roots += _after_colon(root)
    if root.lemma_ in HEDGE_VERBS and not _judges_someone(root):
        return roots + _before_own_hedge(root)
    for child in root.children:
        if child.dep_ == "advcl" and child.i > root.i and _has_subject(child) and _asserted_reason(child):
            roots.append(child)  # "the landlord is selling up so we're moving to Dalmarnock"
        elif child.dep_ == "advcl" and _has_subject(child) and _past_of_time(child):
            roots.append(child)  # "we lived in Swindon before we bought the house in Marlborough"
        elif child.dep_ == "advcl" and _has_subject(child) and _has_mark(child, {"although", "though"}):
            roots.append(child)  # "I'll keep the Vespa even though I've moved to Milan": conceded, so true
        if child.dep_ == "ccomp" and child.i < root.i and _has_subject(child) and not _has_mark(child, MARKS):
            # chains of run-on clauses: "Jenna got hired at X, so she's out of Y, she's thrilled"
            reported = child.lemma_ in HEDGE_VERBS and not _clinician_subject(child)  # "doctor says" stays
            roots += [] if reported else _clause_roots(child)
    # "for the first time since I moved to Portland": a clause of time in the past hung on a noun
    return roots + [
        t
        for t in root.subtree
        if t.dep_ in {"acl", "relcl", "advcl"} and t not in roots and _has_subject(t) and _past_of_time(t)
    ]


def _after_colon(root: Token) -> list[Token]:
    """'One more important thing: Lina has an egg allergy, we found out in February': a clause after a
    heading and a colon, which the parse hangs on the heading's noun (an acl) below the later root."""
    doc = root.doc
    return [
        a
        for c in root.children
        if c.i < root.i and c.pos_ in {"NOUN", "PROPN"}
        for a in c.children
        if a.dep_ == "acl" and _has_subject(a) and any(t.text == ":" for t in doc[c.i : a.i])
    ]


def _before_own_hedge(root: Token) -> list[Token]:
    """'i have migraines since the new job, i think it's the screens': the parse hangs the first clause
    on a "think" that has its own clause after it; the first is asserted, not hedged ("It's the flu,
    I think", with nothing after "think", stays hedged)."""
    if not any(c.dep_ == "ccomp" and c.i > root.i for c in root.children):
        return []
    before = (c for c in root.children if c.dep_ == "ccomp" and c.i < root.i)
    return [c for c in before if _has_subject(c) and not _has_mark(c, MARKS) and c.lemma_ not in HEDGE_VERBS]


_THINGS = frozenset({"it", "this", "that"})


def _opens_on_a_thing(advcl: Token, root: Token, ctx: _Ctx) -> bool:
    """ "Working at Tesco, it's fine", "Still driving the old Corsa, it's on its last legs": an -ing
    clause with no subject that opens a user's line before a clause about a thing ("it") is the
    speaker's ("Living in Leeds, Tom loves it" is Tom's: a person's clause is not read so)."""
    if ctx.message.role != "user" or advcl.tag_ != "VBG" or _has_subject(advcl) or _has_mark(advcl, MARKS):
        return False
    if not any(c.dep_ == "nsubj" and c.lower_ in _THINGS for c in root.children) or _is_irrealis(advcl):
        return False
    return all(t.pos_ in {"ADV", "PUNCT"} for t in advcl.doc[advcl.sent.start : advcl.left_edge.i])


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
    if _origin_line(root, ctx):  # "Originally from Belfast, living in Bristol now": the "I'm" left out
        for verb in (c for c in root.children if c.dep_ in {"advcl", "conj"} and c.tag_ == "VBG"):
            if not _has_subject(verb) and not _is_irrealis(verb):
                _add_clause(verb, [ctx.me], result)
                ctx.dropped.add(verb.i)
    if root.pos_ not in {"VERB", "AUX"} or _is_irrealis(root):
        return result
    # "Left Walmart after 9 years, now I'm a shift lead at Costco": the opening clause is the speaker's
    lead = dropped or ([ctx.me] if subjects == [ctx.me] and ctx.message.role == "user" else [])
    for advcl in (c for c in root.children if c.dep_ == "advcl" and c.i < root.i):
        if not lead and _opens_on_a_thing(advcl, root, ctx):
            _add_clause(advcl, [ctx.me], result)  # "Working at Tesco, it's fine"
            ctx.dropped.add(advcl.i)
        elif not lead:
            continue
        elif advcl.tag_ == "VBG" and not _has_mark(advcl, MARKS) and not _is_irrealis(advcl):
            _add_clause(advcl, lead, result)  # "Living in Wash Park now, renting a house ..."
            ctx.dropped.add(advcl.i)
        elif advcl.tag_ != "VBG" and _leading_clause(advcl) and not _is_irrealis(advcl):
            result.append((advcl, lead, True))  # "Taught maths at X for 31 years, finished up ..."
            ctx.dropped.add(advcl.i)
    if not subjects:
        _noun_copular(root, ctx)
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
        if has_own and not own:
            _noun_copular(conj, ctx)  # "my manager is dave and the pay is 24k": the second "is"
        _add_clause(conj, own if has_own else subjects, result)
    return result


def _noun_copular(verb: Token, ctx: _Ctx) -> None:
    """A "be" whose subject is a noun, no person ("my salary is 24k", "the job is at Acme", "the flat
    is 950 a month"): the rules that read a value of the speaker's from it."""
    subj_tok = next((c for c in verb.children if c.dep_ == "nsubj"), None)
    if subj_tok is not None and verb.lemma_ != "be":
        _home_priced(verb, subj_tok, ctx)  # "the new flat costs 1,250 a month"
    if verb.lemma_ != "be" or subj_tok is None:
        return
    _possessive_copular(verb, subj_tok, ctx)
    _job_is_at(verb, subj_tok, ctx)
    _home_costs(verb, subj_tok, ctx)


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
    # "No longer at X, I'm at Y now": an opening "no longer" before a comma ends X, not this clause
    aside = [c for c in ending if c.i < verb.i and any(t.text == "," for t in verb.doc[c.i : verb.i])]
    if aside and len(aside) == len(ending):
        return False
    ending = [c for c in ending if c not in aside]
    negated = any(c.dep_ == "neg" for c in verb.children) or any(  # "no longer": "no" hangs on "longer"
        g.dep_ == "neg" for c in ending for g in c.children
    )
    if not negated or (verb.lemma_ not in FAMILY_VERBS and not _relation_ended(verb)):
        return False
    if any(c.dep_ == "aux" and (c.tag_ == "MD" or c.lower_ in MODALS) for c in verb.children):
        return False
    return bool(ending) or any(t.lower_ in ENDED_STATE and t.dep_ == "advmod" for t in verb.subtree)


def _relation_ended(verb: Token) -> bool:
    """'Léa is no longer my manager', 'Sam isn't my boyfriend anymore', "I'm no longer a team lead": a
    copula whose attribute is a relation of someone's or a job title."""
    if verb.lemma_ != "be":
        return False
    attrs = [c for c in verb.children if c.dep_ == "attr" and c.pos_ in {"NOUN", "PROPN"}]
    # "We're no longer in Hackney", "I'm not at Tesco anymore": a named place or workplace left
    named = [p for prep in _preps(verb, verb, {"in", "at"}) for p in _pobjs(prep) if p.pos_ == "PROPN"]
    return bool(named) or any(any(c.dep_ == "poss" for c in a.children) or _is_title_word(a) for a in attrs)


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
            if (
                not _hired(verb, subject, ctx)
                and not _laid_off(verb, subject, ctx)
                and not _engaged(verb, subject, ctx)
                and not _signed_off(verb, subject, past, ctx)
            ):
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
            (subject == ctx.me and _chose_home(verb, subject, ctx))
            or (past and _career_as(verb, subject, ctx))
            or _car_owned(verb, subject, ctx)
            or _verb_rules(verb, subject, past, ctx)
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


def _passive_state(verb: Token, subject: str, past: bool, ctx: _Ctx) -> None:
    """'Ben is obsessed with dinosaurs' -> is-obsessed-with; 'got promoted to VP of X' -> is-a."""
    be = "was" if past else "is"
    if verb.lemma_ == "offer":
        return  # "I've been offered a job at X": an offer, not yet a job
    if _transferred(verb, [], subject, past, ctx):
        return  # "I got transferred to Glasgow": a move
    if _made_my_manager(verb, subject, ctx) or _made_title(verb, subject, ctx):
        return  # "Dave's been made my manager", "I've been made a senior analyst"
    if verb.lemma_ == "promote":
        _promoted_infinitive(verb, subject, ctx)
    if verb.lemma_ == "retire":  # "I'm retired from the NHS": as "I retired from the NHS"
        for pobj in (p for prep in _preps(verb, verb, {"from"}) for p in _pobjs(prep)):
            name = _name_of(pobj, ctx)
            if name and _employer_named(pobj, name, ctx):
                org: EntityType = "organization"
                _emit(ctx, subject, "retired-from", name, 0.6, obj_tok=None, obj_type=org, ends=True)
        _career_as(verb, subject, ctx)  # "I am retired from Indian Railways as station master"
        return
    for prep in (c for c in verb.children if c.dep_ == "prep" and c.lower_ in PASSIVE_PREPS):
        for pobj in _pobjs(prep):
            if verb.lemma_ == "promote" and prep.lower_ == "to":
                obj = _object_phrase(pobj, ctx, with_of=True)
                if obj:
                    _emit(ctx, subject, "has-role", obj, 0.55, obj_tok=None)
                continue
            name = _name_of(pobj, ctx)
            if verb.lemma_ == "promote" and name is None:
                continue  # "I got promoted at work": promoted-at reads works-at, so only a name
            obj = name or _object_phrase(pobj, ctx)
            if obj:
                _emit(ctx, subject, _kebab(f"{be} {verb.lower_} {prep.lower_}"), obj, 0.55, obj_tok=pobj)


def _direct_objects(verb: Token, subject: str, pred: str, ctx: _Ctx) -> None:
    for dobj in (c for c in verb.children if c.dep_ == "dobj"):
        for tok in [dobj, *_conjuncts(dobj)]:
            obj = _object_phrase(tok, ctx, prefer_name=False)
            if obj:
                _emit(ctx, subject, pred, obj, 0.55, obj_tok=tok)


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


def _a_stretch_done(verb: Token) -> bool:
    """'finished my first week', 'ended my shift': the verb's object is a stretch of time or work (not
    the last one: "finished my last shift at Tesco" is the job's end)."""
    objects = [c for c in verb.children if c.dep_ in {"dobj", "npadvmod"}]
    stretches = [c for c in objects if c.lemma_.lower() in _STRETCHES]
    return any(not any(m.lower_ in {"last", "final"} for m in s.children) for s in stretches)


_STRETCHES = frozenset(
    {"day", "week", "month", "year", "shift", "training", "probation", "induction", "stint"}
)


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
    if verb.lemma_ == "work":  # "works nights as a security guard": the role hangs on the hours
        hours = (d for d in verb.children if d.dep_ == "dobj" and d.lemma_.lower() in _WORK_HOURS)
        preps += [c for d in hours for c in d.children if c.dep_ == "prep" and c.lower_ in _HOURS_PREPS]
    if verb.lemma_ == "work":  # "I work in sales for a company called X": the firm hangs on the field
        fields = (o for prep in preps if prep.lower_ == "in" for o in _pobjs(prep) if o.lower_ in WORK_FIELDS)
        preps += [c for o in fields for c in o.children if c.dep_ == "prep" and c.lower_ in {"for", "at"}]
    for prep in preps:
        p = prep.lower_
        if p in {"near", "outside"} and verb.lemma_ in {"live", "reside"}:
            _lives_near(prep, subject, past, ctx)  # "we live just outside Bath"
            continue
        if p not in VERB_PREPS and not (p == "on" and verb.lemma_ == "work"):
            continue
        if p == "from" and verb.lemma_ == "live":
            continue  # "I live off my pension from Shell": not where the speaker lives
        if has_dobj and p in {"to", "into", "from"}:
            continue  # "migrating our pipeline to Snowflake": the object moves, not the subject
        if p == "at" and verb.lemma_ in {"finish", "end", "complete"} and _a_stretch_done(verb):
            continue  # "finished my first week at Helix": a stretch of the job ended, not the job
        if p == "for" and verb.lemma_ not in FOR_VERBS:
            continue  # "flying to Tokyo for a conference": purpose, not a relation
        if p == "from" and verb.lemma_ == "come" and verb.tag_ == "VBG":
            continue  # "she's coming from the Royal Alex": a move, not where she is from
        for pobj in _pobjs(prep):
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
                if p == "with" and ent is not None and ent.label_ == "MONEY":
                    continue  # "he came back with 52k": the offer's rule reads it; "came-with" says nothing
                if verb.lemma_ == "work" and _works_for(tok, p, ent, ctx):
                    family = "worked-at" if past else "works-at"
                pupil = _enrolled_pupil(verb, p, ctx)
                if pupil is not None:  # "we've enrolled Leo at X": Leo's school, the speaker studies nowhere
                    named = any(c.dep_ == "compound" and c.pos_ == "PROPN" for c in tok.children)
                    school = _object_phrase(tok, ctx) if named and _is_school(tok.lower_) else None
                    if (name := _name_of(tok, ctx) or school) is not None:  # "Little Acorns nursery"
                        _emit(ctx, pupil, "attends", name, 0.6, obj_tok=tok, subj_type="person")
                    continue
                study_in = verb.lemma_ == "study" and p == "in"  # the name looked up only then
                if study_in and not _place_named(tok, _name_of(tok, ctx) or "", ctx):
                    family = "studied-at" if past else "studies-at"  # "studying in Bishop Cotton School"
                _prep_object(verb, subject, family, tok, ctx)


def _particle_preps(verb: Token) -> list[Token]:
    """'moved up to Ridgeway Secondary', 'went back to Leeds': the parser may hang the preposition on
    the particle, tagged an adverb (only before a name)."""
    ups = {"up", "back", "down"}
    particles = (c for c in verb.children if c.dep_ in {"advmod", "prt"} and c.lower_ in ups)
    preps = [c for part in particles for c in part.children if c.dep_ == "prep"]
    return [p for p in preps if any(o.pos_ == "PROPN" for o in _pobjs(p))]  # not "went back to work"


def _school_word_before(tok: Token, name: str) -> str:
    """'goes to Escola Basica de Alvalade': a school word of another language that opens the name and
    the name's reading left out (the model starts the entity after it) is part of the name."""
    first = name.split()[0]
    start = next((t.i for t in tok.subtree if t.text == first), None)
    before = tok.doc[start - 1] if start else None
    if before is None or not before.is_title or before.lower_ not in SCHOOL_WORDS:
        return name
    return f"{before.text} {name}"


def _prep_object(verb: Token, subject: str, pred: str, tok: Token, ctx: _Ctx) -> None:
    named = _name_before_a_stay(tok)
    name = _name_of(named, ctx)
    if named is not tok and name:  # the model may run the years into the name ("Greenmeadow 11")
        tok, name = named, " ".join(w for w in name.split() if not w.isdigit())
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
    if name is None and pred in _AT_WORK and tok.pos_ == "NOUN":
        firm = _firm_served(tok, ctx)  # "I work in a call centre for Sky": Sky, not the call centre
        if firm is not None:
            tok, name = firm
            pred = "worked-at" if pred.startswith("worked") else "works-at"
    if name is not None and pred in {"works-in", "worked-in"} and _firm_worked_in(tok, name, ctx):
        pred = "worked-at" if pred == "worked-in" else "works-at"  # "I am working in Ericsson"
    if name is None and pred in {"goes-to", "went-to"}:  # "goes to a special program at Westview Elementary"
        schools = (_name_of(o, ctx) for p in _preps(tok, tok, {"at"}) for o in _pobjs(p))
        name = next((n for n in schools if n and _is_school(n)), None)
    if name is None and pred in {"lives-in", "lived-in"} and tok.lemma_.lower() in _SHARED_HOMES:
        return  # "i live in a flat in côte-des-neiges": a kind of home is no place (the place unread)
    if verb.lemma_ in {"step", "move"} and name is None and (_is_title_word(tok) or tok.lemma_ in _POSTS):
        return  # "stepped up to deputy manager", "moved to a nurse role": a title reached, not a place
    if pred in {"moves-to", "moved-to"} and _a_firm(tok):  # "Tom's moved to a new firm, Calder & Co.": a job
        if name is not None:
            _emit(ctx, subject, "works-at" if pred == "moved-to" else "joins", name, 0.6, obj_tok=None)
        return
    if name is not None and pred in {"goes-to", "went-to"}:
        name = _school_word_before(tok, name)
    obj = name or _object_phrase(tok, ctx)
    school = (name is not None and _is_school(name)) or tok.lemma_.lower() in SCHOOL_WORDS
    if obj and pred in {"goes-to", "went-to"} and school:
        pred = "attends" if pred == "goes-to" else "attended"  # "Mia goes to Oakwood Elementary"
    elif obj and pred in {"moves-to", "moved-to"} and name is not None and _is_school(name):
        pred = "attends"  # "Ella's moving up to Oakfield High": a school changed, not a home
    if obj:
        conf = 0.65 if name else 0.55
        _emit(ctx, subject, PREDICATE_ALIASES.get(pred, pred), obj, conf, obj_tok=tok)


# What one works that is no object of work but its hours ("works nights as a security guard")
_WORK_HOURS = frozenset({"night", "day", "weekend", "shift", "evening"})
_HOURS_PREPS = frozenset({"as", "at", "for"})
_AT_WORK = frozenset({"works-at", "works-in", "worked-at", "worked-in"})


def _firm_served(place: Token, ctx: _Ctx) -> tuple[Token, str] | None:
    """'a call centre for Sky', 'a warehouse for Amazon': the firm a workplace noun is "for"."""
    for obj in (o for prep in _preps(place, place, {"for"}) for o in _pobjs(prep)):
        name = _name_of(obj, ctx) if obj.pos_ == "PROPN" else None
        if name and _employer_named(obj, name, ctx):
            return obj, name
    return None


def _firm_worked_in(tok: Token, name: str, ctx: _Ctx) -> bool:
    """'I am working in Ericsson' (the "in" of other languages): a firm the model tags one, not a
    place, nor a department or trade English spells with its own words ("in Finance", "in HR"); one
    the model tags a place stays a place (most districts are in no gazetteer)."""
    ent = ctx.ents.get(tok.i)
    words = [w for w in re.split(r"[\s&-]+", name) if w]
    english = any(listed(w.lower(), tok.vocab) or w.isupper() for w in words)
    tagged = ent is None or ent.label_ == "ORG"  # a place the model tags: "works in Leith" is no firm
    return tok.pos_ == "PROPN" and tagged and not english and not places.big_place(name)


_SHARED_HOMES = HOME_NOUNS | {"coloc", "flatshare", "houseshare", "dorm", "dorms", "hostel"}


_POSTS = frozenset({"role", "job", "post", "position"})


def _a_firm(tok: Token) -> bool:
    """A firm's noun, or a name set beside one ("a new firm, Calder & Co.": the parse joins them)."""
    while tok.dep_ in {"conj", "appos"} and tok.lemma_.lower() not in FIRM_NOUNS:
        tok = tok.head
    return tok.lemma_.lower() in FIRM_NOUNS


def _kind_beside_place(tok: Token, preps: list[Token], ctx: _Ctx) -> bool:
    """A home said by its kind ("a flat", "the same house") beside a named place of the same verb."""
    kind = tok.pos_ == "NOUN" or tok.lower_ in HOME_NOUNS  # "a flat" is often tagged an adjective
    if not kind or _name_of(tok, ctx) or _home_place(tok, ctx):
        return False
    return any(_name_of(p, ctx) for prep in preps if prep.lower_ == "in" for p in _pobjs(prep))


def _our_firm(verb: Token, past: bool, ctx: _Ctx) -> bool:
    """'we are a small fintech startup, Kindling', "we're a small agency called Brightside": the
    speaker's "we" is their employer -> works-at the name (worked-at in the past), not "is-a"."""
    firms = [c for c in verb.children if c.dep_ == "attr" and c.lemma_.lower() in FIRM_NOUNS]
    if not firms or ctx.message.role != "user":
        return False
    # the name set off after the noun: the parse makes it a second attr or an npadvmod of the verb
    named = [c for c in verb.children if c.dep_ in {"attr", "npadvmod", "appos"} and c.pos_ == "PROPN"]
    named += [c for f in firms for c in f.children if c.dep_ == "appos" and c.pos_ == "PROPN"]
    named += [o for f in firms for a in f.children if a.dep_ == "acl" and a.lemma_ in {"call", "name"}
              for o in a.children if o.dep_ in {"oprd", "dobj", "attr"} and o.pos_ == "PROPN"]  # fmt: skip
    for tok in named:
        name = _name_of(tok, ctx)
        if name:
            pred = "worked-at" if past else "works-at"
            _emit(ctx, ctx.me, pred, name, 0.55, obj_tok=tok, obj_type="organization")
    return True


def _misread_to_noun(adj: Token) -> list[Token]:
    """The noun after "allergic to" / "intolerant to" that the parser read as an infinitive ("to
    shellfish", "to gluten"): an xcomp verb with "to" for its aux."""
    if adj.lower_ not in {"allergic", "intolerant"}:
        return []
    xcomps = [c for c in adj.children if c.dep_ == "xcomp" and c.tag_ == "VB"]
    return [c for c in xcomps if any(a.lower_ == "to" for a in c.children)]


def _been_up_to_now(verb: Token) -> bool:
    """'(I've) been ...' up to now, not 'had been' (a past perfect: over before then)."""
    return verb.lower_ == "been" and not any(c.lemma_ == "have" and c.tag_ == "VBD" for c in verb.children)


def _copular(verb: Token, subj_tok: Token | None, subjects: list[str], past: bool, ctx: _Ctx) -> None:
    """'X is a designer', 'My sister is Maria', 'Maria is my sister', 'X is from Y', 'X is married to Y'."""
    be = "was" if past else "is"
    if subj_tok is not None and not subjects:
        _possessive_copular(verb, subj_tok, ctx)
        return
    if subj_tok is not None and subj_tok.lower_ == "we" and _our_firm(verb, past, ctx):
        return
    for subject in subjects:
        for child in [*verb.children, *_listed_attrs(verb)]:
            if child.dep_ == "attr" and (amount := _on_amount(child, past, ctx)):
                _emit(ctx, subject, "has-salary", amount, 0.55, obj_tok=None)
            elif child.dep_ == "attr" and not past and _year_at_school(child, subject, ctx):
                continue  # "Miggy is Year 3 at St Anne's"
            elif child.dep_ in {"attr", "conj"}:
                if not _condition_state(child, subject, past, ctx):
                    _attr_fact(child, subject, be, past, ctx)
                    _living_as(child, subject, past, ctx)
                    _earning_as(child, subject, past, ctx)
                if child.pos_ == "PROPN" and subject == ctx.me and not past:
                    _introduced(child, ctx)
            elif (half := _split_lead(child)) is not None:
                if not _my_lead(half, subject, past, ctx):
                    _attr_fact(half, subject, be, past, ctx)  # "I'm the team lead now"
            elif child.dep_ == "acomp" and child.pos_ == "VERB" and child.tag_ in {"VB", "VBP"}:
                for clause in [child, *_conjuncts(child)]:  # "I'm 27, live in Tulsa, and make $54,000"
                    _clause_facts(clause, [subject], past, ctx)
            elif child.dep_ == "acomp":
                if child.lower_ in DIET_ADJECTIVES and not past:
                    _emit(ctx, subject, "is-a", child.lower_, 0.6, obj_tok=None)
                if _condition_state(child, subject, past, ctx):
                    continue
                for prep in (c for c in child.children if c.dep_ == "prep"):
                    for pobj in _pobjs(prep):
                        obj = _name_of(pobj, ctx) or _object_phrase(pobj, ctx)
                        if obj:
                            pred = _kebab(f"{be} {child.lemma_} {prep.lower_}")
                            _emit(ctx, subject, pred, obj, 0.6, obj_tok=pobj)
                for noun in _misread_to_noun(child):  # "allergic to shellfish": parsed "to shellfish" a verb
                    _emit(ctx, subject, _kebab(f"{be} {child.lemma_} to"), noun.lower_, 0.6, obj_tok=noun)
            elif child.dep_ == "prep" and child.lower_ in {"from", "in", "at"}:
                _be_prep(child, subject, be, ctx)
            elif child.dep_ == "advmod" and child.lower_ == "back" and not past and not _is_irrealis(verb):
                _back_in(child, subject, ctx)  # "I'm back in Cardiff for good"
            elif child.dep_ == "prep" and child.lower_ == "with" and (not past or _been_up_to_now(verb)):
                _been_with(child, subject, ctx)  # "Been with Tesco since 2019": the "I've" dropped
            elif child.dep_ == "prep" and child.lower_ == "under" and not past and subject == ctx.me:
                _under_boss([child], ctx)  # "I'm now under Priya after the restructure"
            elif child.dep_ in {"prep", "advmod"} and child.lower_ == "off" and not past:
                _off_to_school(child, subject, ctx)
            elif child.dep_ == "prep" and child.lower_ == "into" and not past and not _is_irrealis(verb):
                for pobj in _pobjs(child):  # "I'm really into pottery these days" -> likes
                    obj = _name_of(pobj, ctx) or _object_phrase(pobj, ctx)
                    if obj:
                        _emit(ctx, subject, "likes", obj, 0.5, obj_tok=pobj)
            elif child.dep_ == "prep" and child.lower_ == "on" and _team_at(child, subject, be, ctx):
                continue  # "I'm on the platform team at Monzo"
            elif (
                child.dep_ == "prep" and child.lower_ == "on" and not past and _on_a_post(child, subject, ctx)
            ):
                continue  # "I'm on the tills at Asda"
            elif child.dep_ == "prep" and child.lower_ == "on":  # "I'm on £48,000", "I was on £41k"
                for pobj in _pobjs(child):
                    hourly = any(c.dep_ == "npadvmod" and c.lemma_ == "hour" for c in pobj.children)
                    # "on 12.50 an hour", "on 31,500 a year": pay by a period of work without its sign
                    money = _money_value(pobj, ctx) or (_amount(pobj) if hourly else None) or _rate(pobj)
                    if money:
                        pred = "earned" if past else TAKE_HOME if _net_after(pobj) else "has-salary"
                        _emit(ctx, subject, pred, money, 0.55, obj_tok=None)
                        if not past:  # "I'm on 42k at Aviva": the parse hangs "at" on the amount
                            _paid_at(verb, pobj, subject, ctx)


def _off_to_school(off: Token, subject: str, ctx: _Ctx) -> None:
    """ "Our Jayden's off to Hillside Grammar next year" -> attends: a school by its name (not "off to
    Spain next week")."""
    for pobj in (p for prep in _preps(off, off, {"to"}) for p in _pobjs(prep)):
        name = _name_of(pobj, ctx)
        if name and _is_school(name):
            _emit(ctx, subject, "attends", name, 0.55, obj_tok=None, obj_type="organization")


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


_PAY_TALK = frozenset({"salary", "pay", "offer", "offered", "raise", "band", "negotiate", "base", "paid"})


def _pay_at(pobj: Token, subject: str, be: str, ctx: _Ctx) -> bool:
    """'At the moment I am at 118,000' in a message about pay: the speaker's salary (an amount of
    thousands, or money the model tagged), not a place."""
    if subject != ctx.me or be != "is" or not any(t.lower_ in _PAY_TALK for t in pobj.doc):
        return False
    money = _money_value(pobj, ctx) or (_amount(pobj) if pobj.like_num else None)
    if not money or not _big_enough(money):
        return False
    _emit(ctx, subject, "has-salary", money, 0.5, obj_tok=None)
    return True


def _amount_one_is_on(verb: Token, ctx: _Ctx) -> Token | None:
    """The amount a "be" says its subject is on ("I'm on £15.20 an hour", "on 42k"), if any."""
    if not _is_be(verb):
        return None
    ons = [p for on in _preps(verb, verb, {"on"}) for p in _pobjs(on)]
    ons += [c for c in verb.children if c.dep_ == "attr" and any(q.lower_ == "on" for q in c.children)]
    return next((a for a in ons if _money_value(a, ctx) or _rate(a) or MONEY_SHORT.match(a.text)), None)


_CLASS_WORDS = frozenset({"grade", "class", "year"})


def _year_at_school(year: Token, subject: str, ctx: _Ctx) -> bool:
    """'Year 1 at Hillside', 'first class at Gaelscoil Mhic Amhlaigh', 'reception at St Mary's': a
    school year someone (not the speaker) is in, at a named place, says the place is their school."""
    after = [c for c in year.children if c.dep_ == "prep"]
    words = year.doc[year.left_edge.i : min([p.i for p in after] + [year.right_edge.i + 1])].text
    ordinal = year.lemma_.lower() in _CLASS_WORDS and any(c.dep_ == "amod" for c in year.children)
    said = SCHOOL_YEAR.fullmatch(words) or year.lower_ in SCHOOL_STAGES or ordinal
    if subject == ctx.me or not said:
        return False
    found = False
    for pobj in (p for at in _preps(year, year, {"at", "@"}) for p in _pobjs(at)):
        name = _name_of(pobj, ctx)
        if name and name[0].isupper():  # the model tags "Hillside" a noun
            _emit(ctx, subject, "attends", name, 0.55, obj_tok=pobj, obj_type="organization")
            found = True
    return found


# What one is "on" at work: a post or a shift ("on the tills", "on nights", "on reception")
_WORK_POSTS = frozenset(
    {"till", "checkout", "checkouts", "night", "nights", "lates", "earlies", "reception", "shift", "rota"}
    | {"desk", "floor", "phones", "counter", "door", "bar", "line"}
)


def _on_a_post(prep: Token, subject: str, ctx: _Ctx) -> bool:
    """'I'm on the tills at Asda', "I'm on nights at the Royal Infirmary": where one works a post or
    a shift is the employer (not "on the bar at the Red Lion tonight": a visit's time). True when
    the clause named a post."""
    posts = [p for p in _pobjs(prep) if p.lemma_.lower() in _WORK_POSTS]
    if not posts or _visit_words(prep):
        return False
    for pobj in posts:
        _paid_at(prep.head, pobj, subject, ctx)
    return True


def _be_prep(prep: Token, subject: str, be: str, ctx: _Ctx) -> None:
    """'is from Porto' always; 'is in/at X' only for named places and organisations."""
    if _role_took(prep) or _team_at(prep, subject, be, ctx):
        return  # "I am a paralegal at Hogan Lovells.": works-at, from the role
    if prep.lower_ == "from" and _a_change_from(prep):
        return  # "Tom is nervous about the move, from Leeds to York": a change, not where he is from
    for pobj in _pobjs(prep):
        if _at_firm_called(prep, pobj, subject, be, ctx):
            continue
        if prep.lower_ == "in" and be == "is" and _year_at_school(pobj, subject, ctx):
            continue  # "Ellie is in Year 1 at Hillside", "Aoife is in first class at X"
        if prep.lower_ == "at" and _pay_at(pobj, subject, be, ctx):
            continue
        if prep.lower_ == "at" and (amount := _amount_one_is_on(prep.head, ctx)) is not None:
            if be == "is":  # "I'm on £15.20 an hour at Go North West": where the pay is earned
                _paid_at(prep.head, amount, subject, ctx)
            return
        if prep.lower_ == "at" and _an_address(pobj):
            _address_town(pobj, subject, be, ctx)  # "I'm at 12 Elm Road in Reading": a home, no firm
            continue
        pobj = _org_owner(_name_before_a_stay(pobj) if prep.lower_ == "at" else pobj, ctx)
        obj = _name_of(pobj, ctx)
        if obj is None and prep.lower_ == "from":
            obj = _object_phrase(pobj, ctx)
        if prep.lower_ == "at" and _named_school(pobj) and not _visit_words(prep):
            # "Isla is at Wee Sparrows nursery", "she's at Riverside school": the name a compound
            named = obj or _object_phrase(pobj, ctx)
            if named:
                pred = "attends" if be == "is" else "attended"
                _emit(ctx, subject, pred, named, 0.55, obj_tok=pobj, obj_type="organization")
            continue
        if obj and _stayed(prep, pobj):
            be = "is"  # "Been at Boots for six years": still there
        if obj and _lived_in(prep, pobj, be, ctx):
            _emit(ctx, subject, "lives-in", obj, 0.6, obj_tok=pobj)  # "we've been in Didsbury for five years"
        elif obj and _at_organisation(prep, pobj, ctx):
            school = any(w in SCHOOL_WORDS for w in obj.lower().split())
            now, before = ("attends", "attended") if school else ("works-at", "worked-at")
            pred = now if be == "is" else before
            _emit(ctx, subject, pred, obj, 0.55, obj_tok=pobj, obj_type="organization")
        elif obj and ctx.ending and prep.lower_ == "in" and obj.lower() not in WORK_FIELDS:
            _emit(ctx, subject, "lived-in", obj, 0.6, obj_tok=pobj)  # "We're no longer in Hackney"
        elif obj and not (prep.lower_ == "at" and _a_visit(prep)):
            _emit(ctx, subject, f"{be}-{prep.lower_}", obj, 0.6, obj_tok=pobj)


def _a_change_from(prep: Token) -> bool:
    """'from Leeds to York', 'from €72k to €65k': a "from" with its "to" (hung on it or after its object)."""
    after = prep.doc[prep.right_edge.i + 1] if prep.right_edge.i + 1 < len(prep.doc) else None
    to = next((c for c in prep.children if c.lower_ == "to"), after)
    return to is not None and to.lower_ == "to" and to.dep_ == "prep"  # not "from Leeds to be honest"


_STREETS = frozenset(
    {"road", "rd", "street", "st", "avenue", "ave", "lane", "ln", "drive", "dr", "close", "crescent"}
    | {"terrace", "grove", "gardens", "court", "boulevard", "blvd", "square", "mews", "row", "walk", "park"}
)


def _an_address(pobj: Token) -> bool:
    """'12 Elm Road', 'flat 3, 40 Mill Lane': a house number and a street's name."""
    numbered = any(t.like_num for t in pobj.subtree if t.i < pobj.i)
    return pobj.lower_.rstrip(".") in _STREETS and pobj.pos_ == "PROPN" and numbered


def _address_town(street: Token, subject: str, be: str, ctx: _Ctx) -> None:
    """The town an address names after its street ("12 Elm Road in Reading"): where one lives."""
    for pobj in (p for prep in _preps(street, street, {"in"}) for p in _pobjs(prep)):
        town = _name_of(pobj, ctx) if pobj.pos_ == "PROPN" else None
        if town and _place_named(pobj, town, ctx):
            _emit(ctx, subject, "lives-in" if be == "is" else "lived-in", town, 0.55, obj_tok=pobj)


def _named_school(noun: Token) -> bool:
    """A school noun with a name before it ("Wee Sparrows nursery", "Riverside school")."""
    names = [c for c in noun.children if c.dep_ == "compound" and c.pos_ == "PROPN" and c.i < noun.i]
    return noun.lemma_.lower() in SCHOOL_WORDS and bool(names)


def _my_share_of_rent(subj_tok: Token, poss: Token | None, attr: Token | None, ctx: _Ctx) -> bool:
    """'my half of the rent is 725', 'my share of the rent is £650' -> has-rent: the part one pays is
    one's rent (the whole may be said too; each is a rent the speaker tells)."""
    mine = poss is not None and poss.lower_ == "my" and ctx.message.role == "user"
    if not mine or attr is None or subj_tok.lemma_.lower() not in {"half", "share"}:
        return False
    if not any(p.lemma_.lower() == "rent" for of in _preps(subj_tok, subj_tok, {"of"}) for p in _pobjs(of)):
        return False
    money = _money_value(attr, ctx) or (_amount(attr) if attr.like_num else None)
    if not money or not _big_enough(money):
        return False
    _emit(ctx, ctx.me, "has-rent", money, 0.55, obj_tok=None)
    return True


_BASE_PAY = frozenset({"base", "basic"})  # "The base is $140k", "Basic is 26k plus overtime"


def _possessive_copular(verb: Token, subj_tok: Token, ctx: _Ctx) -> None:
    """'My sister is Maria', "Alex's manager is Sam", 'My email is x@y.z' -> owner has-<noun> value."""
    poss = next((c for c in subj_tok.children if c.dep_ == "poss"), None)
    attr = next((c for c in verb.children if c.dep_ == "attr"), None)
    if _home_in(verb, subj_tok, poss, ctx) or _my_share_of_rent(subj_tok, poss, attr, ctx):
        return
    if subj_tok.lower_ in PAY_WORDS and any(
        c.dep_ == "advcl" and _has_mark(c, CONDITIONAL_MARKS) for c in verb.children
    ):
        return  # "the base is $140,000 if I negotiate" (unlike "my email is X if you need it")
    if attr is None and _is_manager_noun(subj_tok):  # "manager will be sandeep": a name tagged adjective
        attr = next((c for c in verb.children if c.dep_ == "acomp" and c.i == verb.i + 1), None)
    titled = None  # "My husband's name is Aled": a capitalised word after "name is" (tagged a verb) is it
    if attr is None and subj_tok.lemma_ == "name":  # "My cat's name is Simba": Simba an adjective
        attr = next((c for c in verb.children if c.dep_ == "acomp" and _named(c, ctx)), None)
        titled = next((c for c in verb.children if c.dep_ == "acomp" and c.is_title and c.is_alpha), None)
        attr = attr if attr is not None else titled
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
    pred = "has-salary" if subj_tok.lower_ in _BASE_PAY else _relation_predicate(subj_tok)
    value = _value_of(attr, ctx)
    if subj_tok.lemma_.lower() in _POSTS | {"title"} and (_is_title(attr) or _is_title_word(attr)):
        # "My new role is Head of Finance", "My job is Director of Operations": the whole title
        pred, value = "has-role", _object_phrase(attr, ctx, with_of=True) or value
    if value is None and attr.lemma_.lower() in PERSON_NOUNS:  # "His manager is a guy called Pete"
        value = _called_name(attr, ctx) or _person_beside(attr, ctx)  # "... is this guy Marcus Delgado"
    if value is None and subj_tok.lower_ in PAY_WORDS:
        value = _amount(attr)
    if (
        (poss is None or subj_tok.lower_ in _BASE_PAY)
        and subj_tok.lower_ in PAY_WORDS
        and not (value and _has_digit(value))
    ):
        return  # a bare "base"/"salary" subject holds only an amount
    # "manager will be sandeep"; not "is a nightmare": no name takes an article
    article = any(c.dep_ == "det" for c in attr.children)
    bare = attr.is_lower and attr.is_alpha and not attr.is_stop and not article
    if pred == "has-manager" and value is None and bare:
        value = _lowercase_name_run(attr)  # "manager will be sandeep"
    if value is None and titled is not None and attr.i == titled.i:
        value = titled.text
    if value is None and pred == "has-role":  # "my new title is senior engineer"
        value = _object_phrase(attr, ctx, with_of=True)
    homes = (
        c for c in subj_tok.children if c.dep_ in {"amod", "compound"} and c.lemma_.lower() in HOME_NOUNS
    )
    kin = _is_kin(subj_tok)
    if kin and next(homes, None) is not None:  # (not "my take home is ...")
        return  # "My sister's flat is £1,100 a month" parsed with "sister" as the subject: no sister
    if _is_past(verb):  # "My salary was 50k", "my manager was Bruno": history, not the value now
        pred = _PAST_VALUE.get(pred, pred)
    if kin and value:
        value = _name_of(attr, ctx, person=True) or value  # "my kids are Lily 8 and Max 5": not "Lily 8"
    if owner and value and owner != value:
        _emit(ctx, owner, pred, value, 0.6, obj_tok=attr)
        if subj_tok.tag_ == "NNS":  # "My kids are Lily and Max": each name of a plural is one of them
            for c in _conjuncts(attr):
                other = _name_of(c, ctx, person=kin)
                if other and other != owner:
                    _emit(ctx, owner, pred, other, 0.6, obj_tok=None)
                    if pred == "has-child":
                        _age_after(c, other, ctx)
        if pred == "has-child":
            _age_after(attr, value, ctx)


def _age_after(name_tok: Token, name: str, ctx: _Ctx) -> None:
    """'my kids are Lily 8 and Max 5': a small number right after a child's name is the age."""
    after = name_tok.doc[name_tok.i + 1] if name_tok.i + 1 < len(name_tok.doc) else None
    if after is not None and after.like_num and after.text.isdigit() and 0 < int(after.text) < 30:
        _emit(ctx, name, "is-aged", after.text, 0.55, obj_tok=None)


# A value said in the past tense is one the subject had: the past wording of its single-valued relation.
_PAST_VALUE = {"has-salary": "earned", "has-rent": "had-rent", "has-manager": "had-manager"}


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


# The verb rules of jobs, starts, pay, schools and things owned, in the order they run. Each takes the
# verb, its direct objects, the subject and the tense, emits what it reads and says whether it read the
# clause (then the plain object rules leave it alone).
_VERB_RULES: tuple[VerbRule, ...] = (
    _acting_title,
    _diagnosed_whom,
    _transferred,
    _said_yes_to,
    _quit_job,
    _manages_me,
    _handed_in_notice,
    _got_a_place,
    _works_as_for,
    _works_for_org,
    _rented_for,
    _raise_to,
    _pay_cut,
    _getting_a_rate,
    _got_a_job,
    _studies_or_trains_at,
    _reports_to,
    _owns_named,
    _started_work_at,
    _started_school,
    _started_at,
    _joined,
    _duty_at,
    _earns,
    _held_post,
    _moved_into_work,
    _desk_at,
    _got_into,
)


def _verb_rules(verb: Token, subject: str, past: bool, ctx: _Ctx) -> bool:
    """Jobs, starts and pay; True when the clause was read as one of them.

    'Tom got a job at the city library', 'I accepted an offer from Helix', 'I'll start at Acme on
    June 8', 'Leo will start at Riverside Primary', 'I joined Northwind as a data analyst',
    'I make about $70,000 a year'. Every rule runs (one clause may hold a job and its pay).
    """
    dobjs = [c for c in verb.children if c.dep_ == "dobj"]
    found = _shifts_at(verb, dobjs, subject, past, ctx) or _school_changed(verb, dobjs, subject, ctx)
    for rule in _VERB_RULES:
        found = rule(verb, dobjs, subject, past, ctx) or found
    return found
