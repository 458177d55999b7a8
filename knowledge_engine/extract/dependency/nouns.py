"""What a word is: kin and relation nouns, job titles, organisations and firm-like names, numbers,
money values and dates. Tests on one token or name, shared by every construction.
"""

from __future__ import annotations

import re

from spacy.tokens import Span, Token

from knowledge_engine.extract import places
from knowledge_engine.extract.dates import MONTHS
from knowledge_engine.extract.dependency.context import _Ctx, _kebab
from knowledge_engine.extract.dependency.grammar import _is_manager_noun
from knowledge_engine.extract.lexicon import (
    ANIMAL_NOUNS,
    CURRENCY_WORDS,
    DATE_WORDS,
    FAMILY_NOUNS,
    FEMALE_KIN,
    HOLIDAYS,
    JOB_SUFFIXES,
    JOB_TITLE_NOUNS,
    MALE_KIN,
    MONEY_SHORT,
    MULTIPLE_BIRTHS,
    NEUTRAL_MODIFIERS,
    NUMBER_WORDS,
    PET_BREEDS,
    RELATION_PREDICATES,
    SALARY_NOUNS,
    SKIP_ENT_LABELS,
    STAY_UNITS,
    STUDENT_NOUNS,
    TITLE_HEADS,
)
from knowledge_engine.extract.regex import CURRENCY_CODES
from knowledge_engine.extract.truecase import names as first_names
from knowledge_engine.model.records import EntityType


def _kin_type(noun: Token) -> EntityType | None:
    """A relative or a colleague is a person; a pet is not."""
    return None if noun.lemma_.lower() in ANIMAL_NOUNS else "person"


def _relation_predicate(noun: Token) -> str:
    """'my husband' -> is-married-to, 'our son' -> has-child, 'my best friend' -> has-best-friend."""
    if noun.lower_ in MULTIPLE_BIRTHS or _children_word(noun):
        return "has-child"  # "our twins" are children; "my twin" (one) is a sibling
    if noun.lower_ == "old" and any(c.lemma_ == "year" for c in noun.children):
        return "has-child"  # "my 4-year-old, Leo": a child said by age
    if _other_half(noun):
        return "has-partner"
    if noun.lemma_.lower() in PET_BREEDS:
        return _pet_predicate(noun)  # "a cockapoo called Teddy" -> has-dog
    if _is_manager_noun(noun) and not any(
        c.dep_ == "amod" and c.lower_ not in NEUTRAL_MODIFIERS for c in noun.children
    ):
        return "has-manager"  # "my ward manager", "my line manager", "my team lead", "my teamlead"
    rel = _relation_noun(noun)
    doc = noun.doc
    lemma = noun.lemma_.lower()
    if doc[noun.i + 1 : noun.i + 5].text.replace(" ", "").lower() == "-in-law":
        return f"has-{rel}-in-law"  # "my mother-in-law" is not my mother
    if rel == _kebab(lemma) and lemma in RELATION_PREDICATES:
        return RELATION_PREDICATES[lemma]  # "fiancée" (kebab-case would spell it "fianc-e")
    if noun.lemma_.lower() in SALARY_NOUNS:
        return "has-salary"  # "my base salary", "my annual salary"
    if lemma == "work":
        return "works-at"  # "my work (Telstra) is doing restructures": where one works, named
    return RELATION_PREDICATES.get(rel, "has-" + rel)


_CHILDREN_PLURALS = frozenset({"boys", "girls", "kiddos", "kiddies"})


def _children_word(noun: Token) -> bool:
    """Words a parent uses for their children that name no kin: "my eldest, Grace" (a rank with no
    noun: "my eldest sister" has one), "my two girls are Ruby and Mae", "our boys",
    "my little one", "the wee one".
    Plural only for boys and girls: "my girl Sophie" may be a partner."""
    if noun.lower_ in _CHILD_RANKS:
        return True
    little = any(c.dep_ in {"amod", "compound"} and c.lower_ in {"little", "wee"} for c in noun.children)
    # "my little girl Rosie", "our baby boy Finn" ("my girl" alone may be a partner)
    baby = any(c.dep_ in {"amod", "compound"} and c.lower_ == "baby" for c in noun.children)
    one = little and noun.lower_ in {"one", "ones"}
    return noun.lower_ in _CHILDREN_PLURALS or one or ((little or baby) and noun.lower_ in {"girl", "boy"})


def _relation_noun(noun: Token) -> str:
    """'my new manager' -> manager, 'my best friend' -> best-friend, 'my former boss' -> former-boss."""
    mods = [
        c.lower_
        for c in noun.children
        if c.dep_ in {"amod", "compound"} and c.i < noun.i and c.lower_ not in NEUTRAL_MODIFIERS
    ]
    return _kebab(" ".join([*mods, noun.lemma_.lower()]))


_KIN_OPENERS = FEMALE_KIN | MALE_KIN  # not "Mother Earth Foods": only in a span tagged a person


def _a_city(name: str) -> bool:
    """'transfer to Bhubaneswar' tagged a person: a big place no first name spells ("Austin" may be
    a son)."""
    return places.big_place(name) and not any(w.lower() in first_names() for w in name.split())


_DATE_WORDS = frozenset({"week", "weekend", "month", "year", "morning", "afternoon", "evening", "night"})


def _name_before_date(tok: Token, ent: Span) -> bool:
    """A name the model ran into the date after it: 'Lidl last week', 'Arup next month', 'at Google
    3 years now'."""
    doc = tok.doc
    after = doc[tok.i + 1 : tok.i + 3]
    counted = len(after) == 2 and after[0].like_num and after[1].lemma_.lower() in STAY_UNITS
    # "at Brightwater this week" tagged one organisation
    org_then_date = ent.label_ == "ORG" and ent.end == tok.i + 3 and after[-1].lower_ in _DATE_WORDS
    # "moved to Bristol years ago" tagged one organisation
    ago = len(after) == 2 and after[0].lemma_.lower() in STAY_UNITS and after[1].lower_ in {"ago", "back"}
    return (
        (ent.label_ == "DATE" or org_then_date or (ago and ent.end == tok.i + 3))
        and tok.i == ent.start
        and tok.pos_ == "PROPN"
        and tok.lower_ not in MONTHS
        and ent.end - ent.start > 1
        and (after[0].lower_ in {"last", "next", "this"} or counted or ago)
    )


def _place_tagged_a_date(tok: Token, ent: Span) -> bool:
    """'... for eleven years, and I live in Winnipeg': a lone capitalised place the gazetteer knows,
    which the small model tagged a date after other dates in the sentence."""
    return (
        ent.label_ in {"DATE", "TIME"}
        and len(ent) == 1
        and tok.pos_ == "PROPN"
        and tok.is_title
        and tok.lower_ not in MONTHS
        and tok.lower_ not in HOLIDAYS
        and tok.lower_ not in DATE_WORDS
        and tok.lower_ not in _TIME_NOT_PLACE
        and places.fold(tok.text) in places.places()
    )


_TIME_NOT_PLACE = frozenset({"spring", "summer", "autumn", "fall", "winter", "date", "term", "semester"})


def _is_date(tok: Token, ctx: _Ctx) -> bool:
    ent = ctx.ents.get(tok.i)
    return (ent is not None and ent.label_ in {"DATE", "TIME"}) or tok.lower_ in DATE_WORDS


def _big_enough(value: str) -> bool:
    """An amount of pay or rent: 'k', thousands ("forty one thousand"), or at least 100 ('salary 2 days
    late' is no salary)."""
    if re.search(r"\b(?:thousand|grand|lakhs?|crore)\b|\w\s+[kK]$", value):
        return True
    digits = re.sub(r"[.,](\d{3})", r"\1", value)
    number = re.search(r"\d+", digits)
    if number is None:
        return False
    return int(number.group()) >= 100 or bool(re.search(r"\d\s*[kK]", value))


def _listed_objects(verb: Token) -> list[Token]:
    """The verb's objects and the common nouns listed with them: "a three-bed semi in Solihull, two
    kids - Ruby and Alfie - and a very anxious greyhound called Pepper" (kids an apposition of the
    semi, the greyhound a conjunct of the kids)."""
    found = [c for c in verb.children if c.dep_ == "dobj"]
    for noun in found:
        found += [c for c in noun.children if c.dep_ in {"conj", "appos"} and c.pos_ == "NOUN"]
    return found


def _organisations(toks: list[Token], ctx: _Ctx) -> bool:
    """Every token tagged an organisation and none a place the gazetteer knows."""
    known = places.places()
    return all(
        (ent := ctx.ents.get(o.i)) is not None and ent.label_ == "ORG" and places.fold(o.text) not in known
        for o in toks
    )


def _firm_like(tok: Token, ctx: _Ctx, placed: bool = True) -> bool:
    """A name that may be a firm: no person's name and (with `placed`) no place the gazetteer
    knows; without, only none the model tags a place (its labels on a shop's name are a coin toss)."""
    ent = ctx.ents.get(tok.i)
    label = ent.label_ if ent is not None else ""
    if tok.pos_ != "PROPN" or label in {"PERSON", "EVENT", *SKIP_ENT_LABELS} or tok.lower_ in first_names():
        return False
    if tok.lower_ in HOLIDAYS or tok.lower_ in MONTHS:
        return False
    return places.fold(tok.text) not in places.places() if placed else label != "GPE"


def _a_month(tok: Token, ctx: _Ctx) -> bool:
    """'in may', 'in June' the model left untagged or tagged a name: a month, alone."""
    ent = ctx.ents.get(tok.i)
    alone = not any(c.dep_ in {"compound", "nummod"} for c in tok.children)
    full_name = len(tok) > 3 or tok.lower_ == "may"  # not "jan", "mar": names and words too
    return (
        tok.lower_ in MONTHS
        and full_name
        and alone
        and (ent is None or ent.label_ in {"DATE", "PERSON", "ORG", "GPE"})
    )


def _org_owner(pobj: Token, ctx: _Ctx) -> Token:
    """ "at The Ottawa Hospital's General Campus": the organisation that owns the site the model left
    unnamed is where one is; any other object stays as it is."""
    poss = next((c for c in pobj.children if c.dep_ == "poss"), None)
    if poss is None or pobj.i in ctx.ents:
        return pobj
    ent = ctx.ents.get(poss.i)
    return poss if ent is not None and ent.label_ == "ORG" else pobj


_CHILD_RANKS = {"youngest", "eldest", "oldest"}


def _pet_predicate(noun: Token) -> str:
    lemma = noun.lemma_.lower()
    return f"has-{PET_BREEDS.get(lemma, lemma)}"


def _relation_word(tok: Token) -> bool:
    """A relation word in lower case ("gf", "hubby", "bro"), never part of a name."""
    low = tok.text
    return low.islower() and (low in RELATION_PREDICATES or low in FAMILY_NOUNS)


def _is_kin_word(tok: Token) -> bool:
    """A capitalised relation word standing alone ("Mum", "Hubby"), not part of a longer name."""
    low = tok.lower_
    alone = not any(c.dep_ == "compound" for c in tok.children) and tok.dep_ != "compound"
    return alone and (low in RELATION_PREDICATES or low in FAMILY_NOUNS) and low not in SALARY_NOUNS


def _is_kin(noun: Token) -> bool:
    lemma = noun.lemma_.lower()
    return (
        _other_half(noun)
        or lemma in FAMILY_NOUNS
        or lemma in RELATION_PREDICATES
        or lemma in {"friend", "cousin", "colleague"}
        or noun.lower_ in MULTIPLE_BIRTHS  # "our twins, Ava and Noah"
        or _children_word(noun)  # "our two boys, Sam and Theo"
    )


def _other_half(noun: Token) -> bool:
    """'my other half': the speaker's partner."""
    return noun.lower_ == "half" and any(c.dep_ == "amod" and c.lower_ == "other" for c in noun.children)


def _number(tok: Token) -> int | None:
    text = tok.lower_
    tens = _tens_of(tok)
    if tens is not None and text in NUMBER_WORDS:  # "fifty-two"
        return _number_word(tens.lower_, text)
    value = NUMBER_WORDS.get(text)
    if value is None and text.isdigit():
        value = int(text)
    return value if value is not None and 0 < value < 120 else None


_STILL_THE_AGE = frozenset({"only", "just", "already"})


def _beside_a_number(tok: Token, num: Token) -> bool:
    """A word under an age that leaves it an age: a conjunction, punctuation, chat blanked to spaces,
    or the tens of "seventy-five" (not a second number: "15 and 12")."""
    if tok.is_space or (tok.dep_ in {"cc", "conj", "punct"} and tok.pos_ != "NUM"):
        return True
    if tok.dep_ == "advmod" and tok.lower_ in _STILL_THE_AGE and tok.i < num.i:
        return True  # "he's only 6", "she's just 12": a stress, not "nearly 7"
    return tok.dep_ == "compound" and tok == _tens_of(num)


def _tens_of(unit: Token) -> Token | None:
    """'fifty' of "fifty-two" (the word two before, joined by a hyphen, under the unit)."""
    doc = unit.doc
    if unit.i < 2 or doc[unit.i - 1].text != "-" or doc[unit.i - 2].head != unit:
        return None
    return doc[unit.i - 2]


def _number_word(tens: str, unit: str) -> int | None:
    """'fifty', 'two' -> 52 (None for a pair that is no such number)."""
    high, low = NUMBER_WORDS.get(tens), NUMBER_WORDS.get(unit)
    if high is None or low is None or high % 10 or not 20 <= high <= 90 or not 0 < low < 10:
        return None
    return high + low


# Words that make a number thousands of money when said aloud or typed so ("forty one thousand", "95
# grand", "sixty five K", India's "6 lakh"), and how the number hangs under them
_THOUSANDS = frozenset({"grand", "thousand", "k", "lakh", "lakhs", "crore"})
_COUNTS = frozenset({"nummod", "quantmod", "compound"})


def _thousands_of(tok: Token) -> Token:
    """The word a number is thousands of ("grand" of "twenty eight grand"), or the number itself."""
    while tok.like_num and tok.head.i > tok.i and (tok.head.like_num or tok.head.lower_ in _THOUSANDS):
        tok = tok.head
    return tok


def _money_value(tok: Token, ctx: _Ctx) -> str | None:
    """'$85,000', 'about $70,000' -> '$70,000', '85k'; the sign the model leaves outside is kept."""
    doc = tok.doc
    ent = ctx.ents.get(tok.i)
    nums = [c for c in tok.children if c.dep_ in _COUNTS and c.like_num and c.i < tok.i]
    if tok.lower_ in _THOUSANDS and nums:  # "95 grand", "forty one thousand", "sixty five K" (said aloud)
        start = next(t.i for t in doc[nums[0].left_edge.i : tok.i] if t.like_num)  # not "about"
        return doc[start : tok.i + 1].text
    if ent is not None and ent.label_ == "MONEY":
        start, end = ent.start, ent.end
    elif MONEY_SHORT.match(tok.text):
        start, end = tok.i, tok.i + 1
    else:
        return None
    while start > 0 and doc[start - 1].is_currency:
        start -= 1
    while end - start > 1 and not _currency(doc[start]) and not any(c.isdigit() for c in doc[start].text):
        start += 1  # "about $70,000", "up to $95,000", "a $5,000": the amount
    text = doc[start:end].text
    return text if any(c.isdigit() for c in text) else None


# Signs the model does not call currency: "Rs 45,000", "A$98,000", "NZ$70k", "R$ 19 mil"
_SIGNS = frozenset({"Rs", "Rs.", "A$", "C$", "NZ$", "US$", "HK$", "S$", "R$"})


def _currency(tok: Token) -> bool:
    """A sign or a code that belongs to the amount: '$', 'AED 11,500', 'Rs 45,000'."""
    return tok.is_currency or tok.text in CURRENCY_CODES or tok.text in _SIGNS


def _has_digit(text: str) -> bool:
    return any(c.isdigit() for c in text)


def _amount(tok: Token) -> str | None:
    """An amount the NER missed: '54.000', '1.240 euro', '980 euro warm' -> '980 euro', '1200/month'."""
    doc = tok.doc
    num = (
        tok
        if _has_digit(tok.text)
        else next((c for c in tok.children if c.dep_ == "nummod" and _has_digit(c.text)), None)
    )
    if num is None:
        return None
    start = num.i - 1 if num.i > 0 and _currency(doc[num.i - 1]) else num.i
    end = num.i + 1
    if end < len(doc) and doc[end].lower_ in CURRENCY_WORDS | {"€", "$", "£"}:
        end += 1
    text = doc[start:end].text.split("/")[0]
    return text if _has_digit(text) and len(text) <= 20 else None


def _label(tok: Token, ctx: _Ctx) -> str:
    ent = ctx.ents.get(tok.i)
    return ent.label_ if ent is not None else ""


def _proper_lower(tok: Token, ctx: _Ctx) -> str | None:
    """A lower-case word the tagger still reads as a name ('offer from feedzai'): kept as typed."""
    ent = ctx.ents.get(tok.i)
    if (
        tok.pos_ in {"PROPN", "ADJ", "NOUN"}
        and tok.is_alpha
        and tok.is_lower
        and (ent is None or ent.label_ == "ORG")
    ):
        return tok.text if tok.dep_ == "pobj" and tok.head.lower_ == "from" else None
    return None


def _is_org(tok: Token, ctx: _Ctx) -> bool:
    """An organisation's name: tagged so, or untagged and no job title ('the Pilot job')."""
    ent = ctx.ents.get(tok.i)
    return ent.label_ == "ORG" if ent is not None else tok.lower_ not in JOB_TITLE_NOUNS


def _preps(tok: Token, verb: Token, words: set[str]) -> list[Token]:
    """Prepositions of a noun or of its verb (the parser hangs 'at X' on either)."""
    heads = [tok] if tok.i == verb.i else [tok, verb]
    return [c for h in heads for c in h.children if c.dep_ in {"prep", "agent"} and c.lower_ in words]


def _is_job(noun: Token) -> bool:
    """A noun naming an occupation ("nurse", "senior translator"); students study, they hold no job."""
    lemma = noun.lemma_.lower()
    job = lemma in JOB_TITLE_NOUNS or (lemma.endswith(JOB_SUFFIXES) and noun.lower_ == lemma)
    return (job or _a_pm(noun)) and lemma not in STUDENT_NOUNS and noun.pos_ in {"NOUN", "PROPN"}


_PM_BEFORE = frozenset(
    {"sr", "senior", "jr", "junior", "lead", "principal", "staff", "group", "associate", "a"}
)


def _a_pm(noun: Token) -> bool:
    """'sr pm', 'a PM': the product manager of tech chat, not the time of '5 pm'."""
    before = noun.doc[noun.i - 1] if noun.i > 0 else None
    return noun.lower_ == "pm" and before is not None and before.lower_.rstrip(".") in _PM_BEFORE


def _is_title_word(tok: Token) -> bool:
    """An occupation noun ("nurse") or a title's head word ("Coordinator", "Head")."""
    lower = tok.lower_  # "the dispatcher job": tagged an adjective of lemma "dispatch"
    return _is_job(tok) or lower in TITLE_HEADS or (lower in JOB_TITLE_NOUNS and lower not in STUDENT_NOUNS)


def _is_title(attr: Token) -> bool:
    """A job title written as a name: 'Head of Design', 'Senior Product Manager', 'VP Sales'."""
    words = [t for t in attr.subtree if t.i <= attr.i or t.dep_ in {"prep", "pobj"}]
    return any(t.lower_ in TITLE_HEADS for t in words if t.pos_ in {"PROPN", "NOUN"})


def _name_before_a_stay(tok: Token) -> Token:
    """'been teaching at Greenmeadow 11 yrs': the parse makes "yrs" the object and the name its
    modifier; the place is the name (the years are how long)."""
    if tok.lemma_.lower() not in STAY_UNITS and tok.lower_ not in {"yrs", "years", "months"}:
        return tok
    if not any(c.dep_ == "nummod" for c in tok.children):
        return tok
    named = [c for c in tok.children if c.dep_ in {"nmod", "compound"} and c.pos_ == "PROPN" and c.i < tok.i]
    return named[-1] if named else tok
