"""Family and other relations: spouses, partners, children by name, rank or age, managers,
engagements, and ages.
"""

from __future__ import annotations

import re
from itertools import islice

from spacy.lang.en.stop_words import STOP_WORDS
from spacy.tokens import Doc, Span, Token

from knowledge_engine.extract.dependency.context import MANAGER_PREDICATES, _Ctx, _emit
from knowledge_engine.extract.dependency.grammar import (
    _is_irrealis,
    _is_manager_noun,
    _is_past,
    _is_school,
    _perfect,
    _pobjs,
)
from knowledge_engine.extract.dependency.names import (
    _called_name,
    _capitalised,
    _conjuncts,
    _employer_named,
    _english_non_noun,
    _kin_or_pet_key,
    _lower_first_name,
    _my_or_our,
    _name_of,
    _object_phrase,
    _only_person_before,
    _owner,
    _person_word,
    _possessive_relation,
    _pronoun_name,
    _resolve_subject,
    _the_spouse,
)
from knowledge_engine.extract.dependency.nouns import (
    _CHILD_RANKS,
    _beside_a_number,
    _is_date,
    _is_kin,
    _is_kin_word,
    _kin_type,
    _number,
    _other_half,
    _preps,
    _relation_predicate,
    _relation_word,
)
from knowledge_engine.extract.kids import KID_WORDS, MAX_CHILD_AGE, speaks_of_own_kids
from knowledge_engine.extract.lexicon import (
    FAMILY_NOUNS,
    FEMALE_KIN,
    FIRST_PERSON,
    FIRST_PERSON_POSS,
    FOREIGN_MY,
    JOB_TITLE_NOUNS,
    MALE_KIN,
    NOT_NAME_ENDINGS,
    NOT_NAMES,
    PERSON_NOUNS,
    PET_NOUNS,
    PRONOUN,
    RELATION_PREDICATES,
    SCHOOL_WORDS,
    SPEAKER_SUBJECTS,
    START_VERBS,
    WORK_NOUNS,
)
from knowledge_engine.extract.nlp import listed, word_index
from knowledge_engine.extract.pets import animal
from knowledge_engine.extract.places import big_place
from knowledge_engine.extract.truecase import names as first_names
from knowledge_engine.model.predicates import PROSPECTIVE_MANAGER
from knowledge_engine.model.records import EntityType

# What a relation's word says it no longer is: "my old mgr pete", "my former boss"
_FORMER = frozenset({"old", "former", "ex", "previous"})


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


def _pair_wed(sent: Span, ctx: _Ctx) -> None:
    """ "Dan and I are engaged!", "Tom and I are married": the parse hangs the pair off the verb with
    no subject (so no clause is read); the name paired with "I" is the speaker's partner or spouse."""
    for verb in (t for t in sent if t.lemma_ in {"engage", "marry"} and t.tag_ == "VBN"):
        if any(c.dep_ in {"nsubj", "nsubjpass"} for c in verb.children) or _is_irrealis(verb):
            continue
        for name_tok in (c for c in verb.children if c.pos_ == "PROPN" and c.i < verb.i):
            if not any(c.dep_ == "conj" and c.lower_ in {"i", "me"} for c in name_tok.children):
                continue
            name = _name_of(name_tok, ctx, person=True)
            if name:
                pred = "is-married-to" if verb.lemma_ == "marry" else "has-partner"
                _emit(ctx, ctx.me, pred, name, 0.6, obj_tok=None, obj_type="person")


def _engaged(verb: Token, subject: str, ctx: _Ctx) -> bool:
    """'I got engaged to Daniel', 'we got married to ...': a partner now, whatever the tense."""
    got = any(c.dep_ == "auxpass" and c.lemma_ in {"get", "become"} for c in verb.children)
    if verb.lemma_ not in {"get", "become"} and not (got and verb.lower_ in {"engaged", "married"}):
        return False
    found = False
    # "I got married in June to Tom": parsed a passive, "married" the verb itself
    states = [verb] if got else [c for c in verb.children if c.dep_ in {"acomp", "oprd", "xcomp"}]
    for acomp in states:
        if acomp.lower_ not in {"engaged", "married"}:
            continue
        for pobj in (p for prep in _preps(acomp, verb, {"to"}) for p in _pobjs(prep)):
            name = _name_of(pobj, ctx, person=True)
            if name:
                pred = "has-partner" if acomp.lower_ == "engaged" else "is-married-to"
                _emit(ctx, subject, pred, name, 0.6, obj_tok=None, obj_type="person")
                found = True
    return found


def _manages_me(verb: Token, dobjs: list[Token], subject: str, past: bool, ctx: _Ctx) -> bool:
    """'Priya manages me', 'Dana supervises us', 'Tom, who manages our team' -> the speaker's manager;
    'I work under Dave' -> Dave."""
    if verb.lemma_ not in _MANAGING or ctx.message.role != "user" or _is_irrealis(verb):
        return False  # (the lemma first: this runs for every clause)
    # "Priya manages me", "Tom, who manages our team", "Priya, who runs my department"
    units = (d for d in dobjs if d.lemma_.lower() in _UNITS)
    mine = any(c.lower_ in {"my", "our"} for d in units for c in d.children)
    me = any(d.lower_ in {"me", "us"} for d in dobjs) and verb.lemma_ in {"manage", "supervise"}
    if verb.lemma_ != "work" and subject != ctx.me and (me or mine) and not subject.startswith(PRONOUN):
        _emit(ctx, ctx.me, "has-manager", subject, 0.55, obj_tok=None, obj_type="person", ends=past)
        return True  # ("Priya managed me": a former manager)
    if verb.lemma_ == "work" and subject == ctx.me and not _is_past(verb):
        return _under_boss(_preps(verb, verb, {"under"}), ctx)
    return False


def _who_manages(sent: Span, ctx: _Ctx) -> None:
    """ "Tom, who manages our team, is leaving": a named person's relative clause (the clause rules
    never reach it) -> the speaker's manager, as "Tom manages our team" is."""
    for verb in (t for t in sent if t.dep_ == "relcl" and t.lemma_ in _MANAGING and t.head.pos_ == "PROPN"):
        if not any(c.dep_ == "nsubj" and c.lower_ in {"who", "that"} for c in verb.children):
            continue
        name = _name_of(verb.head, ctx, person=True)
        if name:
            _manages_me(verb, [c for c in verb.children if c.dep_ == "dobj"], name, _is_past(verb), ctx)


_MANAGING = frozenset({"manage", "supervise", "work", "run", "lead", "head"})
_UNITS = frozenset({"team", "department", "unit", "ward", "section", "office", "group", "division"})


def _under_boss(preps: list[Token], ctx: _Ctx) -> bool:
    """The speaker's manager named after "under" ('I work under Dave', "I'm now under Priya"), not a
    doctor or consultant ("I'm under Dr Shah", "under Mr Patel for my knee": a patient's)."""
    if ctx.message.role != "user":
        return False
    bosses = [p for prep in preps for p in _pobjs(prep) if p.pos_ == "PROPN"]
    bosses = [b for b in bosses if not any(c.lower_.rstrip(".") in _CLINICIANS for c in b.subtree)]
    names = [n for n in (_name_of(b, ctx, person=True) for b in bosses) if n]
    for name in names:
        _emit(ctx, ctx.me, "has-manager", name, 0.55, obj_tok=None, obj_type="person")
    return bool(names)


_CLINICIANS = frozenset({"dr", "doctor", "prof", "professor", "mr", "consultant", "surgeon"})


def _boss_opening(noun: Token, ctx: _Ctx) -> None:
    """'New boss Fiona starts Monday', 'boss - Karen', 'The boss, Karen, is off': a boss word opening
    chat without its "my", named beside it, is the speaker's boss (as "husband ryan" is the speaker's
    husband); not "the manager, Dan" (a shop's or a club's)."""
    after = noun.doc[noun.i + 1] if noun.i + 1 < len(noun.doc) else None
    if not _is_manager_noun(noun) or noun.left_edge.i != noun.sent.start or after is None:
        return
    if after.is_punct and after.text != ",":
        return  # "new boss: grace obi" is a line's key and value (_fragments)
    the_boss = noun.lemma_.lower() == "boss"
    nobodys = (c.dep_ == "det" and not (the_boss and c.lower_ == "the") for c in noun.children)
    if any(c.dep_ in {"poss", "prep"} for c in noun.children) or any(nobodys):
        return  # "a boss", "manager of Arsenal, Mikel": nobody's or another's
    for appos in (c for c in noun.children if c.dep_ == "appos" and c.pos_ == "PROPN"):
        name = _name_of(appos, ctx, person=True)
        if name:
            _emit(ctx, ctx.me, "has-manager", name, 0.55, obj_tok=None, obj_type="person")


# "my team lead, Sam", "Sam's my new team leader": the model reads "lead" as a verb and the parse splits
# the title, so the team lead is found in the words (the name must be a person the model tagged).
_TEAM_LEAD = r"team[- ]?lead(?:er)?"
_TEAM_LEAD_FIRST = re.compile(rf"\b(?:my|our)\s+(?:new\s+)?{_TEAM_LEAD}\s*,?\s+(?=[A-Z])", re.IGNORECASE)
# (?<!\s): read with .match() after a name; a search from inside a run of spaces would be quadratic
_TEAM_LEAD_AFTER = re.compile(
    rf"(?<!\s)\s*(?:is|'s|’s)\s+(?:now\s+)?(?:my|our)\s+(?:new\s+)?{_TEAM_LEAD}\b", re.I
)


def _team_lead_named(sent: Span, ctx: _Ctx) -> None:
    """The speaker's team lead named beside the title ("My team lead, Sam, is off", "Sam is my team
    lead") -> has-team-lead."""
    text, base = sent.text, sent.start_char
    if "team" not in text.lower():
        return  # every user sentence passes here: most name no team
    people = {e.start: e for t in sent if (e := ctx.ents.get(t.i)) is not None and e.label_ == "PERSON"}
    for ent in (e for e in people.values() if sent.start <= e.start):
        start, end = ent.start_char - base, ent.end_char - base
        before = any(m.end() == start for m in _TEAM_LEAD_FIRST.finditer(text))
        after = _TEAM_LEAD_AFTER.match(text, end) is not None
        name = _name_of(ent.root, ctx, person=True) if before or after else None
        if name and not _is_irrealis(sent.root):
            _emit(ctx, ctx.me, "has-team-lead", name, 0.55, obj_tok=None, obj_type="person")


# "Got a new boss today, Marcus.": the news, then the name set off at the end (the model may tag it a
# place); said by the speaker ("I've got", or no subject), not "My brother got a new boss, Marcus".
_NEW_BOSS_WORD = r"(?:line\s+)?(?:boss|manager|manger|supervisor|team\s+lead)"
# the name ends the sentence or a comma follows it: "..., Dan, he's ex-Google", "...: Dan Cole."
_NAME_SET_OFF = r"(?P<name>[^\W\d_]+(?:\s+(?-i:[A-Z])[\w'’-]+)?)(?:\s*[.!]*|\s*,.*)"
_NEW_BOSS = re.compile(
    r"(?:(?:i|we)(?:'ve|’ve| have)?\s+)?(?:just\s+)?(?:got|have|getting)\s+a\s+new\s+"
    rf"{_NEW_BOSS_WORD}\b[^,.!?:]{{0,30}}[,:]\s*{_NAME_SET_OFF}",
    re.IGNORECASE | re.DOTALL,
)


# "new depot manager started last week, shazia", "our new boss starts Monday - Priya": a new boss
# whose start is the news, the name set off after it
_NEW_BOSS_STARTED = re.compile(
    rf"\A(?:(?!(?:his|her|their)\b)\w+\s+){{0,2}}?(?:(?:my|our|a|the)\s+)?new\s+(?:\w+\s+)?{_NEW_BOSS_WORD}\s+"
    rf"(?:has\s+)?start(?:ed|s)\b[^,.!?]{{0,30}}[,:–—-]\s*{_NAME_SET_OFF}",
    re.IGNORECASE | re.DOTALL,
)


def _new_boss_named(sent: Span, ctx: _Ctx) -> None:
    """The speaker's new boss named after the news of it -> has-manager."""
    low = sent.text.lower()
    if "new" not in low or not any(w in low for w in ("boss", "manager", "manger", "supervisor", "lead")):
        return  # every user sentence passes here
    text = sent.text.strip()
    m = _NEW_BOSS.fullmatch(text) or _NEW_BOSS_STARTED.fullmatch(text)
    if m is None:
        return
    named = m["name"][0].isupper() or m["name"].lower() in first_names()
    if not named and listed(m["name"].lower(), sent.doc.vocab) is not False:
        return  # a lower-case name only when no English word ("shazia", not "seems")
    at = sent.start_char + sent.text.index(text) + m.start("name")
    tok = next((t for t in sent if t.idx == at), None)
    known = tok is not None and _person_word(tok, ctx)
    if tok is None or not (known or tok.is_lower) or big_place(tok.text):
        return
    name = _name_of(tok, ctx, person=True) or ""
    name = name if name.startswith(tok.text) else tok.text.capitalize()  # not "Monday - Priya"
    _emit(ctx, ctx.me, "has-manager", name, 0.55, obj_tok=None, obj_type="person")


# The manager a job would bring: "would-be manager Tom Haskins", "manager would be Alicia Moreno",
# "Colleen Fitzgerald, the Director of Pharmacy, who would be my direct manager if I get the position"
# ("will be" is said of a job taken: "manager will be tomas" is has-manager, clauses.py)
_BOSS_WORD = r"(?:line\s+|direct\s+|new\s+)?(?:manager|boss|mgr|supervisor)"
_NAME = r"(?<![\w'’-])(?P<name>[A-Z][\w'’-]+(?:\s+[A-Z][\w'’-]+)?)"  # no start inside a word: linear
_MANAGER_TO_BE = (
    re.compile(rf"\bwould-be\s+{_BOSS_WORD}\s+{_NAME}"),
    re.compile(rf"\b{_BOSS_WORD}\s+would\s+be\s+{_NAME}", re.I),
    re.compile(rf"{_NAME}(?:,[^,]{{1,60}})?,?\s+who\s+would\s+be\s+my\s+{_BOSS_WORD}"),
)


def _manager_to_be(sent: Span, ctx: _Ctx) -> None:
    """The manager a job the speaker is going for would bring -> has-prospective-manager: the store
    makes it has-manager when the job is accepted (store/offers.py). A first name or a person."""
    for pattern in _MANAGER_TO_BE:
        for m in pattern.finditer(sent.text):
            span = sent.doc.char_span(sent.start_char + m.start("name"), sent.start_char + m.end("name"))
            if span is None or not (span[0].lower_ in first_names() or span[0].ent_type_ == "PERSON"):
                continue
            if span.text != ctx.me and not big_place(span.text):
                _emit(ctx, ctx.me, PROSPECTIVE_MANAGER, span.text, 0.5, obj_tok=None, obj_type="person")


def _resigned_to(sent: Span, ctx: _Ctx) -> None:
    """'resignation to dave', 'send my resignation to Priya': whom a resignation goes to is the
    speaker's manager (has-manager; a later one supersedes). Not "notice", which also goes to landlords."""
    for noun in (t for t in sent if t.lower_ == "resignation"):
        holders = [noun, noun.head] if noun.dep_ in {"dobj", "compound"} else [noun]
        for to in (c for h in holders for c in h.children if c.dep_ == "prep" and c.lower_ == "to"):
            for tok in _pobjs(to):
                if _person_word(tok, ctx) and not big_place(tok.text):
                    name = _name_of(tok, ctx, person=True) or tok.text.capitalize()
                    _emit(ctx, ctx.me, "has-manager", name, 0.5, obj_tok=None, obj_type="person")


_GONE = frozenset({"leave", "retire", "quit", "resign"})
_JOB_LEFT = frozenset({"company", "firm", "job", "team", "business", "department", "school", "practice"})


def _boss_gone(sent: Span, ctx: _Ctx) -> None:
    """'My manager Sue left last week', 'Sue, my boss, has retired' -> the speaker's has-manager Sue
    said in the sentence ends: a boss who left is a former boss. Not "my boss left early" (the day's
    end) nor a leaving only planned."""
    for verb in (t for t in sent if t.lemma_ in _GONE and t.pos_ == "VERB"):
        if not (_is_past(verb) or _perfect(verb)) or _is_irrealis(verb) or not _left_the_job(verb):
            continue
        said = [c for c in verb.children if c.dep_ == "nsubj" or (c.dep_ == "npadvmod" and c.pos_ == "PROPN")]
        words = [t for c in said for t in c.subtree]
        if not any(_is_manager_noun(t) for t in words):
            continue
        names = {t.text for t in words if t.pos_ == "PROPN"}
        for k, fact in enumerate(ctx.out):
            mine = fact.subject == ctx.me and fact.predicate in MANAGER_PREDICATES and not fact.ends
            if mine and fact.object.split()[-1] in names:
                ctx.out[k] = fact.model_copy(update={"ends": True})


def _left_the_job(verb: Token) -> bool:
    """Left the job, not the room: no object but a firm or job, no "early" or "at five"."""
    if verb.lemma_ != "leave":
        return True
    kids = list(verb.children)
    objects_ok = all(c.lemma_.lower() in _JOB_LEFT for c in kids if c.dep_ == "dobj")
    after = verb.doc[verb.i + 1 : verb.sent.end]  # "left early today", "left at five": a time of day
    timing = any(t.lower_ in {"early", "late", "at"} or t.ent_type_ == "TIME" for t in after)
    return objects_ok and not timing


def _child_of_childcare(noun: Token, ctx: _Ctx) -> None:
    """ "Callum's teacher", "Ruby's daycare closes at 5:30": in a parent's chat, a named person with
    a daycare, a nursery or a teacher is the speaker's child (a weak reading: confidence 0.5). The
    small model calls some first names an organisation ("Callum"); a known first name is a name."""
    doc = noun.doc
    if noun.i >= 1 and doc[noun.i - 1].lower_ in {"his", "her"}:
        _childcare_by_pronoun(noun, ctx)  # "my son Jayden ..., his teacher at St Joseph's says"
        return
    if noun.i < 2 or doc[noun.i - 1].lower_ not in {"'s", "’s"}:  # by the words: the parse often
        return  # hangs "Ruby's daycare closes" anywhere
    for poss in (t for t in [doc[noun.i - 2]] if t.pos_ == "PROPN" and t.text[:1].isupper()):
        ent = ctx.ents.get(poss.i)
        name = _name_of(poss, ctx, person=True)
        alone = len([t for t in ent if t.tag_ != "POS"]) == 1 if ent is not None else True  # "Leo's": ORG
        named = ent is None or ent.label_ == "PERSON" or (alone and poss.lower_ in first_names())
        if name and named and name != ctx.me:
            _emit(ctx, ctx.me, "has-child", name, 0.5, obj_tok=None, obj_type="person")
            _school_of_childcare(noun, name, ctx)


def _childcare_by_pronoun(noun: Token, ctx: _Ctx) -> None:
    """'My son Jayden has ADHD and his teacher at St Joseph's says...', 'my daughter Mila ... kids from
    her class at Riverside Montessori': the one child this message named is the his or her."""
    children = {f.object for f in ctx.out if f.subject == ctx.me and f.predicate == "has-child"}
    if len(children) == 1:
        _school_of_childcare(noun, next(iter(children)), ctx)


def _school_of_childcare(noun: Token, child: str, ctx: _Ctx) -> None:
    """ "Leo's teacher at Riverside says...": the place of the child's teacher or nursery is the
    child's school."""
    ats = [c for c in noun.children if c.dep_ == "prep" and c.lower_ == "at"]
    after = noun.doc[noun.i + 1] if noun.i + 1 < len(noun.doc) else None
    if not ats and after is not None and after.lower_ == "at":
        ats = [after]  # "his teacher at St Joseph's says": the parse may hang "at" on the verb
    for pobj in (p for prep in ats for p in _pobjs(prep)):
        school = _name_of(pobj, ctx) if pobj.pos_ == "PROPN" else None
        if school and not _is_irrealis(noun.head):
            _emit(ctx, child, "attends", school, 0.5, obj_tok=pobj, obj_type="organization")


_FIRST_SPANS = {"day", "week", "month", "shift"}


_NOT_WORK_DAYS = frozenset({"study", "open", "taster", "visit", "exam", "course", "college", "uni"})


def _first_day(noun: Token, ctx: _Ctx) -> None:
    """'Just finished my first week at Helix', 'First day at Acme tomorrow', "Tom's first shift at
    Tesco is on Sunday" -> works-at: a first day somewhere is a job begun there (a hypothetical one
    is not)."""
    if not any(c.dep_ == "amod" and c.lower_ == "first" for c in noun.children):
        return
    if any(c.lower_ in _NOT_WORK_DAYS for c in noun.children):
        return  # "my first study day with Northern Dental Academy": a course, not the job
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
            # "Leo's first day at Riverside Primary": another's first day at a school is a pupil's (the
            # speaker's own may be a teacher's)
            pred = "attends" if owner != ctx.me and _is_school(name) else "works-at"
            _emit(ctx, owner, pred, name, 0.55, obj_tok=None, obj_type="organization")


# "our younger one, Zara", "my eldest one Tom", "the little one": a child by rank with "one" for the noun
_RANKED_ONES = frozenset({"younger", "older", "youngest", "eldest", "oldest", "middle", "little", "big"})


def _child_by_rank(tok: Token, ctx: _Ctx) -> None:
    """'our youngest, Kayden', 'my eldest Sophie' -> has-child: a rank among one's children said
    with no noun ('my eldest sister' has one: no child)."""
    ranked_one = tok.lower_ == "one" and any(
        c.dep_ == "amod" and c.lower_ in _RANKED_ONES for c in tok.children
    )
    if (tok.lower_ not in _CHILD_RANKS and not ranked_one) or ctx.message.role != "user":
        return
    if tok.dep_ == "amod" and tok.head.pos_ == "PROPN":  # "our youngest Zane"
        owner, named = tok.head, [tok.head]
    elif (tok.pos_ in {"ADJ", "NOUN"} or ranked_one) and tok.dep_ not in {
        "amod",
        "compound",
    }:  # "Our youngest, Kayden,"
        owner, named = tok, [c for c in tok.children if c.dep_ == "appos" and c.pos_ == "PROPN"]
    else:
        return
    if not _my_or_our(owner):
        return
    for tok_name in named:
        name = _name_of(tok_name, ctx, person=True)
        if name:
            _emit(ctx, ctx.me, "has-child", name, 0.55, obj_tok=None, obj_type="person")


def _year_old_named(tok: Token, ctx: _Ctx) -> None:
    """'my 7 year old Noah', 'our 4-year-old, Leo,' -> has-child and is-aged: one's own child said by
    age alone, a name beside it ("my 40-year-old brother" has a kin word: the relation rules read it)."""
    if tok.lower_ != "old" or ctx.message.role != "user":
        return
    years = next((c for c in tok.children if c.dep_ == "npadvmod" and c.lemma_ == "year"), None)
    num = next((c for c in years.children if c.dep_ == "nummod"), None) if years is not None else None
    age = _number(num) if num is not None else None
    holder = tok.head if tok.dep_ == "amod" else tok
    if age is None or age > MAX_CHILD_AGE or not _my_or_our(holder):
        return
    named = (
        holder
        if holder.pos_ == "PROPN"
        else next((c for c in holder.children if c.dep_ == "appos" and c.pos_ == "PROPN"), None)
    )
    name = _name_of(named, ctx, person=True) if named is not None else None
    # "my 2 year old Lab Biscuit": a dog; the name's first word must name a person
    first = None if named is None else min([named, *(c for c in named.children if c.dep_ == "compound")])
    if name and name != ctx.me and first is not None and _person_word(first, ctx):
        _emit(ctx, ctx.me, "has-child", name, 0.55, obj_tok=None, obj_type="person")
        _emit(ctx, name, "is-aged", str(age), 0.55, obj_tok=None, subj_type="person")


_THE_KIDS = frozenset({"kids", "children", "twins", "kiddos"})  # "the boys", "the girls": often friends


def _kids_listed(tok: Token, ctx: _Ctx) -> None:
    """'The kids, Mia and Sam, are at their gran's', 'taking the boys, Jack and Finn, swimming' in the
    speaker's message -> has-child for each name listed right after the word for the kids ("my boys",
    "our girls" too; "the boys" alone is as often one's friends)."""
    if ctx.message.role != "user" or tok.lower_ not in KID_WORDS or tok.pos_ != "NOUN":
        return
    the = any(c.dep_ == "det" and c.lower_ == "the" for c in tok.children) and tok.lower_ in _THE_KIDS
    if not (the or _my_or_our(tok)) or not speaks_of_own_kids(tok.doc):
        return
    doc = tok.doc
    first = next((c for c in tok.children if c.dep_ == "appos" and c.pos_ == "PROPN"), None)
    if first is None and tok.i + 2 < len(doc) and doc[tok.i + 1].text == ",":
        after = doc[tok.i + 2]  # the parse may hang the names on the verb instead
        first = after if after.pos_ == "PROPN" and after.ent_type_ == "PERSON" else None
    if first is not None and not _conjuncts(first) and _pet_for_the_kids(tok):
        return  # "we got a hamster for the kids, Nibbles": the one name is the animal's
    for kid in [first, *_conjuncts(first)] if first is not None else []:
        name = _name_of(kid, ctx, person=True) if kid.pos_ == "PROPN" else None
        if name:
            _emit(ctx, ctx.me, "has-child", name, 0.55, obj_tok=None, obj_type="person")


def _pet_for_the_kids(kids: Token) -> bool:
    """'a hamster for the kids': an animal got for the kids before the word for them."""
    before = kids.doc[kids.sent.start : kids.i]
    for_them = kids.dep_ == "pobj" and kids.head.lower_ == "for"
    return for_them and any(animal(t) for t in before if t.pos_ in {"NOUN", "ADJ"})


def _workplace_of_relation(noun: Token, ctx: _Ctx) -> None:
    """'My manager at Copperleaf is Nadia': the owner works at Copperleaf ('my old boss at X': worked)."""
    poss = next((c for c in noun.children if c.dep_ == "poss"), None)
    owner = _owner(poss, ctx, noun) if poss is not None else None
    if owner is None:
        return
    former = any(c.lower_ in _FORMER for c in noun.children if c.dep_ == "amod")
    former = former or (noun.dep_ == "attr" and _is_past(noun.head))  # "Léa was my manager at Ubisoft"
    for pobj in (p for prep in _preps(noun, noun, {"at"}) for p in _pobjs(prep)):
        name = _name_of(pobj, ctx)
        if name and _employer_named(pobj, name, ctx):  # "my colleagues at Arup" (tagged a person)
            pred = "worked-at" if former else "works-at"
            _emit(ctx, owner, pred, name, 0.5, obj_tok=None, obj_type="organization")


def _called_relation(verb: Token, ctx: _Ctx) -> None:
    """'Our cat is called Mochi', 'My manager is named Dana' -> has-cat Mochi, has-manager Dana; 'My
    sister lives in Leeds, she's called Anna', 'We got a new puppy, he's called Ziggy': the he/she/it
    is the relation noun of the clause before it."""
    noun = next((c for c in verb.children if c.dep_ == "nsubjpass" and c.pos_ == "NOUN"), None)
    got = None if noun is not None else _named_after(verb)
    noun = noun or got
    # the word after "called" is the name, whatever the tag ("My wife is called Anjali": an adjective)
    oprd = next(
        (
            c
            for c in verb.children
            if c.dep_ in {"oprd", "attr", "dobj"} and (c.pos_ == "PROPN" or c.is_title)
        ),
        None,
    )
    if noun is None or oprd is None or _is_irrealis(verb):
        return
    name = _name_of(oprd, ctx, person=True) or (oprd.text if oprd.is_title and oprd.is_alpha else None)
    if not name:
        return
    if got is None:
        bare = not any(c.dep_ in {"poss", "det"} for c in noun.children) and noun.i == noun.sent.start
    else:
        bare = _speakers_unowned(got)
    key = _kin_or_pet_key(noun) or (got is not None and _is_manager_noun(noun))  # "New boss starts ..."
    if bare and key and ctx.message.role == "user":  # "son is called Tayo": chat drops "my"
        _emit(ctx, ctx.me, _relation_predicate(noun), name, 0.55, obj_tok=None, obj_type=_kin_type(noun))
    else:
        _possessive_relation(noun, name, ctx)


def _speakers_unowned(noun: Token) -> bool:
    """A noun a later "she's called" names, with no "my": the speaker's when it opens the line ("New
    boss starts Monday, she's called Anita") or "I"/"we" got it ("We got a new puppy, he's called ...")."""
    marks = {c.dep_ for c in noun.children}
    if not marks & {"poss", "det"}:
        return noun.left_edge.i == noun.sent.start
    if noun.dep_ == "dobj" and "poss" not in marks:
        return any(s.lower_ in {"i", "we"} for s in noun.head.children if s.dep_ == "nsubj")
    return False


def _named_after(verb: Token) -> Token | None:
    """The kin, pet or manager noun a "she's called"/"he's named" (`verb`) names: the subject or object
    of the clause just before it ("My sister lives in Leeds, she's called Anna"), when the pronoun's
    gender does not rule it out ("my brother ..., she's called" names someone else)."""
    pron = next((c for c in verb.children if c.dep_ == "nsubjpass" and c.lower_ in {"he", "she", "it"}), None)
    if pron is None:
        return None
    before = [c for c in verb.children if c.dep_ in {"ccomp", "conj"} and c.i < pron.i]
    nouns = [t for c in before for t in c.children if t.dep_ in {"nsubj", "dobj"} and t.pos_ == "NOUN"]
    fits = [n for n in nouns if _is_kin(n) or _kin_or_pet_key(n) or _is_manager_noun(n)]
    if len(fits) != 1:
        return None
    lemma = fits[0].lemma_.lower()
    if (pron.lower_ == "she" and lemma in MALE_KIN) or (pron.lower_ == "he" and lemma in FEMALE_KIN):
        return None
    return fits[0]


def _bracketed_age(name_tok: Token, ctx: _Ctx) -> None:
    """'our kids Leo (4) and Mia (7)' -> is-aged, for a name the message makes a person."""
    doc = name_tok.doc
    if name_tok.i + 3 >= len(doc) or doc[name_tok.i + 1].text != "(" or doc[name_tok.i + 3].text != ")":
        return
    age = _number(doc[name_tok.i + 2])
    name = _name_of(name_tok, ctx, person=True)
    ent = ctx.ents.get(name_tok.i)
    related = any(f.object == name and f.object_type == "person" for f in ctx.out)
    person = (ent is not None and ent.label_ == "PERSON") or name_tok.lower_ in first_names()  # "Sophie (9)"
    if age is not None and name and (related or person):
        _emit(ctx, name, "is-aged", str(age), 0.55, obj_tok=None, subj_type="person")


def _bracketed_relation(noun: Token, ctx: _Ctx) -> None:
    """'Tom (my husband) starts at the library', 'my husband (Tom) starts ...': a name and the
    speaker's kin word, one in brackets after the other (the parse hangs them apart)."""
    doc = noun.doc
    if not _my_or_our(noun):
        return
    left, right = noun.left_edge.i, noun.right_edge.i  # the brackets may hang on the noun or beside it
    opens = left if doc[left].text == "(" else left - 1
    closes = right if doc[right].text == ")" else right + 1
    text = [t.text for t in doc]
    name_tok = None
    if opens >= 1 and text[opens] == "(" and closes < len(doc) and text[closes] == ")":
        name_tok = doc[opens - 1]  # "Tom (my husband)"
    elif right + 3 < len(doc) and text[right + 1] == "(" and text[right + 3] == ")":
        name_tok = doc[right + 2]  # "my husband (Tom)"
    if name_tok is None or not (name_tok.pos_ == "PROPN" or _known_first_name(name_tok)):
        return
    name = _name_of(name_tok, ctx, person=True)
    if name and name != ctx.me:
        _emit(ctx, ctx.me, _relation_predicate(noun), name, 0.6, obj_tok=None, obj_type=_kin_type(noun))


_POSSESSIVE = re.compile(r"['’]s\b")


def _compound_relation(name_tok: Token, ctx: _Ctx) -> None:
    """'my sister katrin': the parser makes the relation noun a compound of the name."""
    for noun in name_tok.children:
        poss = next((c for t in (name_tok, noun) for c in t.children if c.dep_ == "poss"), None)
        # "my gf priya": "gf" tagged a name; "Hubby Dan is a plumber": a capitalised one opening the line
        opening = noun.i == noun.sent.start and noun.text.istitle() and noun.lower_ in RELATION_PREDICATES
        kin = noun.pos_ == "NOUN" or _relation_word(noun) or opening
        the = poss is None and (_the_spouse(noun, ctx) or _the_spouse(noun, ctx, name_tok))
        if (poss is not None or the) and noun.dep_ == "compound" and kin and _is_kin(noun):
            name = _name_of(name_tok, ctx, person=True)
            if name and any(c.dep_ == "case" for c in name_tok.children):
                name = _POSSESSIVE.split(name)[0].strip()  # "hubby dan's bday tmrw": Dan, not his birthday
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
    # "my old mgr pete": a first name the model tags an adjective, as it does the "mgr" before it
    named_adj = nxt.pos_ == "ADJ" and low in first_names() and not _english_non_noun(nxt)
    if not (nxt.is_lower and nxt.is_alpha and len(low) > 1):
        return
    if nxt.pos_ not in {"NOUN", "PROPN"} and not named_adj:
        return
    if nxt.is_stop or low in NOT_NAMES or low.endswith(NOT_NAME_ENDINGS) or _is_date(nxt, ctx):
        return
    if low in JOB_TITLE_NOUNS or low in FAMILY_NOUNS or low in WORK_NOUNS or low in RELATION_PREDICATES:
        return
    if _present_verb(nxt):
        return  # "my mum works at Tesco": the model made "mum works" one noun; it stored `has-mother Works`
    tied = (
        (nxt.dep_ == "appos" and nxt.head.i == noun.i)
        or (noun.dep_ in {"compound", "amod"} and noun.head.i == nxt.i)  # "my mgr pete": "mgr" an adjective
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
    pred = _relation_predicate(noun)
    # "my old mgr pete": the parse hangs the "old" on the name, not on the title
    mods = (c.lower_ for c in nxt.children if c.dep_ == "amod" and c.i < noun.i)
    former = next((m for m in mods if m in _FORMER), None)
    if former and pred == "has-manager":
        pred = f"has-{former}-manager"
    if owner != name:
        _emit(ctx, owner, pred, name, 0.6, obj_tok=None, obj_type=_kin_type(noun))


def _present_verb(tok: Token) -> bool:
    """'works at', 'lives in', 'teaches maths': the -s form of an English verb with what a verb takes
    after it, no first name ('Jules', 'Marcus'); not a pet's name before its own verb ("my cat pickles
    is so fat", "my dog waffles")."""
    low = tok.lower_
    after = tok.doc[tok.i + 1] if tok.i + 1 < len(tok.doc) else None
    if (
        not low.endswith("s")
        or low in first_names()
        or after is None
        or after.pos_ in {"AUX", "VERB", "PUNCT"}
    ):
        return False
    verbs = (word_index(tok.vocab) or {}).get("verb", ())
    return low[:-1] in verbs or (low.endswith("es") and low[:-2] in verbs)


def _adjacent_relation(noun: Token, ctx: _Ctx) -> None:
    """'my fiancé Joost', 'My stepson Mateo' read from the words when the parse is broken
    (the small model tags "stepson" an adjective, or hangs "fiancé" on the verb)."""
    doc = noun.doc
    after = noun.i + 1
    if _other_half(noun) and after + 1 < len(doc) and doc[after].text == ",":
        after += 1  # "My other half, Chris, is a chef" (parsed as no apposition)
    if noun.i < 1 or after >= len(doc) or not (doc[after].pos_ == "PROPN" or _known_first_name(doc[after])):
        return
    if doc[after].dep_ == "compound" and doc[after].head.i > after and doc[after].head.pos_ == "PROPN":
        after = doc[after].head.i  # "my manager Mr. Venkatesh": the name, not its title
    before = doc[noun.i - 1]
    if _other_half(noun) and before.lower_ == "other" and noun.i >= 2:
        before = doc[noun.i - 2]
    if before.dep_ == "compound" and before.head == noun and before.i >= 1:
        before = doc[before.i - 1]  # "My line manager Sue": the owner before the title's first word
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


def _years_had(verb: Token) -> int | None:
    """'My son Kaito has 16 years', 'my mother has 72 years and ...': the age as the speaker's other
    language says it ("tiene 16 años", "a 16 ans"), the years alone, nothing after them ("has 5 years of
    experience", "have 2 years left" are no age)."""
    years = next((c for c in verb.children if c.dep_ == "dobj" and c.lemma_ == "year"), None)
    if years is None or verb.tag_ not in {"VBZ", "VBP"}:
        return None
    kids = list(years.children)
    doc = verb.doc
    after = doc[years.i + 1] if years.i + 1 < len(doc) else None
    ends = after is None or after.is_punct or after.lower_ == "and"
    if len(kids) != 1 or kids[0].dep_ != "nummod" or kids[0].pos_ != "NUM" or not ends:
        return None
    return _number(kids[0])


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
        # "its my bday saturday, turning 29": a fragment's noun root, no one's else
        head = verb.head
        fragment = head.dep_ == "ROOT" and head.pos_ in {"NOUN", "PROPN"} and not _is_kin(head)
        fragment = fragment and head.ent_type_ != "PERSON"
        if (head.pos_ not in {"VERB", "AUX"} and not fragment) or (
            subj is not None and subj.lower_ not in FIRST_PERSON
        ):
            return False
    before = verb.doc[verb.i - 1] if verb.i > verb.sent.start else None
    return before is None or before.text in {",", "-", "–", ";"} or before.lower_ in {"just", "finally"}


YOUNGEST_SPEAKER = 10  # a speaker's own age below this is a misreading ("I'm one of them")


def _kin_named(subj: Token, appos: Token | None, verb: Token, ctx: _Ctx) -> str | None:
    """The name said with a kin word that names nobody itself: "My mum, Joan, is 91" (an apposition),
    "My mum Joan is 91" (parsed as a second subject)."""
    beside = [c for c in verb.children if c.dep_ == "nsubj" and c.pos_ == "PROPN" and c.i == subj.i + 1]
    named = appos if appos is not None else (beside[0] if beside else None)
    return _name_of(named, ctx, person=True) if named is not None else None


def _age_facts(sent: Span, ctx: _Ctx) -> None:
    """'Our son Leo is four', 'Leo, he's four', 'Mia just turned six' -> is-aged N."""
    for verb in sent:
        if verb.lemma_ not in {"be", "turn", "have"} or _is_irrealis(verb):
            continue
        if verb.lemma_ == "be" and _is_past(verb):
            continue
        if verb.lemma_ == "turn" and any(c.dep_ == "prt" for c in verb.children):
            continue
        age = _years_had(verb) if verb.lemma_ == "have" else _age_of(verb)
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
            if names[0] is None and _is_kin(subj):
                names[0] = _kin_named(subj, appos, verb, ctx)
        ages = listed or [age] * len(names)
        if len(ages) != len(names):
            continue  # "Sam, Theo and Ava are 7 and 9": whose is which is not said
        for name, each in zip(names, ages, strict=True):
            if name == ctx.me and each < YOUNGEST_SPEAKER:
                continue  # "I've been one 'cause I lost my job": one of a kind, not a toddler typing
            if name:
                pet = any(f.object == name and f.object_type != "person" for f in ctx.out)
                subj_type: EntityType | None = None if pet else "person"
                _emit(ctx, name, "is-aged", str(each), 0.6, obj_tok=None, subj_type=subj_type)


def _age_aside(sent: Span, ctx: _Ctx) -> None:
    """'I am Arvind, working as ..., age 44', "I'm a retired teacher, aged 67, living in Bath",
    'Myself Priyanka, 27 years, working as staff nurse' -> the speaker's is-aged: an age set off by
    commas in a user's sentence about themselves (not "my son, age 7", not "at age 22")."""
    if ctx.message.role != "user" or any(f.subject == ctx.me and f.predicate == "is-aged" for f in ctx.out):
        return
    doc = sent.doc
    for tok in sent:
        if tok.lower_ in {"age", "aged"} and tok.i + 1 < sent.end and doc[tok.i + 1].like_num:
            first, last = tok, doc[tok.i + 1]
        elif tok.lemma_ == "year" and tok.dep_ == "appos" and tok.i > sent.start and doc[tok.i - 1].like_num:
            first, last = doc[tok.i - 1], tok  # "Myself Priyanka, 27 years,"
        else:
            continue
        set_off = first.i > sent.start and doc[first.i - 1].text == ","
        if not set_off or (last.i + 1 < len(doc) and doc[last.i + 1].text not in {",", ".", ";", "!"}):
            continue
        age = _number(last) if last.like_num else _number(first)
        if age is not None and YOUNGEST_SPEAKER <= age <= 110 and _about_me(tok, ctx):
            _emit(ctx, ctx.me, "is-aged", str(age), 0.55, obj_tok=None, subj_type="person")
            return


def _about_me(tok: Token, ctx: _Ctx) -> bool:
    """The words `tok` hangs on describe the speaker: a clause whose subject is "I" or a self-naming
    "Myself X", through no other person or kin on the way up."""
    for up in tok.ancestors:
        if up.pos_ in {"VERB", "AUX"}:
            subj = next((c for c in up.children if c.dep_ in {"nsubj", "nsubjpass"}), None)
            if subj is not None:
                return subj.lower_ == "i"
        elif _is_kin(up) or (up.pos_ == "PROPN" and up.dep_ not in {"ROOT", "attr"}):
            return False  # (a name that is the copula's attribute: "I am Priyanka, 27 years, ...")
        if up.dep_ == "ROOT":
            return up.pos_ == "PROPN" and any(c.lower_ == "myself" for c in up.children)
    return False


def _ages_listed(verb: Token) -> list[int]:
    """'Sam and Theo are 7 and 9': the ages listed, in order, one for each subject listed (empty when
    the verb gives one age: "Ava and Noah are 7" gives it to both)."""
    attr = next((c for c in verb.children if c.dep_ in {"attr", "acomp"} and c.like_num), None)
    listed = [attr, *_conjuncts(attr)] if attr is not None else []
    ages = [_number(t) for t in listed if t.like_num]
    return [a for a in ages if a is not None] if len(ages) > 1 and None not in ages else []


def _school_changed(verb: Token, dobjs: list[Token], subject: str, ctx: _Ctx) -> bool:
    """'We moved Ella from Parkside Primary to Oakfield Primary' (attended, attends); 'Ella got into
    Oakfield Academy', 'we got Ella into Oakfield Academy' (attends): a school given by a move or an
    admission."""
    if _is_irrealis(verb):
        return False
    schools = {
        prep.lower_: name
        for prep in verb.children
        if prep.dep_ == "prep" and prep.lower_ in {"from", "to", "into"}
        for p in _pobjs(prep)
        if (name := _name_of(p, ctx)) and _is_school(name)
    }
    pupils = [n for d in dobjs if d.pos_ == "PROPN" and (n := _name_of(d, ctx, person=True))]
    if verb.lemma_ == "get" and "into" in schools:  # "we got Leo into Riverside Academy": Leo's school
        for pupil in pupils or [subject]:
            _emit(ctx, pupil, "attends", schools["into"], 0.55, obj_tok=None, obj_type="organization")
        return True
    if verb.lemma_ not in {"move", "switch", "transfer"} or not schools:
        return False
    for pupil in pupils:
        if "to" in schools:
            _emit(ctx, pupil, "attends", schools["to"], 0.55, obj_tok=None, obj_type="organization")
        if "from" in schools:
            old = schools["from"]
            _emit(ctx, pupil, "attended", old, 0.55, obj_tok=None, obj_type="organization", ends=True)
    return bool(pupils)


def _got_a_place(verb: Token, dobjs: list[Token], subject: str, past: bool, ctx: _Ctx) -> bool:
    """'Isla's got a place at Brudenell Primary' -> attends the school; 'We got Leo a place at Oakfield
    Primary', '... for Leo': the one the place was got for attends it."""
    if verb.lemma_ not in {"get", "have", "win", "secure", "offer"}:
        return False
    if not any(d.lemma_.lower() == "place" for d in dobjs):
        return False
    subject = _place_got_for(verb, dobjs, ctx) or subject
    found = False
    for dobj in (d for d in dobjs if d.lemma_.lower() == "place"):
        for pobj in (p for prep in _preps(dobj, verb, {"at", "in"}) for p in _pobjs(prep)):
            name = _name_of(pobj, ctx)
            if name and _is_school(name) and not _is_irrealis(verb):
                _emit(ctx, subject, "attends", name, 0.55, obj_tok=pobj)
                found = True
    return found


def _place_got_for(verb: Token, dobjs: list[Token], ctx: _Ctx) -> str | None:
    """Who a school place was got for: "got Leo a place", "got a place at X for Leo" (not "for September")."""
    heads = [verb, *(t for d in dobjs for t in d.subtree)]  # "for Leo" may hang on the school's name
    fors = [p for h in heads for c in h.children if c.dep_ == "prep" and c.lower_ == "for" for p in _pobjs(c)]
    for pupil in (c for c in [*verb.children, *fors] if c.dep_ in {"dative", "pobj"} and c.pos_ == "PROPN"):
        if not _is_date(pupil, ctx):
            return _name_of(pupil, ctx, person=True)
    return None


def _place_offered(sent: Span, ctx: _Ctx) -> None:
    """'Reading council offered Miggy a place at St Anne's!', 'They offered Jo a place at Hillside':
    the one offered the place attends it, whoever offered (an offer of a place at a named institution
    is a school's or a university's, whatever its name says)."""
    for verb in (t for t in sent if t.lemma_ == "offer" and t.pos_ == "VERB" and not _is_irrealis(t)):
        offered = next((c for c in verb.children if c.dep_ == "dative" and c.pos_ == "PROPN"), None)
        pupil = _name_of(offered, ctx, person=True) if offered is not None else None
        places = [d for d in verb.children if d.dep_ == "dobj" and d.lemma_.lower() == "place"]
        for pobj in (p for d in places for prep in _preps(d, verb, {"at"}) for p in _pobjs(prep)):
            name = _name_of(pobj, ctx)
            if pupil and name and pupil != ctx.me:
                _emit(ctx, pupil, "attends", name, 0.55, obj_tok=pobj, subj_type="person")


# Verbs of getting a school place: "Isla got a place at Oakfield", "she's been given a place at ..."
_PLACE_GOT = frozenset({"get", "have", "secure", "land", "win", "give", "offer"})


def _place_got(sent: Span, ctx: _Ctx) -> None:
    """'Isla got a place at Oakfield!', "She's got a place at Oakfield", 'We got her into Oakfield': a
    person other than the speaker given a place at a named institution, or got into it by the
    speaker, attends it (a home is a place *in* a town, not *at* a name: that read was 'lives-in
    Oakfield')."""
    for verb in (t for t in sent if t.lemma_ in _PLACE_GOT and t.pos_ in {"VERB", "AUX"}):
        if _is_irrealis(verb) or any(c.dep_ == "neg" for c in verb.children):
            continue
        seats = [d for d in verb.children if d.dep_ in {"dobj", "nsubjpass"} and d.lemma_.lower() == "place"]
        subj = next((c for c in verb.children if c.dep_ in {"nsubj", "nsubjpass", "dative"}), None)
        pupil = _pupil(subj, ctx) if seats and subj is not None else None
        names = [p for d in seats for prep in _preps(d, verb, {"at"}) for p in _pobjs(prep)]
        if verb.lemma_ == "get" and not seats:  # "we got her into Oakfield"
            got = next((c for c in verb.children if c.dep_ == "dobj"), None)
            pupil = (
                _pupil(got, ctx)
                if got is not None and subj is not None and subj.lower_ in {"i", "we"}
                else None
            )
            names = [p for prep in _preps(verb, verb, {"into"}) for p in _pobjs(prep)]
        for pobj in names:
            name = _name_of(pobj, ctx)
            if pupil and name and pupil != ctx.me and not big_place(name):
                _emit(ctx, pupil, "attends", name, 0.55, obj_tok=pobj, subj_type="person")


def _pupil(tok: Token, ctx: _Ctx) -> str | None:
    """A person a place is got for: a name, or a he/she/him/her the message or the session resolves."""
    if tok.lower_ in {"he", "she", "him", "her"}:
        return _only_person_before(tok, ctx)
    return _name_of(tok, ctx, person=True) if tok.pos_ == "PROPN" else None


_ENROL_VERBS = frozenset({"enrol", "enroll", "register"})


def _enrolled_pupil(verb: Token, prep: str, ctx: _Ctx) -> str | None:
    """'We've enrolled Leo at Little Acorns nursery': the one enrolled attends, not the speaker."""
    if verb.lemma_ not in _ENROL_VERBS or prep not in {"at", "in", "into", "for"} or _is_irrealis(verb):
        return None
    enrolled = next((c for c in verb.children if c.dep_ == "dobj"), None)
    pupil = _pupil(enrolled, ctx) if enrolled is not None else None
    return pupil if pupil != ctx.me else None


def _dating(sent: Span, ctx: _Ctx) -> None:
    """ "I'm dating Tanya", 'Tanya and I have been dating since July', "her name is Tanya, we've been
    dating since July" -> the speaker has-partner the one person it names."""
    for verb in (t for t in sent if t.lemma_ in {"date", "see"} and t.pos_ == "VERB" and t.tag_ != "VBD"):
        if _is_irrealis(verb) or any(c.dep_ == "neg" for c in verb.children):
            continue
        owner = verb.head if verb.dep_ == "xcomp" else verb  # "I've just started dating ..."
        subj = next((c for c in owner.children if c.dep_ == "nsubj"), None)
        dobjs = [c for c in verb.children if c.dep_ == "dobj"]
        if verb.lemma_ == "see":  # "I'm seeing someone new, Callum" (not "seeing Tom tomorrow")
            someone = [d for d in dobjs if d.lower_ in {"someone", "somebody"} and verb.tag_ == "VBG"]
            dobjs = [a for d in someone for a in d.children if a.dep_ == "appos" and a.pos_ == "PROPN"]
            dobjs += [d for d in someone if _called_name(d, ctx)]
            if not dobjs:
                continue
        if subj is None or (dobjs and subj.lower_ != "i"):
            continue
        pair = dobjs or [subj, *_conjuncts(subj)]
        if subj.lower_ == "we" and not dobjs:
            names = _the_other_of_us(sent, ctx)
        elif dobjs or any(t.lower_ == "i" for t in pair):
            names = {n for t in pair if t.pos_ == "PROPN" and (n := _name_of(t, ctx, person=True))}
            # "dating someone lovely called Marc"
            names |= {n for t in dobjs if t.pos_ != "PROPN" and (n := _called_name(t, ctx))}
        else:
            continue
        if len(names) == 1 and (name := next(iter(names))) != ctx.me:
            _emit(ctx, ctx.me, "has-partner", name, 0.55, obj_tok=None, obj_type="person")


def _broke_up(sent: Span, ctx: _Ctx) -> None:
    """'Raj and I broke up in May', 'I split up with Tom', 'we broke up' (one person named) -> the
    speaker's partner, ended (history, never the partner now)."""
    for verb in (t for t in sent if t.lemma_ in {"break", "split"} and t.pos_ == "VERB"):
        if not any(c.dep_ == "prt" and c.lower_ == "up" for c in verb.children) or _is_irrealis(verb):
            continue
        if verb.tag_ not in {"VBD", "VBN"} or any(c.dep_ == "neg" for c in verb.children):
            continue
        subj = next((c for c in verb.children if c.dep_ == "nsubj"), None)
        if subj is None or subj.lower_ not in {"i", "we"}:
            continue
        named = [p for prep in _preps(verb, verb, {"with"}) for p in _pobjs(prep) if p.pos_ == "PROPN"]
        doc = sent.doc
        names = {n for t in named if (n := _name_of(t, ctx, person=True))}
        other = doc[subj.i - 2] if subj.i >= 2 and doc[subj.i - 1].lower_ == "and" else None
        if other is not None and other.is_title and other.is_alpha and not _is_kin_word(other):
            names.add(_name_of(other, ctx, person=True) or other.text)  # "Raj and I": Raj an interjection
        if subj.lower_ == "we" and not names:
            names = _the_other_of_us(sent, ctx)
        if len(names) == 1 and (name := next(iter(names))) != ctx.me:
            _emit(ctx, ctx.me, "has-partner", name, 0.5, obj_tok=None, obj_type="person", ends=True)


_PARENT_NOUNS = frozenset(
    {"dad", "mum", "mom", "mother", "father", "parent", "mam", "mama", "papa", "mummy", "daddy"}
)


def _parent_of_named(sent: Span, ctx: _Ctx) -> None:
    """'I'm a single dad to two boys, Ezra and Jonah', "I'm a mum of two, Leo and Mia" -> has-child each."""
    for attr in (t for t in sent if t.dep_ == "attr" and t.lemma_.lower() in _PARENT_NOUNS):
        verb = attr.head
        if not any(c.dep_ == "nsubj" and c.lower_ == "i" for c in verb.children) or _is_irrealis(verb):
            continue
        preps = [p for h in (attr, verb) for p in h.children if p.dep_ == "prep" and p.lower_ in {"to", "of"}]
        for pobj in (o for p in preps for o in _pobjs(p)):
            _children_named([pobj, *_conjuncts(pobj)], ctx)


_CHILD_PLURALS = frozenset({"kids", "children", "boys", "girls", "sons", "daughters", "twins"})


def _children_listed(words: list[Token], ctx: _Ctx) -> None:
    """A line that lists the speaker's children: 'Two kids, Zainab and Yusuf.', 'my kids: Lily (8) and
    Max (5)' -> has-child each; nothing but names, numbers and punctuation after the key."""
    k = 0
    while k < len(words) and (words[k].lower_ in {"my", "our"} or words[k].like_num):
        k += 1
    if (
        k + 2 >= len(words)
        or words[k].lower_ not in _CHILD_PLURALS
        or words[k + 1].text not in {",", ":", "-"}
    ):
        return
    rest = words[k + 2 :]
    if not all(t.pos_ == "PROPN" or t.is_punct or t.like_num or t.lower_ in {"and", "&"} for t in rest):
        return
    _children_named([t for t in rest if not (t.dep_ == "compound" and t.head.pos_ == "PROPN")], ctx)
    _listed_ages(rest, ctx)


def _listed_ages(tokens: list[Token], ctx: _Ctx) -> None:
    """'Maya 8, Theo 5', 'Aarav (6)': the number right after a listed child's name is their age."""
    for k, tok in enumerate(tokens[:-1]):
        after = tokens[k + 2] if tokens[k + 1].text == "(" and k + 2 < len(tokens) else tokens[k + 1]
        if tok.pos_ != "PROPN" or not after.text.isdigit() or not 0 < int(after.text) < 30:
            continue  # a child's age, not "Year 2021"
        name = _name_of(tok, ctx, person=True)
        if name and name != ctx.me:
            _emit(ctx, name, "is-aged", after.text, 0.5, obj_tok=None)


def _children_named(tokens: list[Token], ctx: _Ctx) -> None:
    """The speaker has-child each proper name among `tokens`."""
    for tok in (t for t in tokens if t.pos_ == "PROPN"):
        name = _name_of(tok, ctx, person=True)
        if name and name != ctx.me:
            _emit(ctx, ctx.me, "has-child", name, 0.55, obj_tok=None, obj_type="person")


_EX_SPOUSE = frozenset({"husband", "wife", "spouse"})
_EX_PARTNER = frozenset(
    {"partner", "boyfriend", "girlfriend", "bf", "gf", "fiance", "fiancé", "fiancee", "fiancée"}
)


def _ex_partner(sent: Span, ctx: _Ctx) -> None:
    """'my ex-husband Jordan', 'my ex Tom', 'since my divorce from Marcus' -> the speaker's marriage or
    partner, ended (history: who Jordan is, never whom the speaker is with now)."""
    doc = sent.doc
    for tok in (t for t in sent if t.lower_ in {"ex", "divorce"} and t.i > sent.start):
        if doc[tok.i - 1].lower_ not in {"my", "our"}:
            continue
        k = tok.i + 1
        if tok.lower_ == "divorce":
            word, k = "husband", k + (k < sent.end and doc[k].lower_ == "from")
        else:
            k += k < sent.end and doc[k].text in {"-", "–"}
            word = doc[k].lower_ if k < sent.end and doc[k].lower_ in _EX_SPOUSE | _EX_PARTNER else ""
            k += bool(word)
        if k >= sent.end or doc[k].pos_ != "PROPN":
            continue
        name = _name_of(doc[k], ctx, person=True)
        if name and name != ctx.me:
            pred = "is-married-to" if word in _EX_SPOUSE else "has-partner"
            _emit(ctx, ctx.me, pred, name, 0.5, obj_tok=None, obj_type="person", ends=True)


def _the_other_of_us(sent: Span, ctx: _Ctx) -> set[str]:
    """Whom a "we" pairs the speaker with: the people its sentence names, else those the message named
    before it ("her name is Tanya, we've been dating ... their mom left when Maddie was 3": not Maddie),
    else after it ("We split up last year. Her name was Sofia.")."""
    return _people_in(sent, ctx) or _people_in(sent.doc[: sent.start], ctx) or _people_in(sent.doc, ctx)


def _people_in(doc: Doc | Span, ctx: _Ctx) -> set[str]:
    """The people a message names: the model's persons, and names it tags otherwise that are known first
    names or follow "name is" ("her name is Tanya": tagged a place)."""
    out = set()
    for tok in (t for t in doc if t.pos_ == "PROPN" and t.dep_ != "compound"):
        called = tok.dep_ == "attr" and any(c.lemma_ == "name" for c in tok.head.children)
        person = _person_word(tok, ctx) or called
        if person and not _is_date(tok, ctx) and (name := _name_of(tok, ctx, person=True)):
            out.add(name)
    return out


def _reports_to(verb: Token, dobjs: list[Token], subject: str, past: bool, ctx: _Ctx) -> bool:
    """'I report to Omar Haddad', 'I'll report to Omar', 'I report into Omar' -> has-manager; 'Helen is
    lovely, I report straight to her': her, the one person named before (or the session's she)."""
    if verb.lemma_ != "report" or past:
        return False
    found = False
    for pobj in (p for prep in _preps(verb, verb, {"to", "into"}) for p in _pobjs(prep)):
        ent = ctx.ents.get(pobj.i)
        pronoun = pobj.lower_ in {"her", "him"} and subject == ctx.me
        name = _her_or_him(pobj, ctx) if pronoun else _name_of(pobj, ctx, person=True)
        if name and (ent is None or ent.label_ == "PERSON"):
            _emit(ctx, subject, "has-manager", name, 0.6, obj_tok=None, obj_type="person")
            found = True
    return found


def _her_or_him(pron: Token, ctx: _Ctx) -> str | None:
    """The one person named before the pronoun, when no other first name came before it either
    ("helen is lovely, v diff from bevan ... i report to her": two people, no guess), or the
    pronoun with the first names before it (spacy_ner resolves a manager's he/she by them)."""
    name = _only_person_before(pron, ctx)
    if name is None or name.startswith(PRONOUN):
        return name  # a first name the model did not tag: the tier's he/she reading settles it
    firsts = {t.lower_ for t in pron.doc[: pron.i] if t.is_alpha and t.lower_ in first_names()}
    return name if firsts <= {w.casefold() for w in name.split()} else None


def _started_school(verb: Token, dobjs: list[Token], subject: str, past: bool, ctx: _Ctx) -> bool:
    """'Callum starts S1 at Whitehill Secondary'; 'Ella started nursery at Little Acorns', 'Keisha
    started the BRIT School': a school started, whatever the tense."""
    if verb.lemma_ not in START_VERBS or not dobjs:
        return False
    schooling = any(d.lemma_.lower() in SCHOOL_WORDS for d in dobjs)
    found = False
    for dobj in (d for d in dobjs if d.pos_ == "PROPN"):  # "Keisha start the BRIT School last week"
        name = _name_of(dobj, ctx)
        if name and _is_school(name) and not _is_irrealis(verb):
            _emit(ctx, subject, "attends", name, 0.55, obj_tok=dobj)
            found = True
    for pobj in (p for d in dobjs for prep in _preps(d, verb, {"at"}) for p in _pobjs(prep)):
        named = any(c.dep_ == "compound" and c.pos_ == "PROPN" for c in pobj.children)
        name = _name_of(pobj, ctx) or (_object_phrase(pobj, ctx) if named else None)
        if name and (_is_school(name) or schooling) and (schooling or not past):
            _emit(ctx, subject, "attends", name, 0.55, obj_tok=pobj)
            found = True
    return found


_CHANGE_STEMS = ("chang", "switch", "mov", "transfer")


def _changed_schools(sent: Span, ctx: _Ctx) -> None:
    """'Léa change school in January to École Varennes', 'Leo switched schools to Hillside Primary'
    -> attends the school named after "to": a child's change of school, whatever the parse made of
    the words (a learner's "change school" reads as a noun phrase)."""
    if ctx.message.role != "user":
        return
    doc = sent.doc
    for tok in (t for t in sent if t.lower_ in {"school", "schools"} and t.i >= sent.start + 2):
        verb, who = doc[tok.i - 1], doc[tok.i - 2]
        if not verb.lower_.startswith(_CHANGE_STEMS) or _is_irrealis(verb):
            continue
        if who.lower_ in {"he", "she"}:
            child = _pronoun_name(who, ctx) or _only_person_before(who, ctx)
        else:
            child = _name_of(who, ctx, person=True) if who.is_title and who.lower_ not in STOP_WORDS else None
        to = next((t for t in doc[tok.i + 1 : sent.end] if t.lower_ == "to"), None)
        school = _title_run(doc, to.i + 1, sent.end) if to is not None else ""
        if child and school and child != ctx.me:
            _emit(ctx, child, "attends", school, 0.5, obj_tok=None, obj_type="organization")


def _title_run(doc: Doc, start: int, end: int) -> str:
    """The capitalised words from `start` ("École Varennes", "Hillside Primary"), or ""."""
    words: list[str] = []
    for tok in doc[start:end]:
        if not (tok.is_title or tok.is_upper) or tok.is_punct or len(words) == 5:
            break
        words.append(tok.text)
    return " ".join(words)


def _relation_named_later(sent: Span, ctx: _Ctx) -> None:
    """'I have a son. His name is Leo', 'Not sure my new boss likes me. Her name's Ifeoma' -> has-child
    Leo, has-manager Ifeoma: a his/her name after the one relation of the speaker's the message spoke
    of before it, with nobody else met or named between."""
    if ctx.message.role != "user":
        return
    for name in (t for t in sent if t.lower_ == "name"):
        poss = next((c for c in name.children if c.dep_ == "poss" and c.lower_ in {"his", "her"}), None)
        value = _name_given(name)
        pred = _relation_before(poss) if poss is not None and value is not None else None
        person = _name_of(value, ctx, person=True) if pred is not None and value is not None else None
        if pred is not None and person and person != ctx.me:
            _emit(ctx, ctx.me, pred, person, 0.55, obj_tok=None, obj_type="person")


def _name_then_kin(sent: Span, ctx: _Ctx) -> None:
    """'Wanjiru my wife is a nurse', 'Tunde my husband works at GTBank': a name opening the sentence
    right before "my <kin>" (no comma; the parse makes it an interjection) is that kin's name."""
    words = [t for t in sent if not t.is_space]
    if ctx.message.role != "user" or len(words) < 4 or words[1].lower_ not in {"my", "our"}:
        return
    first, kin = words[0], words[2]
    kind = _is_kin(kin) or kin.lemma_.lower() in PET_NOUNS  # "Rolo our lab is 7 now"
    if not kind or kin.dep_ not in {"nsubj", "nsubjpass", "appos"} or not first.is_title:
        return
    if _plain_word(first, ctx) and (first.pos_ == "PROPN" or listed(first.lower_, first.vocab) is False):
        _emit(ctx, ctx.me, _relation_predicate(kin), first.text, 0.5, obj_tok=None, obj_type=_kin_type(kin))


def _name_bracket_kin(sent: Span, ctx: _Ctx) -> None:
    """'Sarah (my sister) is visiting', 'separated from dan (husband)': the kin word in brackets right
    after a name is the speaker's relation to it (not "(her husband)"; unless a rule read one already)."""
    if ctx.message.role != "user":
        return
    doc = sent.doc
    for open_ in (t for t in sent if t.text == "(" and sent.start < t.i < sent.end - 2):
        close = next((t for t in doc[open_.i + 1 : min(open_.i + 5, sent.end)] if t.text == ")"), None)
        inside = [t for t in doc[open_.i + 1 : close.i] if t.lower_ not in {"my", "our"}] if close else []
        others = any(t.tag_ in {"PRP$", "POS"} or t.pos_ == "PROPN" for t in inside)  # "(her husband)"
        if not inside or not _is_kin(inside[-1]) or others:
            continue
        name = _bracketed_name(doc[open_.i - 1], ctx)
        related = {f.object for f in ctx.out if f.subject == ctx.me}
        if name and name != ctx.me and name not in related:
            kin = inside[-1]
            _emit(ctx, ctx.me, _relation_predicate(kin), name, 0.5, obj_tok=None, obj_type=_kin_type(kin))


def _bracketed_name(tok: Token, ctx: _Ctx) -> str | None:
    """The name before the bracket: a proper noun or a person, or a first name typed in lower case."""
    if tok.pos_ == "PROPN" or tok.ent_type_ == "PERSON":
        return _name_of(tok, ctx, person=True) or (tok.text if tok.text[:1].isupper() else None)
    return _lower_first_name(tok)


def _name_given(name: Token) -> Token | None:
    """The name 'name is' gives: "His name is Leo"; "Her name's Ifeoma", which the parse reads as a
    possessive ("name's Ifeoma")."""
    verb = name.head
    said = not any(c.dep_ in {"aux", "neg"} for c in verb.children)  # not "his name will be Leo"
    if name.dep_ == "nsubj" and verb.lemma_ == "be" and said:
        return next((c for c in verb.children if c.dep_ == "attr" and c.pos_ == "PROPN"), None)
    glued = any(c.dep_ == "case" for c in name.children) and name.dep_ == "poss"
    return verb if glued and verb.pos_ == "PROPN" and verb.i == name.i + 2 else None


def _relation_before(poss: Token) -> str | None:
    """The predicate of the speaker's relation ('my boss', 'our son', 'I have a son') nearest before a
    his/her, unless a person came between ("my wife met a guy at work. His name ...") or its gender is
    not the pronoun's."""
    for tok in reversed(poss.doc[: poss.i]):
        baby_word = tok.lower_ in {"girl", "boy"} and tok.i > 0 and tok.nbor(-1).lower_ == "baby"
        baby = tok.lower_ == "baby" or baby_word  # "we had a baby girl"
        met = tok.ent_type_ == "PERSON" or tok.lemma_.lower() in PERSON_NOUNS or tok.lower_ in first_names()
        if met and not baby:
            return None
        if tok.pos_ != "NOUN" or not (baby or _is_kin(tok) or _is_manager_noun(tok)):
            continue
        other = MALE_KIN if poss.lower_ == "her" else FEMALE_KIN
        if tok.tag_ == "NNS" or tok.lower_ in other or not _the_speakers(tok):
            return None
        return "has-child" if baby else _relation_predicate(tok)  # "we had a baby girl"
    return None


def _the_speakers(noun: Token) -> bool:
    """'my boss', 'our son', or one the speaker has or got ("I have a son", "we had a baby boy")."""
    if _my_or_our(noun):
        return True
    det = next((c for c in noun.children if c.dep_ == "det"), None)
    verb = noun.head
    has = noun.dep_ == "dobj" and verb.lemma_ in {"have", "get"} and not _is_irrealis(verb)
    subj = next((c for c in verb.children if c.dep_ == "nsubj"), None)
    mine = subj is not None and subj.lower_ in SPEAKER_SUBJECTS
    return det is not None and det.lower_ in {"a", "an"} and has and mine


def _name_comma_relation(noun: Token, ctx: _Ctx) -> None:
    """'Tom, my husband, works at Tesco', 'Precious, my wife, is registered again', 'Geoff, now my
    husband, ...': a name set off before the speaker's relation word where the parse gives no
    apposition (it hangs the name on the verb, or tags it an adjective). Not a list ("Sarah, my
    husband, and I": three people)."""
    doc = noun.doc
    poss = next((c for c in noun.children if c.dep_ == "poss"), None)
    close = noun.i + 1
    if poss is None or close + 1 >= len(doc) or doc[close].text != ",":
        return
    if doc[close + 1].lower_ in {"and", "or"}:
        return
    comma = poss.i - 2 if poss.i >= 2 and doc[poss.i - 1].lower_ == "now" else poss.i - 1
    if comma < 1 or doc[comma].text != ",":
        return
    tok = doc[comma - 1]
    if not tok.is_title or not (tok.i == tok.sent.start or doc[tok.i - 1].is_punct):
        return
    name = _name_of(tok, ctx, person=True) if tok.pos_ == "PROPN" else None
    if name is None and (tok.lower_ in first_names() or _unlisted_word(tok, ctx)):
        name = tok.text  # "Precious" tagged an adjective, "Tunde" a noun
    if name:
        _possessive_relation(noun, name, ctx)


def _unlisted_word(tok: Token, ctx: _Ctx) -> bool:
    """A capitalised word no English word list holds ("Tunde", "Wanjiru"): a name the lists lack."""
    return _plain_word(tok, ctx) and listed(tok.lower_, tok.vocab) is False


def _plain_word(tok: Token, ctx: _Ctx) -> bool:
    """Letters only, no stop word, no date: a word that may be a name."""
    return tok.is_alpha and tok.lower_ not in STOP_WORDS and not _is_date(tok, ctx)


def _foreign_possessive(tok: Token, ctx: _Ctx) -> None:
    """'Oye, mi hija Valentina tiene 15', 'Minha namorada Larissa é enfermeira', 'Meri beti Anaya ko
    asthma hai' -> has-child Valentina, has-partner Larissa: "my", a kin word and a name in the
    speaker's other language, which the English parse cannot read (it makes them one name)."""
    doc = tok.doc
    if ctx.message.role != "user" or tok.lower_ not in FOREIGN_MY or tok.i + 2 >= len(doc):
        return
    kin, name_tok = doc[tok.i + 1], doc[tok.i + 2]
    pred = RELATION_PREDICATES.get(kin.lower_)
    if pred is None or not name_tok.is_title or not name_tok.is_alpha or name_tok.is_stop:
        return
    name = name_tok.text if name_tok.lower_ in first_names() or name_tok.pos_ == "PROPN" else None
    if name:
        _emit(ctx, ctx.me, pred, name, 0.55, obj_tok=None, obj_type="person")


_ORDINAL_AGES = {
    w: n
    for n, w in enumerate([
        "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth",
        "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth", "seventeenth",
        "eighteenth", "nineteenth", "twentieth",
    ], start=1)
} | {
    "thirtieth": 30, "fortieth": 40, "fiftieth": 50, "sixtieth": 60, "seventieth": 70, "eightieth": 80,
}  # fmt: skip
_AGE_NUMBER = re.compile(r"(\d{1,3})(?:st|nd|rd|th)?")


def _birthday_age(sent: Span, ctx: _Ctx) -> None:
    """'Léa had her 8th birthday Saturday', "for Noah's 5th birthday", 'it was my 40th birthday' ->
    is-aged: the number of a birthday owned by a name, by "my", or by a he/she whose name is known."""
    if ctx.message.role != "user":
        return
    for tok in sent:
        if tok.lower_ not in {"birthday", "bday", "b-day"}:
            continue
        owner_of = tok.head if tok.dep_ == "compound" else tok  # "her eighth birthday party"
        words = [*tok.children, *owner_of.children]
        age = next((a for c in words if c.dep_ in {"nummod", "amod"} and (a := _ordinal_age(c))), None)
        poss = next((c for c in owner_of.children if c.dep_ == "poss"), None)
        if age is None or poss is None:
            continue
        if poss.lower_ == "my":
            if age >= YOUNGEST_SPEAKER:
                _emit(ctx, ctx.me, "is-aged", str(age), 0.55, obj_tok=None, subj_type="person")
            continue
        name = _birthday_owner(poss, ctx)
        if name and name != ctx.me:
            _emit(ctx, name, "is-aged", str(age), 0.55, obj_tok=None, subj_type="person")


def _ordinal_age(tok: Token) -> int | None:
    """8 for "8", "8th" or "eighth"; None for any other word."""
    m = _AGE_NUMBER.fullmatch(tok.lower_)
    age = int(m[1]) if m else _ORDINAL_AGES.get(tok.lower_)
    return age if age is not None and 0 < age < 120 else None


def _birthday_owner(poss: Token, ctx: _Ctx) -> str | None:
    """The name behind a birthday's owner: "Noah's", or "her"/"his" after a named subject."""
    if poss.pos_ == "PROPN":
        return _name_of(poss, ctx, person=True)
    if poss.lower_ not in {"his", "her"}:
        return None
    verb = next((a for a in poss.ancestors if a.pos_ in {"VERB", "AUX"}), None)
    subj = next((c for c in verb.children if c.dep_ == "nsubj"), None) if verb is not None else None
    if subj is not None and subj.pos_ == "PROPN":
        return _name_of(subj, ctx, person=True)
    return _pronoun_name(poss, ctx)


def _birthday_today(sent: Span, ctx: _Ctx) -> None:
    """'30 today and still living with my mum', '25 today!!': a number opening the speaker's line with
    "today" after it is their age, a birthday announced."""
    words = list(islice((t for t in sent if not t.is_space), 2))  # the line's first two words
    if ctx.message.role != "user" or len(words) < 2:
        return
    if words[0].like_num and words[1].lower_ in {"today", "2day"}:
        age = _number(words[0])
        if age is not None and YOUNGEST_SPEAKER <= age <= 110:
            _emit(ctx, ctx.me, "is-aged", str(age), 0.55, obj_tok=None, subj_type="person")
