"""Work: employers, roles and titles, jobs started, left or ended, promotions and years at a place."""

from __future__ import annotations

import itertools
import re

from spacy.tokens import Doc, Span, Token

from knowledge_engine.extract import places
from knowledge_engine.extract.dependency.context import _UNIT_HEADS, _Ctx, _emit
from knowledge_engine.extract.dependency.grammar import (
    _bare_years,
    _before_here,
    _intensified,
    _is_be,
    _is_irrealis,
    _is_manager_noun,
    _is_past,
    _is_question,
    _is_school,
    _negated,
    _perfect,
    _pobjs,
    _said_of_mine,
    _used_to,
)
from knowledge_engine.extract.dependency.homes import _place_named, _stayed, _visit_words
from knowledge_engine.extract.dependency.names import (
    _by_me,
    _called_name,
    _cased_entity,
    _employer_named,
    _name_of,
    _named_subject,
    _object_phrase,
    _of_object,
    _only_person_before,
    _owner,
    _person_word,
    _resolve_subject,
    _speakers_clause,
)
from knowledge_engine.extract.dependency.nouns import (
    _firm_like,
    _is_date,
    _is_job,
    _is_kin,
    _is_org,
    _is_title,
    _is_title_word,
    _label,
    _name_before_a_stay,
    _org_owner,
    _preps,
    _proper_lower,
    _relation_predicate,
)
from knowledge_engine.extract.firms import first_name_led
from knowledge_engine.extract.lexicon import (
    CAREER_VERBS,
    DEGREE_NOUNS,
    DUTY_VERBS,
    DUTY_VERBS_ALONE,
    EVALUATIVE,
    FIRM_NOUNS,
    HOLIDAYS,
    HOME_NOUNS,
    JOB_END_VERBS,
    JOB_GET_VERBS,
    JOB_NOUNS,
    JOB_TITLE_NOUNS,
    LEAD_WORDS,
    MEMBERSHIP_HEADS,
    MONEY_SHORT,
    OWN_JOB_NOUNS,
    PAST_JOB_MODS,
    PRONOUN,
    SHIFT_NOUNS,
    SKIP_ENT_LABELS,
    START_VERBS,
    STUDENT_NOUNS,
    TITLE_RANKS,
    TRAINEESHIPS,
    UNREAL_JOB_MODS,
    WORK_FIELDS,
    WORK_FOR_VERBS,
    WORK_PREDICATES,
    WORKPLACE_NOUNS,
)
from knowledge_engine.extract.nlp import listed
from knowledge_engine.extract.truecase import names as first_names
from knowledge_engine.model.extraction import FactCandidate
from knowledge_engine.model.records import EntityType

_TEACHING = frozenset({"teach", "taught", "teacher", "work", "job", "staff", "employ", "hire", "coach"})


def _job_of_mine(sent: Span, before: int, ctx: _Ctx) -> None:
    """'My new job at Atlassian starts Monday', 'my job at Lidl is boring', "Dan's job with the NHS",
    'my shifts at Boots' -> the owner works-at the employer, whatever the sentence says of the job;
    'my old job at X' -> worked-at. A clause rule that read the employer already wins; a dream job is no
    job."""
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
        preps = _preps(job, verb, {"at", "with"})
        for pobj in (p for prep in preps for p in [*_employers(prep, ctx), *_workplaces(prep)]):
            if _is_date(pobj, ctx) or pobj.lower_ in HOLIDAYS:
                continue  # "my job at Christmas is carving the turkey": a time, not a place
            name = _employer_name(pobj, ctx)
            if not owner or not name or name.lower() in seen:
                continue
            shift = job.lemma_.lower() == "shift"  # "my last shift at Lidl ended at ten": the job goes on
            ending = not shift and job.dep_ == "nsubj" and job.head.lemma_ in JOB_END_VERBS  # "... ended"
            ended = (ending and _is_past(job.head)) or _job_quit(job)
            if ending and not ended:
                continue  # "my job at Boots ends in May": held until then
            past = ended or (not shift and bool(mods & PAST_JOB_MODS))
            pred = _workplace_pred(name, past)
            _emit(ctx, owner, pred, name, 0.55, obj_tok=None, obj_type="organization", ends=ended)
            seen.add(name.lower())


def _job_quit(job: Token) -> bool:
    """'Quit my job at HSBC after 8 years' (chat's dropped "I": no clause rule read it): the job said
    as quit, left or lost, and not only weighed ("want to quit my job at X": held now)."""
    verb = job.head
    return job.dep_ == "dobj" and verb.lemma_ in {"quit", "leave", "lose"} and not _weighed(verb)


def _work_at(sent: Span, before: int, ctx: _Ctx) -> None:
    """'Work's been mad at Brightwater', 'Work at Brightwater is quiet': work said bare, as what a
    clause is about, is the speaker's own job, and the firm it is at their employer."""
    seen = {f.object.lower() for f in ctx.out[before:] if f.predicate in WORK_PREDICATES}
    for work in sent:
        if work.lemma_.lower() != "work" or work.pos_ != "NOUN" or work.dep_ not in {"nsubj", "nsubjpass"}:
            continue
        if any(c.dep_ in {"det", "poss", "compound", "amod"} for c in work.children) or _supposed(work.head):
            continue  # "their work at Tate", "the work at the house", "work would be easier at X"
        heads = [work, work.head, *(c for c in work.head.children if c.dep_ in {"acomp", "attr"})]
        for pobj in (p for h in heads for prep in _preps(h, h, {"at"}) for p in _employers(prep, ctx)):
            name = _employer_name(pobj, ctx)
            if not name or name.lower() in seen or _is_date(pobj, ctx) or pobj.lower_ in HOLIDAYS:
                continue
            if not _org_or_unknown_place(pobj, name, ctx) or places.big_place(name):
                continue  # "work in London", "work at Sarah's"
            _emit(ctx, ctx.me, "works-at", name, 0.5, obj_tok=None, obj_type="organization")
            seen.add(name.lower())


def _employers(prep: Token, ctx: _Ctx) -> list[Token]:
    """The objects of 'at'/'with', or the organisation right after it that the parse hung elsewhere
    ('My new job at Atlassian starts Monday': 'Atlassian' parsed as an adjective of 'starts'; the
    small model types shops and firms as anything, so any name counts)."""
    pobjs = [p for p in _pobjs(prep) if p.pos_ == "PROPN" or p.i in ctx.ents]
    ent = ctx.ents.get(prep.i + 1)
    if pobjs or ent is None or ent.label_ in SKIP_ENT_LABELS | {"PERSON"} or ent.start != prep.i + 1:
        return pobjs  # "my role at Sarah's wedding": a person's event, no employer
    return [ent.root] if ent.root.dep_ != "poss" else []


def _employer_name(pobj: Token, ctx: _Ctx) -> str | None:
    """The name of an employer object: its name, the entity a capitalised word begins, or a workplace
    said in lower case ("the council", "the city library")."""
    name = _name_of(pobj, ctx, with_of=True) or _cased_entity(pobj, ctx)
    if name is None and pobj.lemma_ in WORKPLACE_NOUNS:
        name = _object_phrase(pobj, ctx)
    return name


def _workplaces(prep: Token) -> list[Token]:
    """ "at the council", "with the city library": a workplace said in lower case after "the"."""
    the = (p for p in _pobjs(prep) if any(c.dep_ == "det" and c.lower_ == "the" for c in p.children))
    return [p for p in the if p.pos_ == "NOUN" and p.lemma_ in WORKPLACE_NOUNS]


def _supposed(verb: Token) -> bool:
    """A modal, hedged or conditional clause; a negated one still speaks of a job held ("I don't like
    my job at Aldi")."""
    return _is_irrealis(verb) and not _negated(verb)


def _years_at(sent: Span, before: int, ctx: _Ctx) -> None:
    """'I spent five years at the BBC', 'I left teaching after ten years at Kingsway High' -> the
    speaker worked there (works-at when the clause is not past: "I've got ten years at Tesco")."""
    seen = {f.object.lower() for f in ctx.out[before:] if f.predicate in WORK_PREDICATES}
    for span in (t for t in sent if t.lemma_.lower() in {"year", "month"} and _counted(t)):
        verb = next((a for a in span.ancestors if a.pos_ in {"VERB", "AUX"}), None)
        if _years_as(span, verb, ctx):
            continue
        if verb is None and span.head.lower_ == "after" and _speakers_fragment(sent, ctx):
            _years_after(span, seen, ctx)  # "Part-time at B&Q, after 30 years at Ford."
            continue
        if verb is None or _supposed(verb) or not _by_me(verb, ctx):
            continue
        heads = [span, verb] if verb.lemma_ == "spend" else [span]  # "spent five years at the BBC"
        work = any(t.lemma_.lower() in _TEACHING for t in sent)  # "left teaching after ten years at X"
        for name in _new_employers_at(heads, seen, ctx):
            past = _is_past(verb)
            pred = ("worked-at" if past else "works-at") if work else _workplace_pred(name, past)
            _emit(ctx, ctx.me, pred, name, 0.5, obj_tok=None, obj_type="organization")


def _years_fragment(sent: Span, ctx: _Ctx) -> None:
    """'11 yrs teaching, all at greenmeadow.' -> works-at: a verbless line of the speaker's years of work
    and where (a line with a verb is `_years_at`'s)."""
    if ctx.message.role != "user" or any(t.pos_ in {"VERB", "AUX"} for t in sent):
        return
    words = [t.lower_ for t in sent]
    counted = any(w in _YEAR_WORDS and k > 0 and sent[k - 1].like_num for k, w in enumerate(words))
    working = any(w.startswith(("teach", "nurs", "work")) for w in words)
    if not (counted and working):
        return
    seen = {f.object.lower() for f in ctx.out if f.predicate in WORK_PREDICATES}
    for name in _new_employers_at([t for t in sent if t.dep_ != "prep"], seen, ctx):
        _emit(ctx, ctx.me, "works-at", name, 0.5, obj_tok=None, obj_type="organization")


_YEAR_WORDS = frozenset({"years", "yrs", "year", "yr"})


def _years_as(span: Token, verb: Token | None, ctx: _Ctx) -> bool:
    """'(it's hard) after eight years as a product manager at Flipkart' -> worked-as, and the role's
    organisation worked-at: a span of years in a role, over, in a user's clause about themselves or
    about "it" (not "she's tired after ten years as a nurse")."""
    if span.head.lower_ != "after" or ctx.message.role != "user":
        return False
    subjects = [c for c in verb.children if c.dep_ in {"nsubj", "nsubjpass"}] if verb is not None else []
    if not all(s.lower_ in {"it", "that", "this", "which", "i", "we"} for s in subjects):
        return False
    found = False
    # "to leave after nine years as a staff nurse": the parser may hang "as" on the verb, past the span
    preps = [
        *_preps(span, span, {"as"}),
        *(p for p in _preps(span.head.head, span.head.head, {"as"}) if p.i > span.i),
    ]
    for pobj in (p for prep in preps for p in _pobjs(prep)):
        role = _object_phrase(pobj, ctx, with_of=True) if _is_title_word(pobj) else None
        if role:
            _emit(ctx, ctx.me, "worked-as", _drop_new(role), 0.5, obj_tok=None)
            _org_of_role(pobj, ctx.me, True, ctx)
            found = True
    return found


def _pension_from(sent: Span, ctx: _Ctx) -> None:
    """'My pension from Shell is paid monthly', 'I receive my pension from the NHS' -> worked-at: a
    pension from an organisation is the speaker's old job there (not a state or private pension)."""
    for pension in (t for t in sent if t.lemma_.lower() == "pension" and t.pos_ == "NOUN"):
        mine = any(c.dep_ == "poss" and c.lower_ in {"my", "our"} for c in pension.children)
        kinds = {c.lower_ for c in pension.children if c.dep_ in {"compound", "amod"}}
        if not mine or kinds & {"state", "private", "personal", "army", "war"}:
            continue
        head = pension.head if pension.dep_ == "dobj" else pension
        for pobj in (p for prep in _preps(pension, head, {"from"}) for p in _pobjs(prep)):
            name = _name_of(pobj, ctx)
            if name and pobj.pos_ == "PROPN" and _label(pobj, ctx) == "ORG":
                _emit(ctx, ctx.me, "worked-at", name, 0.45, obj_tok=None, obj_type="organization", ends=True)


def _speakers_fragment(sent: Span, ctx: _Ctx) -> bool:
    """A user's line without a verb or a subject ("Part-time at B&Q, after 30 years at Ford."): chat
    that dropped its "I"."""
    verbless = not any(t.pos_ in {"VERB", "AUX"} or t.dep_ in {"nsubj", "nsubjpass"} for t in sent)
    return verbless and ctx.message.role == "user"


def _years_after(span: Token, seen: set[str], ctx: _Ctx) -> None:
    """'after 30 years at Ford' in a line of the speaker's: the job there is over."""
    for name in _new_employers_at([span], seen, ctx):
        _emit(ctx, ctx.me, "worked-at", name, 0.5, obj_tok=None, obj_type="organization")


def _new_employers_at(heads: list[Token], seen: set[str], ctx: _Ctx) -> list[str]:
    """The organisations named 'at' one of `heads` that `seen` does not hold yet (then it does)."""
    names = []
    for pobj in (p for h in heads for prep in _preps(h, h, {"at"}) for p in _pobjs(prep)):
        name = _name_of(pobj, ctx, with_of=True)
        if name and name.lower() not in seen and _employer_named(pobj, name, ctx):
            seen.add(name.lower())
            names.append(name)
    return names


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
        pred = "worked-at" if past else "works-at"  # a role at a school is a job there
        for pobj in (p for prep in _preps(title, title, {"at"}) for p in _employers(prep, ctx)):
            name = _name_of(pobj, ctx, with_of=True)
            if name and _employer_named(pobj, name, ctx) and not _is_date(pobj, ctx):
                _emit(ctx, ctx.me, pred, name, 0.5, obj_tok=None, obj_type="organization")
                return
        inside = next(filter(None, (_org_inside(prep, ctx) for prep in _preps(title, title, {"in"}))), None)
        if inside is not None:  # "as a cashier in Lidl"
            _emit(ctx, ctx.me, pred, inside, 0.5, obj_tok=None, obj_type="organization")
            return


# Verbs whose "as a ..." is no job: "I treat it as a job", "went as a pirate", "I see myself as a leader"
_NOT_ROLE_AS = frozenset(
    {"treat", "see", "regard", "view", "consider", "describe", "dress", "go", "come", "count", "know", "use",
     "think", "feel", "like", "love", "hate", "act", "pose", "volunteer", "cast", "play", "introduce"}
)  # fmt: skip


# Words before a chat introduction's title that say the job is over ("Retired teacher here")
_RETIRED = frozenset({"retired", "former", "ex", "ex-"})
# What may open the run of a "<title> here" introduction: nothing but a stop, a comma or "and"
_INTRO_BREAKS = frozenset({",", "and", ";", ":", "-", "—", "(", "also", "just"})


def _job_here(sent: Span, ctx: _Ctx) -> None:
    """'Nurse here, quick question', 'Retired teacher here with too much time', 'mum of 3 and part time
    pharmacist here' -> has-role (worked-as when retired): chat's way of introducing oneself by one's
    job (not "the teacher here is great": a determiner makes it someone's; nor "doctor here say ...": a
    subject)."""
    if ctx.message.role != "user":
        return
    for job in (w for w in _before_here(sent) if _is_job(w)):  # not "also doctor here say i have celiac"
        start = job.i
        while start > sent.start and sent.doc[start - 1].pos_ in {"NOUN", "ADJ", "PROPN", "VERB"}:
            start -= 1  # "part time pharmacist", "Retired teacher", "Software engineer"
        opener = sent.doc[start - 1].lower_ if start > sent.start else ","
        if opener not in _INTRO_BREAKS:
            continue  # "the teacher here", "my nurse here"
        if job.lower_ == "owner" and any(t.pos_ == "PROPN" for t in sent.doc[start : job.i]):
            continue  # "Renault Clio owner here": an owner of a thing named, no job (extract/cars.py)
        words = [t.text for t in sent.doc[start : job.i + 1]]
        retired = words[0].lower() in _RETIRED
        title = " ".join(words[1:] if retired else words)
        if title:
            _emit(ctx, ctx.me, "worked-as" if retired else "has-role", _drop_new(title), 0.5, obj_tok=None)


# A probation passed or finished: a job kept (as `_kept_on`'s "they kept me on")
_PROBATION_VERBS = frozenset({"pass", "finish", "complete", "clear"})


def _made_permanent(sent: Span, ctx: _Ctx) -> None:
    """'I passed my probation at Asda', 'They made me permanent at Lidl', 'got made permanent at Lidl'
    -> works-at: a job kept at a named firm (not hoped for, not negated, not someone else's)."""
    for word in (t for t in sent if t.lower_ in {"probation", "permanent"}):
        # "passed my probation", "made me permanent" / "got made permanent": the verb over the word
        verb = word.head if word.lower_ == "probation" or word.dep_ in {"ccomp", "oprd", "acomp"} else word
        kept = (word.lower_ == "probation" and word.dep_ == "dobj" and verb.lemma_ in _PROBATION_VERBS) or (
            word.lower_ == "permanent" and verb.lemma_ == "make"
        )
        owners = [c.lower_ for c in word.children if c.dep_ == "poss"]
        if not kept or any(o != "my" for o in owners) or _is_irrealis(verb) or _negated(verb):
            continue
        me = _by_me(verb, ctx) or any(c.lower_ == "me" for c in (*verb.children, *word.children))
        if not me and not (verb.lemma_ == "make" and any(c.dep_ == "auxpass" for c in verb.children)):
            continue  # "got made permanent": the "I" dropped
        for pobj in (p for h in (word, verb) for prep in _preps(h, h, {"at", "with"}) for p in _pobjs(prep)):
            name = _name_of(pobj, ctx)
            if name and pobj.pos_ == "PROPN" and _firm_like(pobj, ctx):
                _emit(ctx, ctx.me, "works-at", name, 0.55, obj_tok=None, obj_type="organization")


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
        if verb is None or _negated(verb):
            continue
        if not _fronted(prep) and (verb.lemma_ in _NOT_ROLE_AS or _supposed(verb)):
            continue
        if not _speakers_clause(verb, ctx):
            continue
        for pobj in (p for p in _pobjs(prep) if p.pos_ in {"NOUN", "PROPN"} and _is_title_word(p)):
            role = _object_phrase(pobj, ctx, with_of=True)
            if role and role.lower() not in said:
                past = _is_past(verb) and not any(c.lower_ in {"now", "still"} for c in verb.children)
                _emit(ctx, ctx.me, "worked-as" if past else "has-role", _drop_new(role), 0.5, obj_tok=None)
                said.add(role.lower())


def _fronted(prep: Token) -> bool:
    """'As the new Head of Finance at Orvane, I will ...': an "as" phrase that opens the sentence and
    ends at a comma states the role whatever the main clause says (a plan, "I see ...")."""
    lead = prep.doc[prep.sent.start : prep.i]  # "So as a teacher, ..."
    opens = all(t.is_punct or t.pos_ in {"INTJ", "CCONJ", "ADV"} for t in lead)
    end = prep.right_edge.i + 1
    return opens and end < prep.sent.end and prep.doc[end].text == ","


# "sign it off as me – Jo Bell, TA, Brackenwood Primary", "sign off as Account Executive, Brightwire":
# an e-mail's sign-off the speaker asks for is their own name, title and employer.
_SIGN_OFF = re.compile(
    r"\bsign(?:ed|ing)?\s+(?:it\s+|this\s+|them\s+)?off\s+(?:as|with)\s+(?:me\b[\s,:–—-]*)?(?P<rest>[^.!?;\n]+)",
    re.I,
)
_SIGN_OFF_PART = re.compile(r"[^,|]+")


def _signed_off_as(sent: Span, before: int, ctx: _Ctx) -> None:
    """The title and employer of a sign-off the speaker asks for -> has-role, works-at: the parts after
    "sign off as", comma-separated; the first title among the first three (a name goes before it), and
    the part after it the employer."""
    m = _SIGN_OFF.search(sent.text)
    if m is None:
        return
    base = sent.start_char + m.start("rest")
    parts = [(base + p.start(), p.group().strip()) for p in _SIGN_OFF_PART.finditer(m.group("rest"))]
    titled = next((k for k, (at, text) in enumerate(parts[:3]) if _signed_title(text, sent, at)), None)
    if titled is None or titled + 1 >= len(parts):
        return
    role, firm = parts[titled][1], parts[titled + 1][1]
    if role.lower() not in {f.object.lower() for f in ctx.out[before:] if f.predicate == "has-role"}:
        _emit(ctx, ctx.me, "has-role", role, 0.5, obj_tok=None)
    if firm[:1].isupper() and len(firm.split()) <= 5 and not _signed_title(firm, sent, parts[titled + 1][0]):
        _emit(ctx, ctx.me, "works-at", firm, 0.5, obj_tok=None, obj_type="organization")


def _signed_title(text: str, sent: Span, at: int) -> bool:
    """A title: its head word (the last, or the one before "of") an occupation or title word, or an
    abbreviation of 2-3 capitals ("TA")."""
    if text.isupper() and 2 <= len(text) <= 3 and text.isalpha():
        return True
    head = text.split(" of ")[0]
    if not head:
        return False
    span = sent.doc.char_span(at + text.index(head), at + len(head), alignment_mode="expand")
    return span is not None and _is_title_word(span[-1])


# Verbs by which the speaker takes, holds or moves into a job its noun's title names ("landed a
# project manager role", "moved into a product owner role", "stepping up to a lead engineer role").
_TITLED_JOB_VERBS = frozenset({*JOB_GET_VERBS, "do", "move", "switch", "step", "transfer", "go"})
_TITLED_JOB_PREPS = frozenset({"into", "to"})
_HELD_JOB_NOUNS = frozenset(JOB_NOUNS - {"offer", "contract"})  # an offer is not taken, a contract no post
_JOB_NOISE = frozenset({"new", "permanent", "temporary", "temp"})  # and "part-time", "full-time"


def _ends_a_title(tok: Token) -> bool:
    """A word a title may end with: an occupation or title head, or "lead"/"leader" ("team lead")."""
    return _is_title_word(tok) or tok.lower_ in LEAD_WORDS


def _role_said(before: int, ctx: _Ctx) -> bool:
    """The sentence's rules gave a role already (from `before` in ctx.out)."""
    return any(f.predicate in {"has-role", "worked-as"} for f in ctx.out[before:])


def _titled_job(sent: Span, before: int, ctx: _Ctx) -> None:
    """'I landed a project manager role at Halden', "I've moved into a product owner role", 'I got
    a senior analyst job' -> has-role: the title the speaker's job noun is named by (a past clause:
    worked-as). Not an offer, not a job only wanted ("applying for a nurse job": no getting verb)."""
    if _role_said(before, ctx):
        return
    for job in (t for t in sent if t.pos_ == "NOUN" and t.lemma_.lower() in _HELD_JOB_NOUNS):
        verb = _taking_verb(job) or _given_me(job)
        if verb is None or _supposed(verb) or _negated(verb):
            continue
        holder = ctx.me if verb.lemma_ == "give" or _speakers_clause(verb, ctx) else _named_holder(verb, ctx)
        title = _title_before(job) if holder else None
        if holder and title:
            past = _is_past(verb) and verb.lemma_ in {"have", "do"}  # "I had a nurse job": held then
            _emit(ctx, holder, "worked-as" if past else "has-role", title, 0.5, obj_tok=None)
            return
    title = _promoted_to(sent, ctx) or _got_titled_post(sent, ctx)
    if title:
        _emit(ctx, ctx.me, "has-role", title, 0.5, obj_tok=None)


# Verbs of a post won: "got the team lead role", "landed the assistant manager spot", "got the promotion"
_WON = frozenset({"get", "land", "secure", "score", "bag", "win", "earn"})
_POSTS = frozenset({"role", "job", "position", "post", "spot"})


def _won_by_me(verb: Token, ctx: _Ctx) -> bool:
    """A post won in the speaker's own, real, done clause ("got", "I've landed"; not "hope to get")."""
    done = _is_past(verb) or _perfect(verb)
    return verb.lemma_ in _WON and done and _by_me(verb, ctx) and not _supposed(verb) and not _negated(verb)


def _promoted_to(sent: Span, ctx: _Ctx) -> str | None:
    """'I got the promotion to senior nurse', 'got my promo to principal pm' -> the title reached."""
    for promo in (t for t in sent if t.lemma_.lower() in {"promotion", "promo"} and t.dep_ == "dobj"):
        if not _won_by_me(promo.head, ctx):
            continue
        for title in (p for prep in _preps(promo, promo, {"to"}) for p in _pobjs(prep) if _ends_a_title(p)):
            return _title_reached(title)
    return None


def _got_titled_post(sent: Span, ctx: _Ctx) -> str | None:
    """'I got the team lead role', 'GOT THE ASSISTANT MANAGER SPOT': a post won, named by the words
    between its article and the post word, read from the words (the small model parses "team lead
    role" as a clause, "spot" as no job); the last of them must end a title."""
    toks = list(sent)
    for i, verb in enumerate(toks[:-3]):
        article = toks[i + 1].lower_ in {"the", "a"}
        if not article or verb.pos_ not in {"VERB", "AUX"} or not _won_by_me(verb, ctx):
            continue
        end = next((j for j in range(i + 3, min(i + 7, len(toks))) if toks[j].lower_ in _POSTS), None)
        if end is None:
            continue
        words = [t for t in toks[i + 2 : end] if t.lower_ not in _JOB_NOISE]
        if not words or not all(t.is_alpha for t in words):
            continue
        if _ends_a_title(words[-1]) or words[-1].lemma_.lower() in LEAD_WORDS:
            return " ".join(t.text for t in words)
    return None


def _named_holder(verb: Token, ctx: _Ctx) -> str | None:
    """The person a job-taking clause is about: 'Priya took the manager job', 'my sister Ana got a
    senior nurse role', 'she got the team lead role' (the she the message resolves); not a firm."""
    subj = next((c for c in verb.children if c.dep_ == "nsubj"), None)
    if subj is None or not (subj.pos_ == "PROPN" or subj.lower_ in {"he", "she"} or _is_kin(subj)):
        return None
    name = _resolve_subject(subj, ctx)
    person = subj.lower_ in {"he", "she"} or _is_kin(subj) or _person_word(subj, ctx)
    return name if name and name != ctx.me and person else None


def _taking_verb(job: Token) -> Token | None:
    """The verb the job noun is the object of, directly or after "into"/"to" ("moved into a ... role")."""
    if job.dep_ == "dobj" and job.head.lemma_ in _TITLED_JOB_VERBS:
        return job.head
    prep = job.head
    if job.dep_ == "pobj" and prep.lower_ in _TITLED_JOB_PREPS and prep.head.lemma_ in _TITLED_JOB_VERBS:
        return prep.head
    return None


def _given_me(job: Token) -> Token | None:
    """ "They've given me the assistant manager role": the verb that gave the speaker the job."""
    verb = job.head
    to_me = any(c.dep_ == "dative" and c.lower_ in {"me", "us"} for c in verb.children)
    return verb if job.dep_ == "dobj" and verb.lemma_ == "give" and to_me else None


def _stepped_up(sent: Span, before: int, ctx: _Ctx) -> None:
    """ "I've stepped up to deputy manager", 'moved up to senior analyst' -> has-role: a title reached."""
    if _role_said(before, ctx):
        return
    for up in (t for t in sent if t.lower_ == "up" and t.head.lemma_ in {"step", "move"}):
        verb = up.head
        if _supposed(verb) or _negated(verb) or not _speakers_clause(verb, ctx):
            continue
        for title in (p for prep in _preps(verb, verb, {"to"}) for p in _pobjs(prep) if _ends_a_title(p)):
            _emit(ctx, ctx.me, "has-role", _title_reached(title), 0.5, obj_tok=None)
            return


def _title_reached(title: Token) -> str:
    """The words of a title reached "to" ("stepped up to deputy manager", "the promotion to senior
    nurse"), its article left out."""
    words = [t for t in title.doc[title.left_edge.i : title.i + 1] if t.dep_ != "det"]
    return " ".join(t.text for t in words)


def _title_before(job: Token) -> str | None:
    """The words naming a job noun ("a senior data analyst role"), when the last of them is a title."""
    words = [t for t in job.doc[job.left_edge.i : job.i] if t.dep_ in {"compound", "amod", "nmod"}]
    words = [t for t in words if t.lower_ not in _JOB_NOISE]
    if not words or not all(t.is_alpha and t.pos_ in _TITLE_POS for t in words):
        return None
    last = words[-1]
    if not _ends_a_title(last):
        return None
    return re.sub(r"^(?:part|full) time ", "", " ".join(t.text for t in words), flags=re.IGNORECASE) or None


def _counted(noun: Token) -> bool:
    return any(c.dep_ == "nummod" for c in noun.children)


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
        ctx.out[k] = _as_works_at(fact)


def _as_works_at(fact: FactCandidate) -> FactCandidate:
    """A fact whose object the message shows is the subject's employer, restated as works-at."""
    return fact.model_copy(
        update={"predicate": "works-at", "object_type": "organization", "object_type_implied": True}
    )


_JOB_TALK = frozenset({"job", "role", "position", "employer", "hire", "company", "firm"})


def _at_a_new_job(doc: Doc, ctx: _Ctx) -> None:
    """ "New job update: I'm at Halden now", "Tom's switched jobs - he's at Halden now": in a message
    that speaks of a job, someone "at" a capitalised name that is no big place or first name now
    works there (is-at alone may be a visit: "Mum's at Tesco")."""
    if not any(t.lemma_.lower() in _JOB_TALK and t.dep_ != "compound" for t in doc):
        return  # (not "job hunting", "a job interview": a job sought)
    for k, fact in enumerate(ctx.out):
        name = fact.object
        if fact.predicate != "is-at" or fact.ends or not name[:1].isupper():
            continue
        if places.big_place(name) or name.split()[0].lower() in first_names():
            continue  # (the model types many firms a place, and a small town's name is often a firm's)
        ctx.out[k] = _as_works_at(fact)


def _last_day(sent: Span, ctx: _Ctx) -> None:
    """'My last day at Northwind was October 9', 'Friday was Tom's last day at the bank': the job
    ended (worked-at, an ending; the sentence's date becomes its `valid_at`). Only in the past:
    'my last day is Friday' is a plan (the examples may read it as the job left, by_example.py)."""
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


def _working_there(sent: Span, ctx: _Ctx) -> None:
    """'Working for Fernhill has been great so far', 'Working at Monzo is good for me' -> works-at
    (the clause as `_said_of_mine` reads it)."""
    for working in _said_of_mine(sent, "work"):
        for pobj in (p for prep in _preps(working, working, {"at", "for"}) for p in _pobjs(prep)):
            name = _employer_name(pobj, ctx)
            words = (name or "").split()
            if words[:1] == [working.text]:  # the model's entity took in "Working for"
                name = " ".join(words[2:])
            if name:
                _emit(ctx, ctx.me, "works-at", name, 0.55, obj_tok=pobj, obj_type="organization")


# Chat's openers the model may take for the subject of "being" ("tbh being a barista at X is fun")
_OPENER_WORDS = frozenset({"tbh", "ngl", "honestly", "lol", "imo", "tho", "so", "and", "but"})


def _being_a(sent: Span, ctx: _Ctx) -> None:
    """'Honestly being a junior doctor at Addenbrooke's is breaking me', 'being a barista at
    grindhouse is fun' -> has-role and works-at: a job at a named place, as the subject of how it
    is, is the speaker's ("being a nurse is hard", with no employer, may be anyone's)."""
    for being in (t for t in sent if t.lower_ == "being" and t.dep_ in {"csubj", "nsubj"}):
        subjects = [c for c in being.children if c.dep_ == "nsubj"]
        if any(s.lower_ not in _OPENER_WORDS for s in subjects) or _is_irrealis(being.head):
            continue
        for attr in (c for c in being.children if c.dep_ == "attr" and c.lemma_.lower() in JOB_TITLE_NOUNS):
            if any(c.dep_ in {"poss", "neg"} for c in attr.children) or _is_past(being.head):
                continue
            pobjs = [p for prep in attr.children if prep.lower_ in {"at", "for"} for p in _pobjs(prep)]
            if any(_employer_name(p, ctx) for p in pobjs):
                _attr_fact(attr, ctx.me, "is", False, ctx)


def _since_leaving(sent: Span, ctx: _Ctx) -> None:
    """'I've been freelancing since leaving the BBC last year', 'After leaving Deloitte I took six
    months off' -> left (an ending): the speaker of the clause left the named firm; a place left
    "since" was a home ("since leaving Durban": lived-in)."""
    for leaving in (
        t for t in sent if t.lemma_ in {"leave", "quit"} and t.tag_ == "VBG" and t.dep_ == "pcomp"
    ):
        prep = leaving.head
        if prep.lower_ not in {"since", "after"} or not _by_me(prep.head, ctx) or _is_irrealis(prep.head):
            continue
        for dobj in (c for c in leaving.children if c.dep_ == "dobj" and c.pos_ == "PROPN"):
            if _place_named(dobj, dobj.text, ctx) and prep.lower_ == "since":
                # "We've been in Pietermaritzburg ten years now, since leaving Durban": a home left
                _emit(ctx, ctx.me, "lived-in", dobj.text, 0.5, obj_tok=dobj, obj_type="location")
                continue
            if _place_named(dobj, dobj.text, ctx):
                continue  # "After leaving Paris we drove south": a trip, not a job
            if obj := _object_phrase(dobj, ctx, prefer_name=False):
                _emit(ctx, ctx.me, "left", obj, 0.5, obj_tok=dobj, ends=True)


def _firm_joined(sent: Span, ctx: _Ctx) -> None:
    """'I'm leaving Acme to join Halden as a designer', 'I left Acme to join Halden', 'Since joining
    Halden as a designer, I've been happy' -> works-at Halden (has-role designer): a firm joined as the
    purpose of a leaving said, or since which the speaker's clause runs, is where one works now; also
    where `_left_for` reads nothing (no firm left: "leaving to join X"; a firm the model tags a place)."""
    for join in (t for t in sent if t.lemma_ == "join" and t.pos_ == "VERB"):
        head = join.head
        purpose = join.dep_ in {"xcomp", "advcl"} and head.lemma_ in {"leave", "quit"} and _by_me(head, ctx)
        since = join.dep_ == "pcomp" and head.lower_ in {"since", "after"} and _by_me(head.head, ctx)
        clause = head if purpose else head.head
        if not (purpose or since) or _is_irrealis(clause) or _is_irrealis(join):
            continue
        for firm in (c for c in join.children if c.dep_ == "dobj" and c.pos_ == "PROPN"):
            name = _name_of(firm, ctx)
            if not name or firm.ent_type_ == "PERSON" or first_name_led(name):
                continue  # "left Leeds to join Tom"
            if _employer_named(firm, name, ctx) and not places.big_place(name):
                # works-at, as `_left_for` reads "leaving Acme to join Zeta" when both names are firms
                _emit(ctx, ctx.me, "works-at", name, 0.55, obj_tok=None, obj_type="organization")
                roles = (p for prep in _preps(join, join, {"as"}) for p in _pobjs(prep))
                for role in (r for r in roles if _is_title_word(r)):
                    title = _object_phrase(role, ctx, with_of=True, prefer_name=False)
                    if title:
                        _emit(ctx, ctx.me, "has-role", title, 0.55, obj_tok=None)


# Leaving, quitting or staying weighed, wished, asked or hedged ("Should I leave Acme for Halden?",
# "I might be leaving Accenture soon", "I'll probably stay at Arup another year", "thinking of
# leaving Leeds"): whatever is decided, one leaves or stays where one is now
_WEIGHED_MOVES = frozenset({"leave", "quit", "stay"})
_WORK_TALK = frozenset({
    "job", "work", "role", "salary", "pay", "promotion", "boss", "team", "company", "career", "offer",
    "experience", "manager", "contract", "notice", "resign", "redundancy",
})  # fmt: skip
_HOME_TALK = frozenset(
    {*HOME_NOUNS - {"place", "room", "home"}, "landlord", "landlady", "rent", "lease", "mortgage"}
)
_TRAVEL_WORDS = frozenset({"flight", "trip", "holiday", "hotel", "airport", "train", "visit", "tour", "when"})


def _leaving_weighed(sent: Span, ctx: _Ctx) -> None:
    """A move away the speaker only weighs, wishes, asks about or hedges presupposes where they are:
    works-at the firm left (or stayed at), lives-in the place left. A move said as done or set is
    read by the clause rules ("I left Acme", "I'm leaving Acme in June")."""
    if ctx.message.role != "user" or any(t.lemma_.lower() in _TRAVEL_WORDS for t in sent):
        return
    for verb in (t for t in sent if t.lemma_ in _WEIGHED_MOVES and t.pos_ == "VERB"):
        # "Will left Tesco": a name the model took for a modal; a weighed move is a base or -ing form
        if (
            verb.tag_ not in {"VB", "VBG", "VBP"}
            or not _weighed(verb)
            or not _by_me(_subject_clause(verb), ctx)
        ):
            continue
        stay = verb.lemma_ == "stay"
        objs = [p for prep in _preps(verb, verb, {"at", "with", "in"}) for p in _pobjs(prep)] if stay else []
        objs += [c for c in verb.children if c.dep_ == "dobj" and not stay]
        for obj in (o for o in objs if o.pos_ == "PROPN" or (o.is_title and not o.is_sent_start)):
            _presupposed_place(verb, obj, sent, ctx)


def _presupposed_place(verb: Token, obj: Token, sent: Span, ctx: _Ctx) -> None:
    """The firm or place one would leave or stay at: works-at or lives-in it now. Said beside talk
    of work, a name is the firm ("Should I leave Halden for the Monzo offer?") unless the model
    tags it a place."""
    name = _employer_name(obj, ctx) or (obj.text if _no_english_word(obj) else None)  # "Arup": a noun
    if not name or _is_date(obj, ctx) or obj.ent_type_ in {"PERSON", "DATE", "TIME"}:
        return
    job_talk = any(t.lemma_.lower() in _WORK_TALK or t.ent_type_ == "MONEY" for t in sent)
    # "We have been talking about leaving Westboro. Our landlord raised the rent": a name no gazetteer
    # knows, in a message about the home and not about work, is the place
    home_talk = any(t.lemma_.lower() in _HOME_TALK for t in sent.doc) and not any(
        t.lemma_.lower() in _WORK_TALK for t in sent.doc
    )
    # "Should I leave Halden for the Monzo offer?": a small town's name beside talk of work is the firm
    if home_talk or (_place_named(obj, name, ctx) and (not job_talk or places.big_place(name))):
        if verb.lemma_ != "stay" or any(c.lower_ == "in" for c in verb.children):
            _emit(ctx, ctx.me, "lives-in", name, 0.45, obj_tok=obj, obj_type="location")
    elif verb.lemma_ != "stay" or job_talk:  # "we'll stay at the Marriott": a night's stay, not a job
        _emit(ctx, ctx.me, "works-at", name, 0.45, obj_tok=obj, obj_type="organization")


def _no_english_word(tok: Token) -> bool:
    """A capitalised word no English word index lists ("Arup" tagged a common noun)."""
    return tok.is_title and listed(tok.lower_, tok.vocab) is False


def _weighed(verb: Token) -> bool:
    """The verb is only weighed: a question, a modal or hedge, or the object of a wish, plan or
    thought ("want to leave", "thinking of leaving", "should I leave")."""
    top = _subject_clause(verb)
    return _is_question(verb.sent) or _is_irrealis(verb) or _is_irrealis(top) or top.lemma_ in _WEIGHING_HEADS


_WEIGHING_HEADS = frozenset({
    "think", "consider", "want", "plan", "hope", "wonder", "debate", "weigh", "tempt", "decide", "need",
    "like", "love", "dream", "contemplate", "torn", "talk", "discuss",
})  # fmt: skip


def _subject_clause(verb: Token) -> Token:
    """The verb that holds the subject of a verb without one: up through "to", "of" and "about"
    complements ("thinking of leaving" -> "thinking", "want to leave" -> "want")."""
    tok = verb
    for _ in range(4):
        if any(c.dep_ in {"nsubj", "nsubjpass"} for c in tok.children):
            break
        if tok.dep_ in {"xcomp", "ccomp"}:
            tok = tok.head
        elif tok.dep_ == "pcomp" and tok.head.dep_ == "prep":
            tok = tok.head.head
        else:
            break
    return tok


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


def _promoted_infinitive(verb: Token, subject: str, ctx: _Ctx) -> None:
    """'promoted to team lead' parses 'lead' as a verb after infinitive 'to': read it as the title."""
    for xcomp in (c for c in verb.children if c.dep_ == "xcomp"):
        to = next((c for c in xcomp.children if c.dep_ == "aux" and c.lower_ == "to"), None)
        words = list(xcomp.doc[to.i + 1 : xcomp.right_edge.i + 1]) if to is not None else []
        end = next((k for k, w in enumerate(words) if _title_ends(w, ctx)), len(words))
        words = words[:end]  # "promoted to shift supervisor today"
        if 0 < len(words) <= 4 and all(w.pos_ in {"NOUN", "PROPN", "ADJ", "VERB"} for w in words):
            _emit(ctx, subject, "has-role", " ".join(w.text for w in words), 0.55, obj_tok=None)


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
    return not first_name_led(name) and places.fold(name) not in places.places()


def _left_for(verb: Token, dobjs: list[Token], subject: str, ctx: _Ctx) -> bool:
    """'Left Nationwide for Santander', 'left mcdonalds last week now at costa': the second
    organisation is the new job (both organisations: "left London for Paris" is a move). 'Leaving
    Acme for a job at Zeta', 'leaving Acme to join Zeta' say the new job outright: the old one is
    the job left unless it is a place ("left London for a job at Zeta": a move, and a job)."""
    firms, jobs = _left_for_targets(verb)
    olds = [d for d in dobjs if d.pos_ == "PROPN"]
    if not (firms or jobs) or not olds or _is_irrealis(verb):
        return False
    if not all(_firm_like(t, ctx) for t in olds):
        firms = []
        olds = [t for t in olds if not _home_or_person(t, ctx)] if jobs else []
    names = [n for n in (_name_of(t, ctx) for t in [*firms, *jobs] if _firm_like(t, ctx, placed=False)) if n]
    for name in names:  # (placed=False: Santander is a city too)
        _emit(ctx, subject, "works-at", name, 0.55, obj_tok=None, obj_type="organization")
    for old in (n for n in (_name_of(t, ctx) for t in olds) if n and names):
        _emit(ctx, subject, "worked-at", old, 0.6, obj_tok=None, obj_type="organization", ends=True)
    return bool(names) and bool(olds)  # a place left is the plain rule's ("left London": a home left)


def _home_or_person(tok: Token, ctx: _Ctx) -> bool:
    """A name left that cannot be the job left: a place (by tag or gazetteer) or a first name."""
    return _place_named(tok, _name_of(tok, ctx) or tok.text, ctx) or first_name_led(tok.text)


def _left_for_targets(verb: Token) -> tuple[list[Token], list[Token]]:
    """What a leaving went to: names after "for" or "now at" (a firm only if the left one is), and
    names a job noun or "join" places there ("for a job at Zeta", "to join Zeta")."""
    fors = [p for prep in _preps(verb, verb, {"for"}) for p in _pobjs(prep)]
    firms = [p for p in fors if p.lemma_.lower() not in JOB_NOUNS]
    firms += [  # "now at X" hung on the leaving
        p
        for prep in _preps(verb, verb, {"at"})
        if prep.i > 0 and prep.doc[prep.i - 1].lower_ == "now"
        for p in _pobjs(prep)
    ]
    jobs = [
        p
        for job in fors
        if job.lemma_.lower() in JOB_NOUNS - {"offer"}
        for prep in _preps(job, verb, {"at", "with"})
        for p in _pobjs(prep)
    ]
    jobs += [
        d
        for x in verb.children
        if x.dep_ in {"xcomp", "advcl"} and x.lemma_ == "join"
        for d in x.children
        if d.dep_ == "dobj"
    ]
    return firms, jobs


def _firm_called_job(sent: Span, ctx: _Ctx) -> None:
    """'I'm a receptionist at a dental practice called Bright Smiles', 'I do admin for a law firm
    called Harper Lowe' -> works-at: a firm named where the speaker's role or work is (the model
    calls such a name a person). A copula's own 'at a company called X' is _at_firm_called's, and
    'I work for a startup called X' the verb's own."""
    for firm in (t for t in sent if t.lemma_.lower() in _CALLED_WORKPLACES and t.dep_ == "pobj"):
        prep, name = firm.head, _called_name(firm, ctx)
        if name is None or prep.lower_ not in {"at", "for"}:
            continue
        head = prep.head
        if _is_be(head):  # "I'm a nurse at a care home called X": "at" hung on "am"
            head = next((c for c in head.children if c.dep_ == "attr"), head)
        role = head.dep_ == "attr" and _is_be(head.head)  # "I'm a receptionist at ..."
        if role and firm.lemma_.lower() not in FIRM_NOUNS and not _is_job(head):
            continue  # "I'm a regular at a pub called The Fox": a cafe or pub is work only for a job
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


def _at_organisation(prep: Token, pobj: Token, ctx: _Ctx) -> bool:
    """'Tom is at Deloitte now', "I've been at Google for five years", 'she's at Riverside Primary':
    a person at a named organisation works or studies there, unless the clause says it is a visit
    ('at Tesco right now', 'at the Hilton tonight')."""
    ent = ctx.ents.get(pobj.i)
    if ent is not None and ent.label_ == "DATE":
        ent = None  # "at Google 3 years now": a name the model ran into the date (_name_of took it)
    if prep.lower_ == "at" and _used_to(prep.head) and _firm_like(pobj, ctx) and _by_me(prep.head.head, ctx):
        return not _visit_words(prep)  # "I used to be at Monzo": a firm the model tagged a place (a
        # child's "he used to be at Park Lane" is a school)
    if prep.lower_ == "at" and ent is None and pobj.pos_ == "PROPN" and _stayed(prep, pobj):
        # "She's been at Boots for six years": an untagged name where one has been for years
        return not _visit_words(prep)
    if prep.lower_ == "at" and pobj.pos_ == "PROPN" and _part_time(prep.head):
        return not _visit_words(prep)  # "im part time at waitrose": hours worked somewhere
    if prep.lower_ == "at" and pobj.pos_ == "PROPN" and _as_a_job(prep.head):
        return not _visit_words(prep)  # "I'm now at Monzo as a product designer" (tagged a place)
    if prep.lower_ != "at" or ent is None:
        return False
    # "I've been at Nubank for 4 years": years at a name is a job, however the model typed the name
    if ent.label_ != "ORG" and not (
        ent.label_ in {"GPE", "PERSON", "NORP", "PRODUCT"} and _stayed(prep, pobj)
    ):
        return False
    return not _visit_words(prep)


def _part_time(verb: Token) -> bool:
    """ "I'm part time", "I'm full-time": the verb's attribute is the hours of a job."""
    attrs = (c for c in verb.children if c.dep_ in {"attr", "advmod", "npadvmod"} and c.lemma_ == "time")
    return any(any(m.lower_ in {"part", "full"} for m in a.children) for a in attrs)


def _been_with(prep: Token, subject: str, ctx: _Ctx) -> None:
    """'I've been with Leah for two years' -> has-partner; 'been with Tesco since 2019' -> works-at:
    a present perfect of duration with a person is a couple, with a firm a job."""
    verb = prep.head
    spans = [p for q in _preps(verb, verb, {"for"}) for p in _pobjs(q)]
    long = any(p.lemma_.lower() in {"year", "month", "decade", "age"} for p in spans) or bool(
        _preps(verb, verb, {"since"})
    )  # not "with Tom for the whole afternoon"
    long = long or _bare_years(verb)  # "I've been with Tesco 6 years now": the "for" dropped
    for said in _pobjs(prep):
        pobj = _name_before_a_stay(said)  # "been with the NHS 10 years": the firm a modifier of the years
        if not (long or pobj.i != said.i) or not _stayed(prep, pobj) or _is_irrealis(verb):
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


def _team_then_lead(attr: Token) -> bool:
    """'Sam is my team lead': the parse ends the attribute at "team" and leaves "lead" apart."""
    doc = attr.doc
    return attr.lower_ == "team" and attr.i + 1 < len(doc) and doc[attr.i + 1].lower_ in LEAD_WORDS


def _attr_fact(attr: Token, subject: str, be: str, past: bool, ctx: _Ctx) -> None:
    if attr.like_num or MONEY_SHORT.match(attr.text):
        return  # "Caleb is 12 and Maddie's 8": ages (_age_facts, extract/kids.py), no relation "has-8";
        # "Basic is 26k": an amount is no kind of thing
    if attr.tag_ == "NNS" and _is_job(attr):
        return  # "now we are both teachers": a kind of people shared, no one's title
    if any(c.dep_ == "poss" for c in attr.children):
        owner = _owner(next(c for c in attr.children if c.dep_ == "poss"), ctx, attr)
        if owner and owner != subject:  # "Jordan is my best friend"; "Léa was my manager": no more
            pred = "has-team-lead" if _team_then_lead(attr) else _relation_predicate(attr)
            _emit(ctx, owner, pred, subject, 0.6, obj_tok=None, obj_type="person", ends=past)
        return
    if _employee_of(attr, subject, past, ctx):
        return
    lead = _lead_role(attr)
    if lead is not None:  # "He's a team lead now": the parse splits the title
        _emit(ctx, subject, "worked-as" if past else "has-role", lead, 0.6, obj_tok=None)
        after = attr.doc[attr.i + 1 : attr.i + 2]
        for part in [attr, *(t for t in after if t.lower_ in LEAD_WORDS)]:
            _org_of_role(part, subject, past, ctx)  # "at Ocado" may hang on either half
        return
    if attr.lemma_ == "fan":  # "I'm a huge fan of X" -> likes X
        inner = _of_object(attr)
        obj = (_name_of(inner, ctx) or _object_phrase(inner, ctx)) if inner is not None else None
        if obj and not past:
            _emit(ctx, subject, "likes", obj, 0.55, obj_tok=inner)
        return
    if _job_tagged_adjective(attr) and not past:  # "Tom is a paramedic now": the model's adjective
        _emit(ctx, subject, "has-role", attr.lower_, 0.6, obj_tok=None)
        _org_of_role(attr, subject, past, ctx)
        return
    _the_manager(attr, subject, past, ctx)
    has_det = any(c.dep_ == "det" for c in attr.children)
    now = any(c.dep_ == "advmod" and c.lower_ == "now" for c in attr.head.children) or any(
        c.dep_ == "amod" and c.lower_ == "new" for c in attr.children
    )
    if (
        not past
        and attr.pos_ in {"NOUN", "PROPN"}
        and (now or not has_det or _the_qualified(attr))
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


def _the_manager(attr: Token, subject: str, past: bool, ctx: _Ctx) -> None:
    """'Priya is the new store manager', 'Priya is the manager': the manager of the place the speaker
    works, as 'the new store manager is Priya' is (not 'the manager at the gym', 'of the team')."""
    dets = [c.lower_ for c in attr.children if c.dep_ in {"det", "poss"}]
    elsewhere = any(c.dep_ in {"prep", "relcl", "acl"} for c in attr.children)
    if past or dets != ["the"] or elsewhere or not _is_manager_noun(attr) or ctx.message.role != "user":
        return
    if subject != ctx.me and subject[:1].isupper() and not _is_question(attr.sent):
        _emit(ctx, ctx.me, "has-manager", subject, 0.5, obj_tok=None, obj_type="person")


def _appositive_job(sent: Span, ctx: _Ctx) -> None:
    """'Paul is my husband, a civil engineer with Queensland Rail', 'My husband Paul, a civil engineer
    with Queensland Rail, says hi' -> the person's role (and employer): a job set beside a person's
    name, or beside the kin word the sentence gives a name."""
    for job in (t for t in sent if t.dep_ == "appos" and t.pos_ == "NOUN" and _is_job(t)):
        who = _appositive_person(job.head, ctx)
        title = _object_phrase(job, ctx, with_of=True, prefer_name=False) if who else None
        if who and title:
            _emit(ctx, who, "has-role", _drop_new(title), 0.5, obj_tok=None)
            _org_of_role(job, who, False, ctx)


def _appositive_person(head: Token, ctx: _Ctx) -> str | None:
    """Whom a job beside `head` describes: a person's name, or the name the sentence gives the kin
    word ("Paul is my husband", "my husband Paul", "Paul's my husband")."""
    if head.pos_ == "PROPN":
        ent = ctx.ents.get(head.i)
        return _name_of(head, ctx, person=True) if ent is not None and ent.label_ == "PERSON" else None
    if not _is_kin(head) or not any(c.dep_ == "poss" and c.lower_ in {"my", "our"} for c in head.children):
        return None
    named = [c for c in head.children if c.dep_ in {"appos", "poss"} and c.pos_ == "PROPN"]
    subjects = [c for c in head.head.children if c.dep_ == "nsubj"] if head.dep_ == "attr" else []
    found = [_name_of(t, ctx, person=True) for t in named + subjects if t.pos_ == "PROPN"]
    # "Paul reckons ... He's my husband": the one person named before (or a he/she left unresolved)
    found += [_only_person_before(t, ctx) for t in subjects if t.lower_ in {"he", "she"}]
    names = {n for n in found if n}
    name = names.pop() if len(names) == 1 else None
    return None if name is None or name.startswith(PRONOUN) else name


def _employee_of(attr: Token, subject: str, past: bool, ctx: _Ctx) -> bool:
    """ "So I'm officially a Fernhill employee", "he's a Tesco worker" -> works-at the firm named
    before the word for one on its payroll (not a title "Fernhill employee")."""
    if attr.lemma_.lower() not in {"employee", "worker", "staffer"}:
        return False
    firm = [c for c in attr.children if c.dep_ == "compound" and c.pos_ == "PROPN" and c.i < attr.i]
    name = _name_of(firm[-1], ctx) if firm else None
    if not name or first_name_led(name):
        return False
    _emit(
        ctx,
        subject,
        "worked-at" if past else "works-at",
        name,
        0.6,
        obj_tok=firm[-1],
        obj_type="organization",
    )
    return True


def _job_tagged_adjective(attr: Token) -> bool:
    """'a paramedic' tagged an adjective: one word after "a"/"an", an occupation, nothing it modifies."""
    det = [c for c in attr.children if c.dep_ == "det"]
    alone = len(list(attr.children)) == len(det) == 1 and det[0].lower_ in {"a", "an"}
    job = attr.lower_ in JOB_TITLE_NOUNS and attr.lower_ not in STUDENT_NOUNS
    return attr.pos_ == "ADJ" and alone and job


def _split_lead(clause: Token) -> Token | None:
    """'I'm the team lead now': the small model parses 'team' as the subject of a verb 'lead' under
    the copula, leaving it no attribute; that noun is the title's first half (see _lead_role)."""
    if clause.dep_ != "ccomp" or clause.lower_ not in LEAD_WORDS:
        return None
    return next((n for n in clause.children if n.dep_ == "nsubj" and n.pos_ == "NOUN"), None)


def _my_lead(half: Token, subject: str, past: bool, ctx: _Ctx) -> bool:
    """'Priya is our team lead now' (parsed as 'our team' leading): the speaker's team lead, named."""
    mine = any(c.dep_ == "poss" and c.lower_ in {"my", "our"} for c in half.children)
    if not mine or subject == ctx.me:
        return False
    _emit(ctx, ctx.me, "had-manager" if past else f"has-{half.lower_}-lead", subject, 0.55, obj_tok=None)
    return True


def _the_qualified(attr: Token) -> bool:
    """'the deputy head', 'the IT manager': a title made definite by a rank or a field names a post;
    a bare 'the nurse' or 'the designated driver' is as often a part in a story."""
    if not any(c.dep_ == "det" and c.lower_ == "the" for c in attr.children):
        return False
    return any(
        c.lower_ in TITLE_RANKS or (c.dep_ == "compound" and c.pos_ in {"NOUN", "PROPN"})
        for c in attr.children
        if c.i < attr.i and c.dep_ in {"compound", "amod"}
    )


def _lead_role(attr: Token) -> str | None:
    """'a team lead', 'a shift leader' that the small model parses as a noun and a verb ('team' the
    attribute, 'lead' a clause) or as a subject and its noun ('team' the subject of 'lead')."""
    doc = attr.doc
    if attr.lower_ in LEAD_WORDS and attr.i > 0:
        before = doc[attr.i - 1]
        split = before.pos_ == "NOUN" and before.dep_ in {"nsubj", "npadvmod", "dobj", "compound"}
        return f"{before.lower_} {attr.lower_}" if split else None
    after = doc[attr.i + 1] if attr.i + 1 < len(doc) else None
    if attr.pos_ == "NOUN" and after is not None and after.lower_ in LEAD_WORDS and after.pos_ == "VERB":
        return f"{attr.lower_} {after.lower_}"
    conj = after is not None and after.dep_ == "conj" and after.head in {attr, attr.head}
    if attr.pos_ == "NOUN" and after is not None and after.lower_ in LEAD_WORDS and conj:
        return f"{attr.lower_} {after.lower_}"  # "become team lead at Ocado": 'lead' a conjunct
    return None


def _org_of_role(attr: Token, subject: str, past: bool, ctx: _Ctx) -> None:
    """'a designer at Figma' -> works-at Figma; 'a PhD student at ETH' -> studies-at ETH."""
    org = _at_org(attr, ctx)
    if org is not None:
        verb = "studies-at" if _student_role(attr) else "works-at"
        if past:
            verb = "studied-at" if verb == "studies-at" else "worked-at"
        _emit(ctx, subject, verb, org, 0.5, obj_tok=None, obj_type="organization")


def _student_role(attr: Token) -> bool:
    """'a PhD student', 'a doctoral researcher' study; 'a UX researcher', 'a research fellow' work."""
    lemma = attr.lemma_.lower()
    if lemma not in {"researcher", "fellow"}:
        return lemma in STUDENT_NOUNS
    mods = {c.lower_ for c in attr.children if c.dep_ in {"amod", "compound"}}
    return bool(mods & {"phd", "doctoral", "graduate", "postgraduate", "postgrad", "masters", "master"})


def _at_org(attr: Token, ctx: _Ctx) -> str | None:
    """'a designer at Figma' -> Figma (a role at a named organisation implies works-at)."""
    inner = _of_object(attr)  # "head of sales at Umbrella": the parser hangs "at" on "sales"
    # "a trainee paramedic with East Midlands Ambulance Service": the title word parsed a modifier
    titles = [
        c for c in attr.children if c.dep_ in {"amod", "compound"} and c.i > attr.i and _is_title_word(c)
    ]
    preps = [*attr.children, *(inner.children if inner is not None else []), *_children(titles)]
    for prep in [*preps, *_verb_at(attr)]:
        # "a civil engineer with Queensland Rail", "a designer for Acme": a job's employer too
        job = prep.lower_ in {"with", "for"} and (_is_job(attr) or _is_title(attr) or prep.head in titles)
        if prep.dep_ == "prep" and prep.lower_ == "in" and (_is_job(attr) or _is_title(attr)):
            inside = _org_inside(prep, ctx)
            if inside is not None:
                return inside
        if prep.dep_ == "prep" and (prep.lower_ == "at" or job):
            pobj = next((c for c in prep.children if c.dep_ == "pobj"), None)
            if pobj is not None and pobj.pos_ == "PROPN":
                return _name_of(_org_owner(pobj, ctx), ctx)  # not "General Campus" of "X's General Campus"
            if pobj is not None and pobj.pos_ == "NOUN":
                return _org_behind(pobj, ctx) or _named_venue(pobj, ctx)
    return None


# Places of work named by what they are, after a name: "the blue door cafe", "the red lion pub"
_VENUE_NOUNS = frozenset(
    {"cafe", "café", "pub", "bar", "restaurant", "bakery", "salon", "hotel", "gym", "clinic",
     "garage", "deli", "diner", "bistro", "brewery", "lounge", "spa", "barbers", "barbershop", "boutique",
     "bookshop", "bookstore", "kitchen", "inn", "tavern", "grill", "pizzeria", "taqueria", "nursery"}
)  # fmt: skip

# Where a job is, named after "called": a firm, a venue, a shop ("a barista at a little cafe called Grounded")
_CALLED_WORKPLACES = FIRM_NOUNS | _VENUE_NOUNS | {
    "shop", "store", "school", "hospital", "surgery", "vet", "vets", "warehouse", "factory", "hotel", "home",
}  # fmt: skip


def _named_venue(pobj: Token, ctx: _Ctx) -> str | None:
    """'a barista at the blue door cafe', 'a chef at the olive tree restaurant': a workplace said in lower
    case by a name of two words or more and what it is (not "the local pub", "the hair salon")."""
    if pobj.lemma_.lower() not in _VENUE_NOUNS or not any(c.lower_ == "the" for c in pobj.children):
        return None
    words = [t for t in pobj.subtree if t.i < pobj.i and t.dep_ in {"compound", "amod", "nmod"}]
    if len(words) < 2 or not any(c.dep_ == "compound" for c in pobj.children):
        return None  # "the hair salon": what it is, no name
    return _object_phrase(pobj, ctx)


# Verbs of a business made or taken one's own: "opened my own salon", "bought the X Coffee Co", "took over
# the Red Lion pub", "set up a cleaning company called X"
_OWN_BUSINESS_VERBS = frozenset({"open", "start", "launch", "buy", "found"})
_OWN_BUSINESS_PAIRS = frozenset({("take", "over"), ("set", "up")})
_FIRM_SUFFIXES = frozenset({"co", "co.", "ltd", "ltd.", "inc", "inc.", "llc"})
# Not every venue word: "bought a Mars bar", "an IKEA kitchen", "a Weber grill" are things bought
_BUSINESS_NOUNS = _FIRM_SUFFIXES | {
    "business", "company", "firm", "shop", "store", "studio", "cafe", "café", "pub", "restaurant", "bakery",
    "salon", "hotel", "deli", "diner", "bistro", "brewery", "barbershop", "boutique", "bookshop", "inn",
    "tavern", "pizzeria",
}  # fmt: skip


def _own_business(sent: Span, before: int, ctx: _Ctx) -> None:
    """'I opened my own salon, Hyacinth's Hair Studio', 'we bought the blowhole coffee co', 'we took over
    the Red Lion pub' -> works-at: a business the speaker made or took on is where they work (only a
    named one, and not a plan)."""
    if ctx.message.role != "user" or any(f.predicate in WORK_PREDICATES for f in ctx.out[before:]):
        return
    for obj in (t for t in sent if t.dep_ == "dobj" and t.lemma_.lower() in _BUSINESS_NOUNS):
        verb = obj.head
        parts = {(verb.lemma_, c.lower_) for c in verb.children if c.dep_ == "prt"}
        made = verb.lemma_ in _OWN_BUSINESS_VERBS or bool(parts & _OWN_BUSINESS_PAIRS)
        done = _is_past(verb) or _perfect(verb)
        if not made or not done or not _by_us(verb, ctx) or _supposed(verb) or _negated(verb):
            continue
        name = _business_name(obj, ctx)
        if name:
            _emit(ctx, ctx.me, "works-at", name, 0.5, obj_tok=None, obj_type="organization")
            return


def _by_us(verb: Token, ctx: _Ctx) -> bool:
    """The speaker's clause, alone or with another ("me and leanne bought the cafe", "Tom and I")."""
    subjects = [c for c in verb.children if c.dep_ == "nsubj"]
    pair = [t for s in subjects for t in (s, *s.conjuncts)]
    return _by_me(verb, ctx) or any(t.lower_ in {"i", "me", "we"} for t in pair)


def _business_name(obj: Token, ctx: _Ctx) -> str | None:
    """A business's name: 'a cafe called The Daily Grind', 'the blowhole coffee co' (a firm's suffix
    ends the name), 'the Red Lion pub', 'my own salon, Hyacinth's Hair Studio' (set off after it)."""
    doc = obj.doc
    if obj.lower_ in _FIRM_SUFFIXES:
        words = [t for t in doc[obj.left_edge.i : obj.i + 1] if t.dep_ != "det"]
        return " ".join(t.text for t in words) if len(words) > 1 else None
    called = _called_name(obj, ctx)
    if called:
        return called
    names = [c for c in obj.children if c.dep_ == "compound" and c.pos_ == "PROPN" and c.i < obj.i]
    if names:
        return doc[names[0].left_edge.i : obj.i].text
    appos = next((c for c in obj.children if c.dep_ == "appos" and c.pos_ == "PROPN"), None)
    if appos is not None:
        return _name_of(appos, ctx)
    after = obj.right_edge.i + 1
    if after + 1 >= len(doc) or doc[after].text != "," or not doc[after + 1].is_title:
        return None
    end = after + 1
    joins = {"'s", "’s", "&"}
    while end < len(doc) and (doc[end].is_title or (end > after + 1 and doc[end].lower_ in joins)):
        end += 1  # "Hyacinth's Hair Studio", "Smith & Sons"
    run = doc[after + 1 : end]
    dated = any(t.ent_type_ in {"DATE", "GPE", "LOC", "PERSON"} for t in run) and len(run) == 1
    return run.text if len(run) and not dated else None


def _org_inside(prep: Token, ctx: _Ctx) -> str | None:
    """A role's "in": 'a warehouse coordinator in DHL' (learners' English: in a firm the model tags an
    organisation, no place), 'a data analyst in the finance team at Aviva' (a team's firm)."""
    for pobj in _pobjs(prep):
        if pobj.lemma_.lower() in _UNIT_HEADS:
            firm = next((p for at in _preps(pobj, pobj, {"at", "with"}) for p in _pobjs(at)), None)
            return _name_of(firm, ctx) if firm is not None and firm.pos_ == "PROPN" else None
        ent = ctx.ents.get(pobj.i)  # not a place: "a nurse in Clontarf" works in a district, not for it
        if pobj.pos_ == "PROPN" and ent is not None and ent.label_ == "ORG":
            name = _name_of(pobj, ctx)
            if name and places.fold(name) not in places.places():
                return name
    return None


def _verb_at(attr: Token) -> list[Token]:
    """'I am a paralegal at Hogan Lovells.': with a full stop the parser hangs "at" on the verb, past
    the role; a role's "at" all the same."""
    if attr.dep_ != "attr" or not (_is_job(attr) or _is_title(attr)):
        return []
    after = attr.right_edge.i + 1
    return [c for c in attr.head.children if c.dep_ == "prep" and c.lower_ == "at" and c.i == after]


def _role_took(prep: Token) -> bool:
    """The verb's "at" is read with its role (_verb_at), not as being at a place."""
    return any(prep in _verb_at(c) for c in prep.head.children if c.dep_ == "attr")


def _team_at(prep: Token, subject: str, be: str, ctx: _Ctx) -> bool:
    """ "I'm on the platform team at Monzo", "she was in the data team at Ocado": a team's firm is
    where one works (the team itself is part of it)."""
    if prep.lower_ not in {"on", "in"}:
        return False
    found = False
    for team in (p for p in _pobjs(prep) if p.lemma_.lower() in _UNIT_HEADS):
        for pobj in (p for at in _preps(team, team, {"at", "with"}) for p in _pobjs(at)):
            name = _name_of(pobj, ctx) if pobj.pos_ == "PROPN" else None
            if name:
                _emit(
                    ctx,
                    subject,
                    _workplace_pred(name, be != "is"),
                    name,
                    0.55,
                    obj_tok=None,
                    obj_type="organization",
                )
                found = True
    return found


def _children(tokens: list[Token]) -> list[Token]:
    return [c for t in tokens for c in t.children]


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


def _promoted_me(verb: Token, ctx: _Ctx) -> bool:
    """'They promoted me to senior analyst', "they've made me team lead" -> the speaker's title; 'we
    made Priya manager', 'bumped Priya up to cafe manager' -> the named person's. The
    small model parses the title after "me" every which way ('lead' a verb, 'head' a clause), so
    the words are read in order: up to five title words after "me" (and "to")."""
    if verb.lemma_ not in {"promote", "make", "bump"} or ctx.message.role != "user" or _is_irrealis(verb):
        return False
    doc = verb.doc
    holder = _promoted_one(doc[verb.i + 1], ctx) if verb.i + 1 < len(doc) else None
    if holder is None:
        return False
    start = verb.i + 2
    if verb.lemma_ == "bump" and start < len(doc) and doc[start].lower_ == "up":
        start += 1  # "bumping Priya up to cafe manager"
    elif verb.lemma_ == "bump":
        return False
    if verb.lemma_ != "make" and start < len(doc) and doc[start].lower_ == "to":
        start += 1
    elif verb.lemma_ != "make":
        return False
    return _title_from(start, verb, holder, verb.lemma_ != "make", ctx)


_TITLE_NOUNS = frozenset({"title", "role", "position", "job"})


def _title_changed(verb: Token, ctx: _Ctx) -> bool:
    """'My job title changed to Principal Engineer', "my role's been changed to team lead" -> has-role:
    the speaker's own title, now the words after "to"."""
    if verb.lemma_ not in {"change", "switch", "update"} or ctx.message.role != "user" or _is_irrealis(verb):
        return False
    subj = next((c for c in verb.children if c.dep_ in {"nsubj", "nsubjpass"}), None)
    if subj is None or subj.lemma_.lower() not in _TITLE_NOUNS:
        return False
    if not any(c.dep_ == "poss" and c.lower_ == "my" for c in subj.children):
        return False
    to = next((c for c in verb.children if c.lower_ == "to" and c.dep_ in {"prep", "dative"}), None)
    return to is not None and _title_from(to.i + 1, verb, ctx.me, False, ctx)  # a title word: not "nights"


def _title_now(sent: Span, ctx: _Ctx) -> None:
    """'Jake graduated from the academy friday, probationary firefighter now, ...', 'I passed, senior
    nurse now' -> has-role: a title set off by commas before "now", of the clause's subject before it
    (the speaker or a person's name)."""
    doc = sent.doc
    for now in (t for t in sent if t.lower_ == "now" and t.i > sent.start + 2):
        after = doc[now.i + 1] if now.i + 1 < sent.end else None
        if after is not None and not after.is_punct:
            continue
        comma = next(
            (k for k in range(now.i - 1, max(sent.start, now.i - 6), -1) if doc[k].text == ","), None
        )
        words = list(doc[comma + 1 : now.i]) if comma is not None else []
        if (
            not words
            or not _is_title_word(words[-1])
            or not all(w.pos_ in {"ADJ", "NOUN", "PROPN"} for w in words)
        ):
            continue
        holder = _clause_holder(doc[sent.start : comma], ctx)
        if holder:
            _emit(ctx, holder, "has-role", " ".join(w.text for w in words), 0.5, obj_tok=None)


def _clause_holder(span: Span, ctx: _Ctx) -> str | None:
    """The subject of the clause before a title: "I" (the speaker) or a person's name."""
    subj = next((t for t in reversed(span) if t.dep_ in {"nsubj", "nsubjpass"}), None)
    if subj is None:
        return None
    if subj.lower_ == "i":
        return ctx.me
    return _promoted_one(subj, ctx)


def _promoted_one(tok: Token, ctx: _Ctx) -> str | None:
    """Whom a promotion names: "me", or a person's name ('we made Priya manager')."""
    if tok.lower_ == "me":
        return ctx.me
    return _name_of(tok, ctx, person=True) if tok.pos_ == "PROPN" and _person_word(tok, ctx) else None


def _made_title(verb: Token, subject: str, ctx: _Ctx) -> bool:
    """ "I've been made a senior analyst", 'Got bumped up to lead engineer' -> has-role: the passive
    of making someone a title, or of a bump up (a promotion), read word by word as _promoted_me."""
    doc = verb.doc
    if ctx.message.role != "user" or _is_irrealis(verb) or verb.i + 1 >= len(doc):
        return False
    up = doc[verb.i + 1].lower_ == "up" and verb.i + 2 < len(doc) and doc[verb.i + 2].lower_ == "to"
    if verb.lemma_ == "make":  # "I've been made up to senior paralegal": British for promoted
        return _title_from(verb.i + 3 if up else verb.i + 1, verb, subject, False, ctx)  # not "to bits"
    if verb.lemma_ == "bump" and up:
        return _title_from(verb.i + 3, verb, subject, True, ctx)
    return False


def _acting_title(verb: Token, dobjs: list[Token], subject: str, past: bool, ctx: _Ctx) -> bool:
    """ "I'm acting head of department now" -> has-role 'acting head of department': the model reads
    an acting title as the verb 'act' with the title its object."""
    acting = verb.lower_ == "acting" and any(c.dep_ == "aux" and _is_be(c) for c in verb.children)
    if not acting or past or _is_irrealis(verb):
        return False
    titles = [d for d in dobjs if d.pos_ == "NOUN" and _is_title_word(d)]
    for title in titles:
        words = [t for t in title.subtree if t.i >= title.left_edge.i and t.dep_ != "det"]
        if words[-1].lower_ != "of":
            _emit(ctx, subject, "has-role", "acting " + " ".join(t.text for t in words), 0.55, obj_tok=None)
    return bool(titles)


def _made_my_manager(verb: Token, subject: str, ctx: _Ctx) -> bool:
    """ "Dave's been made my manager", "I'm now managed by Sarah" -> has-manager: a person made the
    speaker's boss, or by whom the speaker is managed."""
    if ctx.message.role != "user" or _is_irrealis(verb) or _negated(verb):
        return False
    if verb.lemma_ == "make" and subject != ctx.me:
        for oprd in (c for c in verb.children if c.dep_ in {"oprd", "dobj"} and _is_manager_noun(c)):
            if any(c.dep_ == "poss" and c.lower_ in {"my", "our"} for c in oprd.children):
                _emit(ctx, ctx.me, "has-manager", subject, 0.55, obj_tok=None, obj_type="person")
                return True
    if verb.lemma_ in {"manage", "supervise"} and subject == ctx.me:
        agents = [p for prep in verb.children if prep.dep_ == "agent" for p in _pobjs(prep)]
        names = [n for a in agents if a.pos_ == "PROPN" and (n := _name_of(a, ctx, person=True))]
        for name in names:
            _emit(ctx, ctx.me, "has-manager", name, 0.55, obj_tok=None, obj_type="person")
        return bool(names)
    return False


def _title_from(start: int, verb: Token, subject: str, promoted: bool, ctx: _Ctx) -> bool:
    """Up to five title words from `start` in `verb`'s sentence (any article skipped) as `subject`'s
    has-role; without a promotion, only words that hold a title word."""
    doc = verb.doc
    while start < len(doc) and doc[start].pos_ == "DET":
        start += 1
    words = list(doc[start : min(start + 5, verb.sent.end)])
    end = next((k for k, w in enumerate(words) if _title_ends(w, ctx)), len(words))
    words = words[:end]
    nouny = all(w.pos_ in {"NOUN", "PROPN", "ADJ", "VERB"} or w.lower_ == "of" for w in words)
    titled = any(_ends_a_title(w) for w in words)
    if not words or not nouny or not (titled or promoted) or words[-1].lower_ == "of":
        return False
    _emit(ctx, subject, "has-role", _drop_new(" ".join(w.text for w in words)), 0.55, obj_tok=None)
    return True


def _title_ends(tok: Token, ctx: _Ctx) -> bool:
    """Where a title said after "me" ends: punctuation, a date, a preposition other than 'of', a time
    word the model left untagged ("promoted to shift supervisor today")."""
    return (
        tok.is_punct
        or _is_date(tok, ctx)
        or (tok.pos_ == "ADP" and tok.lower_ != "of")
        or tok.lower_ in {"last", "next", "this", "and", "but"}
        or tok.lower_ in {"today", "tonight", "yesterday", "tomorrow", "now"}
    )


def _shifts_at(verb: Token, dobjs: list[Token], subject: str, past: bool, ctx: _Ctx) -> bool:
    """'doing nights at the Co-op', 'I do contract work for the NHS', 'I pick up shifts at Boots' ->
    works-at: shifts or work done for a named organisation."""
    picked_up = verb.lemma_ == "pick" and any(c.dep_ == "prt" and c.lower_ == "up" for c in verb.children)
    if verb.lemma_ not in {"do", "work", "pick", "cover"} or (past and not picked_up) or _is_irrealis(verb):
        return False  # "I did some work for Google once": a client then; "picked up shifts at Boots" is a job
    found = False
    for dobj in (d for d in dobjs if d.lemma_.lower() in SHIFT_NOUNS):
        for pobj in (p for prep in _preps(dobj, verb, {"at", "for", "with"}) for p in _pobjs(prep)):
            name = _name_of(pobj, ctx, with_of=True) or _short_org(pobj, ctx)
            if name and _org_or_unknown_place(pobj, name, ctx):
                _emit(ctx, subject, "works-at", name, 0.55, obj_tok=None, obj_type="organization")
                found = True
    return found


def _duty_at(verb: Token, dobjs: list[Token], subject: str, past: bool, ctx: _Ctx) -> bool:
    """'I manage a team of six at Asda', 'I run the kitchen at The Swan', 'Tom cooks at The Swan' ->
    works-at: a duty done now, as a habit, at a named organisation ('I run at Parkrun': a duty has an
    object; 'I ran the bar at the Swan once' is past)."""
    if verb.lemma_ not in DUTY_VERBS or verb.tag_ not in {"VBP", "VBZ"} or past or _is_irrealis(verb):
        return False
    if not dobjs and verb.lemma_ not in DUTY_VERBS_ALONE:
        return False
    found = False
    for noun in dobjs or [verb]:
        for prep in _preps(noun, verb, {"at"}):
            for pobj in (p for p in _pobjs(prep) if p.pos_ == "PROPN"):
                name = _name_of(pobj, ctx, with_of=True)
                if name and not _visit_words(prep) and _org_or_unknown_place(pobj, name, ctx):
                    _emit(ctx, subject, "works-at", name, 0.55, obj_tok=None, obj_type="organization")
                    found = True
    return found


def _short_org(tok: Token, ctx: _Ctx) -> str | None:
    """'the NHS', 'the Co-op': an organisation the small model left untagged, written in capitals."""
    word = tok.text
    return word if word[:1].isupper() and (word.isupper() or "-" in word) and len(word) > 1 else None


def _workplace_pred(name: str, past: bool) -> str:
    if _is_school(name):
        return "attended" if past else "attends"
    return "worked-at" if past else "works-at"


def _said_yes_to(verb: Token, dobjs: list[Token], subject: str, past: bool, ctx: _Ctx) -> bool:
    """'he said yes to Airbus' -> works-at an organisation."""
    found = False
    if verb.lemma_ == "say" and any(c.lower_ == "yes" for c in verb.children):
        for pobj in (p for prep in _preps(verb, verb, {"to"}) for p in _pobjs(prep)):
            ent = ctx.ents.get(pobj.i)
            name = _name_of(pobj, ctx)
            if name and ent is not None and ent.label_ == "ORG":
                _emit(ctx, subject, "works-at", name, 0.55, obj_tok=None, obj_type="organization")
                found = True
    return found


def _no_longer_at(sent: Span, ctx: _Ctx) -> None:
    """'No longer at Brightwater, started at Ocado', "..., I'm at Ocado now" -> worked-at Brightwater
    (ended), works-at Ocado: a line that opens with "no longer at" a firm drops its "I'm"; the parse
    hangs that "at" and the "no longer" on the next verb, whose clause (the new job) then reads as
    denied or has no subject. Only the speaker's ("..., she's at Ocado now" is hers)."""
    longer = sent[1] if len(sent) > 2 and sent[0].lower_ == "no" and sent[1].lower_ == "longer" else None
    if longer is None or longer.head.pos_ not in {"VERB", "AUX"}:
        return
    verb = longer.head
    subj = next((c for c in verb.children if c.dep_ == "nsubj"), None)
    if subj is not None and subj.lower_ != "i":
        return
    preps = [c for c in verb.children if c.dep_ == "prep" and c.lower_ in {"at", "with"}]
    old = [p for prep in preps if prep.i == longer.i + 1 for p in _employers(prep, ctx)]
    for pobj in old:
        name = _name_of(pobj, ctx)
        if name and _employer_named(pobj, name, ctx):
            _emit(ctx, ctx.me, "worked-at", name, 0.55, obj_tok=None, obj_type="organization", ends=True)
    dropped = subj is None and not any(c.dep_ == "aux" for c in verb.children)
    now_at = _is_be(verb) and subj is not None and verb.tag_ in {"VBP", "VBZ"}  # "..., I'm at Ocado now"
    if not old or not ((verb.lemma_ in {"start", "join", "work"} and dropped) or now_at):
        return
    joined = [d for d in verb.children if d.dep_ == "dobj" and d.pos_ == "PROPN" and verb.lemma_ == "join"]
    for pobj in [*joined, *(p for prep in preps if prep.i > verb.i for p in _employers(prep, ctx))]:
        name = _name_of(pobj, ctx)
        if name and _employer_named(pobj, name, ctx):
            _emit(ctx, ctx.me, "works-at", name, 0.55, obj_tok=None, obj_type="organization")


def _let_me_go(sent: Span, ctx: _Ctx) -> None:
    """'Brightwater let me go last week', 'They let me go from Brightwater' -> worked-at (ended): the
    employer that lets the speaker go is the job lost (a firm, not a person: "Dave let me go early")."""
    for let in (t for t in sent if t.lemma_ == "let" and t.pos_ == "VERB" and not _supposed(t)):
        go = next((c for c in let.children if c.dep_ in {"ccomp", "xcomp"} and c.lemma_ == "go"), None)
        me = go is not None and any(c.dep_ == "nsubj" and c.lower_ == "me" for c in go.children)
        if go is None or not me or _negated(let) or not _is_past(let):
            continue
        firms = [c for c in let.children if c.dep_ == "nsubj" and c.pos_ == "PROPN"]
        firms += [p for prep in _preps(go, go, {"from"}) for p in _pobjs(prep)]
        for firm in firms:
            name = _name_of(firm, ctx) or ""
            ent = ctx.ents.get(firm.i)
            if not first_name_led(name) and (ent is None or ent.label_ == "ORG"):
                _emit(ctx, ctx.me, "worked-at", name, 0.55, obj_tok=None, obj_type="organization", ends=True)


def _qualified_as(sent: Span, ctx: _Ctx) -> None:
    """ "I've just qualified as a solicitor", "I've qualified as a nurse" -> has-role: a trade one has
    just qualified in is one's own (the model may read "qualified" as an adjective, with no clause);
    one qualified in long ago ("in 2019") may have been left since."""
    for word in (t for t in sent if t.lower_ == "qualified" and not _supposed(t)):
        auxes = [c for c in word.children if c.dep_ == "aux"]  # "I've just qualified": "I" on the "'ve"
        subj = next((c for h in [word, *auxes] for c in h.children if c.dep_ in {"nsubj", "nsubjpass"}), None)
        recent = any(a.lemma_ == "have" for a in auxes) or any(c.lower_ == "just" for c in word.children)
        if subj is None or subj.lower_ != "i" or not recent:
            continue  # "I qualified as a nurse in 2019": a trade one may have left since
        for pobj in (p for prep in _preps(word, word, {"as"}) for p in _pobjs(prep) if _is_title_word(p)):
            role = _object_phrase(pobj, ctx, with_of=True)
            if role:
                _emit(ctx, ctx.me, "has-role", _drop_new(role), 0.55, obj_tok=None)


def _kept_on(sent: Span, ctx: _Ctx) -> None:
    """'They've kept me on at Brightwater', 'they're keeping me on at Aldi after Christmas' -> the
    speaker works-at the firm: an employer keeps on whom it goes on employing (whoever "they" are)."""
    for verb in (t for t in sent if t.lemma_ == "keep" and t.pos_ == "VERB" and not _supposed(t)):
        me = any(c.dep_ == "dobj" and c.lower_ == "me" for c in verb.children)
        if not me or not any(c.dep_ == "prt" and c.lower_ == "on" for c in verb.children):
            continue
        for pobj in (p for prep in _preps(verb, verb, {"at"}) for p in _employers(prep, ctx)):
            name = _name_of(pobj, ctx) or ""  # the model tags many shops a person ("at Aldi")
            if _a_firm_not_a_person(pobj, name, ctx):
                _emit(ctx, ctx.me, "works-at", name, 0.55, obj_tok=None, obj_type="organization")


def _a_firm_not_a_person(tok: Token, name: str, ctx: _Ctx) -> bool:
    """A name that can be an employer and no first name leads ("at Dave's": a person's place; "Dan hired
    me": a person), whatever the model tagged it."""
    return bool(name) and not first_name_led(re.sub(r"['’]s$", "", name)) and _employer_named(tok, name, ctx)


_TERMS = frozenset({"contract", "placement", "internship", "apprenticeship", "secondment"})


def _work_said(doc: Doc) -> bool:
    """A message that speaks of work beside a contract: a title or a word of the job."""
    return any(
        t.lemma_.lower() in _WORK_TALK - {"contract", "offer", "pay"} or t.lower_ in JOB_TITLE_NOUNS
        for t in doc
    )


def _quit_job(verb: Token, dobjs: list[Token], subject: str, past: bool, ctx: _Ctx) -> bool:
    """'I quit my job at Oracle' -> worked-at Oracle; 'I quit my job' ends the one current job;
    'I left Acme for Initech' (`_left_for`)."""
    found = False
    ended = verb.lemma_ in {"quit", "leave", "lose"}
    # "I finished my contract with the University of Leeds": a term served out (not "finished my job at 5")
    served = verb.lemma_ in {"finish", "end", "complete"} and not _is_irrealis(verb)
    if ended or served:
        for dobj in (d for d in dobjs if d.lemma_.lower() in (JOB_NOUNS - {"offer"} if ended else _TERMS)):
            if served and dobj.lower_ == "contract" and not _work_said(verb.doc):
                continue  # "finished my contract with EE, going SIM only": a phone's contract
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
    if verb.lemma_ in {"quit", "leave"}:
        found = _left_for(verb, dobjs, subject, ctx) or found
    return found


def _handed_in_notice(verb: Token, dobjs: list[Token], subject: str, past: bool, ctx: _Ctx) -> bool:
    """'I handed in my notice at Acme': the job at Acme ends ('my notice' alone: the one job)."""
    if verb.lemma_ != "hand":
        return False
    particles = [c for c in verb.children if c.dep_ == "prep" and c.lower_ in {"in", "over"}]
    # "handing in my notice": the parser may hang the notice on an "in" preposition
    handed_in = [p for c in particles for p in _pobjs(c)]
    if not handed_in and not any(
        c.dep_ in {"prt", "prep"} and c.lower_ in {"in", "over"} for c in verb.children
    ):
        return False
    found = False
    for dobj in (d for d in [*dobjs, *handed_in] if d.lemma_.lower() in {"notice", "resignation"}):
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
            _emit(ctx, subject, "resigned-from", name, 0.6, obj_tok=None, obj_type="organization", ends=True)
        if not pobjs:
            _emit(ctx, subject, "left", "job", 0.55, obj_tok=None, ends=True)
        found = True
    return found


def _moved_into_work(verb: Token, dobjs: list[Token], subject: str, past: bool, ctx: _Ctx) -> bool:
    """'then moved into comms at Stripe's Dublin office' -> works-at Stripe: a move into a line of
    work at an organisation is the job it led to (the later job supersedes it when told). So is a
    move to a team or a branch of one: 'moved over to the data team at Ocado', 'I transferred to
    the Leeds branch of Halifax'."""
    if verb.lemma_ not in {"move", "switch", "transfer", "go"} or _is_irrealis(verb):
        return False
    units = [p for prep in _preps(verb, verb, {"to"}) for p in _pobjs(prep) if _a_unit(p)]
    fields = [p for prep in _preps(verb, verb, {"into"}) for p in _pobjs(prep) if p.pos_ == "NOUN"]
    homes = any(f.lemma_.lower() in HOME_NOUNS | _SITES or _label(f, ctx) for f in fields)
    if not units and (not fields or homes):
        return False  # "moved into a flat at Riverside Court": a home
    sites = [u for u in units if u.lemma_.lower() in _MOVED_TO_SITES]
    owners = [p for h in [verb, *units] for prep in _preps(h, h, {"at"}) for p in _pobjs(prep)]
    owners += [p for s in sites for prep in _preps(s, s, {"of"}) for p in _pobjs(prep) if p.pos_ == "PROPN"]
    found = False
    for pobj in [*sites, *owners]:
        org = _org_behind(pobj, ctx) if pobj.pos_ == "NOUN" else _name_of(pobj, ctx)
        if org and pobj.pos_ == "PROPN" and not _employer_named(pobj, org, ctx):
            org = None  # "at Leeds": a known city
        if org:
            _emit(ctx, subject, "works-at", org, 0.5, obj_tok=None, obj_type="organization")
            found = True
    return found or any(u.lemma_.lower() in _UNIT_HEADS for u in units)  # "moved to the sales team"


# The parts of an employer one is moved to: a team ("the data team at Ocado") or a site of it ("the
# Leeds branch of Halifax"); not a studio or a store, which may be a home or a shop
_MOVED_TO_SITES = frozenset(
    {"office", "offices", "branch", "site", "depot", "plant", "factory", "warehouse", "hq", "headquarters"}
)


def _a_unit(pobj: Token) -> bool:
    return pobj.pos_ == "NOUN" and pobj.lemma_.lower() in _UNIT_HEADS | _MOVED_TO_SITES


def _desk_at(verb: Token, dobjs: list[Token], subject: str, past: bool, ctx: _Ctx) -> bool:
    """'I sit all day at my desk at Aviva', 'I sit at a desk all day at Allianz' -> works-at: the
    desk one sits at is at work (was sits-at desk, sits-at Allianz)."""
    if verb.lemma_ != "sit" or _is_irrealis(verb):
        return False
    desks = [p for prep in _preps(verb, verb, {"at"}) for p in _pobjs(prep) if p.lemma_.lower() == "desk"]
    if not desks:
        return False
    named = [
        p for h in (verb, *desks) for prep in _preps(h, h, {"at"}) for p in _pobjs(prep) if p.pos_ == "PROPN"
    ]
    pred = "worked-at" if past else "works-at"
    for pobj in named:
        name = _name_of(pobj, ctx)
        if name and _employer_named(pobj, name, ctx):
            _emit(ctx, subject, pred, name, 0.5, obj_tok=None, obj_type="organization")
    return True


def _got_into(verb: Token, dobjs: list[Token], subject: str, past: bool, ctx: _Ctx) -> bool:
    """'My daughter Harper got into Stanford', 'I finally got into Oxford' -> attends / studies-at: a
    place won at a school or university (not "got into London late", not "got into trouble")."""
    if verb.lemma_ != "get" or dobjs or _is_irrealis(verb):
        return False
    found = False
    for pobj in (p for prep in _preps(verb, verb, {"into"}) for p in _pobjs(prep) if p.pos_ == "PROPN"):
        name = _name_of(pobj, ctx)
        # a school by its words, or an organisation named after a place (Stanford, Cambridge,
        # Imperial): not "got into Netflix"; "got into London late" is tagged a place
        if not name:
            continue
        town = _label(pobj, ctx) == "ORG" and places.fold(name) in places.places()
        if not (_is_school(name) or town):
            continue
        pred = "studies-at" if subject == ctx.me else "attends"
        _emit(ctx, subject, pred, name, 0.5, obj_tok=None, obj_type="organization")
        found = True
    return found


def _held_post(verb: Token, dobjs: list[Token], subject: str, past: bool, ctx: _Ctx) -> bool:
    """'I held the post of deputy headteacher at Greenway Comprehensive until my retirement' ->
    worked-as and worked-at; 'I hold the position of Head of Finance at Arup' -> has-role, works-at."""
    if verb.lemma_ != "hold" or _is_irrealis(verb):
        return False
    found = False
    for post in (d for d in dobjs if d.lemma_.lower() in {"post", "position", "role", "title"}):
        role = _of_object(post)
        obj = _object_phrase(role, ctx, with_of=True) if role is not None else None
        if not obj:
            continue
        _emit(ctx, subject, "worked-as" if past else "has-role", _drop_new(obj), 0.55, obj_tok=None)
        for pobj in (p for prep in _preps(post, verb, {"at"}) for p in _pobjs(prep)):
            name = _name_of(pobj, ctx)
            if name and _employer_named(pobj, name, ctx):
                org: EntityType = "organization"
                _emit(ctx, subject, _workplace_pred(name, past), name, 0.5, obj_tok=None, obj_type=org)
        found = True
    return found


def _works_as_for(verb: Token, dobjs: list[Token], subject: str, past: bool, ctx: _Ctx) -> bool:
    """'Paul works as a civil engineer for Queensland Rail' -> works-at. Never True: the clause's role
    ("as a civil engineer") is still read by the rules after this one."""
    if verb.lemma_ != "work" or past:
        return False
    for role in (p for prep in _preps(verb, verb, {"as"}) for p in _pobjs(prep)):
        for prep, pobj in (
            (r, p) for r in _preps(role, verb, {"for", "at", "with", "in"}) for p in _pobjs(r)
        ):
            name = _name_of(pobj, ctx)
            if prep.lower_ == "in" and not _an_org_in(pobj, name, ctx):
                continue  # "works as a teacher in Leeds": where, not whom
            if name and _employer_named(pobj, name, ctx):  # "working as a barista at Costa"
                _emit(ctx, subject, "works-at", name, 0.55, obj_tok=None, obj_type="organization")
    return False


_DRIVING = frozenset({"drive", "haul", "deliver", "ride", "fly"})


def _works_for_org(verb: Token, dobjs: list[Token], subject: str, past: bool, ctx: _Ctx) -> bool:
    """'I drive OTR for Buckeye Freightways' -> works-at (never True: the verb's own facts stay)."""
    if verb.lemma_ not in WORK_FOR_VERBS or _is_irrealis(verb):
        return False
    # "I drive a bus for Arriva": the parse hangs "for" on what is driven
    driven = [p for d in dobjs if verb.lemma_ in _DRIVING for p in _preps(d, d, {"for"})]
    for pobj in (p for prep in [*_preps(verb, verb, {"for"}), *driven] for p in _pobjs(prep)):
        ent = ctx.ents.get(pobj.i)
        name = _name_of(pobj, ctx)
        org = (ent is not None and ent.label_ == "ORG") or _firm_like(pobj, ctx, placed=False)
        if name and (org or _a_firm_not_a_person(pobj, name, ctx)):  # "drove for Stagecoach" (a PERSON)
            pred = "worked-at" if past else "works-at"
            _emit(ctx, subject, pred, name, 0.55, obj_tok=None, obj_type="organization")
    return False


def _got_a_job(verb: Token, dobjs: list[Token], subject: str, past: bool, ctx: _Ctx) -> bool:
    """'Tom got a job at the city library', 'I accepted an offer from Helix': a new job is current
    whatever the tense of the getting, so it reads works-at."""
    # "Arjun has a job lined up at RBC": a job arranged is had, and its place hangs on "lined"
    lined = {d.i: [a for a in d.children if a.dep_ == "acl" and a.lemma_ == "line"] for d in dobjs}
    if verb.lemma_ not in JOB_GET_VERBS and not (verb.lemma_ == "have" and any(lined.values())):
        return False
    found = False
    for dobj in (d for d in dobjs if d.lemma_.lower() in JOB_NOUNS):
        if dobj.lemma_ == "offer" and verb.lemma_ not in {"accept", "take"}:
            continue  # an offer received is not a job taken
        preps = _preps(dobj, verb, {"at", "with", "from"} if dobj.lemma_ == "offer" else {"at", "with"})
        for prep in [*preps, *(p for a in lined[dobj.i] for p in _preps(a, a, {"at", "with"}))]:
            for pobj in _pobjs(prep):
                obj = _name_of(pobj, ctx) or _object_phrase(pobj, ctx)
                if obj:
                    pred = _workplace_pred(obj, False)
                    _emit(ctx, subject, pred, obj, 0.6, obj_tok=None, obj_type="organization")
                    found = True
        found = _named_job(dobj, subject, ctx) or _role_as(dobj, verb, subject, ctx) or found
    return found


def _studies_or_trains_at(verb: Token, dobjs: list[Token], subject: str, past: bool, ctx: _Ctx) -> bool:
    """'doing my MTech at IIT' -> studies-at; 'doing internship at X' -> works-at and the role."""
    if verb.lemma_ not in {"do", "pursue", "study"} or past:
        return False
    found = False
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
    return found


def _year_of_study(sent: Span, ctx: _Ctx) -> None:
    """'I am in my 5th year of PhD at Polytechnique Montréal', 'in the final year of my degree at Leeds
    University' -> studies-at: the place of the speaker's year of a degree."""
    for year in (t for t in sent if t.lemma_.lower() == "year" and t.dep_ == "pobj"):
        degrees = [p for prep in _preps(year, year, {"of"}) for p in _pobjs(prep) if p.lower_ in DEGREE_NOUNS]
        verb = year.head.head
        if (
            not degrees
            or verb.lemma_ != "be"
            or not _by_me(verb, ctx)
            or _is_irrealis(verb)
            or _is_past(verb)
        ):
            continue
        for pobj in (p for h in (year, *degrees) for prep in _preps(h, h, {"at"}) for p in _pobjs(prep)):
            name = _name_of(pobj, ctx)
            if name:
                _emit(ctx, ctx.me, "studies-at", name, 0.55, obj_tok=None, obj_type="organization")


def _started_work_at(verb: Token, dobjs: list[Token], subject: str, past: bool, ctx: _Ctx) -> bool:
    """'I started work at Acme' -> works-at."""
    work = [d for d in dobjs if d.lower_ == "work"]
    if verb.lemma_ not in START_VERBS or not work or _is_irrealis(verb):
        return False
    found = False
    for pobj in (p for prep in _preps(work[0], verb, {"at", "with", "for"}) for p in _pobjs(prep)):
        name = _name_of(pobj, ctx)
        if name:
            _emit(ctx, subject, _workplace_pred(name, False), name, 0.55, obj_tok=None)
            found = True
    return found


def _started_at(verb: Token, dobjs: list[Token], subject: str, past: bool, ctx: _Ctx) -> bool:
    """'I'll start at Acme on June 8', 'started with Northwind as a data analyst' -> the workplace
    (a school for a child, by `_workplace_pred`) and the role."""
    if verb.lemma_ not in START_VERBS or dobjs:
        return False
    found = False
    for prep in _preps(verb, verb, {"at", "with"}):
        for pobj in _pobjs(prep):
            name = _name_of(pobj, ctx)
            if name:
                pred = _workplace_pred(name, past and verb.lemma_ != "start")
                _emit(ctx, subject, pred, name, 0.6, obj_tok=pobj)
                found = True
    return _role_as(verb, verb, subject, ctx) or found


def _joined(verb: Token, dobjs: list[Token], subject: str, past: bool, ctx: _Ctx) -> bool:
    """'I joined Northwind as a data analyst', 'Sam joined Monzo last week' -> works-at (and the role);
    once joined, a name tagged a person or a place counts unless it is a first name or a big place, and
    with a job said, however the model tagged it; not a party, club or union one joins as a member
    ("joined the Labour Party")."""
    if verb.lemma_ != "join":
        return False
    found = False
    as_job = _as_a_job(verb)
    for dobj in dobjs:
        ent = ctx.ents.get(dobj.i)
        name = _name_of(dobj, ctx)
        if name is None and dobj.lemma_.lower() in FIRM_NOUNS:  # "joined a small consultancy called X"
            name, ent = _called_name(dobj, ctx), None
        if not name or (not as_job and name.split()[-1].lower() in MEMBERSHIP_HEADS):
            continue
        # once joined (not "joining Nestle next month": that stays `joins`), a person's tag on no first
        # name or a place's on no big place is the small model's guess at a firm ("joined Monzo")
        made = verb.tag_ in {"VBD", "VBN"}
        label = ent.label_ if ent is not None else None
        person = label == "PERSON" and not (made and name.split()[0].lower() not in first_names())
        place = label in {"GPE", "LOC"} and not (made and not places.big_place(name))
        tagged_elsewhere = person or place or label == "NORP"
        if not tagged_elsewhere or (as_job and not places.big_place(name)):
            _emit(ctx, subject, _workplace_pred(name, False), name, 0.6, obj_tok=dobj)
            found = _role_as(verb, verb, subject, ctx) or True
    return found


def _as_a_job(verb: Token) -> bool:
    """The verb says a job 'as' ("joined Monzo as a designer", "I'm at Monzo as a product designer")."""
    preps = [c for c in verb.children if c.dep_ == "prep" and c.lower_ == "as"]
    return any(_is_job(p) or _is_title(p) for prep in preps for p in _pobjs(prep))


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


def _named_job(job: Token, subject: str, ctx: _Ctx) -> bool:
    """'I accepted the Helix offer', 'took Google's job', 'I got the Ocado job' (the firm tagged a
    place no gazetteer knows): the employer named before the job noun."""
    names = [
        name
        for c in job.children
        if c.dep_ in {"compound", "poss"} and c.pos_ == "PROPN" and c.i < job.i
        if (name := _name_of(c, ctx)) and (_is_org(c, ctx) or _unknown_place(c, name, ctx))
    ]
    for name in names[:1]:
        _emit(ctx, subject, "works-at", name, 0.6, obj_tok=None, obj_type="organization")
    return bool(names)


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


def _org_or_unknown_place(tok: Token, name: str, ctx: _Ctx) -> bool:
    """_org_or_unknown, or a name the parser took for a place that the gazetteer does not know: shifts
    are done "at Lidl" (tagged GPE), not at a town."""
    return _org_or_unknown(tok, ctx) or _unknown_place(tok, name, ctx)


def _unknown_place(tok: Token, name: str, ctx: _Ctx) -> bool:
    ent = ctx.ents.get(tok.i)
    return ent is not None and ent.label_ == "GPE" and places.fold(name) not in places.places()


def _org_or_unknown(tok: Token, ctx: _Ctx) -> bool:
    ent = ctx.ents.get(tok.i)
    return ent is None or ent.label_ not in {"PERSON", "DATE", "TIME", "GPE"}


def _role_as(tok: Token, verb: Token, subject: str, ctx: _Ctx) -> bool:
    """'... a job at X as a data analyst', 'joined X as a designer' -> has-role; 'took a job as a
    registrar at Christchurch Hospital' -> the organisation of the role too."""
    if not _preps(tok, verb, {"as"}):
        return _as_title_after(verb, subject, ctx)
    found = False
    for prep in _preps(tok, verb, {"as"}):
        for pobj in _pobjs(prep):
            if pobj.pos_ in {"NOUN", "PROPN"}:
                obj = _object_phrase(pobj, ctx, with_of=True)
                if obj:
                    _emit(ctx, subject, "has-role", _drop_new(obj), 0.55, obj_tok=None)
                    _org_of_role(pobj, subject, False, ctx)
                    found = True
    return found


_TITLE_POS = frozenset({"NOUN", "PROPN", "ADJ", "VERB"})  # "lead" of "team lead" is often a verb


def _as_title_after(verb: Token, subject: str, ctx: _Ctx) -> bool:
    """'joined Cognizant as team lead' (parsed "team" the subject of a verb "lead"), 'start at John
    Lewis on the first as a visual merchandiser' ("as" hung on "first"): the words after the verb's
    "as", read in order, up to the title word that ends them."""
    doc = verb.doc
    for as_ in (t for t in doc[verb.i + 1 : verb.sent.end] if t.lower_ == "as"):
        words = [t for t in doc[as_.i + 1 : min(as_.i + 6, verb.sent.end)]]
        words = words[1:] if words and words[0].lower_ in {"a", "an", "the"} else words
        run = list(itertools.takewhile(lambda t: t.is_alpha and t.pos_ in _TITLE_POS, words))
        ends = [k for k, t in enumerate(run) if _ends_a_title(t)]
        if ends:
            title = " ".join(t.text for t in run[: ends[-1] + 1])
            _emit(ctx, subject, "has-role", title, 0.5, obj_tok=None)
            return True
    return False


def _career_as(verb: Token, subject: str, ctx: _Ctx) -> bool:
    """'I started out as a linesman', 'finished up as district supervisor when I retired', 'she
    retired as head teacher' -> worked-as: a role held once, told as a career's start or end ("started
    out"; a plain "started as" is a job begun, the role now)."""
    if verb.lemma_ not in CAREER_VERBS or _is_irrealis(verb):
        return False
    if verb.lemma_ in {"start", "begin"} and not any(c.lower_ in {"out", "off"} for c in verb.children):
        return False  # "I started as a data analyst at X in March" is the job now
    spans = (c for c in verb.children if c.dep_ == "dobj" and c.lemma_.lower() in _SPANS)
    if verb.lemma_ == "spend" and next(spans, None) is None:
        return False  # "I spent eight years as a PM at Flipkart", not "spent my bonus as a deposit"
    found = False
    for pobj in (p for prep in _preps(verb, verb, {"as"}) for p in _pobjs(prep)):
        obj = _object_phrase(pobj, ctx, with_of=True) if pobj.pos_ in {"NOUN", "PROPN"} else None
        if obj and any(_is_title_word(t) for t in pobj.subtree):
            _emit(ctx, subject, "worked-as", _drop_new(obj), 0.55, obj_tok=None)
            _org_of_role(pobj, subject, True, ctx)  # "retired as a midwife at Queen Charlotte's"
            found = True
    return found


# Spans of a working life spent in a role: "I spent eight years as a nurse"
_SPANS = frozenset({"year", "month", "decade", "week", "summer", "season", "term", "career", "life"})
