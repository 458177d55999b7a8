"""Job news as people tell it: an offer and its terms (accepted, declined, countered), being hired,
laid off or made redundant.
"""

from __future__ import annotations

import re

from spacy.tokens import Doc, Span, Token

from knowledge_engine.extract import job_news
from knowledge_engine.extract.dependency.context import _Ctx, _emit
from knowledge_engine.extract.dependency.grammar import _has_subject, _is_irrealis, _is_past, _pobjs
from knowledge_engine.extract.dependency.names import _employer_named, _name_of, _resolve_subject, _subjects
from knowledge_engine.extract.dependency.nouns import _big_enough, _is_title_word, _money_value, _preps
from knowledge_engine.extract.dependency.work import (
    _a_firm_not_a_person,
    _drop_new,
    _orgs_of,
    _role_as,
    _workplace_pred,
)
from knowledge_engine.extract.lexicon import (
    EVALUATIVE,
    HIRE_VERBS,
    HOME_NOUNS,
    JOB_NOUNS,
    MONEY_SHORT,
    OFFER_GET_VERBS,
)
from knowledge_engine.extract.truecase import names as first_names
from knowledge_engine.model.predicates import (
    ACCEPTED_OFFER,
    DECLINED_OFFER,
    INTERVIEW_PREDICATE,
    OFFER_PREDICATE,
    OFFERED_PAY,
    OFFERED_ROLE,
    STARTED_JOB,
)

_MAX_FRAGMENT = 8  # words of a term listed as a sentence of its own


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


_ARROWS = frozenset({"→", "->", "=>", "⇒"})


_PAY_NEWS = frozenset({"raise", "rise", "payrise", "pay", "increment", "hike", "bump"})


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
        # "hired by the City of Utrecht": an employer; "employed by Capita" too, tagged a person but no
        # one's first name
        person = ent is not None and ent.label_ == "PERSON" and not _a_firm_not_a_person(pobj, obj or "", ctx)
        if obj and not person:
            pred = _workplace_pred(obj, False)
            _emit(ctx, subject, pred, obj, 0.6, obj_tok=None, obj_type="organization")
            found = True
    return _role_as(verb, verb, subject, ctx) or found


def _hired_me(sent: Span, ctx: _Ctx) -> None:
    """'Ocado hired me!!', 'Aldi took me on as a picker' -> works-at (and has-role): a firm (no person's
    first name) that hired the speaker, said plainly (not "if Ocado hires me", "Ocado didn't hire me")."""
    for verb in (t for t in sent if t.lemma_ in HIRE_VERBS and t.pos_ == "VERB"):
        if verb.lemma_ == "take" and not any(c.lower_ == "on" for c in verb.children):
            continue
        me = any(c.dep_ == "dobj" and c.lower_ == "me" for c in verb.children)
        if not me or _is_irrealis(verb) or any(c.dep_ == "neg" for c in verb.children):
            continue
        for firm in (c for c in verb.children if c.dep_ == "nsubj" and c.pos_ == "PROPN"):
            name = _name_of(firm, ctx) or ""
            if _a_firm_not_a_person(firm, name, ctx):
                _emit(ctx, ctx.me, "works-at", name, 0.55, obj_tok=None, obj_type="organization")
                _role_as(verb, verb, ctx.me, ctx)  # "Ocado hired me as a picker"


def _offers(sent: Span, ctx: _Ctx) -> None:
    """A job offer received: 'Helix Robotics offered me a job', "Paul's been offered a job with the
    Council", 'I got an offer from Monzo', 'offer from feedzai, senior engineer' -> has-offer-from,
    which a later acceptance naming no employer resolves to (store/offers.py)."""
    for tok in (t for t in sent if t.lemma_ == "offer"):
        verb = tok if tok.pos_ == "VERB" or tok.dep_ == "ROOT" else tok.head
        if _is_irrealis(verb) or any(c.dep_ == "neg" for c in verb.children):
            continue  # "I didn't get the offer", "if I get an offer from X"
        if homes := _on_a_home(tok):
            _home_bought(tok, homes, ctx)  # "an offer accepted on a house in Carleton Place": no job
            continue
        # "offer from feedzai, ...": a lower-case line's first word the tagger makes a verb
        line = tok.dep_ == "ROOT" and _opens_sentence(tok) and not _has_subject(tok)
        line = line and bool(_preps(tok, tok, {"from"}))
        if tok.pos_ == "VERB" and not line:
            _offer_verb(tok, ctx)
        elif line or (tok.pos_ == "NOUN" and (tok.dep_ == "ROOT" or tok.head.lemma_ in OFFER_GET_VERBS)):
            owners = _subjects(tok.head, ctx) if tok.dep_ != "ROOT" else [ctx.me]
            if not owners and ctx.message.role == "user" and _opens_sentence(tok.head):
                owners = [ctx.me]  # "Got an offer from Feedzai: ...": chat dropped the "I"
            orgs = _orgs_of(tok, {"from", "at"}, ctx)  # "got the offer at Victoria General"
            for org in orgs:
                for owner in owners:
                    _emit(ctx, owner, OFFER_PREDICATE, org, 0.55, obj_tok=None, obj_type="organization")
            if orgs and owners == [ctx.me]:
                _offer_terms(tok, ctx)
            if owners == [ctx.me] and (role := _role_offered_for(tok)):
                _emit(ctx, ctx.me, OFFERED_ROLE, role, 0.5, obj_tok=None)
        elif tok.pos_ == "NOUN" and (taker := _taking(tok)) is not None:
            _accepted_for(tok, taker, ctx)
    _job_news(sent, ctx)
    _hired_me(sent, ctx)


def _role_offered_for(offer: Token) -> str | None:
    """'an offer from Deloitte for the senior analyst role', 'the offer from Monzo for product
    designer' -> the title the offer is "for" (not "an offer for a house", "for 45k")."""
    for pobj in (p for prep in offer.children if prep.lower_ == "for" for p in _pobjs(prep)):
        if pobj.lemma_.lower() in {"position", "role", "job", "post"}:
            return _offered_title(pobj)
        words = [t for t in pobj.subtree if t.dep_ != "det"]
        named = all(t.pos_ in {"NOUN", "PROPN", "ADJ"} for t in words) and len(words) <= 5
        if named and words[-1].i == pobj.i and _is_title_word(pobj):
            return _drop_new(pobj.doc[words[0].i : pobj.i + 1].text)
    return None


def _taking(offer: Token) -> Token | None:
    """The verb by which an offer is taken: "accepted the offer", "said yes to the Monzo offer"."""
    if offer.dep_ == "dobj" and offer.head.lemma_ in {"accept", "take"}:
        return offer.head
    verb = offer.head.head
    to_yes = offer.dep_ == "pobj" and offer.head.lower_ == "to" and verb.lemma_ == "say"
    return verb if to_yes and any(c.lower_ == "yes" for c in verb.children) else None


def _accepted_for(offer: Token, verb: Token, ctx: _Ctx) -> None:
    """'I accepted the offer from Deloitte for the senior analyst role', 'I said yes to the Monzo offer,
    product designer, 52k' -> has-role (and has-salary): the terms of an offer the speaker took (its
    employer is read with the clause)."""
    mine = _subjects(verb, ctx) == [ctx.me] or (not _has_subject(verb) and _opens_sentence(verb))
    if (
        ctx.message.role != "user"
        or not mine
        or _is_irrealis(verb)
        or any(c.dep_ == "neg" for c in verb.children)
    ):
        return
    if role := _role_offered_for(offer):
        _emit(ctx, ctx.me, "has-role", role, 0.55, obj_tok=None)
    _offer_terms(offer, ctx, taken=True)


def _on_a_home(offer: Token) -> list[Token]:
    """The homes an offer is made "on" or "for" ("an offer on a flat", "our offer for the house")."""
    heads = [offer, *(c for c in offer.children if c.dep_ == "acl")]  # "an offer accepted on a house"
    preps = [p for h in heads for p in h.children if p.dep_ == "prep" and p.lower_ in {"on", "for"}]
    return [o for p in preps for o in _pobjs(p) if o.lemma_.lower() in HOME_NOUNS]


def _home_bought(offer: Token, homes: list[Token], ctx: _Ctx) -> None:
    """'We've had an offer accepted on a house in Carleton Place', 'our offer on the flat in Leith was
    accepted' -> the speaker moves-to the place: an offer only made says nothing yet."""
    accepted = any(t.lemma_ == "accept" for t in (offer.head, *offer.children))
    if not accepted or ctx.message.role != "user" or _is_irrealis(offer.head):
        return
    for home in homes:
        for pobj in (p for prep in home.children if prep.lower_ == "in" for p in _pobjs(prep)):
            name = _name_of(pobj, ctx) if pobj.pos_ == "PROPN" else None
            if name:
                _emit(ctx, ctx.me, "moves-to", name, 0.55, obj_tok=pobj, obj_type="location")


def _job_news(sent: Span, ctx: _Ctx) -> None:
    """The speaker's offers named before the word ("the Stripe offer came through"), offers turned down,
    and a new job started without its employer's name (extract/job_news.py)."""
    for kind, name in job_news.named_offers(sent):
        predicate = DECLINED_OFFER if kind == "declined" else OFFER_PREDICATE
        _emit(ctx, ctx.me, predicate, name, 0.55, obj_tok=None, obj_type="organization")
    if job_news.job_started(sent) or job_news.job_won(sent):
        _emit(ctx, ctx.me, ACCEPTED_OFFER, STARTED_JOB, 0.5, obj_tok=None)
    for firm in job_news.interviews(sent):
        _emit(ctx, ctx.me, INTERVIEW_PREDICATE, firm, 0.5, obj_tok=None, obj_type="organization")
    for firm in job_news.joined_firms(sent):
        _emit(ctx, ctx.me, "works-at", firm, 0.55, obj_tok=None, obj_type="organization")


def _opens_sentence(tok: Token) -> bool:
    return all(t.is_punct for t in tok.doc[tok.sent.start : tok.i])


def _offer_terms(offer: Token, ctx: _Ctx, taken: bool = False) -> None:
    """The terms listed after an offer's employer: 'offer from feedzai, senior software engineer, 62k
    euro per year' -> has-offered-role and has-salary-offer (made the role and salary when the offer
    is accepted; `taken`: the speaker took it, so has-role and has-salary now). Fragments parted by
    commas or a colon, read in order until one is neither."""
    doc, sent = offer.doc, offer.sent
    # "the offer at Ocado: data engineer": the parse may hang the employer on the verb
    heads = [offer, offer.head] if offer.dep_ == "dobj" else [offer]
    preps = [c for h in heads for c in h.children if c.dep_ == "prep" and c.i > offer.i]
    pobjs = [p.i for prep in preps for p in _pobjs(prep)]
    start = max(pobjs, default=offer.i)  # the employer's head word ends its name
    fragment: list[Token] = []
    for tok in [*doc[start + 1 : sent.end], *_fragments_after(sent), None]:
        if tok is not None and tok.text not in {",", ":", ";", "-", "–", "(", ")", "|", "."}:
            fragment.append(tok)
            continue
        if fragment and not _offer_term(fragment, ctx, taken):
            return
        fragment = []


def _fragments_after(sent: Span) -> list[Token]:
    """The verbless short sentences right after an offer's: "Got the offer at VGH. Clinical nurse
    educator. $49.80 an hour." lists its terms as sentences of their own."""
    out: list[Token] = []
    nxt = sent.end
    while nxt < len(sent.doc):
        following = sent.doc[nxt].sent
        if len(following) > _MAX_FRAGMENT or any(t.pos_ in {"VERB", "AUX"} for t in following):
            break
        out += list(following)
        nxt = following.end
    return out


def _offer_term(words: list[Token], ctx: _Ctx, taken: bool) -> bool:
    """One listed term of an offer: its pay or its title; False when it is neither."""
    pay, role = ("has-salary", "has-role") if taken else (OFFERED_PAY, OFFERED_ROLE)
    for tok in words:
        amount = ctx.ents.get(tok.i) is not None or MONEY_SHORT.match(tok.text)
        money = _money_value(tok, ctx) if amount else None
        hourly = any(t.lemma_ in {"hour", "hr", "day", "week"} for t in words)  # "$49.80 an hour"
        if money and (_big_enough(money) or hourly):
            _emit(ctx, ctx.me, pay, money, 0.5, obj_tok=None)
            return True
    words = [t for t in words if t.dep_ != "det"]
    titled = 0 < len(words) <= 6 and _is_title_word(words[-1])
    if titled and all(t.pos_ in {"NOUN", "PROPN", "ADJ", "NUM"} or t.text == "-" for t in words):
        _emit(ctx, ctx.me, role, _drop_new(" ".join(t.text for t in words)), 0.5, obj_tok=None)
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
        # "They offered me the senior nurse post at St Mary's": the employer after the job
        orgs = [named] if named else [o for j in jobs for o in _orgs_of(j, {"at", "with"}, ctx)]
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
    elif lemma == "sign":
        return _signed_with(verb, subject, ctx)
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
        taken = obj.lower_ == "it" and (lemma != "take" or _offer_taken(verb))
        if obj.lemma_.lower() in JOB_NOUNS or obj.lower_ == "one" or taken:
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


def _signed_with(verb: Token, subject: str, ctx: _Ctx) -> bool:
    """'signed the contract with Fernhill yesterday', 'Signed the Corvana offer', 'corvana offer signed'
    -> works-at the firm: a contract or offer signed with (or of) an organisation, in a message of no
    other contract (a phone, a lease, a gym, insurance)."""
    papers = [c for c in verb.children if c.dep_ in _SIGNED_DEPS and c.lemma_.lower() in _PAPERS]
    if not papers or _OTHER_CONTRACTS.search(verb.doc.text):
        return False
    found = False
    for name_tok in _firm_of_paper(papers[0]) if papers[0].lemma_.lower() == "offer" else []:
        ent = ctx.ents.get(name_tok.i)
        name = _name_of(name_tok, ctx)
        if name and (ent is None or ent.label_ not in _NOT_FIRM_TAGS):
            _emit(ctx, subject, "works-at", name, 0.55, obj_tok=name_tok, obj_type="organization")
            found = True
    for pobj in (p for prep in _preps(verb, verb, {"with", "at"}) for p in _pobjs(prep)):
        name = _name_of(pobj, ctx)
        if name and _firm_named(pobj, ctx):
            _emit(ctx, subject, "works-at", name, 0.55, obj_tok=pobj, obj_type="organization")
            found = True
    return found


# "signed the offer", "offer signed" (the parse may make the offer a clause: "signed the Corvana offer")
_SIGNED_DEPS = frozenset({"dobj", "nsubj", "nsubjpass", "ccomp"})
_PAPERS = frozenset({"contract", "offer"})
_NOT_FIRM_TAGS = frozenset({"PERSON", "DATE", "TIME", "MONEY", "CARDINAL", "ORDINAL", "PERCENT"})


def _firm_of_paper(paper: Token) -> list[Token]:
    """The name an offer or contract is of: "the Corvana offer" (a compound, or the name the parse made
    a second object just before it)."""
    named = [c for c in paper.children if c.dep_ == "compound" and c.pos_ == "PROPN"]
    before = paper.doc[paper.i - 1] if paper.i > 0 else None
    if before is not None and before.pos_ == "PROPN" and before.dep_ == paper.dep_:
        named += [before] if before.head.i == paper.head.i else []
    return named


def _offer_signed(sent: Span, ctx: _Ctx) -> None:
    """'corvana offer signed.': the user's offer signed, said with no one signing (no clause reads it)."""
    for verb in (t for t in sent if t.lemma_ == "sign" and t.tag_ in {"VBN", "VBD"}):
        subjects = [c for c in verb.children if c.dep_ in {"nsubj", "nsubjpass"}]
        if subjects and subjects[0].lemma_.lower() == "offer" and not _is_irrealis(verb):
            _signed_with(verb, ctx.me, ctx)


_OTHER_CONTRACTS = re.compile(
    r"\b(?:phone|mobile|broadband|sim|gym|energy|electricity|gas|lease|tenancy|landlord|letting|flat|"
    r"house|car|insurance|plan|tariff|band|label|publisher|agent|builder)\b",
    re.I,
)


def _offer_taken(verb: Token) -> bool:
    """'I've been offered a job at X and I'm taking it': "take it" bare, in a message that speaks of
    an offer, takes the offer ("take it easy", "take it back", "take it up with HR" say nothing)."""
    if any(c.dep_ in {"prt", "acomp", "oprd", "xcomp", "ccomp", "prep", "advmod"} for c in verb.children):
        return False
    return any(t.lemma_.lower() == "offer" for t in verb.doc)


def _about_a_job(doc: Doc) -> bool:
    """A message that speaks of a job's terms (an offer, a salary, a start date, an amount): a bare
    'I said yes' in it answers the job, not a proposal."""
    words = {"offer", "job", "role", "position", "salary", "contract", "start"}
    return any(t.lemma_.lower() in words or t.ent_type_ == "MONEY" for t in doc)


def _laid_off(verb: Token, subject: str, ctx: _Ctx) -> bool:
    """'I was laid off from Northwind', 'Tom got fired from the bank': the job ended (worked-at, an
    ending)."""
    laid_off = verb.lemma_ == "lay" and any(c.dep_ == "prt" and c.lower_ == "off" for c in verb.children)
    redundant = [c for c in verb.children if c.dep_ in {"oprd", "acomp"} and c.lower_ == "redundant"]
    made_redundant = verb.lemma_ == "make" and bool(redundant)  # "I've been made redundant from Arcadia"
    ended = laid_off or made_redundant or verb.lemma_ in {"fire", "sack"}
    # "I've been", "Sam's been" (the "'s" of "has" is tagged a form of "be")
    perfect = any((c.dep_ == "aux" and c.lemma_ == "have") or c.lower_ == "been" for c in verb.children)
    done = _is_past(verb) or perfect
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


def _firm_named(tok: Token, ctx: _Ctx) -> bool:
    """A proper name that is no person's: "Argos made me redundant", not "Tom made me redundant"."""
    ent = ctx.ents.get(tok.i)
    return tok.pos_ == "PROPN" and (ent is None or ent.label_ != "PERSON") and tok.lower_ not in first_names()


def _made_me_redundant(verb: Token, ctx: _Ctx) -> None:
    """'They made me redundant at Wilko', 'Wilko made me redundant' -> worked-at Wilko, an ending:
    whoever 'they' are, the job was mine (the passive 'I was made redundant' is _laid_off's)."""
    if verb.lemma_ != "make" or ctx.message.role != "user" or _is_irrealis(verb) or not _is_past(verb):
        return
    for red in (c for c in verb.children if c.lower_ == "redundant"):
        if not any(c.lower_ == "me" for c in [*verb.children, *red.children]):
            continue
        preps = [prep for h in (verb, red) for prep in _preps(h, h, {"from", "at", "by"})]
        firms = [c for c in verb.children if c.dep_ == "nsubj" and _firm_named(c, ctx)]  # "Argos made me..."
        for pobj in [*firms, *(p for prep in preps for p in _pobjs(prep))]:
            name = _name_of(pobj, ctx, with_of=True)
            if name and _employer_named(pobj, name, ctx):
                _emit(ctx, ctx.me, "worked-at", name, 0.6, obj_tok=None, obj_type="organization", ends=True)
