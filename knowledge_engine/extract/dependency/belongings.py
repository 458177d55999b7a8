"""Cars and pets the speaker names: "a greyhound called Pepper", "my Golf", "we have two cats,
Miso and Tofu".
"""

from __future__ import annotations

import itertools

from spacy.tokens import Span, Token

from knowledge_engine.extract.dependency.context import _Ctx, _emit
from knowledge_engine.extract.dependency.grammar import _is_irrealis, _pobjs
from knowledge_engine.extract.dependency.names import (
    _called_name,
    _capitalised,
    _conjuncts,
    _name_of,
    _object_phrase,
    _owner,
)
from knowledge_engine.extract.dependency.nouns import (
    _is_kin,
    _listed_objects,
    _pet_predicate,
    _preps,
    _relation_predicate,
)
from knowledge_engine.extract.lexicon import (
    ANIMAL_NOUNS,
    CAR_GET_VERBS,
    CAR_MODELS,
    CAR_NAMES,
    CAR_NOUNS,
    FAMILY_NOUNS,
    FIRST_PERSON,
    JOB_NOUNS,
    MULTIPLE_BIRTHS,
    NOT_NAMES,
    OTHER_POSSESSIVES,
    PET_NOUNS,
    STAY_UNITS,
)
from knowledge_engine.extract.pets import animal, pet_of_breed, pets_in


def _cars_named(sent: Span, ctx: _Ctx) -> None:
    """The speaker's cars said around a purchase or in passing (extract/cars.py; "the Corolla needs
    new tyres" in a user's message only), unless the
    sentence's clauses named the same car already ('bought a 2019 Golf' is not also 'Golf')."""
    said = [f.object.lower() for f in ctx.out if f.predicate in {"has-car", "drives", "sold", "had-car"}]
    gone = ctx.cars.gone(sent)
    for car in gone:
        if car.text.lower() not in said:
            _emit(ctx, ctx.me, "had-car", car.text, 0.55, obj_tok=None, obj_type="product", ends=True)
    owned = ctx.cars.owned(sent)
    if ctx.message.role == "user":
        owned += [c for c in ctx.cars.in_passing(sent) if not any(o.start == c.start for o in owned)]
    for car in (c for c in owned if not any(g.start == c.start for g in gone)):
        if not any(car.text.lower() in o or o in car.text.lower() for o in said):
            _emit(ctx, ctx.me, "has-car", car.text, 0.6, obj_tok=car.root, obj_type="product")


def _cars_asked_about(sent: Span, ctx: _Ctx) -> None:
    """A question asks about the speaker's car by "my"/"our" ("Is it worth switching my Tesla to an
    off-peak tariff?", "Can I claim mileage for my Octavia?"): the question takes the car as given."""
    for car in ctx.cars.mine(sent):
        _emit(ctx, ctx.me, "has-car", car.text, 0.55, obj_tok=car.root, obj_type="product")


def _pets_named(sent: Span, ctx: _Ctx) -> None:
    """The speaker's pets named by what they are (extract/pets.py): 'Jess is the dog', 'we have dog,
    paçoca' (held in a line that goes on to ask: "..., can dog fly to europe?")."""
    if ctx.message.role == "user":
        _pets(pets_in(sent, lambda tok: _name_of(tok, ctx, person=True)), ctx)


def _pets_by_breed(before: int, ctx: _Ctx) -> None:
    """A name the clauses made a breed ("Banjo ... he's a red kelpie": is-a red kelpie) is a pet."""
    found = []
    for fact in ctx.out[before:]:
        kind = pet_of_breed(fact.object) if fact.predicate == "is-a" and fact.subject != ctx.me else None
        if kind:
            found.append((kind, fact.subject))
    _pets(found, ctx)


_CAR_NAMES_FOLDED = frozenset(n.casefold() for n in CAR_NAMES)
# A name tagged as one of these is a place, a time or an amount, never a pet
_NOT_PET_TAGS = frozenset({"GPE", "LOC", "FAC", "DATE", "TIME", "MONEY", "PERCENT", "QUANTITY", "CARDINAL"})
# A sentence that names an animal not (yet) the household's: a plan, a wish, a sitter's charge, a visit
_NOT_OURS = frozenset(
    {"if", "thinking", "considering", "maybe", "want", "wants", "planning", "sitting", "sitter", "minding",
     "neighbour", "neighbor", "neighbours", "neighbors", "friend", "friends", "visiting", "names", "name",
     "might", "could", "would", "should"}
)  # fmt: skip
_PEOPLE_WORDS = (FAMILY_NOUNS - PET_NOUNS) | frozenset(
    {"roommate", "flatmate", "housemate", "boss", "colleague", "coworker", "landlord", "landlady", "dr", "mr",
     "mrs", "ms", "miss", "husband", "wife", "partner", "boyfriend", "girlfriend", "mate", "pal"}
)  # fmt: skip
# What a person does that an animal does not: a name with such a fact is no pet
_PERSON_PREDICATES = ("works-", "worked-", "has-role", "is-married-to", "attends", "studies", "lives-")


def _pet_by_its_word(sent: Span, before: int, ctx: _Ctx) -> None:
    """'took Biscuit to the vet, the dog has an ear infection', 'Max has been such a good dog': the one
    animal of the household's ("the", "my", "our") and the one name of a user's sentence, which no
    other fact makes a person and which does not act on the animal or it on them ("Tom walked the
    dog", "the dog bit Tom")."""
    if any(f.predicate.startswith("has-") for f in ctx.out[before:]):
        return  # the sentence named its relations already ("my son Leo and the dog")
    animals = [t for t in sent if t.pos_ in {"NOUN", "ADJ"} and animal(t)]
    names = [t for t in sent if t.pos_ == "PROPN" and t.dep_ != "compound"]
    if len(animals) != 1 or len(names) != 1:
        return
    noun, name_tok, kind = animals[0], names[0], animal(animals[0])
    if noun.lemma_.lower() not in ANIMAL_NOUNS and pet_of_breed(noun.lemma_) is None:
        return  # "Tom is a boxer": a breed that is also a person's word
    copula = noun.head.lemma_ == "be" and noun.dep_ == "attr"  # "Max has been such a good dog"
    owners = {c.lower_ for c in noun.children if c.dep_ in {"poss", "det"}}
    owners -= {"a", "an"} if copula else set()
    if not owners <= {"the", "my", "our"} or not (owners or copula):
        return
    if any(t.lower_ in OTHER_POSSESSIVES or t.tag_ == "POS" or t.lower_ in _NOT_OURS for t in sent):
        return  # "her dog", "Sam's cat", "we might call the puppy Milo", "dog-sitting for Jo"
    if any(t.lemma_.lower() in _PEOPLE_WORDS for t in sent):
        return  # "the dog is my roommate's, Sam": the name may be the person's
    ent = ctx.ents.get(name_tok.i)
    if ent is not None and ent.label_ in _NOT_PET_TAGS:
        return
    if (noun.head.i == name_tok.head.i and not copula) or name_tok.i in {c.i for c in noun.conjuncts}:
        return  # one acts on the other ("Tom walked the dog"), or two things ("the cat and Leo")
    name = _name_of(name_tok, ctx, person=True)
    if not name or name == ctx.me or name.casefold() in _CAR_NAMES_FOLDED:
        return
    person = any(f.subject == name and f.predicate.startswith(_PERSON_PREDICATES) for f in ctx.out)
    if person or any(f.object == name for f in ctx.out):
        return
    _pets([(kind or "pet", name)], ctx)


def _pets(found: list[tuple[str, str]], ctx: _Ctx) -> None:
    said = {f.object for f in ctx.out if f.predicate.startswith("has-")}
    for kind, name in found:
        if _capitalised(name) not in said:  # "my brother Sam" is no pet, "my dog Rex" is said once
            _emit(ctx, ctx.me, f"has-{kind}", _capitalised(name), 0.55, obj_tok=None, obj_type="unknown")


def _named_possessions(verb: Token, subject: str, ctx: _Ctx) -> None:
    """'I adopted a cat named Pixel' / 'I have a sister called Maria' -> has-cat Pixel."""
    if verb.lemma_ not in {"have", "adopt", "get", "own"}:
        return
    for dobj in _listed_objects(verb):
        named = [(dobj, _called_name(dobj, ctx))]
        for appos in (c for c in dobj.children if c.dep_ == "appos"):  # "two kids, Lily and Ben"
            # "a brother and two sisters, Ana and Jo": the names hang on "brother", but are the sisters'
            nearest = max((n for n in [dobj, *_conjuncts(dobj)] if n.pos_ == "NOUN" and n.i < appos.i),
                          key=lambda n: n.i, default=dobj)  # fmt: skip
            named += [(nearest, _name_of(t, ctx, person=True)) for t in [appos, *_conjuncts(appos)]]
        if dobj.lower_ in MULTIPLE_BIRTHS or (dobj.tag_ == "NNS" and _is_kin(dobj)):
            # "We have twins, Noah and Ella": the parser makes the names conjuncts of "twins"
            named += [(dobj, _name_of(t, ctx, person=True)) for t in _conjuncts(dobj) if t.pos_ == "PROPN"]
        child = _child_by_age(dobj)
        if child is not None:  # "We have a 4 year old, Isla", "a 6 month old, Arlo"
            named.append((dobj, _name_of(child, ctx, person=True)))
        for noun, name in named:
            if name and noun.lemma_.lower() in JOB_NOUNS:  # "got a job at the bank, Santander": the firm
                pred = "has-offer-from" if noun.lemma_.lower() == "offer" else "works-at"
                _emit(ctx, subject, pred, name, 0.55, obj_tok=None, obj_type="organization")
            elif name:
                pred = "has-child" if child is not None else _relation_predicate(noun)
                _emit(ctx, subject, pred, name, 0.6, obj_tok=None, obj_type="person")


def _age_word(tok: Token) -> bool:
    """The "old" of 'a 4 year old', 'a 6-month-old': a child said by age."""
    words = [t for t in tok.doc[max(0, tok.i - 5) : tok.i] if t.text != "-"]  # "a 4-year-old"
    counted = any(a.like_num and b.lemma_.lower() in STAY_UNITS for a, b in itertools.pairwise(words))
    return tok.lower_ == "old" and counted


def _child_by_age(dobj: Token) -> Token | None:
    """The name said with a child's age: "a 4 year old, Isla" (the parse makes either word the
    object), "a 2 year old called Finn". Not "a 10 year old Honda Civic": the name needs a comma or
    a "called" between."""
    doc = dobj.doc
    if _age_word(dobj):
        after = doc[dobj.i + 1 : dobj.i + 3]
        if len(after) == 2 and after[0].lower_ in {",", "-"} and after[1].pos_ == "PROPN":
            return after[1]
        return dobj if any(c.dep_ == "acl" and c.lemma_ in {"call", "name"} for c in dobj.children) else None
    olds = [t for t in dobj.subtree if t.i < dobj.i and _age_word(t)]
    if dobj.pos_ == "PROPN" and olds and doc[dobj.i - 1].lower_ == ",":
        return dobj
    return None


def _pet_called(noun: Token, ctx: _Ctx) -> None:
    """'A rescue greyhound called Biscuit.' (a line of its own), 'our dog is a lab called Bo' ->
    the speaker's has-dog; another owner ('her dog called Rex') gives nothing here."""
    name = _called_name(noun, ctx)
    if not name:
        return
    poss = next((c for c in noun.children if c.dep_ == "poss"), None)
    verbless = noun.dep_ == "ROOT" or (noun.head.dep_ == "ROOT" and noun.head.lemma_ == "be" and poss is None)
    owner = _owner(poss, ctx, noun) if poss is not None else (ctx.me if verbless else None)
    if (
        owner
        and poss is None
        and noun.dep_ == "ROOT"
        and any(c.lower_ in {"his", "her", "their"} for c in noun.sent)
    ):
        return
    if owner:
        _emit(ctx, owner, _pet_predicate(noun), _capitalised(name), 0.55, obj_tok=None, obj_type="unknown")


def _pet_named(verb: Token, ctx: _Ctx) -> None:
    """'adopted a kitten from CUPA!! named her biscuit' -> has-kitten Biscuit (the animal the
    speaker adopted, got or brought home earlier in the message, named by a pronoun)."""
    doc = verb.doc
    if verb.i + 2 >= len(doc) or doc[verb.i + 1].lower_ not in {"her", "him", "it"}:
        return
    word = doc[verb.i + 2]
    if not _pet_name_word(word):
        return
    subj = next((c for c in verb.children if c.dep_ == "nsubj"), None)
    if subj is not None and subj.lower_ not in FIRST_PERSON | {"we"}:
        return
    _named_pet(_acquired_animal(doc[: verb.i]), word.text, ctx)


def _acquired_called(sent: Span, ctx: _Ctx) -> None:
    """'me n tavo adopted a dog from ACS. hes a pit mix named nacho' -> has-dog Nacho: a he/she/it said
    to be something called a name ("Got a rescue dog! She's called Poppy": or called it), after an
    animal the speaker adopted or got earlier in the message."""
    if ctx.message.role != "user":
        return
    for attr in (t for t in sent if t.dep_ == "attr" and t.head.lemma_ == "be"):
        subj = next((c for c in attr.head.children if c.dep_ == "nsubj"), None)
        if subj is None or subj.lower_ not in {"he", "she", "it"}:
            continue
        name = _called_name(attr, ctx)
        if name:
            _named_pet(_acquired_animal(sent.doc[: sent.start]), name, ctx)
    # "Got a puppy! She's called Daisy": the name said of it in a sentence of its own
    for called in (t for t in sent if t.lemma_ in {"call", "name"} and t.tag_ == "VBN"):
        subj = next((c for c in called.children if c.dep_ == "nsubjpass"), None)
        word = next((c for c in called.children if c.dep_ in {"oprd", "attr", "dobj"}), None)
        if subj is None or subj.lower_ not in {"he", "she", "it"} or word is None or not _pet_name_word(word):
            continue
        if not _is_irrealis(called):
            _named_pet(_acquired_animal(sent.doc[: sent.start]), word.text, ctx)


def _named_pet(animal: Token | None, name: str, ctx: _Ctx) -> None:
    """The speaker's `animal` (the kind they got) is called `name`."""
    if animal is not None:
        _emit(ctx, ctx.me, _pet_predicate(animal), _capitalised(name), 0.55, obj_tok=None, obj_type="unknown")


def _pet_name_word(word: Token) -> bool:
    """A word that can be a pet's name said after "named her" / "his name is" (not "it", "so", "lol")."""
    return word.is_alpha and not word.is_stop and word.lower_ not in NOT_NAMES


def _acquired_animal(tokens: Span) -> Token | None:
    """The last animal the speaker adopted, got, rescued or bought in `tokens`, or announced new on a
    line of its own ("New puppy! His name is Otis")."""
    animals = [
        t
        for t in tokens
        if t.lemma_.lower() in PET_NOUNS
        and ((t.dep_ == "dobj" and _getting(t.head) and _got_by_me(t.head)) or _new_one_said(t))
    ]
    return animals[-1] if animals else None


def _getting(verb: Token) -> bool:
    """Adopted, got, rescued, bought, collected; "picked up" or "brought home" ("Just picked up our new
    puppy! ... named him Teddy")."""
    parts = {c.lower_ for c in verb.children if c.dep_ in {"prt", "advmod"}}
    return verb.lemma_ in {"adopt", "get", "rescue", "buy", "collect"} or (
        (verb.lemma_ == "pick" and "up" in parts) or (verb.lemma_ == "bring" and "home" in parts)
    )


def _new_one_said(noun: Token) -> bool:
    """'New puppy!', 'new kitten in the house': a line that is only the new animal (no verb)."""
    new = any(c.dep_ == "amod" and c.lower_ == "new" for c in noun.children)
    return new and noun.dep_ == "ROOT" and not any(c.dep_ == "poss" for c in noun.children)


def _got_by_me(verb: Token) -> bool:
    """'We got a puppy', 'Got a puppy!' (the "I" dropped); not 'My sister got a puppy'."""
    subj = next((c for c in verb.children if c.dep_ == "nsubj"), None)
    return subj is None or subj.lower_ in FIRST_PERSON | {"we"}


def _pet_name_said(noun: Token, ctx: _Ctx) -> None:
    """'We got a puppy! His name is Milo' -> has-puppy Milo: "his/her/its name" after an animal the
    speaker got earlier in the message (a person met earlier names nobody's pet); "The puppy's name is
    Luna" names the household's animal itself."""
    poss = next((c for c in noun.children if c.dep_ == "poss"), None)
    be = noun.head
    if poss is None or noun.dep_ != "nsubj" or be.lemma_ != "be":
        return
    word = next((c for c in be.children if c.dep_ in {"attr", "acomp"} and c.i > be.i), None)
    if word is None or not _pet_name_word(word):
        return
    said = not any(c.dep_ in {"aux", "neg"} for c in be.children)  # not "...'s name will be Luna"
    if _ours(poss) and said:  # "The puppy's name is Luna", "our dog's name is Bo"
        name = _capitalised(word.text)
        _emit(ctx, ctx.me, _pet_predicate(poss), name, 0.55, obj_tok=None, obj_type="unknown")
        return
    if poss.lower_ not in {"his", "her", "its"}:
        return
    animal = _acquired_animal(noun.doc[: noun.i])
    between = list(noun.doc[animal.i + 1 : noun.i]) if animal is not None else []
    if animal is not None and not any(_is_kin(t) or t.ent_type_ == "PERSON" for t in between):
        name = _capitalised(word.text)  # (not "a puppy for my son. His name is Leo": the son's)
        _emit(ctx, ctx.me, _pet_predicate(animal), name, 0.55, obj_tok=None, obj_type="unknown")


_VETS = frozenset({"vet", "vets", "vet's", "veterinarian", "veterinary"})


def _to_the_vet(verb: Token, ctx: _Ctx) -> None:
    """'Took Biscuit to the vet', 'we had to take Biscuit to the vets' -> has-pet Biscuit: what one
    takes to the vet is an animal, the speaker's when "I"/"we" (or nobody said) took it."""
    subj = next((c for c in verb.children if c.dep_ == "nsubj"), None)
    if subj is not None and subj.lower_ not in {"i", "we"}:
        return
    if any(t.pos_ in {"NOUN", "ADJ"} and animal(t) for t in verb.sent):
        return  # "took Biscuit to the vet, the dog has an ear infection": its kind is said (_pet_by_its_word)
    if not any(p.lower_ in _VETS for prep in _preps(verb, verb, {"to"}) for p in _pobjs(prep)):
        return
    for pet in (c for c in verb.children if c.dep_ == "dobj" and c.pos_ == "PROPN"):
        words = [*(c for c in pet.children if c.dep_ == "compound" and c.pos_ == "PROPN"), pet]
        name = " ".join(w.text for w in sorted(words, key=lambda w: w.i))
        if not any(f.subject == name or f.object == name for f in ctx.out):  # not "my son Leo" said before
            _pets([("pet", name)], ctx)


def _ours(noun: Token) -> bool:
    """An animal of the household's: "the puppy", "our dog", "my cat" (not "her dog", "a dog")."""
    owners = {c.lower_ for c in noun.children if c.dep_ in {"det", "poss"}}
    return noun.lemma_.lower() in PET_NOUNS and bool(owners) and owners <= {"the", "my", "our"}


def _car_owned(verb: Token, subject: str, ctx: _Ctx) -> bool:
    """'We bought a secondhand Skoda Octavia estate', 'we have a 2016 Honda Pilot', 'picked up the
    Fabia', 'I run an old Land Rover Defender' -> has-car (one car at a time: a new one ends the old;
    'sold the Corsa' ends it too).
    Not one bought for someone else ('a Polo for my daughter')."""
    ran = verb.lemma_ == "run" and verb.tag_ in {"VBP", "VBZ"}  # "I run an old Land Rover": kept on the road
    if (verb.lemma_ not in CAR_GET_VERBS and not ran) or (
        verb.lemma_ == "pick" and not any(c.dep_ == "prt" and c.lower_ == "up" for c in verb.children)
    ):
        return False
    found = False
    for dobj in (c for c in verb.children if c.dep_ == "dobj" and _is_car(c)):
        if any(p.dep_ == "pobj" for prep in _preps(dobj, verb, {"for"}) for p in prep.children):
            continue
        obj = _object_phrase(dobj, ctx, prefer_name=False)
        if obj:
            _emit(ctx, subject, "drives" if verb.lemma_ == "drive" else "has-car", obj, 0.6, obj_tok=dobj)
            found = True
    return found


def _is_car(tok: Token) -> bool:
    """A car named by its make or model ('Skoda Octavia estate', 'RAV4', 'a 2019 Golf')."""
    words = [tok, *(c for c in tok.children if c.dep_ == "compound")]
    named = any(w.text in CAR_NAMES for w in words)
    return named and (tok.pos_ == "PROPN" or tok.text in CAR_MODELS or tok.lower_ in CAR_NOUNS)


def _owns_named(verb: Token, dobjs: list[Token], subject: str, past: bool, ctx: _Ctx) -> bool:
    """'we have a 2016 Honda Pilot' -> owns: a named thing owned."""
    if verb.lemma_ not in {"have", "own"} or past:
        return False
    found = False
    for dobj in dobjs:
        if _child_by_age(dobj) is not None:
            continue  # "a 4 year old, Isla": a child (_named_possessions)
        ent = ctx.ents.get(dobj.i)
        det = next((c.lower_ for c in dobj.children if c.dep_ == "det"), None)
        name = _name_of(dobj, ctx)
        if name and det in {"a", "an"} and (ent is None or ent.label_ in {"PRODUCT", "ORG"}):
            _emit(ctx, subject, "owns", name, 0.55, obj_tok=None, obj_type="product")
            found = True
    return found
