"""Conditions and diagnoses: "I have Crohn's", "diagnosed with type 2 diabetes", "my asthma is
flaring up", "recovering from a slipped disc".
"""

from __future__ import annotations

import re

from spacy.tokens import Span, Token

from knowledge_engine.extract.dependency.context import _Ctx, _emit
from knowledge_engine.extract.dependency.grammar import (
    _asserted_clause,
    _bare_or_mine,
    _before_here,
    _clinician_subject,
    _has_particle,
    _is_irrealis,
    _perfect,
    _pobjs,
)
from knowledge_engine.extract.dependency.names import _conjuncts, _name_of, _object_phrase, _resolve_subject
from knowledge_engine.extract.dependency.nouns import _is_kin
from knowledge_engine.extract.lexicon import (
    CLINICIANS,
    CONDITION_ADJECTIVES,
    CONDITION_COMPOUNDS,
    CONDITIONS,
    DISEASE_HEADS,
    FIRST_PERSON_POSS,
    RECOVERY_VERBS,
)
from knowledge_engine.extract.truecase import names as first_names


def _condition(verb: Token, subject: str, past: bool, ctx: _Ctx) -> bool:
    """'I have asthma', "I've had type 1 diabetes since I was a kid", 'Joan has dementia' ->
    has-condition (a simple past 'had' is over: nothing); 'Hana beat breast cancer' -> recovered-from."""
    if verb.lemma_ in RECOVERY_VERBS:
        return _recovered(verb, subject, ctx)
    if verb.lower_ in {"type", "types"}:
        return _typed_by_verb(verb, subject, past, ctx)
    if verb.lemma_ in _LIVING_WITH:
        return _living_with(verb, subject, past, ctx)
    if verb.lemma_ not in {"have", "get"} or (past and verb.lemma_ == "have" and verb.tag_ == "VBD"):
        return False
    # "I've got high blood pressure" (the tagger may make "got" a simple past after "'ve")
    have_now = any(c.dep_ == "aux" and c.lemma_ == "have" and c.tag_ in {"VBP", "VBZ"} for c in verb.children)
    have_got = verb.lemma_ == "get" and ((_perfect(verb) and not past) or have_now)
    habitual = verb.lemma_ == "get" and verb.tag_ in {"VBP", "VBZ"}  # "I get migraines", "he gets ..."
    diagnosed = any(c.lower_ == "diagnosed" for c in verb.children)
    if verb.lemma_ == "get" and not (have_got or habitual or diagnosed):
        return False
    found = False
    objects = [c for c in verb.children if c.dep_ == "dobj"]
    for dobj in [*objects, *(c for o in objects for c in _conjuncts(o))]:  # "... pressure and sleep apnea"
        if _names_condition(dobj):
            obj = _object_phrase(dobj, ctx, prefer_name=False)
            if obj and _typed(dobj) is not None and not obj.lower().startswith("type "):
                obj = f"type {obj}"  # the parser splits "type 1 diabetes" into two objects (not always)
            if obj:
                _emit(ctx, subject, "has-condition", obj, 0.55, obj_tok=None)
                found = True
    return found


# Verbs of bearing a condition: "struggling with anxiety", "living with MS", "battling cancer"
_LIVING_WITH = frozenset({"struggle", "live", "deal", "cope", "battle", "fight", "suffer"})


def _living_with(verb: Token, subject: str, past: bool, ctx: _Ctx) -> bool:
    """'I've been struggling with anxiety', "I'm living with MS", 'still dealing with long covid', 'she's
    battling cancer' -> has-condition (not a simple past: "I struggled with asthma as a kid" is over)."""
    if (past and not _perfect(verb)) or _is_irrealis(verb):
        return False
    withs = [c for c in verb.children if c.dep_ == "prep" and c.lower_ == "with"]
    ills = [p for prep in withs for p in _pobjs(prep)]
    if verb.lemma_ in {"battle", "fight"}:
        ills += [c for c in verb.children if c.dep_ == "dobj"]
    found = False
    for ill in (i for i in ills if _condition_word(i)):
        obj = _object_phrase(ill, ctx, prefer_name=False)
        if obj:
            _emit(ctx, subject, "has-condition", obj, 0.55, obj_tok=None)
            found = True
    return found


def _diagnosed_whom(verb: Token, dobjs: list[Token], subject: str, past: bool, ctx: _Ctx) -> bool:
    """'GP diagnosed me with X': the clinician is not the one ill (was "GP diagnosed-with X"); the
    patient's condition is _diagnosis_given's."""
    if verb.lemma_ != "diagnose":
        return False
    return any(d.tag_ == "PRP" or _is_kin(d) or _resolve_subject(d, ctx) for d in dobjs)


def _diagnosis_given(sent: Span, ctx: _Ctx) -> None:
    """'My doctor diagnosed me with asthma', 'They diagnosed my son Leo with ADHD' -> the patient
    has-condition, whoever diagnosed (a clinician the clause rules cannot name)."""
    for verb in (t for t in sent if t.lemma_ == "diagnose" and t.pos_ == "VERB" and not _is_irrealis(t)):
        illnesses = [
            p for prep in verb.children if prep.dep_ == "prep" and prep.lower_ == "with" for p in _pobjs(prep)
        ]
        for patient in (_resolve_subject(d, ctx) for d in verb.children if d.dep_ == "dobj"):
            for pobj in (p for p in illnesses if p.pos_ in {"NOUN", "PROPN"}):
                illness = _typed(pobj) or _object_phrase(pobj, ctx, prefer_name=False)
                if patient and illness:
                    _emit(ctx, patient, "has-condition", illness, 0.55, obj_tok=None, subj_type="person")
        _clinician_diagnosed(verb, ctx)


def _clinician_diagnosed(verb: Token, ctx: _Ctx) -> None:
    """'my GP ran blood tests. She has diagnosed iron-deficiency anaemia' -> the speaker has it: a
    condition diagnosed (the object, no patient said) by a clinician, or by the he/she after one, in
    a user message that names no other patient before it."""
    subj = next((c for c in verb.children if c.dep_ == "nsubj"), None)
    if subj is None or ctx.message.role != "user":
        return
    before = verb.doc[: verb.i]
    clinician = subj.lemma_.lower() in CLINICIANS or (
        subj.lower_ in {"he", "she", "they"} and any(t.lemma_.lower() in CLINICIANS for t in before)
    )
    if not clinician or any(_another_patient(t) or _first_name(t) for t in before):
        return
    for dobj in (c for c in verb.children if c.dep_ == "dobj" and _condition_word(c)):
        illness = _typed(dobj) or _object_phrase(dobj, ctx, prefer_name=False)
        if illness:
            _emit(ctx, ctx.me, "has-condition", illness, 0.55, obj_tok=None)


def _names_condition(noun: Token) -> bool:
    """'asthma', 'celiac disease', 'high blood pressure', 'a slipped disc', 'a peanut allergy' (an
    article only before a two-word condition: "a disease" alone says nothing)."""
    named_head = noun.lemma_.lower() in DISEASE_HEADS and any(_names_its_kind(c) for c in noun.children)
    compound = _compound_condition(noun) or named_head
    if not _condition_word(noun):
        return False
    dets = [c for c in noun.children if c.dep_ in {"det", "poss"}]
    return not dets or (compound and all(d.lower_ in {"a", "an"} for d in dets))


def _names_its_kind(mod: Token) -> bool:
    """'peanut' of "a peanut allergy", 'coeliac' of "coeliac disease"; not 'rare' or 'serious'."""
    if mod.dep_ == "compound":
        return True
    return mod.dep_ == "amod" and mod.lower_ in CONDITIONS | CONDITION_ADJECTIVES


def _compound_condition(noun: Token) -> bool:
    mods = [c for c in noun.children if c.dep_ in {"amod", "compound"}]
    return any((noun.lemma_.lower(), c.lower_) in CONDITION_COMPOUNDS for c in mods)


def _condition_word(noun: Token) -> bool:
    """A condition's word, whatever its determiner: 'asthma', 'coeliac disease', 'blood pressure'."""
    mods = any(c.dep_ in {"amod", "compound"} for c in noun.children)
    named_disease = (noun.lemma_.lower() in DISEASE_HEADS and mods) or _compound_condition(noun)
    return noun.lower_ in CONDITIONS or noun.lemma_.lower() in CONDITIONS or named_disease


_TREATMENTS = frozenset(
    {"medication", "meds", "medicine", "tablets", "tablet", "pills", "pill", "treatment", "inhaler",
     "injections", "therapy", "physio", "physiotherapy", "surgery", "operation", "antidepressants",
     "steroids", "cream", "prescription"}
)  # fmt: skip
_TREAT_VERBS = frozenset({"treat", "prescribe", "take", "use"})


def _treated_for(sent: Span, ctx: _Ctx) -> None:
    """'I'm on sertraline for anxiety', 'taking tablets for my blood pressure', 'still being treated
    for sciatica' -> the speaker has-condition: a treatment said for it (not 'a marathon for cancer
    research'), in a message that names no other patient."""
    fors = [t for t in sent if t.lower_ == "for" and t.dep_ == "prep"]
    if ctx.message.role != "user" or not fors:
        return  # most sentences: nothing to read, so no patient to look for
    taken = [t for t in sent if t.dep_ == "dobj" and t.head.lemma_ in _TREAT_VERBS]
    # "taking Prozac" may be tagged a person: the drug and its verb are no other patient
    drugs = {i for t in taken for i in (t.head.i, *_ent_of(t, ctx))}
    if any(t.i not in drugs and (_another_patient(t) or t.lower_ in {"he", "she"}) for t in sent):
        return
    for prep in fors:
        if not _a_treatment(prep.head) or _is_irrealis(prep.head):
            continue
        for pobj in (p for p in _pobjs(prep) if _condition_word(p)):
            poss = [c for c in pobj.children if c.dep_ in {"det", "poss"}]
            if all(c.lower_ in FIRST_PERSON_POSS for c in poss):  # "for the cancer ward": no
                mods = [c.i for c in pobj.children if c.dep_ in {"amod", "compound"}]
                illness = pobj.doc[min([*mods, pobj.i]) : pobj.i + 1].text.lower()  # "treated for Sciatica"
                _emit(ctx, ctx.me, "has-condition", illness, 0.5, obj_tok=None)


def _ent_of(tok: Token, ctx: _Ctx) -> range:
    """The token positions of the entity `tok` is in ('taking Prozac' tagged a person), or its own."""
    ent = ctx.ents.get(tok.i)
    return range(ent.start, ent.end) if ent is not None else range(tok.i, tok.i + 1)


def _drug_on(tok: Token) -> bool:
    """'on sertraline', 'on meds', 'on the pill' (not 'on a fundraiser': an article before a drug's
    name is rare)."""
    bare = not any(c.dep_ == "det" for c in tok.children) or tok.lower_ in _TREATMENTS
    return tok.dep_ == "pobj" and tok.head.lower_ == "on" and tok.pos_ in {"NOUN", "PROPN"} and bare


def _a_treatment(tok: Token) -> bool:
    """A treatment's word, a drug one is 'on' ("on sertraline for anxiety", "I'm on meds for ..."), or
    a verb of treating ('take' and 'use' with an object)."""
    if tok.lower_ in _TREATMENTS or _drug_on(tok):
        return True
    if tok.lemma_ == "be" and any(_drug_on(p) for c in tok.children if c.lower_ == "on" for p in _pobjs(c)):
        return True
    if tok.pos_ != "VERB" or tok.lemma_ not in _TREAT_VERBS:
        return False
    return tok.lemma_ in {"treat", "prescribe"} or any(c.dep_ == "dobj" for c in tok.children)


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


# What one is signed off "for" that is no illness: "signed off for two weeks", "for a while"
_SPANS_OFF = frozenset({"day", "week", "month", "year", "while", "time", "rest", "now"})


def _signed_off(verb: Token, subject: str, past: bool, ctx: _Ctx) -> bool:
    """ "I've been signed off with stress", 'signed off work for anxiety' -> has-condition: what a sick
    note names (not "signed off for two weeks"; a past note says nothing of now)."""
    if verb.lemma_ != "sign" or not _has_particle(verb, "off") or _is_irrealis(verb):
        return False
    found = False
    for pobj in (p for prep in verb.children if prep.lower_ in {"with", "for"} for p in _pobjs(prep)):
        if pobj.pos_ != "NOUN" or pobj.lemma_.lower() in _SPANS_OFF or not _bare_or_mine(pobj):
            continue
        illness = _typed(pobj) or _object_phrase(pobj, ctx, prefer_name=False)
        if illness and not past:
            _emit(ctx, subject, "has-condition", illness, 0.55, obj_tok=None)
        found = True
    return found


def _typed_by_verb(verb: Token, subject: str, past: bool, ctx: _Ctx) -> bool:
    """'Diana has type 2 diabetes', "I'm type 2 diabetic": the small model's verb "type" with "has" (or,
    before a condition's adjective, "am") as its auxiliary."""
    dobj = next((c for c in verb.children if c.dep_ == "dobj"), None)
    have = [c for c in verb.children if c.dep_ == "aux" and c.lemma_ == "have"]
    if dobj is not None and dobj.lower_ in CONDITION_ADJECTIVES:  # "I'm type 2 diabetic": a state
        have = [c for c in verb.children if c.dep_ == "aux" and c.lemma_ == "be"]
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


def _condition_state(tok: Token, subject: str, past: bool, ctx: _Ctx) -> bool:
    """'I'm lactose intolerant', "he's diabetic", "I'm a type 2 diabetic" -> has-condition, worded as
    said (a simple past 'was' is over: nothing)."""
    if past or tok.lower_ not in CONDITION_ADJECTIVES:
        return False
    start = tok.i
    while start > tok.left_edge.i and tok.doc[start - 1].dep_ not in {"det", "advmod", "punct", "cc"}:
        start -= 1  # "lactose", "type 2", "gluten": the words that say which
    doc = tok.doc
    if start >= 1 and doc[start].like_num and doc[start - 1].lower_ == "type":
        start -= 1  # "I'm type 1 diabetic": "type" parsed apart, an adjective of "'m"
    glued = start >= 2 and not doc[start - 2].whitespace_ and not doc[start - 1].whitespace_
    if glued and doc[start - 1].text == "-":
        start -= 2  # "pre-diabetic" parsed as three words side by side
    _emit(ctx, subject, "has-condition", tok.doc[start : tok.i + 1].text.lower(), 0.55, obj_tok=None)
    return True


def _condition_here(sent: Span, ctx: _Ctx) -> None:
    """'Type 1 diabetic here', 'Autistic here, and proud' -> has-condition: chat's way of introducing
    oneself by a condition, as `work._job_here` by a job (the words from the line's opening or a comma;
    no verb after "here": "diabetic here say ..." is a subject)."""
    if ctx.message.role != "user":
        return
    doc = sent.doc
    for word in (w for w in _before_here(sent) if w.lower_ in CONDITION_ADJECTIVES):
        start = word.i
        while start > sent.start and (doc[start - 1].like_num or doc[start - 1].lower_ == "type"):
            start -= 1
        if start == sent.start or doc[start - 1].text in {",", "and", "-", "("}:
            _emit(ctx, ctx.me, "has-condition", doc[start : word.i + 1].text.lower(), 0.5, obj_tok=None)


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


# Chat's shorthand for a diagnosis: "adhd dx confirmed", "got dx'd with adhd", "ADHD diagnosis confirmed"
_DX_NEWS = re.compile(
    r"\b([a-z][\w'’-]{0,30})\s+(?:dx|diagnosis)\s+(?:(?:is|was|has been|got)\s+)?"  # a word, bounded: linear
    r"(?:confirmed|official|came (?:back|through))\b|\bdx['’]?d\s+with\s+([a-z][\w'’-]{0,30})",
    re.I,
)
_FOR_SOMEONE = re.compile(r"^\s*(?:for|of)\s+(?!me\b)\w", re.I)  # "... came through for Leo": his


# What a test or scan is called when its result comes back ("sleep study came back moderate sleep
# apnoea", "the biopsy came back as coeliac disease", "bloods showed anaemia")
_TESTS = frozenset(
    {"test", "tests", "study", "bloods", "results", "result", "biopsy", "scan", "mri", "ct", "x-ray",
     "xray", "ultrasound", "swab", "screening", "ecg", "echo", "colonoscopy", "endoscopy", "bloodwork"}
)  # fmt: skip
_FOUND_VERBS = frozenset({"show", "confirm", "reveal", "find", "diagnose"})


def _test_found(sent: Span, ctx: _Ctx) -> None:
    """'sleep study came back moderate sleep apnoea', 'the biopsy came back as coeliac disease', 'my
    bloods showed anaemia' -> the speaker has-condition: a condition the speaker's own test found
    (not a test of someone else's: "his MRI showed a tear", "Leo's bloods")."""
    for verb in (t for t in sent if t.pos_ in {"VERB", "AUX"} and not _is_irrealis(t)):
        back = verb.lemma_ == "come" and any(
            c.lower_ == "back" and c.dep_ in {"prt", "advmod"} for c in verb.children
        )
        if not (back or verb.lemma_ in _FOUND_VERBS):
            continue
        tests = [c for c in verb.children if c.dep_ in {"nsubj", "nsubjpass"} and c.lower_ in _TESTS]
        owners = [d for t in tests for d in t.children if d.dep_ in {"det", "poss"}]
        if not tests or any(d.lower_ not in FIRST_PERSON_POSS | {"the", "a", "an"} for d in owners):
            continue
        said = verb.doc[: verb.i]  # who came up before the finding
        if any(_another_patient(t) or t.lower_ in {"he", "she"} or _first_name(t) for t in said):
            continue  # "Carol had chest pains ... the stress test showed angina": hers
        found = [c for c in verb.children if c.dep_ in {"dobj", "attr", "oprd", "acomp"}]
        found += [p for prep in verb.children if prep.lower_ in {"as", "with"} for p in _pobjs(prep)]
        for noun in (n for n in found if n.pos_ in {"NOUN", "PROPN"} and _condition_word(n)):
            illness = _typed(noun) or _object_phrase(noun, ctx, prefer_name=False)
            illness = illness.removeprefix("showing ") if illness else None  # "came back showing anaemia"
            if illness and not any(c.dep_ == "neg" for c in verb.children):
                _emit(ctx, ctx.me, "has-condition", illness, 0.5, obj_tok=None)


def _first_name(tok: Token) -> bool:
    """A capitalised first name, whatever the tagger made of it ("Carol" tagged an organisation)."""
    return tok.pos_ == "PROPN" and tok.lower_ in first_names()


def _dx_news(sent: Span, ctx: _Ctx) -> None:
    """ "adhd dx confirmed", "got dx'd with adhd": the speaker has-condition, a condition the lexicon
    knows (not "the dx came back clear"), unless negated before it or said of someone ("for Leo",
    "Leo's autism diagnosis came through")."""
    for m in _DX_NEWS.finditer(sent.text):
        word = (m.group(1) or m.group(2)).lower()
        before = sent.text[: m.start()]
        whose = _anothers_diagnosis(before, sent.text[m.end() :])  # "for Leo", "Leo's autism dx"
        if word in CONDITIONS and not whose and not _NEGATED_BEFORE.search(before):
            _emit(ctx, ctx.me, "has-condition", word, 0.5, obj_tok=None)
    _diagnosis_named(sent, ctx)


# A diagnosis named by its condition ("MS diagnosis last year") or after the speaker's own ("got my
# diagnosis today, fibromyalgia"); not one awaited or guessed, nor someone else's ("Leo's autism
# diagnosis", "her MS diagnosis")
_DX_OF = re.compile(r"\b([a-z][\w'’-]{0,30})\s+(?:dx|diagnosis)\b", re.I)
_DX_THEN = re.compile(r"\bmy\s+(?:dx|diagnosis)\b[^.!?,:]{0,30}[,:]\s*([a-z][\w'’-]{0,30})", re.I)
_NOT_YET = re.compile(
    r"\b(?:wait\w*|if|might|maybe|possible|possibly|suspected|assessment|referr\w*|hop\w*|pending|no)\b", re.I
)
_FOR_ANOTHER = re.compile(r"\b(?:for|of)\s+(?:my\s+\w+|his|her|their|[A-Z]\w+)")
_ANOTHERS = re.compile(
    r"(?:\b(?:his|her|their|your)|\b(?!(?:it|that|what|there|here|he|she|who)['’]s)\w+['’]s)\s+(?:\w+\s+)?$",
    re.I,
)


def _diagnosis_named(sent: Span, ctx: _Ctx) -> None:
    """'MS diagnosis last year, still adjusting', 'got my diagnosis today, fibromyalgia' -> the speaker
    has-condition (a condition the lexicon knows)."""
    text = sent.text
    if ctx.message.role != "user" or _NOT_YET.search(text):
        return
    for m in (*_DX_OF.finditer(text), *_DX_THEN.finditer(text)):
        word, before = m.group(1).lower(), text[: m.start(1)]
        whose = _anothers_diagnosis(before, text[m.end() :])
        if word in CONDITIONS and not whose and not _NEGATED_BEFORE.search(before):
            _emit(ctx, ctx.me, "has-condition", word, 0.5, obj_tok=None)


def _anothers_diagnosis(before: str, after: str) -> bool:
    """The words around a diagnosis say whose it is, not the speaker's: "Leo's autism diagnosis", "her
    MS dx", "... came through for Leo"."""
    return bool(_ANOTHERS.search(before) or _FOR_SOMEONE.match(after) or _FOR_ANOTHER.search(after))


# "I've got a bad back", "my bad knee", "I get back pain most mornings": a body part said as a
# trouble one lives with (the model reads "back" as an adverb, "back pain" as a modifier of the time)
_PARTS = r"back|knee|knees|hip|hips|shoulder|neck|ankle|wrist|foot|feet|leg|elbow|joints?"
_HAVE = r"(?:I(?:['’]ve| have)? got|I have|I['’]ve)"
_BODY_TROUBLE = re.compile(
    rf"\b(?:{_HAVE} (?:a |two )?|my )(?:(?:really|very|dodgy) )?bad ({_PARTS})\b|"
    rf"\b(?:{_HAVE}|I get|I suffer from) (?:(?:bad|chronic|constant|terrible) )?({_PARTS}) pain\b",
    re.I,
)


# "Broke my wrist last week", "I've sprained my ankle": an injury of the speaker's (said by "I" or with
# the "I" dropped), named by its participle ("broken wrist"); not one of long ago ("as a kid")
_INJURED = {"broke": "broken", "tore": "torn"}
_INJURY = re.compile(
    r"(?:^\W*|\bI(?:['’]ve| have)?\s+)(?:just\s+|only\s+|finally\s+)?"
    r"(broke|broken|fractured|sprained|tore|torn|twisted|dislocated)\s+my\s+(?:left\s+|right\s+)?"
    rf"({_PARTS}|arm|hand|finger|thumb|toe|collarbone|ribs?|nose|acl|achilles|hamstring)\b",
    re.I,
)
_LONG_AGO = re.compile(r"\b(?:as a (?:kid|child|teenager)|years ago|when I was)\b", re.I)
_NEGATED_BEFORE = re.compile(r"(?:n['’]t|\bnot|\bnever|\bno longer)\s*$", re.I)


def _body_trouble(sent: Span, ctx: _Ctx) -> None:
    """ "I've got a bad back", "physio for my bad knee", "I have back pain most mornings" ->
    has-condition 'bad back' / 'back pain'; "Broke my wrist last week" -> 'broken wrist' (not negated:
    "I haven't got a bad back")."""
    text = sent.text
    for match in _BODY_TROUBLE.finditer(text):
        if _NEGATED_BEFORE.search(text[: match.start()]):
            continue
        part = (match.group(1) or match.group(2)).lower()
        trouble = f"bad {part}" if match.group(1) else f"{part} pain"
        _emit(ctx, ctx.me, "has-condition", trouble, 0.5, obj_tok=None)
    if ctx.message.role != "user" or _LONG_AGO.search(text):
        return
    for match in _INJURY.finditer(text):
        how = match.group(1).lower()
        _emit(ctx, ctx.me, "has-condition", f"{_INJURED.get(how, how)} {match.group(2)}", 0.5, obj_tok=None)


def _clinician_found(verb: Token, ctx: _Ctx) -> None:
    """'the doctor thinks it's just migraines', 'GP reckons sciatica': the speaker's, when the message
    names no one else ("took Leo to the GP, she said it's tonsillitis" is Leo's)."""
    clinician = {t.i for s in verb.children if s.dep_ == "nsubj" for t in s.subtree}  # "a Dr Okonkwo"
    said = verb.doc[: verb.sent.end]  # who came up so far ("He has me on Eliquis" after it is no patient)
    if any(_another_patient(t) and t.i not in clinician for t in said):
        return
    for named in (c for c in verb.children if c.dep_ in {"dobj", "npadvmod"} and _names_condition(c)):
        # "GP reckons sciatica", "sciatica, the physio reckons": the finding said bare
        illness = _object_phrase(named, ctx, prefer_name=False)
        if illness:
            _emit(ctx, ctx.me, "has-condition", illness.lower(), 0.5, obj_tok=None)
    for found in (c for c in verb.children if c.dep_ == "ccomp" and c.lemma_ == "be"):
        it = any(c.dep_ == "nsubj" and c.lower_ in {"it", "it's"} for c in found.children)
        if not it or _is_irrealis(found):
            continue
        for attr in (c for c in found.children if c.dep_ == "attr" and _names_condition(c)):
            illness = _object_phrase(attr, ctx, prefer_name=False)
            if illness:
                _emit(ctx, ctx.me, "has-condition", illness, 0.5, obj_tok=None)


def _another_patient(tok: Token) -> bool:
    """Someone the message may be about besides the speaker: kin, a person's name, or 'him'/'her' as
    an object ("took him to the GP"). A 'he'/'she' subject is most often the clinician ("He has me
    on a blood thinner")."""
    objective = tok.lower_ in {"him", "her"} and tok.dep_ in {"dobj", "pobj", "dative"}
    return _is_kin(tok) or tok.ent_type_ == "PERSON" or objective


def _possessed_condition(tok: Token, ctx: _Ctx) -> None:
    """'my asthma', 'because of my asthma prescription': the speaker has the condition."""
    owner = tok.head if tok.dep_ == "compound" else tok
    if any(c.dep_ == "poss" and c.lower_ in FIRST_PERSON_POSS for c in owner.children):
        _emit(ctx, ctx.me, "has-condition", tok.text.lower(), 0.55, obj_tok=None)
    elif owner is tok and (person := _named_owner(tok, ctx)):
        _emit(ctx, person, "has-condition", tok.text.lower(), 0.5, obj_tok=None)
    _typed_condition(tok, ctx)


def _named_owner(tok: Token, ctx: _Ctx) -> str | None:
    """'my son Rory's asthma is getting worse', "Priya's eczema": the person named before "'s"
    (a person's name: not "Addenbrooke's asthma clinic", where the condition names a clinic)."""
    poss = next((c for c in tok.children if c.dep_ == "poss" and c.pos_ == "PROPN"), None)
    if poss is None or not any(c.tag_ == "POS" for c in poss.children):
        return None
    return _name_of(poss, ctx, person=True) if poss.ent_type_ in {"PERSON", ""} else None


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
