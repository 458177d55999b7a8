"""One sentence's facts: its clauses first, then the sweeps that read the sentence whole
(relations, homes, ages, pay, chat lines, pets and cars).
"""

from __future__ import annotations

import itertools

from spacy.tokens import Span, Token

from knowledge_engine.extract import still_at
from knowledge_engine.extract.dependency.belongings import (
    _acquired_called,
    _cars_asked_about,
    _cars_named,
    _pet_by_its_word,
    _pet_called,
    _pet_name_said,
    _pet_named,
    _pets_by_breed,
    _pets_named,
    _to_the_vet,
)
from knowledge_engine.extract.dependency.clauses import _clause_facts, _clause_roots, _clauses
from knowledge_engine.extract.dependency.context import _Ctx, _emit
from knowledge_engine.extract.dependency.couples import couples
from knowledge_engine.extract.dependency.family import (
    _FIRST_SPANS,
    _adjacent_relation,
    _age_aside,
    _age_facts,
    _birthday_age,
    _birthday_today,
    _boss_gone,
    _boss_opening,
    _bracketed_age,
    _bracketed_relation,
    _broke_up,
    _called_relation,
    _changed_schools,
    _child_by_rank,
    _child_of_childcare,
    _children_listed,
    _compound_relation,
    _dating,
    _ex_partner,
    _first_day,
    _foreign_possessive,
    _kids_listed,
    _lowercase_relation,
    _manager_to_be,
    _name_bracket_kin,
    _name_comma_relation,
    _name_then_kin,
    _new_boss_named,
    _pair_wed,
    _parent_of_named,
    _place_got,
    _place_offered,
    _relation_named_later,
    _resigned_to,
    _team_lead_named,
    _who_manages,
    _workplace_of_relation,
    _year_old_named,
)
from knowledge_engine.extract.dependency.grammar import _is_manager_noun, _is_question, _is_school, _used_to
from knowledge_engine.extract.dependency.health import (
    _body_trouble,
    _condition_here,
    _condition_news,
    _diagnosis_given,
    _dx_news,
    _possessed_condition,
    _test_found,
    _treated_for,
)
from knowledge_engine.extract.dependency.homes import (
    _commute_from,
    _districts,
    _feels_like_home,
    _here_in,
    _home_city,
    _home_it,
    _home_of_mine,
    _home_ours,
    _lives_with_us_in,
    _living_there,
    _moved_here,
    _origin_said,
    _ours_in,
    _place_based,
    _place_named,
    _since_moving,
    _the_move,
)
from knowledge_engine.extract.dependency.kid_lists import kid_lists
from knowledge_engine.extract.dependency.lines import (
    _bracketed_title,
    _i_am_title,
    _job_fragment,
    _moved_to,
    _name_run,
    _rent_line,
    _title_line,
    _workplace_line,
)
from knowledge_engine.extract.dependency.money import (
    _amount_it,
    _monthly_rent,
    _my_pay_is,
    _on_pay,
    _pay_arrow,
    _pay_cut_from,
    _pay_facts,
    _pay_marked,
    _pay_starts_at,
    _rent_amount,
    _rent_in,
    _salary_change,
    _settled_at,
    _start_pay,
    _take_home_said,
)
from knowledge_engine.extract.dependency.names import (
    _bare_name,
    _conjuncts,
    _employer_named,
    _kin_or_pet_key,
    _lowercase_name_run,
    _name_of,
    _person_cased,
    _possessive_relation,
)
from knowledge_engine.extract.dependency.notes import (
    CAR_KEYS,
    HOME_KEYS,
    MORE_JOB_KEYS,
    PAST_OWNERS,
    SEPARATORS,
    _car_note,
    _home_note,
    _listed_age,
    _note_line,
    _person_value,
)
from knowledge_engine.extract.dependency.nouns import (
    _amount,
    _big_enough,
    _is_date,
    _is_job,
    _is_kin,
    _money_value,
    _relation_predicate,
)
from knowledge_engine.extract.dependency.offers import _made_me_redundant, _offer_signed, _offers
from knowledge_engine.extract.dependency.work import (
    _appositive_job,
    _as_title_after,
    _being_a,
    _employer_of_role,
    _firm_called_job,
    _firm_joined,
    _in_an_org,
    _job_here,
    _job_of_mine,
    _kept_on,
    _last_day,
    _leaving_weighed,
    _let_me_go,
    _made_permanent,
    _no_longer_at,
    _own_business,
    _pension_from,
    _promoted_me,
    _qualified_as,
    _role_as_mine,
    _signed_off_as,
    _since_leaving,
    _stepped_up,
    _title_changed,
    _title_now,
    _titled_job,
    _work_at,
    _working_there,
    _workplace_pred,
    _year_of_study,
    _years_at,
    _years_fragment,
)
from knowledge_engine.extract.lexicon import (
    CHILDCARE_NOUNS,
    CONDITIONS,
    FRAGMENT_GLUE,
    FRAGMENT_IRREALIS,
    FRAGMENT_JOB_KEYS,
    FRAGMENT_LEADS,
    FRAGMENT_OWNERS,
    FRAGMENT_ROLE_KEYS,
    PAY_WORDS,
    PET_NOUNS,
    SALARY_NOUNS,
    VISIT_WORDS,
    WORK_NOUNS,
)


def _sentence_facts(sent: Span, ctx: _Ctx) -> None:
    """The facts of one sentence, appended to ctx.out."""
    first = len(ctx.out)
    _relation_sweep(sent, ctx)  # "my husband Tom" holds in a question or a plan too
    _districts(sent, ctx)  # "Kreuzberg is a lively area": geography, whoever says it
    _pets_named(sent, ctx)
    _acquired_called(sent, ctx)
    _leaving_weighed(sent, ctx)  # "Should I leave Acme?": whatever is asked, one is at Acme now
    if _is_question(sent):
        if ctx.message.role == "user":
            _the_move(sent, ctx, own_only=True)  # "Any tips for our move to Bristol?": asked about
            _cars_asked_about(sent, ctx)  # "Can I claim mileage for my Octavia?"
        return
    _age_facts(sent, ctx)
    _relation_named_later(sent, ctx)
    _age_aside(sent, ctx)
    _birthday_today(sent, ctx)
    _birthday_age(sent, ctx)
    if ctx.message.role == "user":
        for part in _form_parts(_whole_line(sent)):
            _fragments(part, ctx)
    for verb in sent:
        _pay_facts(verb, ctx)
        _salary_change(verb, ctx)
        if verb.lemma_ == "start" and ctx.message.role == "user":
            _pay_starts_at(verb, ctx)
        _promoted_me(verb, ctx)  # "They promoted me to X": whoever "they" are, the title is mine
        _title_changed(verb, ctx)  # "My job title changed to Principal Engineer"
        _made_me_redundant(verb, ctx)
    if ctx.message.role == "user":
        _monthly_rent(sent, ctx)
        _rent_amount(sent, ctx)
        _amount_it(sent, ctx)
        _pay_cut_from(sent, ctx)
        _pay_marked(sent, ctx)
        _on_pay(sent, ctx)
        _my_pay_is(sent, ctx)
        _take_home_said(sent, ctx)
        _last_day(sent, ctx)
        _working_there(sent, ctx)
        _being_a(sent, ctx)
        _since_leaving(sent, ctx)
        _firm_joined(sent, ctx)
        _appositive_job(sent, ctx)
        _title_now(sent, ctx)
        _years_fragment(sent, ctx)
        _firm_called_job(sent, ctx)
        _since_moving(sent, ctx)
        _the_move(sent, ctx)
        _moved_here(sent, ctx)
        _rent_in(sent, ctx)
        _offers(sent, ctx)
        _home_it(sent, ctx)
        _still_at(sent, ctx)
        _year_of_study(sent, ctx)
        _pension_from(sent, ctx)
        _place_offered(sent, ctx)
        _place_got(sent, ctx)
        _dating(sent, ctx)
        _broke_up(sent, ctx)
        _ex_partner(sent, ctx)
        _parent_of_named(sent, ctx)
        _changed_schools(sent, ctx)
        _condition_news(sent, ctx)
        _dx_news(sent, ctx)
        _test_found(sent, ctx)
        _body_trouble(sent, ctx)
        _diagnosis_given(sent, ctx)
        _treated_for(sent, ctx)
        _pay_arrow(sent, ctx)
        _settled_at(sent, ctx)
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
        _pet_by_its_word(sent, before, ctx)
        _home_ours(sent, ctx)
        _home_of_mine(sent, first, ctx)  # after the clauses: "moved into our flat in X" is read there
        _commute_from(sent, ctx)
        _place_based(sent, ctx)
        _ours_in(sent, ctx)
        _origin_said(sent, ctx)
        _in_an_org(sent, before, ctx)
        _job_of_mine(sent, before, ctx)
        _work_at(sent, before, ctx)
        _kept_on(sent, ctx)
        _qualified_as(sent, ctx)
        _no_longer_at(sent, ctx)
        _let_me_go(sent, ctx)
        _start_pay(sent, before, ctx)
        _years_at(sent, before, ctx)
        _role_as_mine(sent, before, ctx)
        _job_here(sent, ctx)
        _condition_here(sent, ctx)
        _made_permanent(sent, ctx)
        _signed_off_as(sent, before, ctx)
        _team_lead_named(sent, ctx)
        _new_boss_named(sent, ctx)
        _who_manages(sent, ctx)
        _pair_wed(sent, ctx)
        couples(sent, ctx)
        _name_then_kin(sent, ctx)
        _name_bracket_kin(sent, ctx)
        kid_lists(sent, ctx)
        _boss_gone(sent, ctx)
        _resigned_to(sent, ctx)
        _manager_to_be(sent, ctx)
        _offer_signed(sent, ctx)
        _titled_job(sent, before, ctx)
        _stepped_up(sent, before, ctx)
        _own_business(sent, before, ctx)
        _employer_of_role(sent, before, ctx)
        _home_city(sent, before, ctx)
        _living_there(sent, ctx)
        _feels_like_home(sent, ctx)
        _lives_with_us_in(sent, ctx)


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
    # "QA lead, start 1 august": a title and its start, the only verb after the comma
    start_title = bool(verbs) and all(v.lemma_ == "start" and v.i > words[i].i + 1 for v in verbs)
    if not verbs or ing_title or start_title:
        if titled:
            _workplace_line(words[i:], ctx)
        _title_line(words[i:], ctx)
        _rent_line(words[i:], ctx)
    _bracketed_title(words, ctx)
    _children_listed(words[i:], ctx)
    if _note_line(words[i:], ctx):
        return
    past = False
    while i < len(words) and (words[i].lower_ in FRAGMENT_OWNERS or words[i].lower_ in PAST_OWNERS):
        past = past or words[i].lower_ in PAST_OWNERS  # "Old job: barista at Pret"
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
    # "The new manager will be Linh": a manager set to come is the manager (not "would be": a maybe)
    glue = FRAGMENT_GLUE | ({"will", "'ll", "be"} if _is_manager_noun(words[i]) else set())
    while j < len(words) and (words[j].lower_ in glue or words[j].text in {":", "-", "–", "—", "="}):
        j += 1
    if j >= len(words) or (j == i + 1 and key in FRAGMENT_JOB_KEYS and words[j].pos_ == "VERB"):
        return
    if key in PAY_WORDS:
        value = _money_value(words[j], ctx) or _amount(words[j])
        if value and _big_enough(value):
            pred = "has-rent" if key in {"rent", "mortgage"} else "has-salary"
            _emit(ctx, ctx.me, pred, value, 0.55, obj_tok=None)
    elif key in FRAGMENT_JOB_KEYS or key in FRAGMENT_ROLE_KEYS or (key in MORE_JOB_KEYS and j > i + 1):
        _job_fragment(words[j:], key in FRAGMENT_ROLE_KEYS, ctx, past=past)
    elif key in HOME_KEYS and j > i + 1 and words[j - 1].text in SEPARATORS | {"in"}:
        _home_note(words[j:], past, ctx)  # "Home: Clapham", "based in Surry Hills"
    elif key in CAR_KEYS and j > i + 1:
        _car_note(words[j:], past, ctx)
    elif _is_manager_noun(words[i]) and j > i + 1 and words[i + 1].lower_ != "of":  # not "manager of Arsenal"
        # "new manager: kavya reddy", "boss - Dana Ortiz"
        # "manager will be ruan du plessis": the copula's rule keeps a lower-case name's particles
        to_come = any(w.lower_ in {"will", "'ll"} for w in words[i + 1 : j])
        name = _name_run(words[j:]) or (None if to_come else _lowercase_name_run(words[j]))
        if name:
            _emit(ctx, ctx.me, "has-manager", _person_cased(name), 0.55, obj_tok=None, obj_type="person")
    elif j > i + 1 and words[j - 1].text in {":", "-", "–", "—"} and _kin_or_pet_key(words[i]):
        name = _person_value(words[j:])  # "Wife: Ingrid.", "Cat: Nori. Vet Tues.", "son - Leo"
        if name:
            _emit(ctx, ctx.me, _relation_predicate(words[i]), _person_cased(name), 0.55, obj_tok=None)
            _listed_age(words[j:], name, ctx)  # "child: Amara, age 3"


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
        if not name or _is_date(tok, ctx):  # ("- Hana: in Osaka now" is hers: notes._line_facts_owned)
            continue
        if prep == "at" and _employer_named(tok, name, ctx):
            _emit(ctx, ctx.me, _workplace_pred(name, False), name, 0.5, obj_tok=None, obj_type="organization")
            if tok.i + 1 < sent.end and sent.doc[tok.i + 1].lower_ == "as":  # "Currently at Google as a PM"
                _as_title_after(tok, ctx.me, ctx)
        elif prep == "in" and _place_named(tok, name, ctx):
            _emit(ctx, ctx.me, "lives-in", name, 0.5, obj_tok=None, obj_type="location")


def _school_after(noun: Token) -> bool:
    """A school's name after the noun's "at" ("class at Riverside Montessori", not "class at the gym")."""
    at = (p for c in noun.children if c.lower_ == "at" for p in c.children if p.dep_ == "pobj")
    return any(p.pos_ == "PROPN" and _is_school(p.doc[p.left_edge.i : p.i + 1].text) for p in at)


def _whole_line(sent: Span) -> Span:
    """A sentence that opens a line and ends on its key ("- mgr:" / "Priyanka Rao": the parser may
    cut a note there), up to the line's end; any other sentence as it is."""
    doc = sent.doc
    opens = sent.start == 0 or (doc[sent.start - 1].is_space and "\n" in doc[sent.start - 1].text)
    last = doc[sent.end - 1] if not doc[sent.end - 1].is_space else doc[max(sent.start, sent.end - 2)]
    if not opens or last.text != ":" or sent.end >= len(doc) or "\n" in doc[sent.end - 1].text:
        return sent
    end = next((t.i for t in doc[sent.end :] if t.is_space and "\n" in t.text), len(doc))
    return doc[sent.start : end]


def _form_parts(sent: Span) -> list[Span]:
    """A line of "key: value" pairs parted by semicolons ("occupation: civil engineer; employer:
    Larsen & Toubro; spouse: Meenal"), each read as a line of its own; a dash before the first key
    ("Help me fill out this form — occupation: ...") ends the request before it."""
    doc = sent.doc
    keyed = [t.i for t in sent if t.text in {"—", "–"} and t.i + 2 < sent.end and doc[t.i + 2].text == ":"]
    cuts = (
        sorted([t.i for t in sent if t.text == ";"] + keyed[:1]) if any(t.text == ";" for t in sent) else []
    )
    if not cuts:
        return [sent]
    bounds = [sent.start - 1, *cuts, sent.end]
    return [sent.doc[a + 1 : b] for a, b in itertools.pairwise(bounds) if b > a + 1]


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
        _year_old_named(tok, ctx)
        _kids_listed(tok, ctx)
        if tok.lemma_ in {"call", "name"} and any(c.dep_ == "auxpass" for c in tok.children):
            _called_relation(tok, ctx)
        opens = tok.tag_ == "VBN" and tok.i == tok.sent.start  # "Named her Pepper." ("We" dropped)
        if ctx.message.role == "user" and tok.lemma_ in {"call", "name"} and (tok.tag_ == "VBD" or opens):
            _pet_named(tok, ctx)
        if user and tok.lemma_ in {"take", "bring"} and tok.pos_ == "VERB":
            _to_the_vet(tok, ctx)
        if user and tok.lower_ == "here" and tok.pos_ == "ADV":
            _here_in(tok, ctx)
        if user and tok.lower_ == "name" and tok.pos_ == "NOUN":
            _pet_name_said(tok, ctx)
        if tok.pos_ == "NOUN" and tok.lemma_.lower() in PET_NOUNS and ctx.message.role == "user":
            _pet_called(tok, ctx)
        if tok.pos_ == "PROPN":
            _bracketed_age(tok, ctx)
        if tok.pos_ == "PROPN":
            _compound_relation(tok, ctx)
        _foreign_possessive(tok, ctx)
        if tok.pos_ in {"NOUN", "ADJ"} and (_is_kin(tok) or _is_manager_noun(tok)):
            _lowercase_relation(tok, ctx)
        if tok.pos_ in {"NOUN", "ADJ"} and _is_kin(tok):
            _adjacent_relation(tok, ctx)
            _bracketed_relation(tok, ctx)
            _name_comma_relation(tok, ctx)
        if user and tok.pos_ in {"NOUN", "PROPN"}:  # "my IBS" tagged a name
            lemma = tok.lemma_.lower()
            if lemma in CONDITIONS or tok.lower_ in CONDITIONS:  # the lemmatizer makes "diabete"
                _possessed_condition(tok, ctx)
            elif lemma in CHILDCARE_NOUNS or (lemma == "class" and _school_after(tok)):
                _child_of_childcare(tok, ctx)  # "her class at Riverside Montessori" (an adult's class: none)
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
