"""The speaker's pets as chat introduces them, beside "my dog Rex" and "a cat called Mochi".

Why: people name a pet by what it is more often than by whose it is: "Jess is the dog, an old
sheepdog cross", "we have dog, paçoca, vira-lata", "Banjo's already found the beach. he's a red
kelpie". The parse reads these as an identity ("Jess is the dog"), an apposition to the object of
"have", or a he/she that the dependency pass already resolved to the name ("Banjo is-a red
kelpie"); each is the speaker's pet when the message is the speaker's and names no other owner.

A breed that is also a word for a person ("Tom is a boxer", "a shepherd") is not read from an
identity, nor is a name the model tags as a person in a sentence without an animal word.
"""

from __future__ import annotations

from collections.abc import Callable

from spacy.tokens import Span, Token

from knowledge_engine.extract.lexicon import ANIMAL_NOUNS, OTHER_POSSESSIVES, PET_BREEDS, SPEAKER_SUBJECTS

_ITS = frozenset({"his", "her", "its"})
_HAD_VERBS = frozenset({"have", "get", "adopt", "rescue", "buy"})
_PERSON_BREEDS = frozenset({"boxer", "shepherd", "pointer", "setter", "lab", "persian", "siamese"})

Name = Callable[[Token], str | None]


def animal(noun: Token) -> str | None:
    """'dog' for "dog", "sheepdog" or "red kelpie"; None for any other noun."""
    lemma = noun.lemma_.lower()
    if lemma in ANIMAL_NOUNS and lemma != "pet":
        return lemma
    return PET_BREEDS.get(lemma)


def pets_in(sent: Span, name_of: Name) -> list[tuple[str, str]]:
    """(animal, name) for each pet of the speaker the sentence introduces."""
    # "her dog Rex", "their cat": someone else's ("his name is Rex" is the pet's); a name beside "my
    # tabby" says whose it is itself
    others = any(t.lower_ in OTHER_POSSESSIVES and t.head.lemma_ != "name" for t in sent)
    ways = (_name_beside,) if others else (*_WAYS, _name_beside)
    found: list[tuple[str, str]] = []
    for tok in sent:
        kind = animal(tok) if tok.pos_ in {"NOUN", "ADJ"} or _our_breed(tok) else None  # "kitten" ADJ
        if kind is None:
            continue
        pair = next((p for way in ways if (p := way(tok, kind, name_of))), None)
        if pair:
            found.append(pair)
    return found


def _our_breed(tok: Token) -> bool:
    """'Rex, our German Shepherd': a breed the model took for a name, owned by "my"/"our"."""
    return tok.pos_ == "PROPN" and any(c.dep_ == "poss" and c.lower_ in {"my", "our"} for c in tok.children)


def _name_beside(noun: Token, kind: str, name_of: Name) -> tuple[str, str] | None:
    """'Buster, our labrador', 'Nala, my tabby' (the name just before the comma), 'Max the dog', 'my
    puppy Ziggy': a name beside the household's animal word."""
    doc = noun.doc
    owners = {c.lower_ for c in noun.children if c.dep_ in {"poss", "det"}}
    first = noun.left_edge.i
    ours = bool(owners & {"my", "our"})
    if ours and noun.dep_ == "appos" and (noun.head.pos_ == "PROPN" or _capitalised_word(noun.head)):
        name_tok: Token = noun.head
    elif ours and first >= 2 and doc[first - 1].text == "," and doc[first - 2].pos_ == "PROPN":
        name_tok = doc[first - 2]  # the parse hung "my tabby" elsewhere
    elif owners == {"the"} and first >= 1 and doc[first - 1].pos_ == "PROPN" and noun.i == first + 1:
        name_tok = doc[first - 1]  # "Max the dog"
    elif _modifies_name(noun):
        name_tok = noun.head  # "My puppy Ziggy", "our new puppy Ziggy": the word a modifier of the name
    else:
        return None
    name = name_of(name_tok) or (name_tok.text if _capitalised_word(name_tok) else None)
    return (kind, name) if name else None


def _modifies_name(noun: Token) -> bool:
    """The animal word parsed as a modifier of the name right after it, owned by "my"/"our" (on the
    word or the name: "Our new puppy Ziggy")."""
    name = noun.head
    if noun.dep_ not in {"compound", "amod"} or name.pos_ != "PROPN" or name.i != noun.i + 1:
        return False
    return any(c.dep_ == "poss" and c.lower_ in {"my", "our"} for t in (noun, name) for c in t.children)


def _capitalised_word(tok: Token) -> bool:
    """'Bramble, our cockapoo': a pet's name that is also a word, tagged as one (an adjective) and
    unknown to the name reader; only where the parse makes the household's animal its apposition."""
    appos = any(c.dep_ == "appos" for c in tok.children)
    return tok.is_title and tok.is_alpha and tok.pos_ != "PROPN" and appos


def pet_of_breed(breed_phrase: str) -> str | None:
    """'red kelpie' -> 'dog': the animal an identity names by its breed (not a person's word)."""
    words = breed_phrase.lower().split()
    if not words or words[-1] in _PERSON_BREEDS:
        return None
    return PET_BREEDS.get(words[-1])


def _is_the_pet(noun: Token, kind: str, name_of: Name) -> tuple[str, str] | None:
    """'Jess is the dog' (the household's one dog, said with "the")."""
    verb = noun.head
    if noun.dep_ != "attr" or verb.lemma_ != "be" or not any(c.lower_ == "the" for c in noun.children):
        return None
    subj = next((c for c in verb.children if c.dep_ == "nsubj"), None)
    if subj is None or subj.pos_ != "PROPN":
        return None
    name = name_of(subj)
    return (kind, name) if name else None


def _have_pet(noun: Token, kind: str, name_of: Name) -> tuple[str, str] | None:
    """'we have dog, paçoca', 'I have a cat, Mochi': the name in apposition to the animal had."""
    verb = noun.head
    if noun.dep_ != "dobj" or verb.lemma_ != "have" or verb.tag_ not in {"VBP", "VB"}:
        return None
    subj = next((c for c in verb.children if c.dep_ == "nsubj"), None)
    if subj is None or subj.lower_ not in SPEAKER_SUBJECTS:
        return None
    listed = any(c.dep_ == "cc" for c in noun.children)  # "a dog and Tom": two things had
    deps = {"appos"} if listed else {"appos", "conj"}
    appos = next((c for c in noun.children if c.pos_ == "PROPN" and c.dep_ in deps), None)
    if appos is None:
        appos = _its_name(noun.sent)  # "we have one dog, his name is Paçoca"
    name = name_of(appos) if appos is not None else None
    return (kind, name) if name else None


def _our_pet_is(noun: Token, kind: str, name_of: Name) -> tuple[str, str] | None:
    """'Our rabbit is Clover', 'the cat is called Tinkerbell': the household's animal as the subject
    of its name ("our"/"my", or "the" with "called"/"named")."""
    verb = noun.head
    if noun.dep_ not in {"nsubj", "nsubjpass"}:
        return None
    owners = {c.lower_ for c in noun.children if c.dep_ in {"poss", "det"}}
    called = verb.lemma_ in {"call", "name"} and noun.dep_ == "nsubjpass"
    if not (owners & {"our", "my"} or (called and "the" in owners)):
        return None
    deps = {"oprd", "attr", "dobj"} if called else ({"attr"} if verb.lemma_ == "be" else set())
    name_tok = next((c for c in verb.children if c.dep_ in deps and c.pos_ == "PROPN"), None)
    name = name_of(name_tok) if name_tok is not None else None
    return (kind, name) if name else None


def _its_name(sent: Span) -> Token | None:
    """The name in "his name is Paçoca" / "her name's Luna"."""
    for tok in sent:
        owner = next((c for c in tok.children if c.dep_ == "poss"), None)
        if tok.lemma_ != "name" or tok.dep_ != "nsubj" or owner is None or owner.lower_ not in _ITS:
            continue
        return next((c for c in tok.head.children if c.dep_ == "attr" and c.pos_ == "PROPN"), None)
    return None


def _animal_named(noun: Token, kind: str, name_of: Name) -> tuple[str, str] | None:
    """'the new puppy Ziggy', 'we got a kitten Luna', 'a hamster Krümel' had or got: the animal word
    before a name. With "the", only a new one (the household's); with "a", only one had or got."""
    name_tok = noun.head
    if noun.dep_ not in {"compound", "amod"} or name_tok.pos_ != "PROPN" or name_tok.i != noun.i + 1:
        return None
    words = {c.lower_ for c in name_tok.children if c.i < noun.i} | {c.lower_ for c in noun.children}
    verb = name_tok.head
    had = (
        name_tok.dep_ == "dobj"
        and verb.lemma_ in _HAD_VERBS
        and any(c.dep_ == "nsubj" and c.lower_ in SPEAKER_SUBJECTS for c in verb.children)
    )
    if not ((words & {"a", "an"} and had) or words >= {"the", "new"}):
        return None
    name = name_of(name_tok)
    return (kind, name) if name else None


_WAYS: tuple[Callable[[Token, str, Name], tuple[str, str] | None], ...] = (
    _is_the_pet,
    _have_pet,
    _animal_named,
    _our_pet_is,
)
