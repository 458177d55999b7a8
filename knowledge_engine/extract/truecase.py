"""Restores the capital of known first names in casual text before spaCy parses it.

Why: the small English model finds names by their capital; in "my husband tom" or an all
lower-case message ("met dana at work") it finds no PERSON and every parse rule that needs one
fails. Only the case of a letter changes, so the text keeps its length and every character
offset stays valid.

The names are the first names Faker ships in its wheel (MIT; several locales, accents folded
too). A name that is also an English verb, adjective or adverb (bill, mark, rose, grace), a
stop word or a month or day (june) is restored only after "named"/"called". Any other name (tom,
camila) is restored after a family or role noun ("my husband tom"), or anywhere in a mostly
lower-case message unless a determiner makes it a common noun ("a crystal"). After a family or role
noun, a word no dictionary knows is a name too ("my hubby kwame": Faker's lists lack it). An unknown word
right after a restored name is taken as its surname ("ines carvalho"). The parser's own word
index (WordNet, via the lemmatizer) says what is an English word.
"""

from __future__ import annotations

import calendar
import importlib
import re
import threading
import unicodedata
from collections.abc import Collection, Iterator, Mapping
from typing import TYPE_CHECKING

from knowledge_engine.extract import lexicon, places
from knowledge_engine.extract.nlp import irregular_forms, word_index
from knowledge_engine.observe import counters

if TYPE_CHECKING:
    from spacy.language import Language

# Faker's person providers whose first names are read (names English-speaking users and
# non-native writers mention most).
LOCALES = (
    *("en_US", "en_GB", "en_IE", "en_NZ", "en_IN"),  # Irish and NZ lists: "niamh", "isla", "rory"
    *("es_ES", "es_MX", "pt_BR", "pt_PT", "it_IT", "fr_FR", "de_DE"),
)
# More of Faker's Latin-script lists, for the people a name alone must make (a child's age said with
# no kin word: children_by_context.py), not for casing, where more names would capitalise words
WORLD_LOCALES = (
    *("en_KE", "en_NG", "en_PK", "yo_NG", "ig_NG", "ha_NG", "tw_GH", "sw", "zu_ZA", "tr_TR", "pl_PL"),
    *("nl_NL", "ga_IE", "cs_CZ", "ro_RO", "hu_HU", "sv_SE", "fi_FI", "id_ID", "vi_VN", "hr_HR"),
)
_NAME_ATTRS = ("first_names_female", "first_names_male", "first_names")
_GENDER_ATTRS = {"first_names_female": "f", "first_names_male": "m"}
_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?")
# Verbs with a tense that make a known name opening a casual sentence its subject ("will got the
# job", "... yesterday. carol says"); not "is" ("hope is all we have").
_FINITE = frozenset({
    "got", "gets", "goes", "went", "starts", "works", "lives", "says", "said", "has", "had", "wants",
    "thinks", "reckons", "loves", "hates", "told", "asked", "asks", "likes", "knows", "needs", "texted",
    "rang", "comes", "keeps",
})  # fmt: skip
# After these a lower-case known name is a name whatever else it could be.
_NAMING = frozenset({"named", "called", "name", "name's", "names"})
# Month and day names (June, April, May) are dates in lower case too; the parse and
# extract.dates read them in either case.
_CALENDAR = frozenset(w.lower() for w in (*calendar.month_name, *calendar.day_name) if w)
# Names that are abstract nouns or times: "hope has kept me going", "june went fast" are no subjects
_ABSTRACT = frozenset({
    "hope", "faith", "patience", "charity", "honor", "honour", "destiny", "serenity",
    "harmony", "unity", "justice", "chance", "dawn", "summer", "autumn", "winter", "spring",
}) | _CALENDAR  # fmt: skip
_OBJECTS = frozenset({"him", "her", "them", "it"})  # "we named her grace"
_KIN_ROLE = frozenset(
    {
        *lexicon.FAMILY_NOUNS,
        *lexicon.WORK_NOUNS,
        *lexicon.CLINICIANS,
        "husband", "wife", "partner", "boyfriend", "girlfriend", "fiance", "fiancé", "fiancee",
        "fiancée", "friend", "bestie", "mate", "roommate", "flatmate", "neighbour", "neighbor",
        "cousin", "aunt", "uncle", "niece", "nephew", "stepmom", "stepdad", "mentor", "supervisor",
        "therapist", "landlord", "landlady", "teacher", "tutor", "coach", "ex", "sis", "bro",
        "hubby", "hubs", "wifey", "missus", "gf", "bf", "boyf", "youngest", "eldest", "oldest",
    }
)  # fmt: skip
# After these, a word no dictionary knows is a name ("my hubby kwame"); not after a group ("team alpha").
_KIN_NAMING = _KIN_ROLE - {"team", "lead", "ex"}
# A name right after one of these is a common noun ("a crystal", "the hunter").
_DETERMINERS = frozenset(
    {"a", "an", "the", "this", "that", "these", "those", "some", "any", "no", "every", "each", "per"}
    | {"my", "your", "his", "her", "its", "our", "their"}  # "my faith": kin words sit in between
)
# Car makes and models as written in their names ("vw polo" -> "VW Polo", "skoda" -> "Skoda"): the
# parse reads a car only from a capitalised name.
_CARS = {w.lower(): w for w in (*lexicon.CAR_MAKES, *lexicon.CAR_MODELS) if w.isalpha()}
_MAKES = frozenset(w.lower() for w in lexicon.CAR_MAKES if w.isalpha())
_MODELS_LOWER = frozenset(w.lower() for w in lexicon.CAR_MODELS if w.isalpha())
# Models written with a hyphen, by their lower-case writing ("cr-v", "d-max", "x-trail")
_HYPHENED = {w.lower(): w for w in lexicon.CAR_MODELS if "-" in w}
_INFLECTIONS = ("s", "es", "ies", "ied", "ed", "d", "ing", "er", "ers", "est", "ly", "n", "en")
# After these a lower-case place or unknown word is a name: "moved to pune", "internship at zoho".
_LOCATIVE = frozenset({"in", "from", "near", "around", "outside", "via", "to"})  # "to": not before a verb
_INTRODUCERS = _LOCATIVE | {
    "at", "with", "for", "join", "joined", "joining", "joins", "left", "leaving", "quit", "quitting",
    "called", "named",
}  # fmt: skip
# Chat words no dictionary lists: never a name after a preposition ("in like 5 mins", "with ppl").
_CHAT_WORDS = frozenset(
    {
        "haha", "hahaha", "lmao", "lmfao", "rofl", "tbh", "imho", "pls", "plz", "thx", "thnx", "gonna",
        "wanna", "gotta", "kinda", "sorta", "dunno", "yeah", "yep", "yup", "nope", "okay", "tmrw", "tonite",
        "bday", "hubby", "wifey", "mins", "hrs", "yrs", "secs", "ppl", "abt", "bcuz", "cuz", "coz", "tho",
        "thru", "omg", "idk", "btw", "fyi", "asap", "lol", "brb", "ikr", "smh", "ugh", "hmm", "hmmm", "meh",
        "nah", "aww", "awww", "woohoo", "yay", "whoa", "convo", "info", "pics", "vids", "uni", "gym",
    }
)  # fmt: skip
# Words that end an institution's name after an unknown one ("st marys primary", "hillcrest secondary").
_NAME_TAILS = frozenset(
    {"primary", "secondary", "academy", "school", "juniors", "infants", "grammar", "college", "hospital"}
)
# Words that end an unknown name rather than go on with it ("at zoho then school", "at zoho near the college")
_NOT_IN_NAMES = frozenset(
    {"and", "or", "then", "near", "by", "the", "a", "my", "our", "to", "in", "at", "for", "from", "with"}
)
# A school, nursery or hospital named in English words ends in one of these ("little acorns nursery",
# "riverside high", "the royal infirmary"); "primary school": the tail takes one more
_INSTITUTION_TAILS = frozenset({*lexicon.SCHOOL_WORDS, "hospital", "infirmary"})
# Words that make "X school" a kind of place, not its name ("at forest school", "at the kids nursery",
# "at the eye hospital", "at record high")
_KINDS_OF_PLACE = frozenset(
    {
        "kids", "children", "boys", "girls", "village", "church", "forest", "night", "summer", "holiday",
        "dance", "swim", "music", "art", "arts", "drama", "language", "football", "sport", "sports", "state",
        "faith", "infant", "junior", "senior", "middle", "sixth", "form", "community", "law", "business",
        "film", "flight", "home", "day", "prep", "catholic", "christian", "jewish", "muslim", "islamic",
        "international", "comprehensive", "independent", "medical", "dental", "vet", "beauty", "hair",
        "police", "army", "bible", "ballet", "theatre", "stage", "tech", "trade", "breakfast", "grad",
        "med", "uni", "main", "district", "county", "regional", "record", "time", "all", "eye", "animal",
        "pet", "dog", "cancer", "heart", "maternity", "care", "drop", "sky", "knee", "waist", "mile",
        "local", "new", "old", "big", "small", "tiny", "little", "nearby", "nearest", "same", "other",
        "different", "good", "best", "private", "public", "general", "special", "nice", "lovely", "usual",
        "current", "previous", "next", "whole", "mental", "rural", "posh", "fancy", "free",
    }
)  # fmt: skip
MAX_NAME_WORDS = 3  # an unknown name after a preposition: "clinica dental sorrisos" at most
MIN_UNKNOWN_CHARS = 4  # shorter unknown words are mostly chat ("sth", "rn") or acronyms
COMMON_PLACE_POPULATION = 50_000  # a place whose name is also an English word (bath, cork) must be this big
_MIN_WORDS = 3  # a message shorter than this says too little about its writer's casing
_MAX_CAPITAL_SHARE = 0.1  # "mostly lower case": at most this share of words start upper-case

_lock = threading.Lock()
_names: frozenset[str] | None = None
_world_names: frozenset[str] | None = None
_genders: dict[str, str] | None = None


def _fold(word: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFD", word) if unicodedata.category(c) != "Mn")


def _faker_names(locales: Collection[str], attrs: Collection[str]) -> Iterator[tuple[str, str]]:
    """(provider attribute, lower-case name or its accent-free form) for each first name of three
    letters or more that Faker's person providers of `locales` list (none without Faker)."""
    for locale in locales:
        try:
            provider = importlib.import_module(f"faker.providers.person.{locale}").Provider
        except ImportError:
            continue
        for attr in attrs:
            for name in getattr(provider, attr, ()) or ():
                if name.isalpha() and len(name) >= 3:
                    yield attr, name.lower()
                    yield attr, _fold(name.lower())


def load_names(locales: Collection[str] = LOCALES) -> frozenset[str]:
    """Lower-case first names (and their accent-free forms) from Faker's providers; empty
    when Faker is not installed (the tier then parses the text as written)."""
    return frozenset(name for _, name in _faker_names(locales, _NAME_ATTRS))


def names() -> frozenset[str]:
    """The name set, read once per process."""
    global _names
    with _lock:
        if _names is None:
            _names = load_names()
        return _names


def world_names() -> frozenset[str]:
    """`names()` and those of `WORLD_LOCALES`, read once per process."""
    global _world_names
    base = names()
    with _lock:
        if _world_names is None:
            _world_names = base | load_names(WORLD_LOCALES)
        return _world_names


def load_genders(locales: Collection[str] = LOCALES) -> dict[str, str]:
    """Lower-case first name -> "f" or "m" for the names Faker lists for one gender only, in every
    locale ("maya" f, "tom" m; not "jordan", listed for both)."""
    seen: dict[str, set[str]] = {}
    for attr, name in _faker_names(locales, _GENDER_ATTRS):
        seen.setdefault(name, set()).add(_GENDER_ATTRS[attr])
    return {name: next(iter(g)) for name, g in seen.items() if len(g) == 1}


def gender_of(name: str) -> str | None:
    """'f' or 'm' for a first name one gender carries (Faker's lists, read once), else None."""
    global _genders
    with _lock:
        if _genders is None:
            _genders = load_genders()
        return _genders.get(name.lower())


class Truecaser:
    """Decides, word by word, which lower-case known names to capitalise.

    `index` is the lemmatizer's word index by part of speech (nlp.word_index); `stop` the
    model's stop words. Both guard names that are also ordinary English words.
    """

    def __init__(
        self,
        first_names: Collection[str],
        index: Mapping[str, Collection[str]] | None,
        stop: Collection[str],
        inflected: Collection[str] = (),
    ) -> None:
        index = index or {}
        other = set().union(*(index.get(pos, ()) for pos in ("verb", "adj", "adv")))
        nouns = index.get("noun", ())
        self.names = frozenset(first_names)
        # also a job's word ("im backend dev at nubank": no Dev), which is never a name without "my"...
        roles = lexicon.JOB_TITLE_NOUNS
        self.ambiguous = frozenset(
            n for n in self.names if n in other or n in stop or n in _CALENDAR or n in roles
        )
        self.english = frozenset({*other, *nouns, *stop, *inflected})
        self.stop = frozenset({*stop, *_CALENDAR, *_DETERMINERS})
        self.nouns = frozenset(nouns)
        self.adjectives = frozenset(index.get("adj", ()))
        self.indexed = bool(nouns)  # without the index (no lemmatizer) every word looks unknown
        self.verbs = frozenset(index.get("verb", ()))
        # Words that are never a place's name in chat, whatever a gazetteer says ("nice", "march")
        self.not_places = frozenset(
            {*index.get("adj", ()), *index.get("adv", ()), *stop, *_CALENDAR, *_DETERMINERS}
        )

    def __call__(self, text: str, names: bool = True) -> str:
        """`text` with car names (and, with `names`, known first names) capitalised; the same length,
        only case changes."""
        words = list(_WORD.finditer(text))
        chars = list(text)
        cars = self._cars(words, chars)
        casual = _mostly_lower(text, words)
        placed = names and casual and self._places_and_names(text, words, chars)
        after_kin = any(m.group().lower() in _KIN_ROLE for m in words[:-1])  # "my hubby raj"
        if not names or not (after_kin or any(_own(m.group().lower()) in self.names for m in words)):
            return "".join(chars) if cars or placed else text
        previous = before = ""
        restored = False
        for i, m in enumerate(words):
            word = m.group()
            low = word.lower()
            naming = previous in _NAMING or (before in _NAMING and previous in _OBJECTS)
            opening = (
                casual
                and i + 1 < len(words)
                and low not in _ABSTRACT
                and _sentence_start(text, words, i)
                and _joined(text, words, i + 1)
            )
            naming = naming or (opening and self._finite_verb(words[i + 1].group()))
            if word == low and self._is_name(_own(low), previous, casual, naming):
                chars[m.start()] = word[0].upper()
                restored = True
            elif restored and word == low and self._surname(low):
                chars[m.start()] = word[0].upper()  # "ines carvalho": the surname after a name
            else:
                restored = False
            before, previous = previous, low
        return "".join(chars)

    def _cars(self, words: list[re.Match[str]], chars: list[str]) -> bool:
        """Write lower-case car names as they are written: a make with the model after it ("vw polo",
        "ford focus", "VW polo vivo": an unknown word after the model is part of its name); a make or
        a model alone only when it is no English word ("skoda", "yaris"; not "ford", "seat", "golf")."""
        changed = False
        for i, m in enumerate(words):
            low = m.group().lower()
            hyphened = self._hyphened(words, i, chars)
            changed = changed or hyphened
            if hyphened or (m.group() != low and low not in _MAKES):
                continue
            nxt = words[i + 1] if i + 1 < len(words) else None
            model = nxt is not None and nxt.group() in _MODELS_LOWER and low in _MAKES
            if model and nxt is not None:
                after = words[i + 2] if i + 2 < len(words) else None
                tail = [after] if after is not None and self._unknown(after.group()) else []
                for word in (m, nxt, *tail):
                    if word.group().islower():
                        chars[word.start() : word.end()] = _CARS.get(word.group(), word.group().capitalize())
                changed = True
            elif m.group() == low and low in _CARS and not (self._english(low) or low in self.names):
                chars[m.start() : m.end()] = _CARS[low]
                changed = True
        return changed

    @staticmethod
    def _hyphened(words: list[re.Match[str]], i: int, chars: list[str]) -> bool:
        """Write a lower-case model with a hyphen in its name as it is written ("d-max" -> "D-Max")."""
        if i + 1 >= len(words) or words[i + 1].start() != words[i].end() + 1:
            return False
        if chars[words[i].end()] != "-":
            return False
        written = _HYPHENED.get(f"{words[i].group()}-{words[i + 1].group()}")
        if written is None:
            return False
        chars[words[i].start() : words[i + 1].end()] = written
        return True

    def _places_and_names(self, text: str, words: list[re.Match[str]], chars: list[str]) -> bool:
        """In casual writing, capitalise the places a gazetteer knows ("cost of life in lisbon") and
        an unknown word after a preposition or a verb of joining ("internship at zoho", "offer from
        feedzai", "in koramangala"), with the unknown words that follow it ("clinica sorriso")."""
        changed = False
        known = places.places()  # read once per process; the lock once per message
        i = 0
        while i < len(words):
            previous = _previous(text, words, i)
            skip, span = self._institution_at(text, words, i, previous)
            if skip:
                i, previous = i + skip, "the"  # "the" before an institution's name stays lower case
            span = span or self._place_at(text, words, i, previous, known)
            nxt = words[i + 1].group() if i + 1 < len(words) else ""
            saint = words[i].group() == "st" and self._saints_name(nxt)
            if not span and previous in _INTRODUCERS and (self._unknown(words[i].group()) or saint):
                span = 2 if saint else 1  # "at st marys primary": the saint's name is part of it
                while span < MAX_NAME_WORDS and i + span < len(words) and _joined(text, words, i + span):
                    if not self._unknown(words[i + span].group()):
                        break
                    span += 1
                span += self._to_tail(text, words, i + span)  # "st marys primary", "heol wen primary"
            for m in words[i : i + span]:
                chars[m.start()] = m.group()[0].upper()
                changed = True
            i += max(span, 1)
        return changed

    def _institution_at(
        self, text: str, words: list[re.Match[str]], i: int, previous: str
    ) -> tuple[int, int]:
        """After a preposition, the words from `i` that name a school, nursery or hospital
        (`_institution`), past a "the" that opens them ("at the royal infirmary"): (1 for that "the"
        else 0, the name's words)."""
        if previous not in _INTRODUCERS:
            return 0, 0
        if words[i].group() == "the" and i + 1 < len(words) and _joined(text, words, i + 1):
            span = self._institution(text, words, i + 1)
            return (1, span) if span else (0, 0)
        return 0, self._institution(text, words, i)

    def _institution(self, text: str, words: list[re.Match[str]], i: int) -> int:
        """How many words from `i` name a school, nursery or hospital in lower-case English words up
        to its tail ("little acorns nursery", "riverside high school"), or 0: at most three words
        before the tail, no stop word or "-ing" word among them, and one that is no kind of place and
        no adjective alone ("the local primary", "forest school", "record high" are no names)."""
        for n in range(1, MAX_NAME_WORDS + 1):
            end = i + n
            if end >= len(words) or not all(_joined(text, words, k) for k in range(i + 1, end + 1)):
                return 0
            run = [m.group() for m in words[i:end]]
            if not self._name_word(run[-1]):
                return 0
            if words[end].group() in _INSTITUTION_TAILS:
                if not any(self._names_a_place(w) for w in run):
                    return 0
                more = end + 1 < len(words) and _joined(text, words, end + 1)
                return n + 1 + (more and words[end + 1].group() in _INSTITUTION_TAILS)
        return 0

    def _names_a_place(self, word: str) -> bool:
        """No kind of place and no adjective alone ("acorns", "riverside"; not "local", "forest")."""
        return word not in _KINDS_OF_PLACE and (word in self.nouns or word not in self.adjectives)

    def _name_word(self, word: str) -> bool:
        """A lower-case word that may be part of an institution's name: letters, no stop word, chat
        word, month or "-ing" form, and no school word itself ("at primary school")."""
        if not word.isalpha() or not word.islower() or word.endswith("ing"):
            return False
        return word not in _CHAT_WORDS and word not in _INSTITUTION_TAILS and word not in self.stop

    @staticmethod
    def _to_tail(text: str, words: list[re.Match[str]], k: int) -> int:
        """How many words from `k` carry an unknown name on to its school or firm word ("oakfield
        juniors", and over one more word, "heol wen primary"), or 0."""
        for n in (1, 2):
            if k + n > len(words) or not all(_joined(text, words, j) for j in range(k, k + n)):
                return 0
            if words[k + n - 1].group() in _NAME_TAILS:
                return n
            if words[k].group() in _NOT_IN_NAMES:
                return 0  # "at zoho then school": the name ended
        return 0

    def _place_at(
        self, text: str, words: list[re.Match[str]], i: int, previous: str, known: Mapping[str, int]
    ) -> int:
        """How many words from `i` a known place's lower-case name takes (0: none). A name made of
        English words ("bath", "new york") counts only after "in", "from", "near"... (after "to",
        not when it is a verb: "going to cork it") and when the place is big."""
        if previous in _DETERMINERS:
            return 0
        for n in range(min(places.MAX_WORDS, len(words) - i), 0, -1):
            group = words[i : i + n]
            if any(m.group() != m.group().lower() for m in group):
                continue
            if n > 1 and not all(_joined(text, words, k) for k in range(i + 1, i + n)):
                continue
            key = places.fold(" ".join(m.group() for m in group))
            population = known.get(key)
            if population is None:
                continue
            lows = [m.group() for m in group]
            if n == 1 and lows[0] in self.not_places:
                return 0
            # words, names, short; a first name in a longer place's name is not one ("isla vista")
            english = [w for w in lows if not self._unknown(w, chat=False)]
            if n > 1:
                english = [w for w in english if w not in self.names]
            if not english:
                return n
            if len(english) < n or self._common_place(lows, previous, population):
                return n
            return 0
        return 0

    def _common_place(self, lows: list[str], previous: str, population: int) -> bool:
        """A place whose every word is English: only as a place after a locative word, big enough,
        and not as a verb after "to"."""
        if previous not in _LOCATIVE or population < COMMON_PLACE_POPULATION:
            return False
        return not (previous == "to" and lows[0] in self.verbs)

    def _saints_name(self, word: str) -> bool:
        """'marys', 'johns', 'anne': a first name, its possessive written without the apostrophe."""
        return word.islower() and (word in self.names or word.removesuffix("s") in self.names)

    def _unknown(self, word: str, chat: bool = True) -> bool:
        """A lower-case word no dictionary of the parser lists, nor an inflection of one, nor a chat
        word (`chat`): likely a name its writer did not capitalise."""
        if word != word.lower() or not word.isalpha() or len(word) < MIN_UNKNOWN_CHARS:
            return False
        if word in self.names or word in _CALENDAR or (chat and word in _CHAT_WORDS):
            return False
        return not self._english(word)

    def _is_name(self, low: str, previous: str, casual: bool, naming: bool) -> bool:
        if low not in self.names:  # "my hubby kwame", "our youngest zane": a name Faker lacks
            return self.indexed and previous in _KIN_NAMING and self._unknown(low)
        if naming:
            return True
        if low in self.ambiguous:
            return False
        if previous in _KIN_ROLE:
            return True
        return casual and previous not in _DETERMINERS

    def _finite_verb(self, word: str) -> bool:
        """'started', 'goes', 'has': a verb with a tense, so a known name before it opening a casual
        message is its subject ("jess started at hillcrest secondary"), not the word "jess"."""
        if word in _FINITE:
            return True
        stem = word.removesuffix("ed")
        return stem != word and (stem in self.verbs or stem + "e" in self.verbs or stem[:-1] in self.verbs)

    def _surname(self, low: str) -> bool:
        """An unknown word after a restored first name: no English word, no stop word."""
        return len(low) >= 3 and not self._english(low)

    def _english(self, word: str) -> bool:
        """A word of the parser's index, a stop word, or an inflection of one (the index lists
        lemmas: "lives" is "live")."""
        if word in self.english:
            return True
        stems = [word[: -len(end)] for end in _INFLECTIONS if word.endswith(end)]
        return any(s in self.english or s + "e" in self.english or s + "y" in self.english for s in stems)


def _previous(text: str, words: list[re.Match[str]], i: int) -> str:
    """The word before word `i` in lower case when only a space parts them, else ""."""
    return words[i - 1].group().lower() if i > 0 and _joined(text, words, i) else ""


def _own(word: str) -> str:
    """The word without its possessive ("tilly's our collie": the name is "tilly")."""
    return word.removesuffix("'s").removesuffix("’s")


def _sentence_start(text: str, words: list[re.Match[str]], i: int) -> bool:
    """Whether word `i` opens the text or a sentence of it ("... yesterday. carol says")."""
    return i == 0 or any(c in ".!?\n" for c in text[words[i - 1].end() : words[i].start()])


def _joined(text: str, words: list[re.Match[str]], i: int) -> bool:
    """Whether word `i` follows word `i - 1` after a single space (one phrase, no punctuation)."""
    return text[words[i - 1].end() : words[i].start()] == " "


def _mostly_lower(text: str, words: list[re.Match[str]]) -> bool:
    """True when the writer does not capitalise: few words, bar "I", start upper-case, and the
    sentences mostly start lower-case (one capital at the start of a long, well-written message
    is not casual writing)."""
    if len(words) < _MIN_WORDS:
        return False
    capitals = sum(1 for m in words if m.group()[0].isupper() and m.group() not in ("I", "I'm", "I’m"))
    starts = lower_starts = 0
    end = 0
    for m in words:
        if end == 0 or any(c in ".!?\n" for c in text[end : m.start()]):
            starts += 1
            lower_starts += m.group()[0].islower()
        end = m.end()
    return capitals <= _MAX_CAPITAL_SHARE * len(words) and 2 * lower_starts >= starts


_truecasers: dict[int, Truecaser] = {}


def for_pipeline(nlp: Language) -> Truecaser:
    """The truecaser of a loaded pipeline (its word index and stop words), built once."""
    key = id(nlp.vocab)
    with _lock:
        found = _truecasers.get(key)
    if found is None:
        built = Truecaser(names(), word_index(nlp.vocab), nlp.Defaults.stop_words, _irregular(nlp))
        with _lock:
            found = _truecasers.setdefault(key, built)
        if found is built:  # where and when: a worker builds its own before it reports ready
            counters.inc("extract.truecase.built")
    return found


def _irregular(nlp: Language) -> frozenset[str]:
    """Irregular forms the lemmatizer knows ("went", "children"): English words the index of
    lemmas does not list."""
    return frozenset().union(*irregular_forms(nlp).values())


def restore(nlp: Language, texts: list[str], names: bool = True) -> list[str]:
    """Texts with their lower-case car names and (with `names`: `spacy.truecase`) first names
    capitalised; counts the texts it changed."""
    truecaser = for_pipeline(nlp)
    out = [truecaser(text, names) for text in texts]
    changed = sum(1 for a, b in zip(texts, out, strict=True) if a is not b and a != b)
    if changed:
        counters.inc("extract.spacy.truecased", changed)
    return out
