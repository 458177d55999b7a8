"""Pay: salaries, take-home pay, rises and offers of pay, and what a home costs."""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable

from spacy.tokens import Doc, Span, Token

from knowledge_engine.extract.dates import WEEKDAYS
from knowledge_engine.extract.dependency.context import _Ctx, _emit
from knowledge_engine.extract.dependency.grammar import (
    _has_mark,
    _is_irrealis,
    _is_past,
    _is_question,
    _pobjs,
    _used_to,
)
from knowledge_engine.extract.dependency.homes import _rooms_counted
from knowledge_engine.extract.dependency.names import (
    _by_me,
    _dropped_subject,
    _name_of,
    _no_one_elses,
    _owner,
)
from knowledge_engine.extract.dependency.nouns import (
    _amount,
    _big_enough,
    _is_date,
    _money_value,
    _preps,
    _thousands_of,
)
from knowledge_engine.extract.dependency.offers import _ARROWS, _PAY_NEWS, _counter_offer
from knowledge_engine.extract.dependency.work import _paid_at, _start_role
from knowledge_engine.extract.lexicon import (
    APPROXIMATORS,
    CAR_NOUNS,
    CONDITIONAL_MARKS,
    CURRENCY_WORDS,
    FIRST_PERSON,
    FIRST_PERSON_POSS,
    FRAGMENT_GLUE,
    FRAGMENT_IRREALIS,
    HOME_NOUNS,
    JOB_NOUNS,
    MONEY_SHORT,
    NET_MARKED_AFTER,
    PAY_CUES,
    PAY_MARKED,
    PAY_MARKED_AFTER,
    PAY_WORDS,
    PENSION_NOUNS,
    PURCHASE_WORDS,
    RAISE_NOUNS,
    SALARY_NOUNS,
    SPEAKER_SUBJECTS,
    TAKE_HOME,
    TAKE_HOME_NOUNS,
    VALUE_NOUNS,
)
from knowledge_engine.extract.truecase import names as first_names
from knowledge_engine.model.predicates import (
    OFFERED_PAY,
)


def _start_pay(sent: Span, before: int, ctx: _Ctx) -> None:
    """'Starting at Amazon in April as a shift manager, 34k': an amount listed on its own after a
    new job of the speaker's, in the same sentence or as the next line ("senior QA engineer from
    1 april. R46k!!"), is its pay."""
    words = [t for t in sent if not t.is_space]
    while words and words[-1].is_punct:
        words.pop()
    alone = 0 < len(words) <= 2 and words[0].i == sent.start  # "senior QA engineer from 1 april. R46k!!"
    said = ctx.out if alone else ctx.out[before:]
    new_job = any(f.subject == ctx.me and f.predicate in {"works-at", "has-role"} for f in said)
    if not new_job or any(f.predicate.startswith("has-salary") for f in said):
        return
    cut = max((k for k, t in enumerate(words) if t.text in {",", ";", ":", "-", "–"}), default=None)
    tail = words if alone else words[cut + 1 :] if cut is not None else []
    while tail and (tail[0].lower_ == "on" or tail[0].lower_ in APPROXIMATORS):
        tail = tail[1:]  # "started as a learning designer at Coursefield, on about £44,000"
    if tail and tail[0].is_currency:
        tail = tail[1:]  # "£34,000": the sign is its own token
    if _start_role(tail, before, ctx):
        return
    if len(tail) != 1 or not (MONEY_SHORT.match(tail[0].text) or tail[0].ent_type_ == "MONEY"):
        return
    value = _money_value(tail[0], ctx) or _amount(tail[0])
    if value and _big_enough(value):  # "34k": the small model may tag it a date
        _emit(ctx, ctx.me, "has-salary", value, 0.5, obj_tok=None)


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
        money = bool(MONEY_SHORT.match(tok.text) or _money_value(tok, ctx))  # "R14,200", tagged a person
        if not (tok.like_num or money) or tok.i + 2 >= len(doc):
            continue
        after = [doc[tok.i + 1].lower_, doc[tok.i + 2].lower_]
        if after[0] in CURRENCY_WORDS:
            after = [doc[tok.i + 2].lower_, doc[tok.i + 3].lower_ if tok.i + 3 < len(doc) else ""]
        pm = after[0] == "pm" and money  # not "at 3 pm"
        glued = tok.lower_.endswith(("/month", "/mo", "pcm", "p/m"))  # "£950pcm"
        monthly = after in (["a", "month"], ["per", "month"], ["/", "month"], ["/", "mo"]) or glued
        monthly = monthly or after[0] in {"pcm", "/month", "monthly"}
        # Australian and New Zealand rents are weekly: "$560 a week", "450pw"
        weekly = tuple(after) in _WEEKLY or after[0] in {"pw", "weekly"}
        monthly = monthly or weekly or tok.lower_.endswith(("/week", "/wk", "pw"))
        if not (monthly or pm) or any(c.lower_ in _MORE for c in tok.children):
            continue
        if _someone_elses_home(sent, tok):
            return
        # "we pay 1,200 a month in rent": paying is no word of one's pay (the noun "pay" is)
        words = {
            t.lemma_.lower()
            for t in sent
            if not (t.lemma_ == "pay" and t.pos_ == "VERB") and not _home_cost(t)
        }
        # "pcm" (per calendar month) is rent's own unit, unless the line says what else it pays for
        pcm = "pcm" in {after[0], tok.lower_[-3:]} and not any(t.lower_ == "for" for t in sent)
        home = words & _RENTED or _home_before(sent) or pcm
        if not home or words & (PAY_CUES | PURCHASE_WORDS | FRAGMENT_IRREALIS | _SPENT) or _is_question(sent):
            return
        value = _money_value(tok, ctx) or _amount(tok)
        if value and _big_enough(value):
            _emit(ctx, ctx.me, "has-rent", value, 0.5, obj_tok=None)
        return


_WEEKLY = frozenset({("a", "week"), ("per", "week"), ("/", "week"), ("/", "wk")})
_RENTED = HOME_NOUNS | {"bedroom", "bed", "rent", "bhk", "landlord", "lease", "unit"}  # "unit": a flat (AU)
# What else a household pays by the week or month ("we spend $200 a week on groceries at the flat")
_SPENT = frozenset({"spend", "grocery", "groceries", "food", "petrol", "fuel", "childcare", "gym"})


def _home_cost(tok: Token) -> bool:
    """ "The flat costs £1,100 a month": a home's cost a month is its rent (the small model reads "flat"
    an adjective and "costs" a noun, so the verb rule `_home_priced` never sees it); not "My sister's
    flat costs 900 a month", "their flat costs ..."."""
    if tok.lemma_ != "cost" or tok.i == 0 or tok.doc[tok.i - 1].lemma_.lower() not in HOME_NOUNS:
        return False
    before = tok.doc[tok.sent.start : tok.i - 1]
    return not any(t.tag_ == "POS" or (t.tag_ == "PRP$" and t.lower_ not in {"my", "our"}) for t in before)


def _home_before(sent: Span) -> bool:
    """The line before spoke of a home ("went to see the apartment ... Two bedrooms, a balcony, they
    take small pets. It's €1,650 a month."): a home word not under an "if" or a "would", in a line with
    no pay, price or purchase."""
    if sent.start == 0:
        return False
    prev = sent.doc[sent.start - 1].sent
    if any(
        t.lemma_.lower() in PURCHASE_WORDS or (t.pos_ == "NOUN" and t.lemma_.lower() in PAY_CUES)
        for t in prev
    ):
        return False
    return any(t.lemma_.lower() in _RENTED and not _hypothetical(t) for t in prev)


def _hypothetical(tok: Token) -> bool:
    """A word in a clause of "if", "would", "maybe"...: it or a head above it carries one."""
    heads = [tok, *tok.ancestors]
    return any(
        c.lower_ in FRAGMENT_IRREALIS
        for h in heads
        for c in h.children
        if c.dep_ in {"aux", "mark", "advmod"}
    )


def _amount_it(sent: Span, ctx: _Ctx) -> None:
    """'My salary was 50k but it's 55k now', "the ESB pension was €1,950 ... and it's €2,040 a month
    now": "it" is the pay, pension or rent the message spoke of last; the amount is it now."""
    for verb in (t for t in sent if t.lemma_ == "be" and any(_it(c) for c in t.children)):
        attr = next((c for c in verb.children if c.dep_ == "attr"), None)
        if attr is None or _is_past(verb) or _is_irrealis(verb) or _is_question(sent):
            continue
        value = _money_value(attr, ctx) or (_amount(attr) if MONEY_SHORT.match(attr.text) else None)
        noun = _cost_before(verb)
        if value and _big_enough(value) and noun is not None:
            pred = "has-rent" if noun.lemma_.lower() in {"rent", "mortgage"} else "has-salary"
            _emit(ctx, ctx.me, pred, value, 0.5, obj_tok=None)


def _it(tok: Token) -> bool:
    return tok.dep_ == "nsubj" and tok.lower_ == "it"


def _cost_before(verb: Token) -> Token | None:
    """The speaker's pay, pension or rent named last before `verb` in the message; None when a car,
    a home or a purchase comes after it (their price is no pay), it is someone else's or asked about."""
    doc = verb.doc
    for tok in reversed(doc[: verb.i]):
        if _priced_thing(tok):
            return None
        if _cost_noun(tok):
            asked = _is_question(tok.sent)  # "What's the state pension going up to?": anyone's
            return tok if _no_one_elses(tok) and not asked else None
        if tok.pos_ in {"NOUN", "PROPN"} and tok.dep_ in {"nsubj", "nsubjpass"}:
            # "Rent increase came through so it's now £1,155", "pay rise came through, it's 42k"
            risen = next((c for c in tok.children if c.dep_ == "compound" and _cost_noun(c)), None)
            if risen is not None and tok.lemma_.lower() in _RISES and not _is_question(tok.sent):
                return risen if _no_one_elses(tok) else None
            return None  # "Rent is £1,200 and council tax is awful, it's £180 a month": the tax
    return None


def _priced_thing(tok: Token) -> bool:
    """A car, a home, a purchase or a product: its price said after it is no pay or rent of one's own."""
    lemma = tok.lemma_.lower()
    return lemma in CAR_NOUNS or lemma in HOME_NOUNS or lemma in PURCHASE_WORDS or tok.ent_type_ == "PRODUCT"


_RISES = frozenset({"increase", "rise", "raise", "hike", "bump", "cut", "review"})


def _cost_noun(tok: Token) -> bool:
    return tok.pos_ == "NOUN" and tok.lemma_.lower() in {*SALARY_NOUNS, *PENSION_NOUNS, "rent", "mortgage"}


def _someone_elses_home(sent: Span, amount: Token) -> bool:
    """ "Tom's rent: 900 a month", 'their flat is 1,100 a month', "My sister's flat is £1,100 a month"
    (the parse makes "flat" a modifier of "sister"); not "found a place thru Zanele's sister"."""
    homes = HOME_NOUNS | {"rent"}
    owned = [t for t in sent if t.lemma_.lower() in homes or t.i == amount.i]
    if any(c.dep_ == "poss" and c.lower_ not in {"my", "our"} for t in owned for c in t.children):
        return True
    owners = (t for t in sent if any(c.dep_ == "case" and c.lower_ in {"'s", "’s"} for c in t.children))
    return any(
        t.dep_ in {"nsubj", "nsubjpass"} or any(c.lemma_.lower() in homes for c in t.children) for t in owners
    )


# "take home is 2,900 a month", "my take-home's about £2,100", "take home pay: 3.1k": the pay after tax
_TAKE_HOME_SAID = re.compile(
    r"(?:^|\b(?:my|our)\s+)take[- ]?home(?:\s+pay)?(?:['’]s|\s+is|\s+was|\s+now|:)?\s*"
    r"(?:now\s+|about\s+|around\s+|roughly\s+|like\s+|~\s*)?([£$€R]?\s?\d[\d,.]*\s?[kK]?)",
    re.I,
)


def _take_home_said(sent: Span, ctx: _Ctx) -> None:
    """'take home is 2,900 a month', 'my take home is about 2,900' -> has-take-home-pay: the parse makes
    "take" a verb or "home" a name; the words alone say it (the speaker's, or the line's opening)."""
    if any(f.predicate == TAKE_HOME for f in ctx.out) or _is_question(sent):
        return
    m = _TAKE_HOME_SAID.search(sent.text)
    if m and _big_enough(m.group(1)):
        _emit(ctx, ctx.me, TAKE_HOME, m.group(1).replace(" ", ""), 0.5, obj_tok=None)


def _not_pay_talk(sent: Span) -> bool:
    """A question, or a line of buying, wishing, cars or homes and rent: an amount there is no pay."""
    words = {t.lemma_.lower() for t in sent}
    return _is_question(sent) or bool(
        words & (PURCHASE_WORDS | FRAGMENT_IRREALIS | CAR_NOUNS | HOME_NOUNS | {"rent"})
    )


def _pay_marked(sent: Span, ctx: _Ctx) -> None:
    """An amount that says it is pay by its own words, with no pay noun or verb: 'band 5 so about
    33k before tax', '18 LPA CTC', '62k euro per annum gross', 'basic £52,000 plus bonus', 'stipend 40k
    per month' (a pay noun run onto the amount, no verb between). In a message
    about a job offer it is the offer's pay (has-salary-offer, made the salary when the offer is accepted)."""
    if _not_pay_talk(sent):
        return
    doc = sent.doc
    amounts = [e for e in sent.ents if e.label_ == "MONEY"]
    amounts += [
        doc[t.i : t.i + 1]
        for t in sent
        if MONEY_SHORT.match(t.text) and ctx.ents.get(t.i, doc[t.i : t.i]).label_ in {"", "CARDINAL", "DATE"}
    ]  # "33k", "50k": an amount in thousands the model took for a number or a date
    for amount in amounts + _thousands_base(sent):
        after = " ".join(t.lower_ for t in doc[amount.end : min(amount.end + 3, len(doc))])
        unit = PAY_MARKED.search(amount.text)
        basic = amount.start > 0 and _pay_noun_before(doc[amount.start - 1])  # "basic £52,000 plus bonus"
        if not (unit or basic or PAY_MARKED_AFTER.match(after)):
            continue
        if any(f.predicate.startswith("has-salary") for f in ctx.out):
            return  # a rule with a pay word read this line already
        value = _money_value(amount[-1], ctx) or (f"{amount.text}k" if amount.text.isdigit() else None)
        # "corvana offer signed. - 105 base": an offer taken in the same message is the pay now
        taken = any(t.lemma_ in {"sign", "accept"} for t in doc)
        offer = any(t.lemma_.lower() == "offer" for t in doc) and not taken
        pred = OFFERED_PAY if offer else TAKE_HOME if NET_MARKED_AFTER.match(after) else "has-salary"
        if value and (unit or _big_enough(value)):
            _emit(ctx, ctx.me, pred, value, 0.5, obj_tok=None)
        return


def _thousands_base(sent: Span) -> list[Span]:
    """'i make 95 base now', '105 base / 210 OTE': sales talk's pay in thousands, a bare number of two
    or three digits right before "base" or "basic" that names nothing after it ("30 base camps")."""
    doc = sent.doc
    found = []
    for t in sent:
        if not (t.text.isdigit() and 20 <= int(t.text) <= 999 and t.i + 2 <= sent.end):
            continue
        nxt = doc[t.i + 2] if t.i + 2 < sent.end else None
        named = nxt is not None and nxt.pos_ in {"NOUN", "PROPN"} and nxt.lower_ != "ote"
        if doc[t.i + 1].lower_ in {"base", "basic"} and not named:
            found.append(doc[t.i : t.i + 1])
    return found


# Words a pay line may open with before its "on" ("currently on 38k", "still on 45k").
_ON_PAY_OPENERS = frozenset(
    {"currently", "still", "now", "only", "just", "so", "and", "also", "finally", "but"}
)
# What else one is "on" in chat beside pay ("on 20mg", "on 3k followers", "on 5k steps").
_ON_NOT_PAY = frozenset({"mg", "ml", "followers", "steps", "miles", "km", "calories", "views", "subscribers"})


_MY = frozenset({"my", "our"})
_COSTS = frozenset({"rent", "mortgage"})
_PAY_KINDS = {**dict.fromkeys(_COSTS, "has-rent"), **dict.fromkeys(TAKE_HOME_NOUNS, TAKE_HOME)}  # else salary


def _my_pay_is(sent: Span, ctx: _Ctx) -> None:
    """'My boss is Dave and my salary is 40k', 'I'm a tester, my pay is now £2,100': the speaker's pay
    or rent said to be an amount, read from the words, for when the parse hung "my salary" on another
    clause (on a well-parsed line `_possessive_copular` gives the same fact: one is kept); a paycheck
    is take-home pay, as that rule reads it. Not in a question or a supposition."""
    if _is_question(sent) or any(t.lower_ in FRAGMENT_IRREALIS for t in sent):
        return
    words = [t for t in sent if not t.is_space]
    for k in range(len(words) - 3):
        owner, noun = words[k : k + 2]
        if owner.lower_ not in _MY or noun.lower_ not in VALUE_NOUNS:
            continue
        be = _be_after(words, k + 2)
        if be is None:
            continue
        j = be + 1
        while j < len(words) and (words[j].lower_ in FRAGMENT_GLUE or words[j].is_currency):
            j += 1
        if j >= len(words):
            return
        amount = _thousands_of(words[j])
        bare = amount.like_num or MONEY_SHORT.match(amount.text)
        value = _money_value(amount, ctx) or (_amount(amount) if bare else None)
        pred = _PAY_KINDS.get(noun.lower_, "has-salary")
        said = any(f.predicate == pred and f.subject == ctx.me for f in ctx.out)
        if value and _big_enough(value) and not said:
            _emit(ctx, ctx.me, pred, value, 0.5, obj_tok=None)


def _be_after(words: list[Token], i: int) -> int | None:
    """The index of the "is" at `i`, or after a short place or time phrase ("Yaar, my rent in
    Koramangala is ...": the parse hung the line on the vocative), or None."""
    j = i
    if j < len(words) and words[j].lower_ in _PAY_PLACE_PREPS:
        j += 1
        while j < min(i + 5, len(words)) and not words[j].is_punct and words[j].lower_ not in _BE:
            j += 1
    return j if j < len(words) and words[j].lower_ in _BE else None


_BE = frozenset({"is", "'s", "’s"})
_PAY_PLACE_PREPS = frozenset({"in", "at", "for", "on"})


def _on_pay(sent: Span, ctx: _Ctx) -> None:
    """'Currently on 38k.', 'On 41k now which is nice': a line that opens with 'on' and an amount,
    its 'I'm' dropped, says the speaker's pay, as 'I'm on 38k' does (`_on_amount`)."""
    if _not_pay_talk(sent):
        return
    toks = [t for t in sent if not t.is_punct]
    i = 0
    while i < len(toks) and toks[i].lower_ in _ON_PAY_OPENERS:
        i += 1
    if i + 1 >= len(toks) or toks[i].lower_ != "on":
        return
    amount = toks[i + 1] if toks[i + 1].lower_ not in APPROXIMATORS else toks[min(i + 2, len(toks) - 1)]
    if amount.tag_ == "$" and amount.i + 1 < sent.end:  # "Now on £14.20 an hour": the number after "£"
        amount = sent.doc[amount.i + 1]
    amount = _thousands_of(amount)  # "on twenty eight grand": the amount is "grand" with its number
    ent = ctx.ents.get(amount.i)
    end = ent.end if ent is not None else amount.i + 1
    after = [t.lower_ for t in sent.doc[end : end + 4]]
    value = _money_value(amount, ctx) or (amount.text if MONEY_SHORT.match(amount.text) else None)
    # the unit right after the number (the model may tag "12.50 an hour" a time, so not after `end`)
    unit = tuple(t.lower_ for t in sent.doc[amount.i + 1 : amount.i + 3])
    hourly = unit in {("an", "hour"), ("per", "hour"), ("an", "hr"), ("per", "hr")}
    if not value and hourly and re.fullmatch(r"\d{1,3}(?:\.\d{2})?", amount.text) and float(amount.text) >= 5:
        value = amount.text  # "On 12.50 an hour at the moment": an hourly wage needs no "£"
    if not value or not (_big_enough(value) or hourly) or (after and after[0] in _ON_NOT_PAY):
        return
    if not any(f.predicate.startswith("has-salary") for f in ctx.out):
        net = NET_MARKED_AFTER.search(" ".join(after))  # "on £2,400 a month after tax"
        _emit(ctx, ctx.me, TAKE_HOME if net else "has-salary", value, 0.5, obj_tok=None)


def _pay_noun_before(tok: Token) -> bool:
    """'basic £52,000', 'stipend 40k per month': a pay noun of the speaker's right before the amount
    (not the verb 'pay', not 'her salary')."""
    if tok.lower_ in {"basic", "base"}:
        return True
    return tok.lemma_.lower() in SALARY_NOUNS and tok.pos_ in {"NOUN", "PROPN"} and _no_one_elses(tok)


def _home_priced(verb: Token, subj_tok: Token, ctx: _Ctx) -> None:
    """'The new flat costs 1,250 a month' (said per month: "costs £200 to heat" is no rent), 'our
    landlord wants 1,500 now', 'the landlord is charging £1,200' -> has-rent."""
    if verb.lemma_ == "cost" and not _is_past(verb):
        _home_costs(verb, subj_tok, ctx, monthly_only=True)
    elif verb.lemma_ in {"want", "charge", "ask"} and _landlord(subj_tok) and not _wants_to(verb):
        _home_costs(verb, subj_tok, ctx, owner=True)


def _wants_to(verb: Token) -> bool:
    """'The landlord wants to raise the rent to £1,200': a change wanted, not the rent asked now."""
    return any(c.dep_ == "xcomp" for c in verb.children)


def _landlord(noun: Token) -> bool:
    """'the landlord', 'our landlady', 'the letting agent' (not any agent: a book's)."""
    lemma = noun.lemma_.lower()
    letting = lemma in {"agent", "agency"} and any(c.lower_ == "letting" for c in noun.children)
    return lemma in {"landlord", "landlady"} or letting


def _home_costs(
    verb: Token, subj_tok: Token, ctx: _Ctx, monthly_only: bool = False, owner: bool = False
) -> None:
    """'The flat is smaller but only 950 euro a month' -> has-rent: a home's monthly amount (or what
    its `owner`, the landlord, asks).

    A home priced in the thousands is bought, not rented: only amounts under 10,000 (or said
    per month) count, and nothing when the line speaks of buying, a price or a deposit."""
    home = owner or subj_tok.lemma_.lower() in HOME_NOUNS
    if not home or ctx.message.role != "user" or _is_irrealis(verb):
        return
    if any(c.lower_ in PAY_CUES for c in subj_tok.children):
        return  # "my take-home is 2,080 a month": pay
    if any(c.dep_ == "advcl" and _has_mark(c, CONDITIONAL_MARKS) for c in verb.children):
        return
    dets = {c.lower_ for c in subj_tok.children if c.dep_ in {"det", "poss"}}
    if dets - {"the", "my", "our", "this"}:
        return
    sent = verb.sent
    if any(t.lemma_.lower() in PURCHASE_WORDS for t in sent if t.i != verb.i or not monthly_only):
        return  # ("costs" itself says nothing of buying when a month is said)
    if any(t.lemma_.lower() in _SPENT for t in sent):
        return  # "We spend $150 a week on groceries, the flat is small"
    for tok in verb.subtree:
        value = _money_value(tok, ctx) or (_amount(tok) if tok.like_num else None)
        if not value or any(c.lower_ in _MORE for c in tok.children):
            continue  # "Landlord wants another 150 a month, so 1,450 total": the rise is no rent
        digits = re.sub(r"[^\d]", "", value.split(".")[0] if re.search(r"\.\d{2}$", value) else value)
        monthly = any(t.lower_ in {"month", "monthly", "pcm", "pm", "warm", "cold"} for t in sent)
        if digits and (monthly or (int(digits) < 10000 and not monthly_only)) and int(digits) >= 100:
            _emit(ctx, ctx.me, "has-rent", value, 0.5, obj_tok=None)
            return


_MORE = frozenset({"another", "extra", "more"})


def _rent_amount(sent: Span, ctx: _Ctx) -> None:
    """'Signed the lease, $1,650 rent', "2 bed near the station, £975 rent" -> has-rent: an amount
    said as the rent's own number (not "a £50 rent rise", "£200 rent arrears", "their £900 rent")."""
    if _is_question(sent):
        return
    for rent in (t for t in sent if t.lower_ == "rent" and t.pos_ == "NOUN" and t.dep_ != "compound"):
        amounts = [c for c in rent.children if c.dep_ in {"nummod", "compound"} and c.i < rent.i]
        owners = [c.lower_ for c in rent.children if c.dep_ == "poss"]
        head = rent.head
        # "We used to pay £700 rent" is history; "Signed the lease, $1,650 rent" is no rent paid before
        past = (head.lemma_ in {"pay", "be", "cost"} or rent.dep_ == "nsubj") and (
            _is_past(head) or _used_to(head)
        )
        if not amounts or any(o not in {"my", "our"} for o in owners) or _is_irrealis(head) or past:
            continue
        value = _money_value(amounts[0], ctx)
        if value and _big_enough(value) and not any(c.lower_ in _MORE for c in amounts[0].children):
            _emit(ctx, ctx.me, "has-rent", value, 0.5, obj_tok=None)


def _on_amount(attr: Token, past: bool, ctx: _Ctx) -> str | None:
    """ "I'm on £38,000 a year": the model hangs "on" on the amount (a quantifier), not on "am"."""
    if past or not any(c.dep_ == "quantmod" and c.lower_ == "on" for c in attr.children):
        return None
    return _money_value(attr, ctx)


def _net_after(amount: Token) -> bool:
    """ "on 850 a week after tax": the words after the amount say it is take-home pay."""
    after = amount.doc[amount.right_edge.i + 1 : amount.right_edge.i + 5]
    return NET_MARKED_AFTER.search(after.text) is not None


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


def _pay_facts(verb: Token, ctx: _Ctx) -> None:
    """'They pay me $85,000' -> has-salary; 'they offered me 85k', 'he came back with 52k' (the
    employer's counter) -> has-salary-offer (not yet pay)."""
    if _counter_offer(verb, ctx):
        return
    if _they_are_talking(verb, ctx):
        return
    if verb.lemma_ not in {"pay", "offer"} or _is_irrealis(verb):
        return
    if verb.lemma_ == "pay" and _is_past(verb):
        return
    if verb.lemma_ == "pay" and _paid_by_the_hour(verb, ctx):
        return
    # "I'm paying myself £2,500 a month": the self-employed speaker's pay
    to_whom = {"me", "us", "myself"}
    dative = next((c for c in verb.children if c.dep_ in {"dative", "dobj"} and c.lower_ in to_whom), None)
    subj = next((c for c in verb.children if c.dep_ == "nsubj"), None)
    if subj is not None and verb.lemma_ == "pay" and subj.lemma_.lower() in JOB_NOUNS - {"offer"}:
        _job_pays(verb, subj, ctx)  # "the new job pays 85k"
        return
    if subj is not None and verb.lemma_ == "pay" and subj.lower_ == "it" and _job_before(verb):
        _job_pays(verb, subj, ctx, it=True)  # "Got the job! It pays £34k"
        return
    mine = subj is not None and subj.lower_ in SPEAKER_SUBJECTS
    if verb.lemma_ == "pay" and (mine or (subj is None and _dropped_subject(verb, ctx) == [ctx.me])):
        _rent_paid(verb, ctx)  # "we pay £1,450 rent", chat's "paying 950 for the flat"
    they_offer = verb.lemma_ == "offer" and subj is not None and subj.lower_ == "they"
    if dative is None and not (they_offer and not _preps(verb, verb, {"for"})):
        return  # "they're offering R62k a month": the firm's "they" (not "they offered £500 for the car")
    for dobj in (c for c in verb.children if c.dep_ == "dobj" and c is not dative):
        money = _money_value(dobj, ctx)
        if money:
            pred = "has-salary" if verb.lemma_ == "pay" else OFFERED_PAY
            _emit(ctx, ctx.me, pred, money, 0.55, obj_tok=None)
            if dative is not None and dative.lower_ == "myself":
                return  # "... £2,800 a month instead of the £2,500": the first sum is the pay now


def _they_are_talking(verb: Token, ctx: _Ctx) -> bool:
    """ "theyre talking R62k a month + relocation": an employer's "they" naming a sum is an offer's pay
    (has-salary-offer, the salary once it is accepted)."""
    subj = next((c for c in verb.children if c.dep_ == "nsubj"), None)
    if verb.lemma_ != "talk" or subj is None or subj.lower_ != "they" or ctx.message.role != "user":
        return False
    found = False
    for dobj in (c for c in verb.children if c.dep_ in {"dobj", "npadvmod"}):
        money = _money_value(dobj, ctx)
        if money and _big_enough(money):
            _emit(ctx, ctx.me, OFFERED_PAY, money, 0.5, obj_tok=None)
            found = True
    return found


def _paid_by_the_hour(verb: Token, ctx: _Ctx) -> bool:
    """'I get paid £11.44 an hour', "I'm paid 32k a year", 'they pay £12 an hour' -> has-salary: pay by
    its period, to the speaker (a passive "I") or from an employer's "they" (not "they pay £5 for
    parking": no period of work)."""
    subj = next((c for c in verb.children if c.dep_ in {"nsubj", "nsubjpass"}), None)
    passive = subj is not None and subj.dep_ == "nsubjpass" and subj.lower_ in FIRST_PERSON
    employer = subj is not None and subj.dep_ == "nsubj" and subj.lower_ in {"they", "it"}  # "it pays"
    if not (passive or employer) or ctx.message.role != "user":
        return False
    return _pay_rate(verb, ctx, short=subj is None or subj.lower_ != "it")


_PAY_PERIODS = frozenset({"hour", "year", "week", "month"})
_NOT_A_SIDE_LINE = frozenset({"working", "during", "something", "nothing", "anything", "everything"})


def _pay_rate(verb: Token, ctx: _Ctx, short: bool = True) -> bool:
    """An amount of the verb's by a period of work ("£12 an hour", "600 a week") or, when `short`,
    said as a year's pay ("32k") -> the speaker's has-salary. Without `short` a bare count is no
    amount ("getting 3 hours a week"), only money or pence ("12.21 an hour")."""
    for dobj in (c for c in verb.children if c.dep_ == "dobj"):
        period = any(c.dep_ == "npadvmod" and c.lemma_ in _PAY_PERIODS for c in dobj.children)
        pence = dobj.like_num and re.fullmatch(r"\d+\.\d\d", dobj.text) is not None
        money = _money_value(dobj, ctx) or (_amount(dobj) if short or pence else None)
        if money and (period or (short and MONEY_SHORT.match(money))):  # "£50" alone: a one-off
            _emit(ctx, ctx.me, "has-salary", money, 0.55, obj_tok=None)
            if not _is_past(verb):  # "I get paid $19 an hour at Walmart": where the pay is earned
                _paid_at(verb, dobj, ctx.me, ctx)
            return True
    return False


def _getting_a_rate(verb: Token, dobjs: list[Token], subject: str, past: bool, ctx: _Ctx) -> bool:
    """ "I'm getting 12.21 an hour now", 'I get £600 a week' -> has-salary: an amount the speaker gets
    by a period of work (not 'got £50 for my birthday': no period; not a past rate)."""
    mine = subject == ctx.me and ctx.message.role == "user"
    if verb.lemma_ != "get" or past or not mine or _is_irrealis(verb):
        return False
    return _pay_rate(verb, ctx, short=False)


_SETTLE_VERBS = frozenset({"meet", "settle", "agree", "land"})
# Words of a talk about pay: a figure agreed on in a message with one of them is the pay
_TALKS = SALARY_NOUNS | {"negotiation", "negotiate", "negotiating", "offer", "counter", "counteroffer"}


def _settled_at(sent: Span, ctx: _Ctx) -> None:
    """'Also the negotiation: we met at 134,000', 'we settled on 62k in the end' -> has-salary: the
    figure a pay talk ended on, in a user message that speaks of the offer, the pay or the talk."""
    verbs = [t for t in sent if t.lemma_ in _SETTLE_VERBS and t.pos_ == "VERB"]
    if ctx.message.role != "user" or not verbs or not any(t.lower_ in _TALKS for t in sent.doc):
        return  # (the message is read for a pay word only when a verb of settling is there)
    for verb in verbs:
        subj = next((c for c in verb.children if c.dep_ == "nsubj"), None)
        if subj is None or subj.lower_ not in {"we", "i", "they"} or _is_irrealis(verb):
            continue
        for pobj in (p for prep in _preps(verb, verb, {"at", "on", "to"}) for p in _pobjs(prep)):
            amounts = [pobj, *(c for c in pobj.children if c.dep_ == "nummod")]  # "75k base"
            value = next((v for a in amounts if (v := _money_value(a, ctx) or _amount(a))), None)
            if value and _big_enough(value) and re.search(r"\d{1,3}[,.]\d{3}|\d\s*[kK]\b|\d{4,}", value):
                _emit(ctx, ctx.me, "has-salary", value, 0.5, obj_tok=None)
                return


def _rent_paid(verb: Token, ctx: _Ctx) -> None:
    """'We pay £1,450 rent', 'I pay 900 in rent' -> has-rent: an amount the speaker pays, said with
    the word rent (or mortgage) right beside it, or alone right after a line about a home."""
    for dobj in (c for c in verb.children if c.dep_ == "dobj"):
        kind = dobj.lower_ if dobj.lower_ in {"rent", "mortgage"} else None
        amount = next((c for c in dobj.children if c.dep_ == "nummod"), None) if kind else dobj
        if kind is None:  # "900 in rent", "paying 950 for the flat"
            kind = next(
                (
                    p.lower_ if p.lower_ == "mortgage" else "rent"
                    for prep in _preps(verb, verb, {"in", "for"})
                    for p in _pobjs(prep)
                    if p.lower_ in {"rent", "mortgage"}
                    or (prep.lower_ == "for" and (p.lemma_.lower() in HOME_NOUNS or _rooms_counted(p)))
                ),
                None,
            )
        if (
            kind is None
            and not any(c.dep_ in {"prep", "dative"} for c in verb.children)
            and not any(
                c.dep_ in {"det", "amod", "compound", "poss"} for c in dobj.children
            )  # "the cleaner 300"
            and _home_before(verb.sent)
        ):
            kind = "rent"  # "Our apartment in St-Boniface is too small now. We pay $1,450."
        money = (_money_value(amount, ctx) or _amount(amount)) if amount is not None and kind else None
        if money and _big_enough(money):
            _emit(ctx, ctx.me, "has-rent", money, 0.55, obj_tok=None)


_CHANGED_BY_SOMEONE = frozenset({"bump", "raise", "increase", "up", "put", "drop", "cut", "reduce", "lower"})


# "The landlord wants to raise the rent to £1,200", "they refused to raise my salary to £50k": a
# change wanted, planned or refused is not the amount now
_NOT_DONE = frozenset({
    "want", "refuse", "decline", "plan", "hope", "try", "threaten", "propose", "intend", "offer", "go",
    "need", "ask", "expect", "consider", "like", "wish", "fail",
})  # fmt: skip


def _only_meant(verb: Token) -> bool:
    """The change is the object of a wish, plan or refusal ("wants to raise", "is going to put up")."""
    return verb.dep_ == "xcomp" and (verb.head.lemma_ in _NOT_DONE or _is_irrealis(verb.head))


def _salary_change(verb: Token, ctx: _Ctx) -> None:
    """'My salary goes up to $95,000', 'Base rises to 95k', "they bumped my salary to £48,000" ->
    has-salary (the new amount)."""
    if _is_irrealis(verb) or _only_meant(verb):
        return
    if verb.lemma_ in _CHANGED_BY_SOMEONE:  # the amount raised (or cut) by someone
        # "my salary was increased from £42,500 to £45,000": the passive's subject is the amount
        # the object first: "she's put me up to £24,000" (the model read "'s put" as a passive)
        subj = next((c for c in verb.children if c.dep_ == "dobj"), None)
        subj = subj or next((c for c in verb.children if c.dep_ == "nsubjpass"), None)
    elif verb.lemma_ in {"go", "rise", "increase", "jump", "climb", "move", "come"}:  # "comes to €1,950"
        subj = next((c for c in verb.children if c.dep_ == "nsubj"), None)
    else:
        return
    user = ctx.message.role == "user"
    # "they upped me to £45k"; not the passive "I was upped"
    upped = verb.lemma_ != "up" or (subj is not None and subj.dep_ == "dobj")
    bumped_me = subj is not None and subj.lower_ == "me" and upped and user
    paid = {*SALARY_NOUNS, *PENSION_NOUNS, "base", "rent"}
    if subj is None or not (bumped_me or subj.lemma_.lower() in paid):
        return  # "my salary went up to £58,000" is the salary now, whatever the tense
    poss = next((c for c in subj.children if c.dep_ == "poss"), None)
    if poss is None and subj.lemma_.lower() != "rent" and _anothers_change(verb.sent):
        return  # "Sofia is worried, the pay is going from €72k to €65k": hers (a rent is the household's)
    owner = _owner(poss, ctx, subj) if poss is not None else (ctx.me if user else None)
    if poss is not None and poss.lower_ == "our" and subj.lemma_.lower() == "rent" and user:
        owner = ctx.me  # the household's rent is the speaker's
    if owner is None:
        return
    targets = [c for c in verb.children if c.dep_ in {"dobj", "npadvmod"}]  # "went up to £1,150"
    targets += [p for prep in _preps(verb, verb, {"to"}) for p in _pobjs(prep)]
    # "went from £900 to £1,000", "went up by £50 to £1,300": the model makes one amount of the range,
    # "900 to" its modifiers
    targets += [p for prep in _preps(verb, verb, {"from", "by"}) for p in _pobjs(prep) if _range_end(p)]
    ups = [c for c in verb.children if c.lower_ == "up"]
    targets += [p for up in ups for p in _pobjs(up)]  # "going up to £1,100"
    targets += [p for up in ups for to in up.children if to.lower_ == "to" for p in _pobjs(to)]  # "put up to"
    lemma = "salary" if bumped_me else subj.lemma_.lower()  # "they bumped me to 52k": my pay
    for tok in targets:
        money = _money_value(tok, ctx)
        if not money and lemma == "rent" and (amount := _amount(tok)) and _big_enough(amount):
            money = amount  # "rent went from 900 to 975": a bare number is the rent said
        if money:  # "our rent went up to $2,400": the rent now
            pred = "has-rent" if lemma == "rent" else TAKE_HOME if lemma in TAKE_HOME_NOUNS else "has-salary"
            _emit(ctx, owner, pred, money, 0.55, obj_tok=None)
            if pred == "has-salary":  # "my pay went from $22 an hour to $24": the pay before
                _pay_before(verb, owner, ctx)
            return


def _range_end(amount: Token) -> bool:
    return any(q.dep_ == "quantmod" and q.lower_ == "to" for q in amount.children)


def _pay_arrow(sent: Span, ctx: _Ctx) -> None:
    """'pay rise came thru!! 52k → 58k': one amount to another in a line about pay is the pay now
    (has-salary) and the pay before (earned); in a line about rent, the rent now and before."""
    doc = sent.doc
    words = {t.lemma_.lower() for t in doc}  # "pay rise came thru!! 52k → 58k": the news may be a line before
    rent = bool(words & {"rent", "mortgage"})  # "rent 1,200 → 1,350": the rent now
    if not (rent or words & (SALARY_NOUNS | _PAY_NEWS)) or words & FRAGMENT_IRREALIS or _is_question(sent):
        return
    if _anothers_change(sent):
        return
    pred, before_pred = ("has-rent", "had-rent") if rent else ("has-salary", "earned")
    dashed = (t for t in sent if t.text == ">" and t.i > 0 and doc[t.i - 1].text == "-")  # "52k -> 58k"
    pairs = [
        (_before_arrow(arrow), _after_arrow(arrow))
        for arrow in [*(t for t in sent if t.text in _ARROWS), *dashed]
    ]
    pairs += _from_to(sent)  # "pay rise!!! from 26k to 29.5k": the same, said in words
    for before, after in pairs:
        old = _pay_amount(before, ctx, rent)
        new = _pay_amount(after, ctx, rent) if after is not None else None
        if old and new:
            # "salary 40,000 → 44,000": the line's key read the first amount as the pay now
            ctx.out[:] = [f for f in ctx.out if not (f.predicate == pred and f.object == old)]
            _emit(ctx, ctx.me, pred, new, 0.5, obj_tok=None)
            if before_pred:
                _emit(ctx, ctx.me, before_pred, old, 0.5, obj_tok=None)
            return


def _anothers_change(sent: Span) -> bool:
    """ "She's nervous about the pay cut, from €72k to €65k", "his salary went from 40k to 45k": a
    change of someone else's pay or rent, by its owner or by the line's subject, with no "I" or "we"
    of the speaker in it ("they" may be the landlord or the firm: "They put the rent up ...")."""
    if any(t.lower_ in SPEAKER_SUBJECTS | FIRST_PERSON_POSS | {"our", "us", "me"} for t in sent):
        return False
    owned = any(not _no_one_elses(t) for t in sent if t.lemma_.lower() in VALUE_NOUNS)
    # "Tom says the rent is going up": who reports the change is not whose it is
    others = any(
        t.dep_ in {"nsubj", "nsubjpass"} and _a_person(t) and t.head.lemma_ not in _SPEECH for t in sent
    )
    return owned or others


_SPEECH = frozenset({"say", "tell", "mention", "reckon", "think", "hear", "text", "email"})


def _a_person(tok: Token) -> bool:
    """He, she, or a name: tagged a person, or a known first name the model took for a noun ("Sofia is
    worried, the pay is going from €72k to €65k")."""
    return (
        tok.lower_ in {"he", "she"}
        or tok.ent_type_ == "PERSON"
        or (tok.is_title and tok.lower_ in first_names())
    )


def _before_arrow(arrow: Token) -> Token:
    return arrow.doc[arrow.i - 2] if arrow.text == ">" else arrow.doc[arrow.i - 1]


def _after_arrow(arrow: Token) -> Token | None:
    return arrow.doc[arrow.i + 1] if arrow.i + 1 < len(arrow.doc) else None


def _from_to(sent: Span) -> list[tuple[Token, Token | None]]:
    """The amounts of "from X to Y" ("from 26k to 29.5k", "from £42,500 to £45,000"): the number
    after "from" (past a currency sign) and the one after the "to" that follows it."""
    pairs: list[tuple[Token, Token | None]] = []
    doc = sent.doc
    for word in (t for t in sent if t.lower_ == "from"):
        old = _next_number(doc, word.i + 1, sent.end)
        to = old.i + 1 if old is not None else sent.end
        if old is not None and to < sent.end and doc[to].lower_ == "to":
            pairs.append((old, _next_number(doc, to + 1, sent.end)))
    return pairs


def _next_number(doc: Doc, i: int, end: int) -> Token | None:
    """The number at `i`, or after one currency sign there ("£ 45,000")."""
    if i < end and doc[i].tag_ == "$":
        i += 1
    return doc[i] if i < end and (doc[i].like_num or MONEY_SHORT.match(doc[i].text)) else None


def _pay_amount(tok: Token, ctx: _Ctx, rent: bool = False) -> str | None:
    """An amount as pay is written: money, "58k", or a number of thousands ("44,000"); a rent may be a
    bare number of hundreds ("put rent up from 1300 to 1450")."""
    value = _money_value(tok, ctx) or (tok.text if MONEY_SHORT.match(tok.text) else None)
    if value is None and tok.like_num and re.fullmatch(r"\d{1,3},\d{3}", tok.text):
        value = tok.text
    if value is None and rent and re.fullmatch(r"\d{3,4}", tok.text):
        value = tok.text
    return value


def _pay_before(verb: Token, owner: str, ctx: _Ctx) -> None:
    """The amount a pay change started "from": pay as it was (earned)."""
    for tok in (p for prep in _preps(verb, verb, {"from"}) for p in _pobjs(prep) if not _range_end(p)):
        money = _money_value(tok, ctx)
        if money:
            _emit(ctx, owner, "earned", money, 0.5, obj_tok=None)


def _job_pays(verb: Token, subj: Token, ctx: _Ctx, it: bool = False) -> None:
    owner_tok = next((c for c in subj.children if c.dep_ == "poss"), None)
    det = next((c.lower_ for c in subj.children if c.dep_ == "det"), None)
    mine = it or (owner_tok is not None and owner_tok.lower_ in FIRST_PERSON_POSS)
    if ctx.message.role != "user" or not (mine or (owner_tok is None and det == "the")):
        return
    for dobj in (c for c in verb.children if c.dep_ == "dobj"):
        money = _money_value(dobj, ctx)
        if money:
            _emit(ctx, ctx.me, "has-salary", money, 0.55, obj_tok=None)


def _job_before(verb: Token) -> bool:
    """The message's last thing before "it pays" is a job of the speaker's ("Got the job at Ocado!
    It pays £34k"), not a car, a home, a purchase or someone else's job."""
    for tok in reversed(verb.doc[: verb.i]):
        if _priced_thing(tok):
            return False
        if tok.pos_ == "NOUN" and tok.lemma_.lower() in JOB_NOUNS:
            return _my_job(tok) and not _is_question(tok.sent)
    return False


def _my_job(job: Token) -> bool:
    """'my job', 'I got the job', 'Got the job' (the "I" dropped), 'the offer came through'; not 'my
    sister got a job', 'her job'."""
    if any(c.dep_ == "poss" for c in job.children):
        return _no_one_elses(job)
    if job.dep_ in {"nsubj", "nsubjpass"}:
        return any(c.dep_ == "det" and c.lower_ in {"the", "this"} for c in job.children)
    subj = next((c for c in job.head.children if c.dep_ in {"nsubj", "nsubjpass"}), None)
    return subj is None or subj.lower_ in SPEAKER_SUBJECTS


def _rented_for(verb: Token, dobjs: list[Token], subject: str, past: bool, ctx: _Ctx) -> bool:
    """'renting a little house for $2,900 a month' -> has-rent."""
    if verb.lemma_ not in {"rent", "lease"} or past:
        return False
    return _amount_of(verb, dobjs, HOME_NOUNS, "for", (subject, "has-rent"), ctx)


def _raise_to(verb: Token, dobjs: list[Token], subject: str, past: bool, ctx: _Ctx) -> bool:
    """'I got a raise to $95,000' -> has-salary."""
    if verb.lemma_ not in {"get", "receive"}:
        return False
    return _amount_of(verb, dobjs, RAISE_NOUNS, "to", (subject, "has-salary"), ctx)


def _pay_cut(verb: Token, dobjs: list[Token], subject: str, past: bool, ctx: _Ctx) -> bool:
    """'I took a pay cut to £35k' -> has-salary £35k."""
    if verb.lemma_ not in {"take", "get", "accept"}:
        return False
    return _amount_of(verb, _pay_cuts(dobjs), {"cut", "paycut"}, "to", (subject, "has-salary"), ctx)


def _pay_cuts(nouns: Iterable[Token]) -> list[Token]:
    """'a pay cut', 'a salary cut', 'a paycut'."""
    cuts = (d for d in nouns if d.lemma_.lower() in {"cut", "paycut"})
    return [d for d in cuts if d.lower_ == "paycut" or any(c.lower_ in {"pay", "salary"} for c in d.children)]


def _pay_cut_from(sent: Span, ctx: _Ctx) -> None:
    """ "I'd be taking a pay cut from £41k", 'it means a pay cut from 62k' -> has-salary: the pay the
    speaker has now (a cut still weighed; one already taken says only what the pay was)."""
    for cut in _pay_cuts(t for t in sent if t.dep_ == "dobj"):
        verb = cut.head
        if _is_past(verb) or _preps(cut, verb, {"to"}) or not _by_me(verb, ctx):
            continue
        for money in (
            m for prep in _preps(cut, verb, {"from"}) for p in _pobjs(prep) if (m := _money_value(p, ctx))
        ):
            _emit(ctx, ctx.me, "has-salary", money, 0.5, obj_tok=None)


def _amount_of(
    verb: Token, dobjs: list[Token], nouns: Collection[str], prep: str, fact: tuple[str, str], ctx: _Ctx
) -> bool:
    """The amount after `prep` of an object among `nouns` ("a house for $2,900") as the fact's value."""
    found = False
    for dobj in (d for d in dobjs if d.lemma_.lower() in nouns):
        for pobj in (p for word in _preps(dobj, verb, {prep}) for p in _pobjs(word)):
            money = _money_value(pobj, ctx)
            if money:
                _emit(ctx, fact[0], fact[1], money, 0.55, obj_tok=None)
                found = True
    return found


# Words that make an amount earned a side income, not the pay of one's job: "$20 an hour on Saturdays",
# "£50 a day extra", "150 a shift in tips"
_SIDE_INCOME = frozenset({"day", "shift", "side", "extra", "weekend", "cash", "tip"} | set(WEEKDAYS))


def _rates_as_clauses(verb: Token) -> list[Token]:
    """'I make 16.50 an hour': the small model may read the amount as the subject of a clause "an
    hour"; the amount is the verb's, by its period."""
    periods = (c for c in verb.children if c.dep_ in {"ccomp", "npadvmod"} and c.lemma_ in _PAY_PERIODS)
    return [n for c in periods for n in c.children if n.like_num and n.i < c.i and n.dep_ != "nummod"]


def _rate(amount: Token) -> str | None:
    """A bare number by a period of work: 'I make 48,000 a year', '16.50 an hour', '12 an hour' (no
    currency; a small number only by the hour)."""
    periods = {c.lemma_ for c in amount.children if c.dep_ == "npadvmod"} & _PAY_PERIODS
    if amount.head.lemma_ in _PAY_PERIODS and amount.head.dep_ in {"ccomp", "npadvmod"}:
        periods.add(amount.head.lemma_)  # "make 16.50 an hour" read as a clause "16.50 an hour"
    pence = re.fullmatch(r"\d+\.\d\d", amount.text) is not None
    value = _amount(amount) if periods and amount.like_num else None
    return value if value and (pence or "hour" in periods or _big_enough(value)) else None


def _side_income(verb: Token, money: Token) -> bool:
    """'I make $20 an hour on Saturdays', '£100 a day extra', '£200 a week from my Etsy shop': pay for
    work beside the job (an hourly or weekly rate alone, "I make $20 an hour", is the pay of the job)."""
    # the amount's words and the verb's own modifiers, not another clause ("..., and I'm loving it")
    mods = (t for c in verb.children if c.dep_ in {"prep", "npadvmod", "advmod", "dobj"} for t in c.subtree)
    tokens = [*money.subtree, *mods]
    words = {t.lemma_.lower() for t in tokens} | {t.lower_.removesuffix("s") for t in tokens}
    by_the_hour = bool(words & {"hour", "hr", "week", "wk"})
    from_a_side_line = by_the_hour and any(c.lower_ == "from" for c in (*verb.children, *money.children))
    # "$20 an hour tutoring": the activity paid for (parsed a noun), not the job ("working")
    doing = any(t.lower_.endswith("ing") and t.lower_ not in _NOT_A_SIDE_LINE for t in money.subtree)
    return bool(words & _SIDE_INCOME) or from_a_side_line or doing  # "£200 a week from my Etsy shop"


def _earning_as(attr: Token, subject: str, past: bool, ctx: _Ctx) -> None:
    """'I'm a quantity surveyor in Leeds earning £50k': the pay the one said to be someone earns."""
    for acl in (
        c for c in attr.children if c.dep_ == "acl" and c.tag_ == "VBG" and c.lemma_ in {"earn", "make"}
    ):
        _earns(acl, [c for c in acl.children if c.dep_ == "dobj"], subject, past, ctx)


_ROUGHLY = frozenset({"under", "over"})


def _earns(verb: Token, dobjs: list[Token], subject: str, past: bool, ctx: _Ctx) -> bool:
    """'I make about $70,000 a year' -> has-salary (and where, `_paid_at`); 'made about 62k last
    year' -> earned: pay as it was (history), not the salary now."""
    if verb.lemma_ not in {"earn", "make"} or any(c.tag_ == "VBG" for c in verb.children):
        return False
    found = False
    # "earn about 45k", "I earn just under 30k": an amount said roughly is the pay
    about = [p for prep in _preps(verb, verb, APPROXIMATORS | _ROUGHLY) for p in _pobjs(prep)]
    for dobj in dobjs + about + _rates_as_clauses(verb):  # "I make $20 an hour tutoring": a side income
        money = _money_value(dobj, ctx) or _rate(dobj)
        if money and not _side_income(verb, dobj):
            _emit(ctx, subject, "earned" if past else "has-salary", money, 0.55, obj_tok=None)
            found = (not past and _paid_at(verb, dobj, subject, ctx)) or True
    return found
