"""A terse reply to the assistant's question is a fact: "What's the dog's name?" - "Bonnie."

Why: a person talking to an assistant often answers its question with a name and nothing else. The
reply alone says nothing the parse can read ("Bonnie. she'd take up the whole boot"); with the
question before it, it names the speaker's dog. The assistant's last question in a session is read
for the slot it asks about (`FRAMES`: a pet's, a manager's, a partner's or a child's name, the
employer, the home, the speaker's job; a child's school, someone's age, employer or job, asked by
name or by a he/she the session resolves as the user's own he/she); the user's next turn in that
session fills it when it opens with a name (a number, a job title). A yes/no question that names
someone or restates a fact ("Is Mochi your only pet?", "So you're working at Helix now?") is
confirmed by a reply opening with a yes; a "no" to a restatement may name the right one ("No,
Monzo."). Only the very next user turn answers, and
only its opening words: "Yes, ..." to a question asking for a name, or a sentence about something
else, fills nothing. In memory per session, bounded like `spacy_ner.SessionPeople`.
"""

from __future__ import annotations

import calendar
import re
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from typing import Any

from knowledge_engine.extract.kin import owner
from knowledge_engine.extract.lexicon import (
    FAMILY_NOUNS,
    JOB_TITLE_NOUNS,
    NUMBER_WORDS,
    PRONOUN,
    RELATION_PREDICATES,
)
from knowledge_engine.extract.truecase import names as first_names
from knowledge_engine.model.extraction import Extraction, FactCandidate
from knowledge_engine.model.records import EntityType, Message
from knowledge_engine.observe import counters

_PETS = r"(dog|cat|puppy|pup|kitten|pet|rabbit|bunny|hamster|horse|pony)"
_KIN = r"(husband|wife|partner|boyfriend|girlfriend|fianc[eé]e?|son|daughter|baby|mum|mom|mother|dad|father)"
_SIBLINGS = "sister|brother"
_BOSS = r"(?:new |line |ward |team )?(manager|boss|team lead|supervisor)"
_BOSS_WORDS = "manager|boss|team lead|supervisor|headteacher|head teacher|principal"
_WHATS = r"what(?:'s|’s| is| was)"
_SCHOOLS = r"(?i:school|nursery|daycare|preschool)"
_PLACES = r"(?:city|town|area|suburb|neighbou?rhood|part of town)"
_YOU = r"(?i:you're|you’re|you are|are you)"
_NAME = r"([A-Z][\w'’-]+(?: [A-Z][\w'’-]+){0,3})"
# who a question is about: a name with its capital, or a he/she (resolved as the user's are)
_WHO = r"([A-Z]\w+|(?i:she|he))"
_WHOSE = rf"(?i:{_PETS[1:-1]}|{_KIN[1:-1]}|{_BOSS_WORDS})"
_CONFIRM = re.compile(
    rf"\b(?i:is) ((?:(?:Mr|Mrs|Ms|Miss|Dr)\.? )?[A-Z][\w'’-]+) "
    rf"(?:your (?i:only |new |line )?({_WHOSE})|the ((?i:{_PETS[1:-1]})))\b"
)  # "Is Bryn the dog?": a pet of the household, as "your dog"
# "Sounds like Gareth's sold on the garage! Is that your husband?": the one first name the turn said
_CONFIRM_THAT = re.compile(
    rf"\b(?i:is) (?i:that|he|she) your (?i:new |line )?((?i:{_KIN[1:-1]}|{_BOSS_WORDS}))\b"
)
_CAPITALISED = re.compile(r"\b([A-Z][a-z]+)\b")


@dataclass(frozen=True)
class Slot:
    """What the assistant asked for: `subject`'s (None: the speaker's) `predicate`, an object of
    `object_type`."""

    predicate: str
    object_type: EntityType | None  # None: a value (an age, a job title), not an entity
    subject: str | None = None
    confirms: str | None = None  # a yes/no question's object ("Is Mochi your only pet?" - "yes")
    corrects: bool = False  # a "no" may name the right one instead ("So you're at Helix now?" - "No, Monzo")
    # what the reply holds: a name, an "age" ("Seven."), a "role" ("Nurse, at the Royal"), or a "subject":
    # a name that opens a sentence about them ("Waffles hated the drive")
    kind: str = "name"


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
    name, word = m.group(1), (m.group(2) or m.group(3)).lower()
    if re.fullmatch(_PETS, word):
        return Slot(_animal(word), "unknown", confirms=name)
    return _confirm_person(word, name)


def _confirm_person(word: str, name: str) -> Slot:
    if re.fullmatch(_BOSS_WORDS, word):
        return Slot("has-manager", "person", confirms=name)
    return Slot(_kin_predicate(word), "person", confirms=name)


def _confirm_that(question: str, before: str) -> Slot | None:
    """'Is that your husband?' after a turn that named one person by first name: that person."""
    found = _CONFIRM_THAT.search(question)
    if found is None:
        return None
    named = {w for w in _CAPITALISED.findall(before) if w.lower() in first_names()}
    return _confirm_person(found.group(1).lower(), named.pop()) if len(named) == 1 else None


def _still_at(m: re.Match[str]) -> Slot:
    return Slot("works-at", "organization", confirms=m.group(1), corrects=True)


def _still_in(m: re.Match[str]) -> Slot:
    return Slot("lives-in", "location", confirms=m.group(1), corrects=True)


def _asked_about(word: str) -> str:
    """A name as asked, or a he/she as `PRONOUN:f` / `PRONOUN:m` for the session to resolve."""
    low = word.lower()
    return f"{PRONOUN}:{'f' if low == 'she' else 'm'}" if low in {"she", "he"} else word


def _school(m: re.Match[str]) -> Slot:
    return Slot("attends", "organization", subject=_asked_about(m.group(1)))


def _age(m: re.Match[str]) -> Slot:
    return Slot("is-aged", None, subject=_asked_about(m.group(1)), kind="age")


def _role(_: re.Match[str]) -> Slot:
    return Slot("has-role", None, kind="role")


def _their_role(m: re.Match[str]) -> Slot:
    return Slot("has-role", None, subject=_asked_about(m.group(1)), kind="role")


def _asked_after(m: re.Match[str]) -> Slot:
    """'How's the cat handling the move?' - 'Waffles hated the drive': the name the reply opens with."""
    word = m.group(1).lower()
    if re.fullmatch(_PETS, word):
        return Slot(_animal(word), "unknown", kind="subject")
    if re.fullmatch(_SIBLINGS, word):
        return Slot(f"has-{word}", "person", kind="subject")
    return Slot(_kin_predicate(word), "person", kind="subject")


def _their_employer(m: re.Match[str]) -> Slot:
    return Slot("works-at", "organization", subject=_asked_about(m.group(1)))


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
    # about someone else, named with a capital or a he/she: "Which school will Isla go to?",
    # "How old is she now?", "Where does Tom work?", "What does he do?"
    (re.compile(rf"\b(?i:which|what) {_SCHOOLS} (?i:is|does|will|did) {_WHO}\b"), _school),
    (re.compile(rf"\b(?i:how old is) {_WHO}\b"), _age),
    (re.compile(rf"\b(?i:where) (?i:does|is|will) {_WHO} (?i:work|working)\b"), _their_employer),
    (re.compile(rf"\b(?i:who) (?i:does|is|will) {_WHO} (?i:work|working) (?i:for)\b"), _their_employer),
    (re.compile(rf"\b(?i:what) (?i:does) {_WHO} (?i:do)(?: (?i:for (?:work|a living)))?\?"), _their_role),
    # a restatement to confirm: "So you're at Helix now?", "Are you still living in Leeds?" - "yes"
    # ... but not a visit: "Are you at the airport?", "Are you in London this week?"
    (re.compile(rf"\b{_YOU} (?i:still )?(?i:working|employed) (?i:at|for|by) {_NAME}"), _still_at),
    (re.compile(rf"\b{_YOU} (?i:still) (?i:at|with) {_NAME}"), _still_at),
    (re.compile(rf"\b{_YOU} (?i:at|with) {_NAME} (?i:now)\b"), _still_at),
    (re.compile(rf"\b{_YOU} (?i:still )?(?i:living in|based in) {_NAME}"), _still_in),
    (re.compile(rf"\b{_YOU} (?i:still) (?i:in) {_NAME}"), _still_in),
    # asked after one of theirs: "How's the cat handling the move?" - "Waffles hated the drive"
    (
        re.compile(
            rf"\bhow(?:'s|’s| is| are| has) (?:the|your) (?:new )?({_PETS[1:-1]}|{_KIN[1:-1]}|{_SIBLINGS})\b",
            re.I,
        ),
        _asked_after,
    ),
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
_AGE = re.compile(
    r"\b(?:(?:she|he)(?:'s|’s| is) |(?:just )?turned )?(\d{1,3}|[a-z]+)\b"
    r"(?! (?:months?|weeks?|days?|mo|wks?)\b)"
)  # "2 months" is a pet's or a baby's age, not years
# "No, Monzo.", "nope, I'm at Monzo now", "No - we're in Leeds": the one the "no" puts right
# (?<!\s) on both: read with .match() from a reply's start; a search inside a run of spaces is quadratic
_CORRECTION = re.compile(
    r"(?<!\s)\s*(?i:no|nope|nah|not quite|not anymore)\b[\s,.!:;\-–—]*"
    r"(?:(?i:i'm|i’m|i am|we're|we’re|we are|it's|it’s|actually|now|still)\s+)?(?:(?i:at|with|in)\s+)?"
    r"([A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*){0,3})(?=\s*(?:[.!,;:)\-–—]|$|\s+[a-z]))"
)
# one name opening a sentence about it: "Waffles hated the drive", "Katrin's loving Munich"
_SUBJECT = re.compile(
    r"(?<!\s)\s*([A-Z][a-z]+)(?=(?:'s|’s) [a-z]| [a-z]+(?:ed|s)\b| (?:is|was|has|had|loves)\b)"
)
_ANIMAL = re.compile(rf"\b(?:{_PETS[1:-1]}|puppies|bunnies|ponies)s?\b", re.I)
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
    return _confirm_that(last, text[: text.rfind(last)])


def answer(text: str, slot: Slot) -> str | None:
    """The name the reply opens with ("Bonnie.", "Nadia Brooks, she's lovely"), or None; for a
    yes/no question, its name when the reply opens with a yes, or, to a restatement, the name a
    "no" puts in its place; the age, the job title, or the name a sentence about them opens with,
    when the slot asks for that."""
    if slot.confirms is not None:
        opening = re.match(r"\s*([a-z]+)", text.lower())
        if opening is not None and opening.group(1) in _YES:
            return slot.confirms
        corrected = _CORRECTION.match(text) if slot.corrects else None
        return _name(corrected.group(1)) if corrected is not None else None
    if slot.kind == "age":
        return _age_answer(text)
    if slot.kind == "role":
        return _role_answer(text)
    if slot.kind == "subject":
        found = _SUBJECT.match(text)
        return _name(found.group(1)) if found else None
    found = _OPENING.match(text)
    return _name(found.group(1)) if found else None


def _name(opening: str) -> str | None:
    """The capitalised words a reply opens with, unless they are a yes, a pronoun, a day or a kin word."""
    name = opening.strip()
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


# who a he/she means at this point of the session: (agent, session), "f"/"m" -> the name or None
Who = Callable[[tuple[str | None, str], str | None], str | None]


def _a_name(word: str, ex: Extraction) -> bool:
    """Whether the reply's own extraction took `word` for a name: an entity, or a fact's subject."""
    return any(m.value == word for m in ex.mentions) or any(f.subject == word for f in ex.facts)


class SessionAnswers:
    """Per session, the slot the assistant's last turn asked for; the user's next turn may fill it.

    A question about a he/she ("How old is she?") is about whom `who` says the session means at
    the question (spacy_ner.SessionPeople); without `who`, or when it cannot tell, it asks nothing.
    """

    def __init__(self, limit: int = 2048, who: Who | None = None) -> None:
        self.limit = limit
        self.who = who
        self._asked: OrderedDict[tuple[str | None, str], Slot] = OrderedDict()
        self._animals: OrderedDict[tuple[str | None, str], None] = OrderedDict()  # last user turn named a pet
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._asked)

    def one(self, msg: Message, ex: Extraction, scope: str | None = None) -> Extraction:
        """Read one message of its session; the caller gives each session's messages in order."""
        with self._lock:
            return self._one(msg, ex, owner(msg, scope))

    def forget(
        self, names: Callable[[str], bool], session: str | None = None, scope: str | None = None
    ) -> None:
        """After a forget: no pending question about a forgotten person, none in a forgotten session."""
        with self._lock:
            for key in list(self._asked):
                if scope is not None and key[0] != scope:
                    continue
                subject = self._asked[key].subject
                if (session is not None and key[1] == session) or (subject is not None and names(subject)):
                    del self._asked[key]
            if session is not None:
                for key in [k for k in self._animals if k[1] == session and scope in (None, k[0])]:
                    del self._animals[key]

    def state(self, scope: str | None) -> dict[str, Any]:
        """The workspace `scope`'s open questions and sessions whose last turn named a pet."""
        with self._lock:
            return {
                "asked": [
                    {"session": k[1], **asdict(slot)} for k, slot in self._asked.items() if k[0] == scope
                ],
                "animals": [k[1] for k in self._animals if k[0] == scope],
            }

    def restore(self, scope: str | None, state: dict[str, Any]) -> None:
        """Take back what `state` gave (after a restart); what this process saw since wins."""
        with self._lock:
            for rec in reversed(state.get("asked", [])):
                key = (scope, str(rec["session"]))
                if key not in self._asked:
                    self._asked[key] = Slot(**{k: v for k, v in rec.items() if k != "session"})
                    self._asked.move_to_end(key, last=False)
            for session in reversed(state.get("animals", [])):
                key = (scope, str(session))
                if key not in self._animals:
                    self._animals[key] = None
                    self._animals.move_to_end(key, last=False)
            for table in (self._asked, self._animals):
                while len(table) > self.limit:
                    table.popitem(last=False)

    def _one(self, msg: Message, ex: Extraction, scope: str | None) -> Extraction:
        if not msg.session:
            return ex
        key = (scope, msg.session)
        slot = self._asked.pop(key, None)
        if msg.role == "assistant":
            found = self._about(key, asked(msg.text))
            if found is not None:
                self._asked[key] = found
                while len(self._asked) > self.limit:
                    self._asked.popitem(last=False)
            return ex
        if msg.role == "user":
            self._note_animals(key, msg.text)
        if slot is None or msg.role != "user" or not msg.speaker:
            return ex
        name = answer(msg.text, slot)
        if name is None or name.casefold() in {
            msg.speaker.strip().casefold(),
            (slot.subject or "").casefold(),
        }:
            return ex
        if slot.kind == "subject" and not _a_name(name, ex):
            return ex  # "Everything's fine", "Pretty good": a word, not a name
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

    def _about(self, key: tuple[str | None, str], slot: Slot | None) -> Slot | None:
        """The slot with its he/she subject resolved, or None when nobody can be told."""
        if slot is None or slot.subject is None or not slot.subject.startswith(PRONOUN):
            return slot
        if key in self._animals:  # "adopted a kitten!" - "How old is she?": not a person
            return None
        gender = slot.subject.rpartition(":")[2]
        name = self.who(key, gender) if self.who is not None else None
        return replace(slot, subject=name) if name else None

    def _note_animals(self, key: tuple[str | None, str], text: str) -> None:
        """Whether the user's last turn in the session speaks of an animal, which a he/she may mean."""
        self._animals.pop(key, None)
        if _ANIMAL.search(text):
            self._animals[key] = None
            while len(self._animals) > self.limit:
                self._animals.popitem(last=False)
