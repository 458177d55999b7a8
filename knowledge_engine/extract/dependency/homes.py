"""Homes and moves: where someone lives, moved from or to, a district inside its city, a home
bought, sold, rented or signed for.
"""

from __future__ import annotations

import re

from spacy.tokens import Doc, Span, Token

from knowledge_engine.extract import home_city, places
from knowledge_engine.extract.dates import MONTHS
from knowledge_engine.extract.dependency.context import _Ctx, _emit, _strip_det
from knowledge_engine.extract.dependency.grammar import (
    _bare_years,
    _is_be,
    _is_irrealis,
    _is_past,
    _is_question,
    _perfect,
    _perfect_or_dropped,
    _pobjs,
    _said_of_mine,
)
from knowledge_engine.extract.dependency.names import _by_me, _my_or_our, _name_of
from knowledge_engine.extract.dependency.nouns import (
    _amount,
    _is_date,
    _is_job,
    _is_kin,
    _name_before_a_stay,
    _organisations,
    _preps,
)
from knowledge_engine.extract.firms import first_name_led
from knowledge_engine.extract.lexicon import (
    DISTRICT_NOUNS,
    FIRST_PERSON_POSS,
    FREQUENCY_WORDS,
    HOLIDAYS,
    HOME_FIND_VERBS,
    HOME_NOUNS,
    MOVE_VERBS,
    OLD_HOME_WORDS,
    SKIP_ENT_LABELS,
    VISIT_WORDS,
)
from knowledge_engine.extract.truecase import COMMON_PLACE_POPULATION
from knowledge_engine.model.predicates import (
    DISTRICT_FACT,
)

_HOME_NOW = frozenset({"lives-in", "moved-to", "moves-to", "is-in", "rents-in", "settled-in"})


def _living_there(sent: Span, ctx: _Ctx) -> None:
    """'Living in Brighton has been great for us', 'Living in Leeds is good for me' -> lives-in (the
    clause as `_said_of_mine` reads it)."""
    if ctx.message.role != "user":
        return
    for living in _said_of_mine(sent, "live"):
        for pobj in (p for prep in _preps(living, living, {"in"}) for p in _pobjs(prep)):
            name = _name_of(pobj, ctx)
            if name and _place_named(pobj, name, ctx):
                _emit(ctx, ctx.me, "lives-in", name, 0.55, obj_tok=pobj, obj_type="location")


def _home_city(sent: Span, before: int, ctx: _Ctx) -> None:
    """'a duplex in Belmont, thats in Dayton', 'in Chorlton, south Manchester' -> the speaker's home
    in the district is also one in the city after it (extract/home_city.py), and the district is-in
    the city (a district of a home never ends the city's: store.facts); 'Dayton's home' -> lives-in."""
    named = {f.object.lower() for f in ctx.out[before:] if f.subject == ctx.me}
    for place in home_city.home_places(sent.text):  # "yeah I'm not moving the kids, Dayton's home"
        ctx.out[before:] = [
            f for f in ctx.out[before:] if (f.subject, f.predicate, f.object) != (place, "is-a", "home")
        ]
        if place.lower() not in named:
            named.add(place.lower())
            _emit(ctx, ctx.me, "lives-in", place, 0.55, obj_tok=None, obj_type="location")
    homes = [f for f in ctx.out[before:] if f.subject == ctx.me and f.predicate in _HOME_NOW and not f.ends]
    text = sent.doc.text
    for home in homes:
        at = text.find(home.object, sent.start_char, sent.end_char)
        city = home_city.city_after(sent.doc, at, at + len(home.object)) if at >= 0 else None
        if city is None or city.text.lower() in named:
            continue
        named.add(city.text.lower())
        _emit(ctx, home.object, *DISTRICT_FACT, 0.5, obj_tok=None, subj_type="location")
        _emit(
            ctx, home.object, "is-in", city.text, 0.5, obj_tok=None, obj_type="location", subj_type="location"
        )
        _emit(ctx, ctx.me, home.predicate, city.text, 0.5, obj_tok=None, obj_type="location")


def _found_home(verb: Token, subject: str, ctx: _Ctx) -> bool:
    """'We've found a house to rent in Leeds', 'found a place in Caboolture', 'bought a flat in
    Leith', 'we completed on the house in Whitby' -> moves-to: a home found or bought is where the
    speaker is moving (a later 'sorry, X not Y' corrects it). True when the clause was read here."""
    signed = verb.lemma_ == "sign"
    completed = verb.lemma_ == "complete"  # "we completed on the house in Whitby": the purchase done
    finding = verb.lemma_ in HOME_FIND_VERBS or signed or completed
    if not finding or ctx.message.role != "user" or _is_irrealis(verb):
        return False
    found = False
    homes = _signed_for(verb) if signed else [(c, c) for c in verb.children if c.dep_ == "dobj"]
    if completed:
        homes = [(p, p) for prep in _preps(verb, verb, {"on"}) for p in _pobjs(prep)]
    homes += [  # "found a house to rent in Leeds": the parser makes the house the subject of "rent"
        (h, comp)
        for comp in verb.children
        if comp.dep_ in {"ccomp", "xcomp"}
        for h in comp.children
        if h.dep_ == "nsubj"
    ]
    for home, clause in ((h, c) for h, c in homes if h.lemma_.lower() in _HOME_OR_LEASE or _rooms_counted(h)):
        heads = [home, verb, clause, *(c for c in home.children if c.dep_ in {"relcl", "acl"})]
        if any(_for_someone(prep) for h in heads for prep in h.children if prep.lower_ == "for"):
            continue  # "I found a flat in Kreuzberg for my sister": hers, not mine
        for pobj in (
            p
            for h in heads
            for prep in h.children
            if prep.dep_ == "prep" and prep.lower_ == "in"
            for p in _pobjs(prep)
        ):
            name = _name_of(pobj, ctx)
            if name:
                _emit(ctx, subject, "moves-to", name, 0.55, obj_tok=pobj, obj_type="location")
                found = True
    return found


_CHOOSE_HOME_VERBS = frozenset({"take", "choose", "pick", "go"})
# A message about homes: the place a choice takes is then a home ("we took Brunswick, $560 a week")
_HOUSING_TALK = re.compile(
    r"\b(?:rent|rents|rented|rental|rentals|lease|landlord|letting agent|tenancy|inspections?|viewings?|"
    r"flats?|houses?|apartments?|units?|townhouses?|bedroom|bed|courtyard|deposit|bond|mortgage|"
    r"a week|a month|pcm|pw|per week|per month)\b",
    re.I,
)


def _chose_home(verb: Token, subject: str, ctx: _Ctx) -> bool:
    """'In the end we took Brunswick, $560 a week', 'we went with the Brunswick one', "we're going with
    Coburg": in a message about homes, the place chosen (not a person's first name) is where the
    speaker is moving. True when the clause was read here."""
    if verb.lemma_ not in _CHOOSE_HOME_VERBS or ctx.message.role != "user" or _is_irrealis(verb):
        return False
    if not (_is_past(verb) or (verb.lemma_ == "go" and verb.tag_ == "VBG")):
        return False
    if not _HOUSING_TALK.search(ctx.message.text):
        return False
    if _preps(verb, verb, {"for"}):
        return False  # "we went with Acme for the house insurance": a service chosen
    objs = (
        [p for prep in _preps(verb, verb, {"with"}) for p in _pobjs(prep)]
        if verb.lemma_ == "go"
        else [c for c in verb.children if c.dep_ == "dobj"]
    )
    found = False
    for obj in objs:
        place = obj if obj.pos_ == "PROPN" else None
        if place is None and obj.lemma_.lower() in HOME_NOUNS | {"one"}:  # "the Brunswick townhouse"
            place = next((c for c in obj.children if c.dep_ == "compound" and c.pos_ == "PROPN"), None)
        name = _name_of(place, ctx) if place is not None else None
        if place is None or name is None or first_name_led(name):
            continue
        name = name.removesuffix(" one")  # "the Brunswick one"
        ent = ctx.ents.get(place.i)
        if not (_place_named(place, name, ctx) or (ent is not None and ent.label_ in {"FAC", "PERSON"})):
            continue  # a name the model and the gazetteer know as no place: a firm, a team
        _emit(ctx, subject, "moves-to", name, 0.55, obj_tok=place, obj_type="location")
        _rent_beside(obj, subject, ctx)
        found = True
    return found


_RENT_UNITS = frozenset({("a", "week"), ("a", "month"), ("per", "week"), ("per", "month")})


def _rent_beside(home: Token, subject: str, ctx: _Ctx) -> None:
    """'we took Brunswick, $560 a week': the amount a week or a month set beside the home chosen."""
    for amount in (c for c in home.children if c.dep_ == "appos" and c.like_num):
        after = tuple(t.lower_ for t in amount.doc[amount.i + 1 : amount.i + 3])
        if after in _RENT_UNITS or after[:1] == ("pcm",):
            value = _amount(amount)
            if value:
                _emit(ctx, subject, "has-rent", value, 0.5, obj_tok=None)


_LEASE_NOUNS = frozenset({"lease", "tenancy", "rental"})


_HOME_OR_LEASE = frozenset(HOME_NOUNS) | _LEASE_NOUNS


def _signed_for(verb: Token) -> list[tuple[Token, Token]]:
    """'signed for a flat in Shoreditch', 'signed a lease on a flat in X', 'signed a lease in Hyde
    Park': a lease signed is a home the signer is moving to (the lease stands for the home)."""
    leases = [c for c in verb.children if c.dep_ == "dobj" and c.lemma_.lower() in _LEASE_NOUNS]
    held = [
        p
        for h in (verb, *leases)
        for prep in h.children
        if prep.dep_ == "prep" and prep.lower_ in {"for", "on"}
        for p in _pobjs(prep)
        if p.lower_ in HOME_NOUNS or p.lemma_.lower() in HOME_NOUNS or _rooms_counted(p)
    ]
    return [(home, verb) for home in held] or [(lease, verb) for lease in leases]


def _home_it(sent: Span, ctx: _Ctx) -> None:
    """'We've found a house to rent in Leeds! It's in Headingley' -> moves-to Headingley; 'Our new
    flat is lovely. It's in Altona.' -> lives-in Altona: "it" is the home the message spoke of
    before (found or bought: where the speaker is moving; theirs now: where they live)."""
    root = sent.root
    if not _is_be(root) or root.tag_ == "VBD" or _is_irrealis(root):
        return
    if not any(c.dep_ == "nsubj" and c.lower_ == "it" for c in root.children):
        return
    predicate = _home_before(sent.doc[: sent.start])
    if predicate is None:
        return
    ins = [c for c in root.children if c.dep_ == "prep" and c.lower_ == "in"]
    for pobj in (p for prep in ins for p in _pobjs(prep)):
        ent = ctx.ents.get(pobj.i)
        name = _name_of(pobj, ctx) if ent is None or ent.label_ in {"GPE", "LOC", "FAC"} else None
        if name and pobj.pos_ == "PROPN":
            _emit(ctx, ctx.me, predicate, name, 0.55, obj_tok=pobj, obj_type="location")


def _home_ours(sent: Span, ctx: _Ctx) -> None:
    """'The Norbury house is ours since the 25th July', 'the Leith flat is finally ours' -> lives-in the
    place the home is named by: a home said to be the speaker's now."""
    if ctx.message.role != "user":
        return
    for home in (t for t in sent if t.dep_ == "nsubj" and t.lemma_.lower() in HOME_NOUNS):
        verb = home.head
        ours = any(c.dep_ in {"acomp", "attr"} and c.lower_ in {"ours", "mine"} for c in verb.children)
        if not ours or not _is_be(verb) or verb.tag_ == "VBD" or _is_irrealis(verb):
            continue
        for place in (c for c in home.children if c.dep_ == "compound" and c.pos_ == "PROPN"):
            name = _name_of(place, ctx)
            ent = ctx.ents.get(place.i)
            if name and (ent is None or ent.label_ in {"GPE", "LOC", "FAC"}):
                _emit(ctx, ctx.me, "lives-in", name, 0.55, obj_tok=place, obj_type="location")


def _home_of_mine(sent: Span, first: int, ctx: _Ctx) -> None:
    """'rent is R9,500 for my place in melville', 'our house in Clontarf needs a roof', '$1,150 for a
    3 bedroom duplex in Belmont', "I'm paying 1,100 a month for a studio in Hackney" (a rent line: the
    word or a rent the sentence gave from `first` on), "we're in a flat in Leith", 'still in the same flat in
    Clapham', 'the new flat in Clifton' -> lives-in the place: the speaker's home is there.
    Not an old or second home ('my old flat in Leith', 'our holiday cottage in Kerry'), nor
    another's ('my sister's flat'), nor in a plan or a question."""
    rent_line = any(t.lemma_.lower() in {"rent", "mortgage"} for t in sent) and any(
        t.like_num or t.ent_type_ == "MONEY" for t in sent
    )
    rent_line = rent_line or any(f.predicate == "has-rent" and f.subject == ctx.me for f in ctx.out[first:])
    said = {f.object for f in ctx.out if f.subject == ctx.me and f.predicate != "is-in"}
    homes = HOME_NOUNS | {"duplex", "townhouse", "semi"} | _AROUND_HOME
    for home in (t for t in sent if t.lemma_.lower() in homes or _rooms_counted(t) or _rent_of_mine(t)):
        _place_before_home(home, said, ctx)
        owners = {c.lower_ for c in home.children if c.dep_ == "poss"}
        ours = rent_line or _we_are_in(home) or _the_new_home(home)
        mine = owners & {"my", "our"} or (not owners and ours)
        around = home.lemma_.lower() in _AROUND_HOME  # whose "won't" is about them, not the home
        if _past_home(home) or not mine or (_is_irrealis(home.head) and not around):
            continue
        # "my neighbours in Gateshead are lovely", "our landlord in Leith won't fix the boiler"; not "our
        # neighbours in Spain were lovely"
        if around and (home.dep_ != "nsubj" or _is_past(home.head) or home.head.tag_ == "VBD"):
            continue
        after = home.right_edge.i + 1  # "rent is £900 for my flat in Leith": "in" hangs on "is"
        ins = [c for c in home.children if c.lower_ == "in"]
        ins += [sent.doc[after]] if after < sent.end and sent.doc[after].lower_ == "in" else []
        for pobj in (p for prep in ins for p in _pobjs(prep)):
            ent = ctx.ents.get(pobj.i)  # a home is "in" a place, whatever the tag ("my flat in Hackney": ORG)
            name = _name_of(pobj, ctx) if ent is None or ent.label_ in _HOME_PLACE_TAGS else None
            name = name if pobj.pos_ == "PROPN" else _lowercase_place(pobj, ctx)
            if name and name not in said and not _home_not_a_stay(name, ctx):  # "moved into our flat in X"
                _emit(ctx, ctx.me, "lives-in", name, 0.55, obj_tok=pobj, obj_type="location")


# "we're Leeds based", "I'm London-based": the speaker's base now, by the place's name before "based"
_PLACE_BASED = re.compile(
    r"(?:\b(?:I['’]?m|I am|we['’]re|we are)\s+(?:now\s+|currently\s+|still\s+)?"  # not "we were"
    r"([A-Z][\w'’]+(?:\s[A-Z][\w'’]+)?)[-\s]based\b"
    # a line that opens with it, alone before a stop: "Leeds based, 35k" (not "London based company")
    r"|^\s*([A-Z][\w'’]+(?:\s[A-Z][\w'’]+)?)[-\s]based\s*(?:[,.;:!]|$))",
    re.IGNORECASE,
)


def _place_based(sent: Span, ctx: _Ctx) -> None:
    """ "we're Leeds based", "I'm London-based but work remotely", "Leeds based, 35k" -> is-based-in: a
    place a gazetteer knows or the model tags one (not "I'm plant based": no place)."""
    if ctx.message.role != "user":
        return
    for m in _PLACE_BASED.finditer(sent.text):
        group = 1 if m.group(1) else 2
        name = m.group(group)
        span = sent.doc.char_span(sent.start_char + m.start(group), sent.start_char + m.end(group))
        tagged = span is not None and any(t.ent_type_ in {"GPE", "LOC"} for t in span)
        if name[:1].isupper() and (tagged or places.fold(name) in places.places()):
            _emit(ctx, ctx.me, "is-based-in", name, 0.55, obj_tok=None, obj_type="location")


def _ours_in(sent: Span, ctx: _Ctx) -> None:
    """'about 40 mins from ours in Horsforth', 'come round to ours in Hove': British chat's "ours" is
    the speaker's home, and the place after its "in" is where they live."""
    if ctx.message.role != "user":
        return
    doc = sent.doc
    for tok in (t for t in sent if t.lower_ == "ours" and t.i + 2 < sent.end and doc[t.i + 1].lower_ == "in"):
        place = doc[tok.i + 2]
        name = _name_of(place, ctx) if place.pos_ == "PROPN" else _lowercase_place(place, ctx)
        if name and not _is_date(place, ctx) and _place_named(place, name, ctx):
            _emit(ctx, ctx.me, "lives-in", name, 0.5, obj_tok=None, obj_type="location")


def _commute_from(sent: Span, ctx: _Ctx) -> None:
    """'the commute from Chippenham', 'my commute from York is killing me', 'I commute from Newport'
    -> lives-in: one commutes from home. Only a place ("the commute from work" names none), not
    another's ("his commute from Leeds"), a plan or a past one."""
    for commute in (t for t in sent if t.lemma_.lower() == "commute"):
        if commute.pos_ == "VERB":
            # "I used to commute from Bath", "he wants to commute from X": an xcomp's subject is elsewhere
            mine = _by_me(commute, ctx) and commute.dep_ != "xcomp" and not _is_past(commute)
            mine = mine and not _is_irrealis(commute)
        else:
            owners = {c.lower_ for c in commute.children if c.dep_ == "poss"}
            dets = {c.lower_ for c in commute.children if c.dep_ == "det"}
            mine = ctx.message.role == "user" and owners <= {"my", "our"} and dets <= {"the"}
            mine = mine and not _is_irrealis(commute.head) and not _is_past(commute.head)
        if not mine:
            continue
        for pobj in (p for prep in commute.children if prep.lower_ == "from" for p in _pobjs(prep)):
            name = _name_of(pobj, ctx) if pobj.pos_ == "PROPN" else None
            if name and _place_named(pobj, name, ctx):  # by its tag or the gazetteer ("Newport": ORG)
                _emit(ctx, ctx.me, "lives-in", name, 0.5, obj_tok=pobj, obj_type="location")


def _rooms_counted(tok: Token) -> bool:
    """'a one bed in Clapham', 'our 2-bed in Didsbury', 'a two bedroom in Leith': a home told by its
    bedrooms (a count on "bed", so not "in bed")."""
    counted = any(c.dep_ == "nummod" for c in tok.children)
    return counted and tok.lemma_.lower() in {"bed", "bedroom", "bedder"}


def _rent_of_mine(tok: Token) -> bool:
    """'our rent in Brixton went up': the speaker's rent (or mortgage) is paid where they live."""
    mine = any(c.dep_ == "poss" and c.lower_ in {"my", "our"} for c in tok.children)
    return mine and tok.lemma_.lower() in {"rent", "mortgage"} and tok.pos_ == "NOUN"


def _place_before_home(home: Token, said: set[str], ctx: _Ctx) -> None:
    """'the rent for our Footscray flat', 'my Leeds flat': a place named right before the speaker's
    home noun (the small model may make the place the noun and "flat" an adjective). Only a known
    place: "our Barratt house" names its builder."""
    doc, k = home.doc, home.i
    while k > 0 and doc[k - 1].pos_ == "PROPN":
        k -= 1
    if k == home.i or k == 0 or doc[k - 1].lower_ not in {"my", "our"}:
        return
    if _past_home(home) or _is_irrealis(home.head):
        return
    words = doc[k : home.i]
    name = words.text
    tagged = any((ent := ctx.ents.get(t.i)) is not None and ent.label_ in {"GPE", "LOC"} for t in words)
    if name in said or not (tagged or places.fold(name) in places.places()):
        return
    _emit(ctx, ctx.me, "lives-in", name, 0.5, obj_tok=words.root, obj_type="location")


_HOME_PLACE_TAGS = frozenset({"GPE", "LOC", "FAC", "ORG", "PERSON", "NORP"})
# What is around one's home, said now with "my"/"our": "our street in Hove is so noisy"
# "my landlord in Leith allows pets": who is where one's home is, said in the present
_AROUND_HOME = frozenset(
    {"neighbour", "neighbor", "street", "neighbourhood", "neighborhood", "landlord", "landlady"}
)


def _home_not_a_stay(place: str, ctx: _Ctx) -> bool:
    """ "We're in a flat in Leith": the clause read "is-in Leith" (a stay); the flat makes it the home,
    so that fact becomes lives-in in its place (the list's length unchanged for the rules' marks)."""
    found = False
    for i, fact in enumerate(ctx.out):
        if (fact.subject, fact.predicate, fact.object) == (ctx.me, "is-in", place):
            ctx.out[i] = fact.model_copy(update={"predicate": "lives-in"})
            found = True
    return found


def _the_new_home(home: Token) -> bool:
    """ "The new flat in Clifton is lovely", "settled into the new place in Roath": "the new" home in
    the speaker's chat is theirs (not "the new flat we viewed", "the new flats in Leith": others)."""
    kids = list(home.children)
    the = any(c.dep_ == "det" and c.lower_ == "the" for c in kids)
    new = any(c.lower_ == "new" for c in kids)
    return the and new and home.tag_ == "NN" and not any(c.dep_ in {"relcl", "acl"} for c in kids)


def _we_are_in(home: Token) -> bool:
    """The speaker is in the home now: "we're in a flat in Leith" (a present "am"/"are" with I or we),
    or a line with no verb that says so ("Still in the same flat in Clapham")."""
    prep = home.head
    if home.dep_ != "pobj" or prep.lower_ != "in":
        return False
    if prep.dep_ == "ROOT":
        return True
    verb = prep.head
    subj = next((c for c in verb.children if c.dep_ == "nsubj"), None)
    present = _is_be(verb) and verb.tag_ in {"VBP", "VBZ"}
    return present and subj is not None and subj.lower_ in {"i", "we"}


def _lowercase_place(tok: Token, ctx: _Ctx) -> str | None:
    """'my place in melville', 'our flat in cape town': after a home "in", a lower-case place the
    gazetteer knows (the truecaser leaves "melville" alone: WordNet lists it, and the town is small).
    Not "in town" (no gazetteer place), "in the union" (a determiner), "in march" (a date)."""
    if not tok.is_lower or any(c.dep_ in {"det", "poss", "amod"} for c in tok.children) or _is_date(tok, ctx):
        return None
    start = min([tok.i, *(c.i for c in tok.children if c.dep_ == "compound" and c.is_lower)])
    words = tok.doc[start : tok.i + 1].text
    return " ".join(w.capitalize() for w in words.split()) if places.fold(words) in places.places() else None


def _home_before(span: Span) -> str | None:
    """The predicate for a home an earlier part of the message spoke of: found or bought ("found a
    house", "found a house to rent") -> moves-to; the speaker's own now ("our new flat") -> lives-in."""
    for tok in (t for t in span if t.lemma_.lower() in HOME_NOUNS):
        verb = tok.head.head if tok.dep_ == "nsubj" and tok.head.dep_ in {"ccomp", "xcomp"} else tok.head
        finders = {c.lower_ for c in verb.children if c.dep_ == "nsubj"}
        if tok.dep_ in {"dobj", "nsubj"} and verb.lemma_ in HOME_FIND_VERBS and not _is_irrealis(verb):
            return "moves-to" if finders <= {"i", "we"} else None  # not "my sister found a flat"
        if _my_or_our(tok) and not _past_home(tok):
            return "lives-in"
    return None


def _past_home(home: Token) -> bool:
    """'our old flat', 'my last place', 'the holiday cottage': a home that says nothing of now; 'I miss
    our flat in Leeds', 'we sold our Leeds flat': one left."""
    return any(c.lower_ in OLD_HOME_WORDS for c in home.children) or home.head.lemma_ in _LEFT_HOME_VERBS


_LEFT_HOME_VERBS = frozenset({"miss", "sell", "leave", "vacate"})


def _for_someone(prep: Token) -> bool:
    """'for my sister', 'for Mum', 'for them': a beneficiary, not a price or a duration."""
    return any(
        p.pos_ in {"PROPN", "PRON"} or _is_kin(p) or any(c.dep_ == "poss" for c in p.children)
        for p in _pobjs(prep)
    )


def _moved(verb: Token, subjects: list[str], ctx: _Ctx) -> bool:
    """'we moved last month, now in Bristol' -> lives-in Bristol; 'we moved!!' keeps the mover for
    the next sentence ('hamburg altona.', 'now in Leeds'). True when the clause was read here."""
    done = _is_past(verb) or _perfect(verb)
    if _is_irrealis(verb) or not done or ctx.me not in subjects:  # "we moved", "we've moved"
        return False
    preps = [c for c in verb.children if c.dep_ == "prep"]
    back = [c for p in verb.children if p.dep_ in {"advmod", "prt"} and p.lower_ in {"back", "up", "down"}
            for c in p.children if c.dep_ == "prep"]  # fmt: skip  # "moved back to my childhood home in X"
    for prep in (p for p in [*preps, *back] if p.lower_ in {"into", "to"}):  # "moved into a flat in Gràcia"
        for home in (t for t in _pobjs(prep) if t.lemma_.lower() in HOME_NOUNS):
            for pobj in (p for inner in _preps(home, verb, {"in"}) for p in _pobjs(inner)):
                name = _name_of(pobj, ctx) or _tagged_place(pobj, ctx)  # "in Worthing" tagged a verb
                if name:
                    _emit(ctx, ctx.me, "moved-to", name, 0.6, obj_tok=pobj)
                    return True
    if _moved_out(verb, preps, ctx):
        _now_in(preps, ctx)  # "moved out of my parents place in phoenix, now in tempe"
        return True
    if any(c.dep_ == "dobj" for c in verb.children) or any(p.lower_ not in {"in"} for p in preps):
        return False
    found = _now_in(preps, ctx)
    if not preps and not any(c.dep_ == "prt" for c in verb.children):
        ctx.moved = ctx.me
    return found


def _now_in(preps: list[Token], ctx: _Ctx) -> bool:
    """'moved, now in X': the parser hangs "in X" on the move -> lives-in X."""
    found = False
    for prep in (p for p in preps if p.lower_ == "in"):
        if prep.i > 0 and prep.doc[prep.i - 1].lower_ in {"now", "currently"}:
            for pobj in _pobjs(prep):
                name = _name_of(pobj, ctx)
                if name:
                    _emit(ctx, ctx.me, "lives-in", name, 0.6, obj_tok=pobj)
                    found = True
    return found


def _districts(sent: Span, ctx: _Ctx) -> None:
    """'Kreuzberg is a lively area', 'Clifton, a suburb of Bristol', 'Headingley is part of Leeds',
    'the Kreuzberg district' -> X is-a district (and X is-in Y when the city is named): a home there
    stays beside the home city (store.facts)."""
    for noun in (t for t in sent if t.lemma_.lower() in DISTRICT_NOUNS or t.lower_ == "part"):
        place = _district_place(noun)
        name = _name_of(place, ctx) if place is not None else None
        ent = ctx.ents.get(place.i) if place is not None else None
        if not name or (ent is not None and ent.label_ in SKIP_ENT_LABELS):
            continue  # a PERSON label is the small model's guess: no person is "a lively area"
        if noun.lemma_.lower() == "area" and ent is not None and ent.label_ == "GPE":
            continue  # "Leeds is a great area for families": a city the tagger knows, not a district
        if noun.lower_ != "part":
            _emit(ctx, name, *DISTRICT_FACT, 0.6, obj_tok=None, subj_type="location")
        for city in (p for prep in _preps(noun, noun, {"of", "in"}) for p in _pobjs(prep)):
            city_name = _name_of(city, ctx) or _tagged_place(city, ctx)
            if city_name:
                _emit(
                    ctx,
                    name,
                    "is-in",
                    city_name,
                    0.6,
                    obj_tok=city,
                    obj_type="location",
                    subj_type="location",
                )


def _tagged_place(tok: Token, ctx: _Ctx) -> str | None:
    """A capitalised place the tagger called a common noun ("part of Leeds"): its GPE/LOC span."""
    ent = ctx.ents.get(tok.i)
    return ent.text if ent is not None and ent.label_ in {"GPE", "LOC"} and tok.text[:1].isupper() else None


def _district_place(noun: Token) -> Token | None:
    """The named place a district noun describes: copular subject, apposition head or compound."""
    if noun.dep_ == "attr" and noun.head.lemma_ == "be":
        subj = next((c for c in noun.head.children if c.dep_ == "nsubj"), None)
        return subj if subj is not None and subj.pos_ == "PROPN" else None
    if noun.dep_ == "appos" and noun.head.pos_ == "PROPN":
        return noun.head
    if noun.lower_ != "part" and noun.tag_ == "NN" and any(c.lower_ == "the" for c in noun.children):
        # "the Kreuzberg district"; not "most Colorado districts" (school districts of a state)
        return next((c for c in noun.children if c.dep_ == "compound" and c.pos_ == "PROPN"), None)
    return None


def _moved_out(verb: Token, preps: list[Token], ctx: _Ctx) -> bool:
    """'we moved out of Lisbon', 'moved away from Leeds': the home there ended (moved-out-of)."""
    inner = [
        q for p in preps if p.lower_ == "out" for q in p.children if q.dep_ == "prep" and q.lower_ == "of"
    ]
    away = [c for c in verb.children if c.dep_ == "advmod" and c.lower_ == "away"]
    inner += [q for a in away for q in a.children if q.dep_ == "prep" and q.lower_ == "from"]
    left = [p for prep in inner for p in _pobjs(prep)]
    # "moved out of my flat in Leeds", "out of my parents place in phoenix": the home's place
    left += [
        q
        for h in left
        if h.lemma_.lower() in HOME_NOUNS
        for inn in _preps(h, verb, {"in"})
        if inn.i == h.right_edge.i + 1 or inn.head.i == h.i  # not "..., now in tempe"
        for q in _pobjs(inn)
    ]
    names = [(name, p) for p in left if (name := _name_of(p, ctx))]
    for name, pobj in names:
        _emit(ctx, ctx.me, "moved-out-of", name, 0.6, obj_tok=pobj)
    return bool(names)


def _transferred(verb: Token, dobjs: list[Token], subject: str, past: bool, ctx: _Ctx) -> bool:
    """'Hubby Manoj got transfer to Bhubaneswar, so we are relocating', 'I got transferred to Glasgow'
    -> moves-to: a job transfer to a town is a move there (the speaker's too when "we" relocate or
    move in the same sentence). Not "asked for a transfer", not "a transfer to the accounts team"."""
    got = verb.lemma_ in {"get", "receive"} and any(d.lemma_.lower() == "transfer" for d in dobjs)
    passive = verb.lemma_ == "transfer" and any(c.dep_ in {"auxpass", "nsubjpass"} for c in verb.children)
    if not (got or passive) or _is_irrealis(verb):
        return False
    holders = [verb, *(d for d in dobjs if d.lemma_.lower() == "transfer")]
    towns = [p for h in holders for prep in _preps(h, h, {"to"}) for p in _pobjs(prep) if p.pos_ == "PROPN"]
    movers = [subject]
    if (
        subject != ctx.me
        and any(t.lower_ == "we" for t in verb.sent)
        and any(t.lemma_ in {"relocate", "move", "shift"} for t in verb.sent if t.pos_ == "VERB")
    ):
        movers.append(ctx.me)  # "..., so we are relocating in May"
    found = False
    for town in towns:
        name = _name_of(town, ctx)
        if name and places.fold(name) in places.places():
            for mover in movers:  # "I got transferred to Glasgow last month": moved
                pred = "moved-to" if passive and past else "moves-to"
                _emit(ctx, mover, pred, name, 0.5, obj_tok=None, obj_type="location")
            found = True
    return found


def _place_named(tok: Token, name: str, ctx: _Ctx) -> bool:
    """A place by the model's tag or the gazetteer (the model tags many towns a person; it may tag only
    the first word of "Kentish Town")."""
    words = [tok, *(c for c in tok.children if c.dep_ == "compound" and c.pos_ == "PROPN")]
    tagged = any((ent := ctx.ents.get(t.i)) is not None and ent.label_ in {"GPE", "LOC"} for t in words)
    return tagged or places.fold(name) in places.places()


def _living_as(attr: Token, subject: str, past: bool, ctx: _Ctx) -> None:
    """'I am a retired police sergeant living in Truro', "we're a family of four living in Swindon",
    "I'm a nurse who lives in Hull", "I'm a quantity surveyor in Leeds": where the one said to be
    someone lives (a title "in" a named place too: where one lives and works; not "a nurse in A&E")."""
    lived = [t for t in attr.subtree if t.lemma_ == "live" and t.pos_ == "VERB" and t.dep_ in _LIVING_DEPS]
    homes = [
        (p, False)
        for v in lived
        if not _is_irrealis(v)
        for prep in _preps(v, v, {"in"})
        for p in _pobjs(prep)
    ]
    if _is_job(attr):  # a title's "in" may be a ward or a team ("a nurse in A&E"): a town the gazetteer knows
        homes += [(p, True) for prep in _preps(attr, attr, {"in"}) for p in _pobjs(prep) if p.pos_ == "PROPN"]
    for place, known in homes:
        name = _name_of(place, ctx)
        if not name or _is_date(place, ctx):
            continue
        if places.fold(name) in places.places() if known else _place_named(place, name, ctx):
            pred = "lived-in" if past else "lives-in"
            _emit(ctx, subject, pred, name, 0.45, obj_tok=None, obj_type="location")


_LIVING_DEPS = frozenset({"acl", "relcl", "pobj"})  # "a nurse living in", "who lives in", "of four living in"


def _home_with(verb: Token, subject: str, past: bool, ctx: _Ctx) -> None:
    """'I live with my boyfriend Marco in Bath', "I'm living with my parents in Swindon": the parse
    hangs the place on the people lived with; it is where the subject lives."""
    if verb.lemma_ != "live" or _is_irrealis(verb):
        return
    mates = [p for prep in _preps(verb, verb, {"with"}) for p in _pobjs(prep)]
    mates += [c for m in mates for c in m.children if c.dep_ == "appos"]  # "my boyfriend Marco in Bath"
    for mate in mates:
        for place in (p for prep in _preps(mate, mate, {"in"}) for p in _pobjs(prep)):
            ent = ctx.ents.get(place.i)
            name = _name_of(place, ctx)
            if name and (ent is None or ent.label_ in {"GPE", "LOC", "FAC"}):
                pred = "lived-in" if past else "lives-in"
                _emit(ctx, subject, pred, name, 0.55, obj_tok=place, obj_type="location")


def _sold_home(verb: Token, subject: str, past: bool, ctx: _Ctx) -> None:
    """'We sold the flat in Hackney': the home there is left (lived-in, an ending of the home)."""
    if verb.lemma_ != "sell" or not past or subject != ctx.me or _is_irrealis(verb):
        return
    for home in (c for c in verb.children if c.dep_ == "dobj" and c.lemma_.lower() in HOME_NOUNS):
        if any(c.dep_ == "poss" and c.lower_ not in FIRST_PERSON_POSS | {"our"} for c in home.children):
            continue  # "we sold my mum's house in Leeds": hers; "we sold our house in Croydon": ours
        for pobj in (p for prep in _preps(home, verb, {"in"}) for p in _pobjs(prep)):
            name = _name_of(pobj, ctx)  # a home's "in" names a place, whatever the model's tag
            if name and not _is_date(pobj, ctx):
                _emit(ctx, subject, "lived-in", name, 0.55, obj_tok=None, obj_type="location", ends=True)


def _job_move(preps: list[Token], ctx: _Ctx) -> bool:
    """'I moved from Barclays to HSBC': a move from one organisation to another is a new job. Both
    ends named, both tagged organisations, and neither a place the gazetteer knows."""
    ends = {p.lower_: list(_pobjs(p)) for p in preps if p.lower_ in {"from", "to"}}
    if set(ends) != {"from", "to"}:
        return False
    return _organisations([o for group in ends.values() for o in group], ctx)


def _home_place(home: Token, ctx: _Ctx) -> tuple[Token, str] | None:
    """The named place a home said by its kind is in ("a coloc in X", "a small town in Ohio"; "a flat in
    Leith" with "flat" tagged an adjective)."""
    if home.pos_ != "NOUN" and home.lemma_.lower() not in HOME_NOUNS:
        return None
    ins = [prep for prep in home.children if prep.dep_ == "prep" and prep.lower_ == "in"]
    for pobj in (p for prep in ins for p in _pobjs(prep)):
        name = _name_of(pobj, ctx)
        if name:
            return pobj, name
    return None


def _since_moving(sent: Span, ctx: _Ctx) -> None:
    """ "I'm so lonely since moving to Phoenix", 'after moving to Leeds we ...' -> moved-to: the move
    the speaker's clause dates itself from happened."""
    for move in (t for t in sent if t.dep_ == "pcomp" and t.tag_ == "VBG" and t.lemma_ in MOVE_VERBS):
        prep = move.head
        if prep.lower_ not in {"since", "after"} or not _by_me(prep.head, ctx) or _is_irrealis(prep.head):
            continue
        for pobj in (p for to in _preps(move, move, {"to"}) for p in _pobjs(to)):
            name = _name_of(pobj, ctx)
            ent = ctx.ents.get(pobj.i)  # "Since moving to Bristol": the model may tag the city a firm
            if name and (ent is None or _place_named(pobj, name, ctx)):
                _emit(ctx, ctx.me, "moved-to", name, 0.55, obj_tok=None, obj_type="location")


def _the_move(sent: Span, ctx: _Ctx, own_only: bool = False) -> None:
    """'a packing list for the move to Edinburgh on the 20th', 'terrified about our move to Toronto
    next month' -> moves-to (after "since"/"after": moved-to). "The move" in a user's turn is the
    speaker's when it is theirs ("our", "my") or dated (a plan without a date stays a plan). In a
    question (`own_only`) only "my"/"our" move: the question asks about a move already planned."""
    for move in (t for t in sent if t.lemma_.lower() == "move" and t.pos_ == "NOUN"):
        dets = {c.lower_ for c in move.children if c.dep_ in {"det", "poss"}}
        dated = any(ctx.ents.get(t.i) is not None and ctx.ents[t.i].label_ == "DATE" for t in move.subtree)
        done = move.dep_ == "pobj" and move.head.lower_ in {"since", "after"}
        the_dated = "the" in dets and (dated or done) and not own_only
        # in a question the modal is the asking's ("Can you help me plan my move to Leeds?")
        if not (dets & {"our", "my"} or the_dated) or (_is_irrealis(move.head) and not own_only):
            continue
        for pobj in (p for to in _preps(move, move, {"to"}) for p in _pobjs(to)):
            home = _home_place(pobj, ctx) if pobj.lemma_.lower() in HOME_NOUNS else None  # "my in-laws' place
            tok, name = home if home is not None else (pobj, _name_of(pobj, ctx))  # in Reading"
            ent = ctx.ents.get(tok.i)
            known = name is not None and places.fold(name) in places.places()  # "Bristol", tagged ORG
            if name and (ent is None or ent.label_ in {"GPE", "LOC"} or known):
                pred = "moved-to" if done else "moves-to"
                _emit(ctx, ctx.me, pred, name, 0.55, obj_tok=None, obj_type="location")


def _moved_here(sent: Span, ctx: _Ctx) -> None:
    """'What's fun in Lyon? We only moved here in March' -> moved-to Lyon: "here" is the one place
    the message names, in another sentence (two or more places, or one in the same sentence: nothing)."""
    for verb in (t for t in sent if t.lemma_ in MOVE_VERBS | {"live"} and t.pos_ == "VERB"):
        here = any(c.dep_ == "advmod" and c.lower_ == "here" for c in verb.children)
        if not here or not _by_me(verb, ctx) or _is_irrealis(verb):
            continue
        named = {_strip_det(e) for e in ctx.ents.values() if e.label_ == "GPE"} | _big_places(sent.doc)
        if len(named) != 1 or any(n in sent.text for n in named):
            continue  # "born and raised in Gdansk, moved here at 19": the clause's own place is another
        place = named.pop()
        done = _is_past(verb) or _perfect(verb)
        pred = "lives-in" if verb.lemma_ == "live" else "moved-to" if done else "moves-to"
        _emit(ctx, ctx.me, pred, place, 0.55, obj_tok=None, obj_type="location")


def _big_places(doc: Doc) -> set[str]:
    """Capitalised words of a message the gazetteer knows as big places (the model calls "Lyon" a
    person)."""
    known = places.places()
    found = {t.text for t in doc if t.pos_ == "PROPN" and t.is_title}
    return {w for w in found if known.get(places.fold(w), 0) >= COMMON_PLACE_POPULATION}


def _here_in(here: Token, ctx: _Ctx) -> None:
    """'here in Cape Town we pay R14,000 a month', "I am ICU staff nurse here in Dubai", "the weather
    here in Glasgow is grim", "Rachel's staying here in Austin": the place the speaker says "here" of
    is home, unless the clause is the speaker's past, weighed, asked or a visit (a trip's words
    anywhere in the sentence: "the food here in Rome is amazing, best holiday ever")."""
    verb = here.head
    while verb.pos_ not in {"VERB", "AUX"} and verb.dep_ != "ROOT":
        verb = verb.head
    subj = next((c for c in verb.children if c.dep_ == "nsubj"), None)
    mine = subj is not None and subj.lower_ in {"i", "we"}
    if (mine and _is_past(verb)) or _is_irrealis(verb) or _is_question(here.sent):
        return
    trip = {"visit", "visiting", "holiday", "hols", "trip", "conference", "vacation", "business"}
    if any(t.lemma_.lower() in trip for t in here.sent):
        return
    # "I'm here in Leeds today", "here for the weekend": a stay (not "it's been raining all week")
    stay = {"week", "weekend", "night", "day", "days"} | VISIT_WORDS
    if any(t.lower_ in stay and (mine or t.head.lower_ == "for") for t in here.sent):
        return
    for pobj in (p for prep in _preps(here, here, {"in"}) for p in _pobjs(prep)):
        name = _name_of(pobj, ctx)
        if name and _place_named(pobj, name, ctx):
            _emit(ctx, ctx.me, "lives-in", name, 0.55, obj_tok=pobj, obj_type="location")


def _visit_words(prep: Token) -> bool:
    """The clause says when one is there: 'at Tesco right now', 'at the Hilton tonight'; how often
    ("at Little Acorns Nursery 3 days a week", "every weekend") is a routine, no visit."""
    return any(t.lower_ in VISIT_WORDS and not _how_often(t) for t in prep.head.subtree)


def _how_often(word: Token) -> bool:
    """'a week', 'per week', 'every weekend': a frequency."""
    return any(c.lower_ in FREQUENCY_WORDS for c in word.children) or word.head.lower_ == "per"


def _a_visit(prep: Token) -> bool:
    """'I'm at the Hilton for a conference all week', 'at Tesco right now': a stay, not a place of
    one's own (the clause names a time of visit or an event one is there for)."""
    events = {"conference", "meeting", "wedding", "party", "course", "interview", "appointment", "gig"}
    return _visit_words(prep) or any(
        t.lemma_.lower() in events and t.head.lower_ == "for" for t in prep.head.subtree
    )


def _lived_in(prep: Token, pobj: Token, be: str, ctx: _Ctx) -> bool:
    """Present perfect 'have been in <place> for N years / since X': where one lives."""
    name = _name_of(pobj, ctx)  # a place by the model's tag or the gazetteer ("Cardiff" is tagged anything)
    if be != "is" or prep.lower_ != "in" or name is None or not _place_named(pobj, name, ctx):
        return False
    return _stayed(prep, pobj) or _in_now_after_a_move(prep) or _months_in_now(prep)


def _months_in_now(prep: Token) -> bool:
    """ "We're in Leeds 3 months now", "I'm in Bristol two years now": in a place, present, for a count
    of months or years up to now (not "in London for 3 months": a stay set, nor weeks: a trip)."""
    verb = prep.head
    now = any(c.dep_ == "advmod" and c.lower_ in {"now", "already"} for c in verb.children)
    return now and _is_be(verb) and verb.tag_ in {"VBP", "VBZ"} and _bare_years(verb)


def _back_in(back: Token, subject: str, ctx: _Ctx) -> None:
    """'I'm back in Cardiff for good', 'we're back in Leeds now' -> lives-in: back in a town is home
    again, unless the clause says a visit ("back in Leeds for Christmas", "for the weekend")."""
    for prep in (c for c in back.children if c.dep_ == "prep" and c.lower_ == "in"):
        holiday = any(t.lower_ in HOLIDAYS for t in back.head.subtree)
        for pobj in _pobjs(prep):
            name = _name_of(pobj, ctx)
            if name and _place_named(pobj, name, ctx) and not _a_visit(prep) and not holiday:
                _emit(ctx, subject, "lives-in", name, 0.55, obj_tok=pobj, obj_type="location")


def _lives_near(prep: Token, subject: str, past: bool, ctx: _Ctx) -> None:
    """'We live just outside Bath', 'I live near York' -> lives-in the town: the place one names for
    home (only a town the gazetteer or the model knows: not "near the school")."""
    for pobj in (p for p in _pobjs(prep) if p.pos_ == "PROPN"):
        name = _name_of(pobj, ctx)
        if name and _place_named(pobj, name, ctx):
            pred = "lived-in" if past else "lives-in"
            _emit(ctx, subject, pred, name, 0.5, obj_tok=pobj, obj_type="location")


def _in_now_after_a_move(prep: Token) -> bool:
    """'I moved out of London last year, I'm in Brighton now': in a place "now" in a message that
    says a move was made (without one, "I'm in Leeds now" is as often a trip)."""
    now = any(c.dep_ == "advmod" and c.lower_ == "now" for c in prep.head.children)
    return now and any(_a_move_said(t) for t in prep.doc)


def _a_move_said(tok: Token) -> bool:
    """ "moved", "relocated", "the house move is done", "unpacking boxes", "new flat and everything"."""
    if tok.lemma_ in {"move", "relocate"} and tok.tag_ in {"VBD", "VBN"}:
        return True
    kids = {c.lower_ for c in tok.children}
    if tok.lemma_ == "move" and tok.pos_ == "NOUN":
        return bool(kids & {"house", "home", "our", "my", "the"})  # not "a career move"
    return tok.lemma_ == "unpack" or (tok.lemma_.lower() in HOME_NOUNS and "new" in kids)

    # household's bank: "we've been with Nationwide since 2015"


def _stayed(prep: Token, pobj: Token) -> bool:
    """'have been <prep> X for N years / since ...': a present perfect of duration (chat drops the
    "I've": "Been at Boots for six years")."""
    verb = prep.head
    span = [c.lower_ for c in verb.children if c.dep_ == "prep"] + [c.lower_ for c in pobj.children]
    if verb.lower_ == "been" and _perfect_or_dropped(verb) and bool({"for", "since"} & set(span)):
        return True
    if verb.lower_ == "been" and _perfect_or_dropped(verb) and (_bare_years(verb) or _years_of(pobj)):
        return True  # "I've been at Google 3 years now": the "for" dropped
    return _been_there(verb)


def _years_of(name: Token) -> bool:
    """ "I've been at Aldi 6 years": the parse makes the name a modifier of the counted years."""
    return name.head.i != name.i and _name_before_a_stay(name.head).i == name.i


def _been_there(verb: Token) -> bool:
    """'im at korvus, been there since 2022', 'I drive for Buckeye, been there going on 6 years': a
    clause beside this one says how long the speaker has been there."""
    beside = [c for c in verb.children if c.dep_ == "conj"]
    if verb.dep_ in {"ccomp", "conj"}:
        beside.append(verb.head)
    for other in beside:
        words = {t.lower_ for t in other.subtree}
        if other.lower_ == "been" and "there" in words and _long_stay(other):
            return True
    return False


def _long_stay(verb: Token) -> bool:
    """'since 2022', 'since March', 'for 3 years', 'going on 6 years': a stay of months or years (a
    job), not 'since 6am' or 'since Friday' (a visit)."""
    words = [t.lower_ for t in verb.subtree]
    if {"years", "yrs", "year", "months", "month"} & set(words):
        return True
    after = [words[i + 1] for i, w in enumerate(words[:-1]) if w == "since"]
    return any(w in MONTHS or (w.isdigit() and len(w) == 4) for w in after)


def _home_in(verb: Token, subj_tok: Token, poss: Token | None, ctx: _Ctx) -> bool:
    """'our new place is in Headingley', 'my flat is in Leith' -> the speaker lives-in there (an old or
    a past home, or a hypothetical one, says nothing of now)."""
    if poss is None or poss.lower_ not in {"my", "our"} or subj_tok.lemma_.lower() not in HOME_NOUNS:
        return False
    if verb.tag_ == "VBD" or _is_irrealis(verb) or _past_home(subj_tok):
        return False
    found = False
    for prep in (c for c in verb.children if c.dep_ == "prep" and c.lower_ == "in"):
        for pobj in _pobjs(prep):
            ent = ctx.ents.get(pobj.i)
            name = _name_of(pobj, ctx) if ent is None or ent.label_ in {"GPE", "LOC", "FAC"} else None
            if name and pobj.pos_ == "PROPN":
                _emit(ctx, ctx.me, "lives-in", name, 0.55, obj_tok=pobj, obj_type="location")
                found = True
    return found


def _home_is(verb: Token, subj_tok: Token, poss: Token | None, attr: Token, ctx: _Ctx) -> bool:
    """'Home is Cardiff these days', 'my home is Leeds now' -> the speaker lives-in the named place."""
    mine = poss is None or poss.lower_ in {"my", "our"}
    if subj_tok.lower_ != "home" or not mine or ctx.message.role != "user":
        return False
    if verb.tag_ == "VBD" or _is_irrealis(verb) or any(c.dep_ in {"det", "amod"} for c in subj_tok.children):
        return False  # "home was Leeds", "my old home is ...", "the home is ...": not where one lives now
    ent = ctx.ents.get(attr.i)
    name = _name_of(attr, ctx)
    tagged = ent is not None and ent.label_ in {"GPE", "LOC"}
    if name and (tagged or places.fold(name) in places.places()):  # else a known town, however tagged
        _emit(ctx, ctx.me, "lives-in", name, 0.55, obj_tok=attr, obj_type="location")
        return True
    return bool(name) and (ent is None or tagged)  # an untagged name read here, if no town


def _after_in(ent: Span) -> bool:
    return ent.start > ent.sent.start and ent.doc[ent.start - 1].lower_ == "in"


# "Three weeks in Starbeck and it's starting to feel like home", "Leeds finally feels like home"
_LIKE_HOME = re.compile(r"\b(?:feel|feels|feeling|felt)\s+like\s+home\b", re.I)
_ANOTHERS_HOME = re.compile(r"\w(?:'s|’s|s'|s’)\s+(?:\w+\s+)?(?:house|home|place|flat|apartment)\b", re.I)
_NOT_HOME_YET = re.compile(r"\b(?:not|n't|never|won't|will|would|might|hope|if)\b|n’t", re.I)


def _feels_like_home(sent: Span, ctx: _Ctx) -> None:
    """The place the speaker says feels like home -> lives-in: the last place named just before the words,
    tagged a place, or any name after "in" (a district the model calls an organisation). Not when
    it does not, or only might ("it'll never feel like home")."""
    m = _LIKE_HOME.search(sent.text)
    if m is None:
        return
    at = sent.start_char + m.start()
    clause = sent.doc.text[max(sent.start_char, at - 30) : at]
    if _NOT_HOME_YET.search(clause) or _ANOTHERS_HOME.search(sent.doc.text[max(0, at - 80) : at]):
        return  # "it'll never feel like home", "my mum's house in Leeds always feels like home"
    # the place may be in the clause before, which the parse made a sentence ("Two months in Lisbon now
    # and it already feels like home")
    near = [e for e in sent.doc.ents if e.end_char <= at and at - e.end_char <= 60]
    before = [e for e in near if e.label_ in {"GPE", "LOC"} or _after_in(e)]
    if before:
        place = before[-1]
        _emit(ctx, ctx.me, "lives-in", place.text, 0.5, obj_tok=place.root, obj_type="location")


def _lives_with_us_in(sent: Span, ctx: _Ctx) -> None:
    """'Mum lives with us in Toowong', 'my sister's staying with us in Leeds': whoever lives "with us
    in" a place, the speaker lives there (lives-in; lived-in in the past)."""
    for verb in (t for t in sent if t.lemma_ in {"live", "stay"} and t.pos_ == "VERB"):
        withs = [p for p in verb.children if p.dep_ == "prep" and p.lower_ == "with"]
        if not any(o.lower_ in {"us", "me"} for w in withs for o in _pobjs(w)) or _is_irrealis(verb):
            continue
        for pobj in (o for p in verb.children if p.dep_ == "prep" and p.lower_ == "in" for o in _pobjs(p)):
            ent = ctx.ents.get(pobj.i)
            placed = ent is None or (ent.label_ in _HOME_PLACE_TAGS and ent.label_ != "PERSON")
            name = _name_of(pobj, ctx) if pobj.pos_ == "PROPN" and placed else None
            if name:
                pred = "lived-in" if _is_past(verb) else "lives-in"
                _emit(ctx, ctx.me, pred, name, 0.5, obj_tok=pobj, obj_type="location")


def _origin_line(root: Token, ctx: _Ctx) -> bool:
    """'Originally from Belfast, living in Bristol now', 'From Cork originally': a user line that opens
    with the place the speaker is from, its "I'm" left out (not "From London to Leeds", "From Monday")."""
    if ctx.message.role != "user" or root.dep_ != "ROOT" or root.lower_ != "from":
        return False
    before = root.sent[: root.i - root.sent.start]
    if any(t.pos_ not in {"ADV", "PUNCT"} for t in before) or any(c.lower_ == "to" for c in root.children):
        return False
    return any(p.pos_ == "PROPN" and _place_named(p, p.text, ctx) for p in _pobjs(root))


_ORIGIN_HEADS = frozenset({"live", "be", "base", "settle", "stay", "work", "move"})


def _origin_said(sent: Span, ctx: _Ctx) -> None:
    """is-from the place of an origin line, or of "originally from X" after the speaker's own clause
    ("living in Bristol now, originally from Belfast"; not "I met Tom, originally from Cork")."""
    for frm in (t for t in sent if t.lower_ == "from"):
        before = sent.doc[frm.i - 1] if frm.i > 0 else None
        originally = any(c.lower_ == "originally" for c in frm.children) or (
            before is not None and before.lower_ == "originally"
        )
        head = frm.head
        mine = head.i in ctx.dropped or any(
            c.dep_ == "nsubj" and c.lower_ in {"i", "we"} for c in head.children
        )
        trailing = originally and frm.dep_ == "prep" and mine and head.lemma_ in _ORIGIN_HEADS
        if not (trailing or _origin_line(frm, ctx)) or _is_irrealis(head):
            continue
        for pobj in (p for p in _pobjs(frm) if p.pos_ == "PROPN"):
            name = _name_of(pobj, ctx)
            if name and _place_named(pobj, name, ctx):
                _emit(ctx, ctx.me, "is-from", name, 0.55, obj_tok=pobj, obj_type="location")
