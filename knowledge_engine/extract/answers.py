"""A terse reply to the assistant's question is a fact: "What's the dog's name?" - "Bonnie."

Why: a person talking to an assistant often answers its question with a name and nothing else. The
reply alone says nothing the parse can read ("Bonnie. she'd take up the whole boot"); with the
question before it, it names the speaker's dog. The assistant's last question in a session is read
for the slot it asks about (`FRAMES`: a pet's, a manager's, a partner's or a child's name, the
employer, the home, a named child's school, a named person's age, the speaker's job); the user's
next turn in that session fills it when it opens with a name (a number, a job title). A yes/no
question that names someone or restates a fact ("Is Mochi your only pet?", "So you're working at
Helix now?") is confirmed by a reply opening with a yes. Only the very next user turn answers, and
only its opening words: "Yes, ..." to a question asking for a name, or a sentence about something
else, fills nothing. In memory per session, bounded like `spacy_ner.SessionPeople`.
"""

from __future__ import annotations

import calendar
import re
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from knowledge_engine.extract.lexicon import FAMILY_NOUNS, JOB_TITLE_NOUNS, NUMBER_WORDS, RELATION_PREDICATES
from knowledge_engine.model.extraction import Extraction, FactCandidate
from knowledge_engine.model.records import EntityType, Message
from knowledge_engine.observe import counters

_PETS = r"(dog|cat|puppy|pup|kitten|pet|rabbit|bunny|hamster|horse|pony)"
_KIN = r"(husband|wife|partner|boyfriend|girlfriend|fianc[eé]e?|son|daughter|baby|mum|mom|mother|dad|father)"
_BOSS = r"(?:new |line |ward |team )?(manager|boss|team lead|supervisor)"
_WHATS = r"what(?:'s|’s| is| was)"
_SCHOOLS = r"(?i:school|nursery|daycare|preschool)"
_PLACES = r"(?:city|town|area|suburb|neighbou?rhood|part of town)"
_YOU = r"(?i:you're|you’re|you are|are you)"
_NAME = r"([A-Z][\w'’-]+(?: [A-Z][\w'’-]+){0,3})"
_CONFIRM = re.compile(rf"\b(?i:is) ([A-Z][\w'’-]+) your (?i:only |new )?((?i:{_PETS[1:-1]}|{_KIN[1:-1]}))\b")


@dataclass(frozen=True)
class Slot:
    """What the assistant asked for: `subject`'s (None: the speaker's) `predicate`, an object of
    `object_type`."""

    predicate: str
    object_type: EntityType | None  # None: a value (an age, a job title), not an entity
    subject: str | None = None
    confirms: str | None = None  # a yes/no question's object ("Is Mochi your only pet?" - "yes")
    kind: str = "name"  # what the reply holds: a name, an "age" ("Seven."), a "role" ("Nurse, at the Royal")


def _animal(word: str) -> str:
    animal = {"pup": "puppy", "bunny": "rabbit", "pony": "horse"}.get(word, word)
    return "has-pet" if animal == "pet" else f"has-{animal}"


def _pet(m: re.Match[str]) -> Slot:
    return Slot(_animal(m.group(1).lower()), "unknown")


def _kin_predicate(word: str) -> str:
    return RELATION_PREDICATES.get(word.lower().replace("é", "e"), "has-partner")


def _kin(m: re.Match[str]) -> Slot:
    return Slot(_kin_predicate(m.group(1)), "person")


def _manager(_: re.Match[str]) -> Slot:
    return Slot("has-manager", "person")


def _employer(_: re.Match[str]) -> Slot:
    return Slot("works-at", "organization")


def _home(_: re.Match[str]) -> Slot:
    return Slot("lives-in", "location")


def _confirm(m: re.Match[str]) -> Slot:
    name, word = m.group(1), m.group(2).lower()
    if re.fullmatch(_PETS, word):
        return Slot(_animal(word), "unknown", confirms=name)
    return Slot(_kin_predicate(word), "person", confirms=name)


def _still_at(m: re.Match[str]) -> Slot:
    return Slot("works-at", "organization", confirms=m.group(1))


def _still_in(m: re.Match[str]) -> Slot:
    return Slot("lives-in", "location", confirms=m.group(1))


def _school(m: re.Match[str]) -> Slot:
    return Slot("attends", "organization", subject=m.group(1))


def _age(m: re.Match[str]) -> Slot:
    return Slot("is-aged", None, subject=m.group(1), kind="age")


def _role(_: re.Match[str]) -> Slot:
    return Slot("has-role", None, kind="role")


FRAMES: tuple[tuple[re.Pattern[str], Callable[[re.Match[str]], Slot]], ...] = (
    (re.compile(rf"\b{_WHATS} (?:the |your |his |her )?{_PETS}(?:'s|’s)? (?:name|called)\b", re.I), _pet),
    (re.compile(rf"\bwhat do you call (?:the|your) {_PETS}\b", re.I), _pet),
    (re.compile(rf"\b{_WHATS} your {_KIN}(?:'s|’s)? (?:name|called)\b", re.I), _kin),
    (re.compile(rf"\bwho(?:'s|’s| is| will be) your {_BOSS}\b", re.I), _manager),
    (re.compile(rf"\b{_WHATS} your {_BOSS}(?:'s|’s)? (?:name|called)\b", re.I), _manager),
    (re.compile(r"\b(?:where|who) (?:do|are|will) you (?:work|working)(?: for| at)?\b", re.I), _employer),
    (re.compile(r"\bwhich (?:company|firm|employer)\b", re.I), _employer),
    (re.compile(r"\bwhere (?:do|are|will) you (?:live|living|based|staying)\b", re.I), _home),
    (re.compile(rf"\bwhich {_PLACES} (?:do|are) you (?:live in|living in|in|based in)\b", re.I), _home),
    # a yes/no question that names someone: "Is Mochi your only pet?" - "yes just mochi"
    (_CONFIRM, _confirm),
    # the child is named with its capital ("Which school will Isla go to?"); a he/she is left alone
    (
        re.compile(rf"\b(?i:which|what) {_SCHOOLS} (?i:is|does|will|did) ([A-Z]\w+)"),
        _school,
    ),
    (re.compile(r"\b(?i:how old is) ([A-Z]\w+)"), _age),
    # a restatement to confirm: "So you're at Helix now?", "Are you still living in Leeds?" - "yes"
    # ... but not a visit: "Are you at the airport?", "Are you in London this week?"
    (re.compile(rf"\b{_YOU} (?i:still )?(?i:working|employed) (?i:at|for|by) {_NAME}"), _still_at),
    (re.compile(rf"\b{_YOU} (?i:still) (?i:at|with) {_NAME}"), _still_at),
    (re.compile(rf"\b{_YOU} (?i:at|with) {_NAME} (?i:now)\b"), _still_at),
    (re.compile(rf"\b{_YOU} (?i:still )?(?i:living in|based in) {_NAME}"), _still_in),
    (re.compile(rf"\b{_YOU} (?i:still) (?i:in) {_NAME}"), _still_in),
    (re.compile(r"\bwhat do you do(?: for (?:work|a living))?\?", re.I), _role),
    (re.compile(r"\bwhat(?:'s|’s| is) your job\b", re.I), _role),
)
# Words that open a reply without being its answer.
_NOT_ANSWERS = frozenset(
    {
        "yes", "yeah", "yep", "no", "nope", "not", "oh", "ah", "well", "so", "ok", "okay", "haha", "lol",
        "um", "hmm", "thanks", "thank", "sure", "maybe", "i", "we", "he", "she", "they", "it", "my", "our",
        "the", "a", "an", "that", "this", "just", "still", "actually", "honestly", "good", "great", "sorry",
    }
)  # fmt: skip
# The capitalised words a reply opens with, up to punctuation, its end or a lower-case word
# ("Bonnie.", "Nadia Brooks, she's lovely", "Copperleaf Energy in Leeds").
_OPENING = re.compile(r"^\s*([A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*){0,3})(?=\s*(?:[.!,;:)\-–—]|$|\s+[a-z]))")
_CALENDAR = frozenset(w.lower() for w in (*calendar.day_name, *calendar.month_name) if w)
_MAX_WORDS = 4
# read with .match on the stripped reply; a word boundary first keeps a search over long text linear
_AGE = re.compile(r"\b(?:(?:she|he)(?:'s|’s| is) |(?:just )?turned )?(\d{1,3}|[a-z]+)\b")
_YES = frozenset({"yes", "yeah", "yep", "yup", "aye", "correct", "exactly", "indeed", "ja", "si", "sí"})


def asked(text: str) -> Slot | None:
    """The slot the assistant's last question asks about, if it asks about one of FRAMES."""
    questions = [q for q in re.split(r"(?<=[.!?])\s+", text.strip()) if q.endswith("?")]
    if not questions:
        return None
    last = questions[-1]
    for pattern, make in FRAMES:
        found = pattern.search(last)
        if found:
            return make(found)
    return None


def answer(text: str, slot: Slot) -> str | None:
    """The name the reply opens with ("Bonnie.", "Nadia Brooks, she's lovely"), or None; for a
    yes/no question, its name when the reply opens with a yes."""
    if slot.confirms is not None:
        opening = re.match(r"\s*([a-z]+)", text.lower())
        return slot.confirms if opening is not None and opening.group(1) in _YES else None
    if slot.kind == "age":
        return _age_answer(text)
    if slot.kind == "role":
        return _role_answer(text)
    found = _OPENING.match(text)
    if not found:
        return None
    name = found.group(1).strip()
    words = name.split()
    first = words[0].lower()
    if len(words) > _MAX_WORDS or first in _NOT_ANSWERS or first in _CALENDAR or name.lower() in FAMILY_NOUNS:
        return None
    return name


def _age_answer(text: str) -> str | None:
    """'Seven.', '4, going on 14', "she's 6", 'just turned 92' -> the age."""
    found = _AGE.match(" ".join(text.lower().split()[:4]))
    if found is None:
        return None
    word = found.group(1)
    age = int(word) if word.isdigit() else NUMBER_WORDS.get(word)
    return str(age) if age is not None and 0 < age < 120 else None


def _role_answer(text: str) -> str | None:
    """'Nurse, at the Royal.', "I'm a data engineer" -> the job title (its last word a job noun)."""
    clause = re.split(r"[.,;!?\n]| at | for | with ", text.strip().lower(), maxsplit=1)[0]
    words = re.sub(r"^(?:i'm|i’m|i am|im|i work as)\s+", "", clause.strip()).split()
    words = words[1:] if words and words[0] in {"a", "an"} else words
    if not words or len(words) > _MAX_WORDS or words[-1] not in JOB_TITLE_NOUNS:
        return None
    return " ".join(words)


class SessionAnswers:
    """Per session, the slot the assistant's last turn asked for; the user's next turn may fill it."""

    def __init__(self, limit: int = 2048) -> None:
        self.limit = limit
        self._asked: OrderedDict[tuple[str | None, str], Slot] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._asked)

    def resolve(self, messages: list[Message], extractions: list[Extraction]) -> list[Extraction]:
        with self._lock:
            return [self._one(m, ex) for m, ex in zip(messages, extractions, strict=False)]

    def _one(self, msg: Message, ex: Extraction) -> Extraction:
        if not msg.session:
            return ex
        key = (msg.agent_id, msg.session)
        slot = self._asked.pop(key, None)
        if msg.role == "assistant":
            found = asked(msg.text)
            if found is not None:
                self._asked[key] = found
                while len(self._asked) > self.limit:
                    self._asked.popitem(last=False)
            return ex
        if slot is None or msg.role != "user" or not msg.speaker:
            return ex
        name = answer(msg.text, slot)
        if name is None or name.casefold() in {
            msg.speaker.strip().casefold(),
            (slot.subject or "").casefold(),
        }:
            return ex
        counters.inc("extract.spacy.answers")
        fact = FactCandidate(
            subject=slot.subject or msg.speaker,
            predicate=slot.predicate,
            object=name,
            tier="spacy",
            confidence=0.5,
            subject_type="person",
            object_type=slot.object_type,
            object_type_implied=slot.object_type not in {None, "unknown"},
        )
        return ex.model_copy(update={"facts": [*ex.facts, fact]})
