"""A partner the speaker never calls one: "since we got married", "Priya and I have been together ten
years", "I've been with Tom for twelve years", "proposing to Jess", "date night with Chris", "it's our
anniversary, Femi booked dinner", "my better half Ines"; and a marriage that ended ("separated from dan",
"I divorced Mark").

Why: people seldom say "my husband" of someone they talk about every day; they say "we" and the name.
The rules read a wedding, an engagement, years together, a proposal or a date night said of the speaker
and one other person; "we" pairs the speaker with the one person the sentence names (none or two: no
guess). A hedge ("if we ever get married"), a negation or a question makes nothing.
"""

from __future__ import annotations

from spacy.tokens import Span, Token

from knowledge_engine.extract.dependency.context import _Ctx, _emit
from knowledge_engine.extract.dependency.family import _people_in
from knowledge_engine.extract.dependency.grammar import _is_irrealis, _is_question, _pobjs
from knowledge_engine.extract.dependency.names import _lower_first_name, _name_of
from knowledge_engine.extract.dependency.nouns import _is_date, _is_kin_word, _preps
from knowledge_engine.extract.truecase import names as first_names

_ME = frozenset({"i", "me"})
_PAIRED = frozenset({"married", "engaged", "wed"})
# Time together that makes a couple ("been with Tom for twelve years", not "with Tom for lunch")
_TOGETHER_UNITS = frozenset({"year", "years", "yrs", "month", "months"})


def couples(sent: Span, ctx: _Ctx) -> None:
    """The speaker's partner or spouse by a wedding, an engagement, years together, a proposal or a
    date night (see the module docstring)."""
    if ctx.message.role != "user" or _is_question(sent):
        return
    for tok in sent:
        low = tok.lower_
        if low in _PAIRED and tok.tag_ in {"VBN", "JJ", "VBD"}:
            _wed(tok, sent, ctx)
        elif low == "together" and tok.head.lemma_ == "be":
            _pair(tok.head, sent, ctx, "has-partner")
        elif low == "anniversary" and any(c.lower_ == "our" for c in tok.children):
            _with_us(tok, sent, ctx, "has-partner")
        elif tok.lemma_ == "propose" and tok.pos_ == "VERB":
            _proposing(tok, ctx)
        elif low == "night" and any(c.lower_ == "date" for c in tok.children):
            _named_with(tok, ctx)
        elif tok.lemma_ == "be" and tok.pos_ == "AUX" and tok.dep_ == "ROOT":
            _been_with(tok, ctx)
        elif low == "half" and tok.i > sent.start and tok.nbor(-1).lower_ in {"better", "other"}:
            _half_named(tok, ctx)
        elif tok.lemma_ in {"separate", "divorce"} and tok.tag_ in {"VBN", "VBD", "VBG", "JJ"}:
            _split_from(tok, ctx)


def _wed(word: Token, sent: Span, ctx: _Ctx) -> None:
    """'we got married', 'Ayo and I are getting married', 'we're engaged': married (done) is a spouse,
    to be married or engaged a partner."""
    verb = word if word.dep_ in {"ROOT", "conj", "advcl", "ccomp", "relcl"} else word.head
    if _is_irrealis(verb) or any(c.dep_ == "prep" and c.lower_ == "to" for c in word.children):
        return  # "engaged to Daniel" is read by the clause rules
    ahead = any(c.lower_ in {"getting", "get"} and c.tag_ == "VBG" for c in verb.children)
    pred = "is-married-to" if word.lower_ in {"married", "wed"} and not ahead else "has-partner"
    _pair(verb, sent, ctx, pred)


def _pair(verb: Token, sent: Span, ctx: _Ctx, pred: str) -> None:
    """The one person a "we" (or "X and I") of this verb pairs the speaker with."""
    if _is_irrealis(verb):
        return
    subjects = [c for c in verb.children if c.dep_ in {"nsubj", "nsubjpass"}]
    if subjects and not any(s.lower_ in {"we", "i"} or s.pos_ == "PROPN" for s in subjects):
        return  # "Tom and I went to the wedding, the couple got married in a barn": theirs
    pair = _named_pair(verb, sent, ctx)
    if pair:
        _emit_partner(ctx, pred, pair, 0.55)
    elif any(s.lower_ == "we" for s in subjects):
        _with_us(verb, sent, ctx, pred)


def _with_us(tok: Token, sent: Span, ctx: _Ctx, pred: str) -> None:
    people = {p for p in _people_in(sent, ctx) if p != ctx.me} - _places_named(sent, ctx)
    people |= _untagged_subjects(sent, ctx)
    if len(people) == 1 and not _is_irrealis(tok.head if tok.dep_ != "ROOT" else tok):
        _emit_partner(ctx, pred, people.pop(), 0.5)


def _places_named(sent: Span, ctx: _Ctx) -> set[str]:
    """Names a preposition of place governs ("dinner at the Ivy"): not the other of a couple."""
    preps = {"at", "in", "from", "to", "near"}
    return {
        n
        for t in sent
        if t.dep_ == "pobj" and t.head.lower_ in preps and (n := _name_of(t, ctx, person=True))
    }


def _untagged_subjects(sent: Span, ctx: _Ctx) -> set[str]:
    """A name the model left untagged that does something ("Femi booked dinner"): a person."""
    return {
        n
        for t in sent
        if t.dep_ == "nsubj"
        and t.pos_ == "PROPN"
        and t.i not in ctx.ents
        and (n := _name_of(t, ctx, person=True))
    } - {ctx.me}


def _emit_partner(ctx: _Ctx, pred: str, name: str, conf: float) -> None:
    """The couple once: a rule of the clauses may have read it already ("me and Dave have been married")."""
    if not any(
        f.predicate in {"is-married-to", "has-partner"} and name in (f.subject, f.object) for f in ctx.out
    ):
        _emit(ctx, ctx.me, pred, name, conf, obj_tok=None, obj_type="person")


def _named_pair(verb: Token, sent: Span, ctx: _Ctx) -> str | None:
    """'Marco and I got married', 'me and Dave have been married', 'Dan and me': the name paired with
    the speaker by "and" around the verb (the parse may hang either end of the pair off it)."""
    words = [t for t in sent if not t.is_space]
    for i, tok in enumerate(words[:-2]):
        if words[i + 1].lower_ not in {"and", "&", "n"}:
            continue
        left, right = tok, words[i + 2]
        name_tok = right if left.lower_ in _ME else left if right.lower_ in _ME else None
        if name_tok is not None and _a_person(name_tok, ctx):
            return _name_of(name_tok, ctx, person=True)
    return None


def _a_person(tok: Token, ctx: _Ctx) -> bool:
    ent = ctx.ents.get(tok.i)
    if _is_date(tok, ctx) or (ent is not None and ent.label_ not in {"PERSON", "ORG", "NORP"}):
        return False
    return tok.pos_ == "PROPN" or tok.lower_ in first_names()


def _proposing(verb: Token, ctx: _Ctx) -> None:
    """'proposing to jess', "I'm going to propose to Jess in May": the speaker's partner, whether or not
    it has happened yet (not someone else's proposal, nor a plan proposed to the board)."""
    owner = verb.head if verb.dep_ == "xcomp" else verb
    subj = next((c for c in owner.children if c.dep_ in {"nsubj", "nsubjpass"}), None)
    if (subj is not None and subj.lower_ not in _ME) or (subj is None and verb.tag_ not in {"VBG", "VB"}):
        return  # "Dan proposed to Sarah" (the parse may leave Dan no subject's role)
    if any(c.dep_ == "neg" for c in (*verb.children, *owner.children)):
        return
    for pobj in (p for prep in _preps(verb, verb, {"to"}) for p in _pobjs(prep)):
        if _a_person(pobj, ctx) and (name := _name_of(pobj, ctx, person=True) or _lower_first_name(pobj)):
            _emit_partner(ctx, "has-partner", name, 0.55)


def _named_with(night: Token, ctx: _Ctx) -> None:
    """'Date night with Chris': the one the speaker goes on date nights with."""
    for pobj in (p for prep in night.children if prep.lower_ == "with" for p in _pobjs(prep)):
        if _a_person(pobj, ctx) and (name := _name_of(pobj, ctx, person=True) or _lower_first_name(pobj)):
            _emit_partner(ctx, "has-partner", name, 0.5)


def _half_named(half: Token, ctx: _Ctx) -> None:
    """'my better half Ines', 'the other half, Dev': the name right after (the parse hangs it anywhere)."""
    owner = half.nbor(-2) if half.i >= 2 else None
    if owner is None or owner.lower_ not in {"my", "the"}:
        return
    doc = half.doc
    at = half.i + 1 + (half.i + 1 < len(doc) and doc[half.i + 1].text == ",")
    if at < len(doc) and _a_person(doc[at], ctx) and (name := _name_of(doc[at], ctx, person=True)):
        _emit_partner(ctx, "has-partner", name, 0.55)


def _split_from(verb: Token, ctx: _Ctx) -> None:
    """'separated from dan (husband) since nov', 'I divorced Mark in 2019', 'divorcing Paul': a marriage
    of the speaker's, ended (who Dan is, never whom the speaker is with now)."""
    subj = next((c for c in verb.children if c.dep_ in {"nsubj", "nsubjpass"}), None)
    if (subj is not None and subj.lower_ not in {"i", "we"}) or _is_irrealis(verb):
        return
    objs = [c for c in verb.children if c.dep_ == "dobj"] + [
        p for prep in verb.children if prep.dep_ == "prep" and prep.lower_ == "from" for p in _pobjs(prep)
    ]
    # "from dan (husband)": the parse makes the kin word the object and the name its modifier
    objs += [c for o in objs if _is_kin_word(o) for c in o.children if c.dep_ in {"nmod", "compound"}]
    for obj in objs:
        name = _name_of(obj, ctx, person=True) or _lower_first_name(obj)
        if name and name != ctx.me and _a_person(obj, ctx):
            _emit(ctx, ctx.me, "is-married-to", name, 0.5, obj_tok=None, obj_type="person", ends=True)


def _been_with(be: Token, ctx: _Ctx) -> None:
    """ "I've been with Tom for twelve years", "been with Dan since 2010": a couple (time together, said
    by the speaker, of one person)."""
    subj = next((c for c in be.children if c.dep_ == "nsubj"), None)
    if subj is None or subj.lower_ != "i" or be.lower_ != "been" or _is_irrealis(be):
        return  # "I was with Steve for two years": no longer
    preps = [c for c in be.children if c.dep_ == "prep"]
    lasting = any(
        p.lower_ == "since" or (p.lower_ == "for" and o.lower_ in _TOGETHER_UNITS)
        for p in preps
        for o in _pobjs(p)
    )
    if not lasting:
        return
    for pobj in (o for p in preps if p.lower_ == "with" for o in _pobjs(p)):
        if pobj.lower_ in first_names() and (name := _name_of(pobj, ctx, person=True)):  # not "with Arup"
            _emit_partner(ctx, "has-partner", name, 0.5)
