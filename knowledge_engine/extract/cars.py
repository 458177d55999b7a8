"""Cars a speaker owns, said the way people say it in chat rather than as "I drive a X".

Why: a car is mostly named around the purchase, not as the object of "buy": "I bought a car! 2019
Honda CR-V EX, 61k miles", "we bought a car finally, used VW Polo", "I got the car! Went with the
Yaris in the end"; or in passing: "the transmission went in my F-150", "Selling the Commodore too".
The parse of such lines is poor (the model after "car" is a fragment, an apposition, or the object
of "used"), so the car's name is found by its words (`car_spans`: a make or model of the lexicon
with the words of the model after it) and the statement by a few cues around it:

- `my`/`our` before the name (not "my old X", not in a line that sells or loses a car);
- a past "went with / settled on / chose / picked" the name;
- a past purchase of a generic car ("bought a car", "got the car") and a name after it, in the
  same sentence or the next one (`Cars.pending` carries it over);
- selling that is not yet done ("selling the Commodore"): only an owner sells;
- in a user's message, "the" before the name in a statement about it ("the Corolla needs new tyres",
  "took the Golf in for its MOT"): the car of the house, unless the sentence weighs cars, shops for
  one, or speaks of another's or a hired one (`in_passing`).

Another person's car ("my dad's Corsa", "she bought a car") is not the speaker's.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from spacy.tokens import Span, Token

from knowledge_engine.extract.lexicon import CAR_MAKES, CAR_MODELS, CAR_NAMES, CAR_NOUNS, SPEAKER_SUBJECTS
from knowledge_engine.extract.nlp import listed
from knowledge_engine.extract.truecase import names as first_names

_MODEL_PART = re.compile(r"[A-Z0-9][\w-]*|-")  # "CR", "-", "V", "EX", "F-150", "Hybrid"
_PAST_TAGS = frozenset({"VBD", "VBN"})
_CHOOSE = {("go", "with"), ("go", "for"), ("settle", "on"), ("decide", "on")}
_CHOOSE_VERBS = frozenset({"choose", "pick"})
_BUY_VERBS = frozenset({"buy", "purchase", "get", "pick", "collect", "lease"})
_GONE_VERBS = frozenset({"die", "total", "write", "steal", "scrap"})  # "was written off", "got stolen"
_LOSS_VERBS = _GONE_VERBS | {"sell", "trade", "crash"}  # a car gone, or sold, traded or crashed
_SWAP_VERBS = frozenset({"trade", "swap", "exchange", "switch", "change"})
_NOT_MINE = frozenset({"old", "previous", "former", "last", "dad", "mum", "mom", "friend"})
_OWNERS = frozenset({"my", "our"})
# A car bought, lost or chosen is read by the rules above; one seen, read of or wanted is no one's
_NOT_OWNING = (
    _BUY_VERBS
    | _LOSS_VERBS
    | _CHOOSE_VERBS
    | {"see", "watch", "read", "hear", "spot", "notice", "want", "prefer", "fancy", "admire"}
)
# Names that are also words or companies ("the Echo in the kitchen", "the Tata merger"): a car in passing
# only in a message that speaks of driving or of a car's upkeep
_WORD_NAMES = frozenset({
    "accord", "echo", "escape", "explorer", "focus", "golf", "jazz", "leaf", "pilot", "swift", "outback",
    "duster", "mustang", "commodore", "civic", "ute", "juke", "polo", "tundra", "highlander", "pathfinder",
    "kona", "mini", "smart", "seat", "ram", "saturn", "rover", "jaguar", "lincoln", "tata", "mercedes",
    "ferrari", "porsche", "tesla", "ford", "dodge",
})  # fmt: skip
_CAR_TALK = re.compile(
    r"\b(?:cars?|drive|drives|drove|driving|driven|mot|tyres?|tires?|engine|garage|mechanic|serviced?|fuel|"
    r"petrol|diesel|mileage|miles|parking|parked|insurance|brakes?|battery|clutch|gearbox|transmission|"
    r"windscreen|windshield|oil|rego|registration|breakdown|towed|charging|charger|dashboard)\b",
    re.I,
)
_ARGUMENTS = frozenset({"nsubj", "nsubjpass", "dobj", "pobj", "ROOT", "conj", "attr", "poss", "appos"})
# A sentence that weighs or shops for cars, or speaks of one not the speaker's: "the Golf" is not theirs
_NOT_IN_PASSING = re.compile(
    r"\?|\b(?:than|vs|versus|or|compared?|comparing|dealers?|dealership|listing|advert|ad|test|reviews?|"
    r"considering|consider|looking|thinking|options?|choice|between|deciding|decide|rather|instead|hire|"
    r"hired|rental|rented|renting|loaner|courtesy|borrow\w*|his|her|their|your|\w+['’]s|"
    r"rid|gone|new home|new owners?|part[- ]?ex\w*|exchanged|traded|swapped|sold|scrapped|written|stolen|"
    r"miss|missed|used to|upcoming|launch\w*|models)\b",
    re.I,
)


def car_spans(sent: Span) -> list[Span]:
    """Car names in the sentence: a make or model word (as cased), then the model's words (names,
    numbers, a hyphen, 'Hybrid'): 'Honda CR-V EX', 'VW Polo Vivo', 'F-150'. A year before it is
    left out ('2019 Honda CR-V EX' -> 'Honda CR-V EX')."""
    spans: list[Span] = []
    i = sent.start
    while i < sent.end:
        tok = sent.doc[i]
        if not _car_word(tok):
            i += 1
            continue
        j = i + 1
        while j < sent.end and _model_part(sent.doc[j], sent.doc[j - 1]):
            j += 1
        while j - 1 > i and sent.doc[j - 1].text == "-":
            j -= 1
        spans.append(sent.doc[i:j])
        i = j
    return spans


def _car_word(tok: Token) -> bool:
    """A make or model as cased ("Qashqai"; a model only as a noun), a model written in lower case
    that is no English word ("qashqai", "yaris": chat's own spelling; not "golf", "jazz"), or
    Tesla's "Model 3"."""
    if tok.text in CAR_NAMES:
        return tok.text in CAR_MAKES or tok.pos_ in {"PROPN", "NOUN"}
    if tok.text == "Model":
        return tok.i + 1 < len(tok.doc) and tok.doc[tok.i + 1].text in _TESLA_MODELS
    return tok.text in _LOWERED and listed(tok.text, tok.vocab) is False


_TESLA_MODELS = frozenset({"3", "S", "X", "Y"})
_LOWERED = frozenset(name.lower() for name in CAR_NAMES if name.lower() != name)


def _model_part(tok: Token, before: Token) -> bool:
    if tok.text in CAR_MODELS or tok.lower_ in {"hybrid", "estate"} or _car_word(tok):
        return True
    glued = tok.idx == before.idx + len(before.text)  # "CR-V" is three tokens written as one
    return (
        bool(_MODEL_PART.fullmatch(tok.text))
        and (glued or tok.text != "-")
        and tok.pos_ != "PRON"
        and not tok.is_sent_start
    )


def _is_written_out(text: str, cars: list[Span]) -> str:
    """`text` without the "'s" right after a car's name ("The Zafira's too small": an "is", not a
    possessive that would make the car someone else's)."""
    for car in cars:
        text = re.sub(rf"(?<!\w){re.escape(car.text)}['’]s\b", car.text, text)
    return text


@dataclass
class Cars:
    """Per message: the cars its speaker owns, sentence by sentence."""

    irrealis: Callable[[Token], bool]
    pending: bool = False  # a generic car was bought and not named yet (in this message)
    seen: Span | None = None  # the last car named and not (yet) owned, for "picking it up saturday"
    lost: bool = False  # the speaker's car died and was not named yet ("Car died. the Corsa.")

    def owned(self, sent: Span) -> list[Span]:
        """The car names this sentence says the speaker owns."""
        spans = car_spans(sent)
        bought = self._bought_generic(sent)
        found: list[Span] = []
        if not spans and self.seen is not None and self._bought_it(sent):
            found, self.seen = [self.seen], None  # "seen a Skoda Fabia ... picking it up saturday"
            return found
        for span in spans:
            if (
                (self.pending and not found)
                or (bought is not None and span.start > bought.i)
                or self._mine(span, sent)
                or self._chosen(span)
                or self._bought(span)
                or self._selling(span)
                or self._swapped_for(span)
                or self._is_my_car(span)
                or self._driven(span, sent)
            ):
                found.append(span)
        if found:
            self.pending = False  # named: the next car named is not this purchase's
        if bought is not None and not any(s.start > bought.i for s in found):
            self.pending = True
        missed = [s for s in spans if not any(f.start == s.start for f in found)]
        self.seen = missed[-1] if missed else (None if found else self.seen)
        return found

    def mine(self, sent: Span) -> list[Span]:
        """The car names this sentence gives "my"/"our" ("my Octavia", "our 2015 Golf") and nothing else."""
        return [span for span in car_spans(sent) if self._mine(span, sent)]

    def in_passing(self, sent: Span) -> list[Span]:
        """'the Corolla needs new tyres', 'took the Golf in for its MOT': a car the speaker speaks of
        as the household's, by "the" alone (call it for a user's message only)."""
        spans = car_spans(sent)
        if _NOT_IN_PASSING.search(_is_written_out(sent.text, spans)):
            return []
        found = []
        for span in spans:
            opens = _opens_line(span, sent)  # "Mini Cooper keeps breaking down", "Renault Clio owner here"
            if not opens and (span.start == sent.start or sent.doc[span.start - 1].lower_ != "the"):
                continue
            if span.text.casefold() in _WORD_NAMES and not _CAR_TALK.search(sent.doc.text):
                continue
            head, dep = span.root.head, span.root.dep_
            # "the Tata–Air India merger": a name that modifies a noun (but "Renault Clio owner here")
            owner = opens and dep == "compound" and head.lower_ == "owner"
            if dep not in _ARGUMENTS and not owner:
                continue
            verb = head.head if dep == "pobj" else head
            if dep in {"dobj", "pobj"} and not _by_speaker(verb):  # "my friend drives the Golf"
                continue
            if not self.irrealis(head) and head.lemma_ not in _NOT_OWNING:
                found.append(span)
        return found

    def gone(self, sent: Span) -> list[Span]:
        """The speaker's car that is no more: 'The Corsa died', 'my Fiesta was written off', 'Car died.
        the Corsa.' (named in the next line); not another's ('my dad's car died')."""
        spans = car_spans(sent)
        if self.lost and spans:
            self.lost = False
            return spans[:1]
        # a car given up is one named in the sentence: no name, no deed to look for
        traded = spans and (
            self._traded_in(sent, spans) or self._got_rid_of(sent, spans) or self._given_up(sent, spans)
        )
        if traded:
            return traded
        for verb in (t for t in sent if t.lemma_ in _GONE_VERBS and t.tag_ in _PAST_TAGS):
            subj = next((c for c in verb.children if c.dep_ in {"nsubj", "nsubjpass"}), None)
            if subj is None or self.irrealis(verb) or not _own_thing(subj):
                continue
            named = [s for s in spans if s.start <= subj.i < s.end]
            if named:
                return named
            if subj.lower_ in CAR_NOUNS:
                after = [s for s in spans if s.start > verb.i]
                self.lost = not after
                return after[:1]
        return []

    def _traded_in(self, sent: Span, spans: list[Span]) -> list[Span]:
        """'traded in my Chevy Silverado', 'traded my Golf in', 'replaced the Astra with a Kia': the
        speaker's car given up (the one traded in *for*, or replaced *with*, is the one got: _swapped_for)."""
        for verb in (t for t in sent if t.lemma_ in {"trade", "replace"} and t.tag_ in _PAST_TAGS):
            word = "in" if verb.lemma_ == "trade" else "with"  # "replaced the Astra with a Kia": the Astra
            ins = [c for c in verb.children if c.lower_ == word and c.dep_ in {"prep", "prt"}]
            if not ins or self.irrealis(verb) or not _by_speaker(verb):
                continue
            given = [c for c in verb.children if c.dep_ == "dobj"]
            if word == "in":
                given += [p for c in ins for p in c.children if c.dep_ == "prep" and p.dep_ == "pobj"]
            named = [s for s in spans if any(s.start <= g.i < s.end for g in given)]
            if named:
                return named[:1]
        return []

    def _got_rid_of(self, sent: Span, spans: list[Span]) -> list[Span]:
        """'We finally got rid of the Zafira': the speaker's car given up (the parse makes "rid" the
        verb and "got" its auxiliary)."""
        for rid in (t for t in sent if t.lower_ == "rid" and t.pos_ == "VERB"):
            got = any(c.lemma_ == "get" and c.tag_ in _PAST_TAGS for c in rid.children)
            if not got or self.irrealis(rid) or not _by_speaker(rid):
                continue
            given = [p for c in rid.children if c.lower_ == "of" for p in c.children if p.dep_ == "pobj"]
            named = [s for s in spans if any(s.start <= g.i < s.end for g in given)]
            if named:
                return named[:1]
        return []

    def _given_up(self, sent: Span, spans: list[Span]) -> list[Span]:
        """'Someone wrote off my Yaris', 'handed back the leased BMW', 'said goodbye to the Zafira',
        'part-exed the Focus for a Kamiq', 'the Leaf went back', 'the Civic went to the scrapyard': the
        speaker's car gone by a deed done to it (by the speaker, or by anyone to "my"/"our" car)."""
        for verb in (t for t in sent if t.tag_ in _PAST_TAGS and not self.irrealis(t)):
            given = _given(verb)
            named = [s for s in spans if any(s.start <= g.i < s.end for g in given) and _own_thing(s.root)]
            mine = any(c.dep_ == "poss" and c.lower_ in _OWNERS for s in named for c in s.root.children)
            if named and (mine or _by_speaker(verb) or verb.lemma_ == "go"):
                return named[:1]
        return []

    def _bought_it(self, sent: Span) -> bool:
        """'picking it up saturday', 'bought it': the speaker buys or collects the car named before."""
        return any(
            verb.lemma_ in _BUY_VERBS
            and verb.tag_ in {*_PAST_TAGS, "VBG"}
            and any(c.dep_ == "dobj" and c.lower_ == "it" for c in verb.children)
            and not self.irrealis(verb)
            and _by_speaker(verb)
            for verb in sent
        )

    def _bought_generic(self, sent: Span) -> Token | None:
        """The object of a past purchase by the speaker that is a car by its noun only ('a car')."""
        for verb in sent:
            if verb.lemma_ not in _BUY_VERBS or verb.tag_ not in _PAST_TAGS or self.irrealis(verb):
                continue
            if not _by_speaker(verb):
                continue
            for obj in (c for c in verb.children if c.dep_ == "dobj" and c.lower_ in CAR_NOUNS):
                if not _for_someone(obj) and not _for_someone(verb) and obj.text not in CAR_NAMES:
                    return obj
        return None

    def _mine(self, span: Span, sent: Span) -> bool:
        if any(t.lemma_ in _LOSS_VERBS for t in sent):
            return False  # "sold my Corsa": the ending is read elsewhere
        k = span.start - 1
        while k >= sent.start and sent.doc[k].pos_ in {"ADJ", "NUM"} and sent.doc[k].lower_ not in _NOT_MINE:
            k -= 1
        return k >= sent.start and sent.doc[k].lower_ in _OWNERS

    def _chosen(self, span: Span) -> bool:
        head = span.root.head
        verb = head.head if head.dep_ == "prep" else head
        prep = head.lower_ if head.dep_ == "prep" else ""
        if (verb.lemma_, prep) not in _CHOOSE and not (verb.lemma_ in _CHOOSE_VERBS and not prep):
            return False
        return verb.tag_ in _PAST_TAGS and not self.irrealis(verb) and _by_speaker(verb)

    def _bought(self, span: Span) -> bool:
        """'got a 2018 VW Polo Vivo' when the parser took a word of the name for the object."""
        obj = next((t for t in span if t.dep_ == "dobj"), None)
        if obj is None and span.root.dep_ == "appos" and span.root.head.dep_ == "dobj":
            obj = span.root.head  # "got a secondhand Toyota Corolla hybrid": "secondhand" the object
        verb = obj.head if obj is not None else None
        if verb is not None and verb.tag_ == "VBG" and verb.dep_ == "xcomp" and verb.head.lemma_ == "end":
            ended = verb.head if verb.lemma_ in _BUY_VERBS else None  # "we ended up getting the Corolla"
            return ended is not None and ended.tag_ in _PAST_TAGS and self._speakers_fact(ended)
        return (
            verb is not None
            and verb.lemma_ in _BUY_VERBS
            and verb.tag_ in _PAST_TAGS
            and not self.irrealis(verb)
            and _by_speaker(verb)
            and not _for_someone(verb)
            and not _for_someone(obj)
        )

    def _driven(self, span: Span, sent: Span) -> bool:
        """'Drive a 2015 Golf': a line that opens with the verb, its "I" left out (not a question)."""
        verb = span.root.head
        if span.root.dep_ != "dobj" or verb.lemma_ != "drive" or self.irrealis(verb):
            return False
        subject = any(c.dep_ in {"nsubj", "nsubjpass"} for c in verb.children)
        return verb.i == sent.start and verb.tag_ in {"VB", "VBP"} and not subject

    def _speakers_fact(self, verb: Token) -> bool:
        return not self.irrealis(verb) and _by_speaker(verb)

    def _swapped_for(self, span: Span) -> bool:
        """'traded the Fiesta in for a Kia Niro', 'swapped the Golf for a Model 3', 'replaced the Astra
        with a Kia Sportage': the car got."""
        prep = span.root.head
        if span.root.dep_ != "pobj" or prep.lower_ not in {"for", "with"}:
            return False
        verb = prep.head.head if prep.head.dep_ in {"prt", "prep"} else prep.head  # "traded ... in for"
        swap = (
            verb.lemma_ == "replace"
            if prep.lower_ == "with"
            else verb.lemma_ in _SWAP_VERBS or _part_exchanged(verb)
        )
        return swap and verb.tag_ in _PAST_TAGS and not self.irrealis(verb) and _by_speaker(verb)

    def _is_my_car(self, span: Span) -> bool:
        """'Our car is a Toyota Corolla', "my car's a Kia Ceed", "Car's a Honda Jazz" (written out,
        extract/copula.py), 'Our new car, a Skoda Karoq, ...', 'The new car (a Skoda Karoq)'."""
        if span.root.dep_ == "appos":
            return _our_car_noun(span.root.head)
        verb = span.root.head
        if span.root.dep_ != "attr" or verb.lemma_ != "be" or verb.tag_ == "VBD" or self.irrealis(verb):
            return False
        subj = next((c for c in verb.children if c.dep_ == "nsubj"), None)
        if subj is None or subj.lower_ not in CAR_NOUNS:
            return False
        # "Car's a Honda Jazz": chat drops the "my" of a line that opens with the car
        dropped = subj.i == subj.sent.start and not any(subj.children)
        return dropped or _our_car_noun(subj, the_new=False)

    def _selling(self, span: Span) -> bool:
        verb = span.root.head
        return (
            verb.lemma_ == "sell"
            and span.root.dep_ == "dobj"
            and verb.tag_ not in _PAST_TAGS
            and not any(c.dep_ == "aux" and c.lower_ == "did" for c in verb.children)  # "we did sell it"
            and _by_speaker(verb)
        )


def _given(verb: Token) -> list[Token]:
    """What a past verb gives up, if it is a car's end: the object of a wreck, theft or scrapping
    ("wrote off my Yaris", "stole our Golf"), of a lease handed or given back, of a part exchange, of a
    goodbye said to it; or the subject that went back or to the scrapyard."""
    parts = {c.lower_ for c in verb.children if c.dep_ in {"prt", "advmod"}}
    dobjs = [c for c in verb.children if c.dep_ == "dobj"]
    if verb.lemma_ in _GONE_VERBS - {"write"} or (verb.lemma_ == "write" and "off" in parts):
        return dobjs
    if verb.lemma_ in {"hand", "give"} and "back" in parts:
        return dobjs
    if _part_exchanged(verb):
        return dobjs
    if verb.lemma_ in {"say", "wave", "bid"} and any(c.lower_ in _FAREWELLS for c in dobjs):
        return [p for c in verb.children if c.lower_ == "to" for p in c.children if p.dep_ == "pobj"]
    if verb.lemma_ == "go":
        tos = [c for t in (verb, *verb.children) for c in t.children if c.lower_ == "to"]  # "went back to"
        places = {p.lower_ for c in tos for p in c.children if p.dep_ == "pobj"}
        if places & _SCRAP_PLACES or ("back" in parts and not places):
            return [c for c in verb.children if c.dep_ == "nsubj"]
    return []


def _part_exchanged(verb: Token) -> bool:
    """'part-exed', 'part-exchanged': the parse splits the word at its hyphen."""
    doc = verb.doc
    return verb.i >= 2 and doc[verb.i - 1].text == "-" and doc[verb.i - 2].lower_ == "part"


_FAREWELLS = frozenset({"goodbye", "bye", "farewell"})
_SCRAP_PLACES = frozenset({"scrapyard", "scrapheap", "scrappers", "scrapper", "scrap", "breakers", "crusher"})


def _opens_line(span: Span, sent: Span) -> bool:
    """A car's name that opens the line, a year at most before it ("2019 Kia Sportage, 40k miles",
    "Mini Cooper keeps breaking down"); not one word that is a first name or tagged a person
    nor a make alone ("Mercedes", "Kia": a partner opening the line was taken for a car and lost as a
    partner)."""
    before = sent.doc[sent.start : span.start]
    one = span[0]  # a make alone is a surname too ("Kia thinks ...", "Ford said ...")
    named = len(span) == 1 and (
        one.ent_type_ == "PERSON" or one.lower_ in first_names() or one.text in CAR_MAKES
    )
    modelled = any(t.text in CAR_MODELS for t in span)  # "Lincoln Square" is a place: no model named
    return all(t.like_num for t in before) and len(before) <= 1 and not named and modelled


def _own_thing(subj: Token) -> bool:
    """No owner but the speaker's: 'the Corsa', 'my car', 'car' (not 'my dad's car', 'her Fiesta')."""
    return all(c.lower_ in _OWNERS for c in subj.children if c.dep_ == "poss")


def _for_someone(tok: Token | None) -> bool:
    """'a Polo for my daughter', 'bought it for him': the car is someone else's ('for weekends' is not)."""
    pobjs = (
        [p for c in tok.children if c.lower_ == "for" for p in c.children if p.dep_ == "pobj"] if tok else []
    )
    return any(p.pos_ in {"PROPN", "PRON"} or any(c.dep_ == "poss" for c in p.children) for p in pobjs)


def _by_speaker(verb: Token) -> bool:
    """The verb's subject is I or we, or the chat left it out ('Went with the Yaris')."""
    subjects = [c for c in verb.children if c.dep_ in {"nsubj", "nsubjpass"}]
    if verb.dep_ == "conj" and not subjects:
        subjects = [c for c in verb.head.children if c.dep_ == "nsubj"]
        if subjects and all(s.lower_ in _THING_SUBJECTS for s in subjects):
            # "I sold my old Jazz, it was dying already, and got a Corolla": the aside's "it" took
            # the verb; the speaker of the clause before it is the one who got it
            subjects = [
                s
                for c in verb.head.children
                if c.i < verb.i and c.pos_ == "VERB"
                for s in c.children
                if s.dep_ == "nsubj"
            ] or subjects
    return all(s.lower_ in SPEAKER_SUBJECTS for s in subjects)


_THING_SUBJECTS = frozenset({"it", "that", "this"})


def _our_car_noun(noun: Token, the_new: bool = True) -> bool:
    """'our new car', 'my car' (and with `the_new`, 'the new car'): the household's car noun."""
    if noun.lower_ not in CAR_NOUNS:
        return False
    owner = next((c for c in noun.children if c.dep_ in {"poss", "det"}), None)
    mods = {c.lower_ for c in noun.children}
    new = the_new and owner is not None and owner.lower_ == "the" and "new" in mods
    ours = owner is not None and (owner.lower_ in _OWNERS or new)
    return ours and not mods & _NOT_MINE
