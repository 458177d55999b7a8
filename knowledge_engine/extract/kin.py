"""Kin words and the names they stand for: "my wife Jenna", "Jonas, my brother", "Sam's my husband".

Two uses. `kin_genders` gives the session's pronoun resolution the gender a kin word shows. `KinNames`
remembers, per agent and speaker, which name each of their kin words stood for, so that a later
"my husband got a job at X" (no name) is about Tom: a fact whose subject (or object) is
`KIN_PREFIX + "husband"` (every rule gives a "my <kin>" subject so, and relations by example) takes the
name, or is dropped when the speaker never named one or named two ("my sister" for Katrin and for
Anna). Kept in memory only (a restart forgets it), for the `limit` speakers that named kin last.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Collection, Iterable
from typing import Any

from spacy.lang.en.stop_words import STOP_WORDS

from knowledge_engine.extract import lexicon
from knowledge_engine.model.extraction import Extraction, FactCandidate
from knowledge_engine.model.records import Message

CHILD_KIN = frozenset({"son", "daughter", "stepson", "stepdaughter", "child"})
# The map keeps each child of a speaker under its own key (CHILD_SLOT + the name), beside the kin words
CHILD_SLOT = "child:"
# ... and every name the speaker tied to a relation (has-X, is-married-to) under RELATED_SLOT + the name:
# a person given a child's age later is no child of theirs when tied so (children_by_context.py)
RELATED_SLOT = "rel:"
KIN_PREFIX = lexicon.KIN_PREFIX  # a fact's subject that is the speaker's kin by its word: "__kin__:husband"

# Kin words a person has one of at a time, or that name one person in a chat: the ones the map keeps.
KIN_WORDS = lexicon.FEMALE_KIN | lexicon.MALE_KIN | frozenset({"partner", "boss", "manager"})

_WORDS = re.compile(r"[A-Za-z][\w'-]*|[,(]")
_OWNERS = {"my", "our"}
# Words after a kin word that are no name: "my brother, he's ...", "my sister got a job"
_NOT_NAMES = frozenset(
    {
        "and",
        "is",
        "was",
        "has",
        "had",
        "who",
        "i",
        "me",
        "too",
        "also",
        "just",
        "said",
        "says",
        "he",
        "she",
        "he's",
        "she's",
        "they",
        "it",
        "we",
        "you",
        "got",
        "gets",
        "get",
        "will",
        "would",
        "works",
        "worked",
        "work",
        "started",
        "starts",
        "start",
        "starting",
        "lives",
        "lived",
        "moved",
        "moves",
        "can",
        "could",
        "does",
        "did",
        "loves",
        "loved",
        "hates",
        "wants",
        "needs",
        "went",
        "goes",
        "came",
        "comes",
        "took",
        "takes",
        "made",
        "makes",
        "found",
        "left",
        "quit",
        "turned",
        "turns",
        "seems",
        "looks",
        "called",
        "thinks",
        "thought",
        "knows",
        "finally",
        "still",
        "really",
        "now",
        "then",
    }
)


def kin_pairs(text: str, kin_words: Collection[str] = KIN_WORDS) -> list[tuple[str, str]]:
    """(kin word, name as written) for each possessed kin word a message names: 'my wife Jenna',
    'my wife, Jenna', 'Jonas, my brother', "Sam's my husband" (a pronoun after the kin word is no
    name: "my brother, he's in Leeds")."""
    words = _WORDS.findall(text)
    low = [w.casefold() for w in words]
    out: list[tuple[str, str]] = []
    for i, kin in enumerate(low):
        if kin not in kin_words or not ({low[i - 1] if i else "", low[i - 2] if i > 1 else ""} & _OWNERS):
            continue
        after = i + 2 if i + 1 < len(low) and low[i + 1] == "," else i + 1  # "my wife, Jenna"
        owner = i - 1 if low[i - 1] in _OWNERS else i - 2
        names = [words[after]] if after < len(low) else []
        if owner >= 2 and low[owner - 1] in {",", "("}:  # "Jonas, my brother"
            names.append(words[owner - 2])
        if owner >= 1 and low[owner - 1].endswith(("'s", "’s")):  # "Sam's my husband"
            names.append(words[owner - 1][:-2])
        for name in names:
            key = name.casefold()
            if key not in _NOT_NAMES and key not in {",", "("} and key not in lexicon.FAMILY_NOUNS:
                out.append((kin, name))
    return out


def kin_genders(text: str) -> dict[str, str]:
    """Names a message gives a gender by a kin word: 'my wife Jenna', 'Jonas, my brother', "Sam's
    my husband" -> {'jenna': 'f', 'jonas': 'm', 'sam': 'm'} (casefolded names; only the gendered kin
    words of the lexicon)."""
    out: dict[str, str] = {}
    for kin, name in kin_pairs(text, lexicon.FEMALE_KIN | lexicon.MALE_KIN):
        out.setdefault(name.casefold(), "f" if kin in lexicon.FEMALE_KIN else "m")
    return out


def _kin_of(rec: dict[str, Any]) -> dict[str, str | None]:
    """One speaker's kin names as `KinNames.state` saved them, typed again."""
    return {str(k): None if n is None else str(n) for k, n in rec["kin"].items()}


def restore_oldest(table: OrderedDict[Any, Any], limit: int, restored: Iterable[tuple[Any, Any]]) -> None:
    """Put (key, value) pairs read back after a restart (in the order they were saved, oldest first)
    at the oldest end of an LRU `table`; a key this process has already filled keeps its value. Then
    trim `table` to `limit`, oldest first."""
    for key, value in reversed(list(restored)):
        if key in table:
            continue
        table[key] = value
        table.move_to_end(key, last=False)
    while len(table) > limit:
        table.popitem(last=False)


class KinNames:
    """Which name each kin word of a speaker stood for (None once it stood for two)."""

    def __init__(self, limit: int = 4096) -> None:
        self.limit = limit
        self._names: OrderedDict[tuple[str | None, str], dict[str, str | None]] = OrderedDict()
        self._lock = threading.Lock()

    def one(self, msg: Message, ex: Extraction, scope: str | None = None) -> Extraction:
        """Learn the kin a user turn names, then give its kin subjects their names (in message order).
        `scope` (the workspace) keeps two workspaces' speakers of one name apart."""
        if msg.role != "user":
            return _without_kin(ex)
        key = (owner(msg, scope), (msg.speaker or "").strip().casefold())
        with self._lock:
            self._learn(key, msg.text, _from_facts(ex, key[1]))
            self._relate(key, ex.facts)
            if not any(_has_kin(f) for f in ex.facts):
                return ex
            known = self._names.get(key, {})
            facts = []
            for f in ex.facts:
                subject, obj = (_named(v, known) for v in (f.subject, f.object))
                if subject and obj:
                    facts.append(
                        f.model_copy(update={"subject": subject, "object": obj})
                        if (subject, obj) != (f.subject, f.object)
                        else f
                    )
            return ex.model_copy(update={"facts": facts})

    def children(self, msg: Message, scope: str | None = None) -> set[str]:
        """Every name the message's speaker gave as their child, however many (pupils.py)."""
        key = (owner(msg, scope), (msg.speaker or "").strip().casefold())
        with self._lock:
            known = self._names.get(key, {})
            return {n for slot, n in known.items() if n is not None and slot.startswith(CHILD_SLOT)}

    def related(self, msg: Message, scope: str | None = None) -> set[str]:
        """Every name (casefolded) the message's speaker tied to a relation or a kin word before
        (children_by_context.py)."""
        key = (owner(msg, scope), (msg.speaker or "").strip().casefold())
        with self._lock:
            return {n.casefold() for n in self._names.get(key, {}).values() if n is not None}

    def partnered(self, msg: Message, scope: str | None = None) -> bool:
        """Whether the message's speaker named a partner (husband, wife, partner, fiance...) before."""
        key = (owner(msg, scope), (msg.speaker or "").strip().casefold())
        with self._lock:
            known = self._names.get(key, {})
            return any(known.get(word) for word in PARTNER_WORDS)

    def learn(self, msg: Message, facts: list[FactCandidate], scope: str | None = None) -> None:
        """Learn the kin and relations of facts added after `one` read the message (a child by context)."""
        key = (owner(msg, scope), (msg.speaker or "").strip().casefold())
        with self._lock:
            self._learn(key, "", _from_facts(Extraction(message_id=msg.id, facts=facts), key[1]))
            self._relate(key, facts)

    def forget(self, names: Callable[[str], bool], scope: str | None = None) -> None:
        """After a forget: a kin word no longer stands for a forgotten name, and a forgotten
        speaker's kin are dropped (a later "my brother got a job" must not bring the name back).
        With `scope`, only that workspace's speakers."""
        with self._lock:
            for key in list(self._names):
                if scope is not None and key[0] != scope:
                    continue
                if key[1] and names(key[1]):
                    del self._names[key]
                else:
                    kept = self._names[key].items()
                    self._names[key] = {k: n for k, n in kept if n is None or not names(n)}

    def state(self, scope: str | None) -> list[dict[str, Any]]:
        """The workspace `scope`'s speakers' kin names, oldest first, as JSON-ready records."""
        with self._lock:
            mine = [(key[1], names) for key, names in self._names.items() if key[0] == scope]
            return [{"speaker": speaker, "kin": dict(names)} for speaker, names in mine]

    def restore(self, scope: str | None, records: list[dict[str, Any]]) -> None:
        """Take back what `state` gave (after a restart); what this process learnt since wins."""
        restored = (((scope, str(rec["speaker"])), _kin_of(rec)) for rec in records)
        with self._lock:
            restore_oldest(self._names, self.limit, restored)

    def _relate(self, key: tuple[str | None, str], facts: list[FactCandidate]) -> None:
        tied = [n for n in tied_names(facts) if n[:1].isupper() and len(n.split()) <= 4]
        tied = [n for n in tied if not n.startswith(KIN_PREFIX)]
        if not tied:
            return
        names = self._names.pop(key, {})
        for name in tied:
            names[RELATED_SLOT + name.casefold()] = name
        self._names[key] = names
        while len(self._names) > self.limit:
            self._names.popitem(last=False)

    def _learn(self, key: tuple[str | None, str], text: str, read: list[tuple[str, str]]) -> None:
        lower_case = not any(c.isupper() for c in text)  # "my husband tom": chat without capitals
        pairs = [(k, n) for k, n in kin_pairs(text) if _a_name(n, lower_case)] + read
        if not pairs:
            return
        names = self._names.pop(key, {})
        for kin, name in pairs:
            if kin in CHILD_KIN:  # one slot per child: "my son" may stand for two, a child stays one
                names[CHILD_SLOT + name.casefold()] = name
            if kin == "child":
                continue  # no kin word ("my child" names no one in particular)
            if kin not in names:
                names[kin] = name
            elif (known := names[kin]) is None:
                continue
            elif _one_person(known, name):  # "my husband Tom" read as "Tom" and as "Tom Hardy"
                names[kin] = max(known, name, key=len)
            else:
                names[kin] = None  # "my sister Katrin" ... "my sister Anna": which one, unknown
        self._names[key] = names
        while len(self._names) > self.limit:
            self._names.popitem(last=False)


SPOUSE_WORDS = frozenset({"husband", "wife", "hubby", "hubs", "missus", "wifey", "partner"})
# Every kin word for a partner, married or not: one named, no other is guessed (partners.py)
PARTNER_WORDS = SPOUSE_WORDS | {
    "boyfriend",
    "girlfriend",
    "bf",
    "gf",
    "boyf",
    "fiance",
    "fiancé",
    "fiancee",
    "fiancée",
}


def tied_names(facts: list[FactCandidate]) -> list[str]:
    """The names facts tie to a relation: any has-X or marriage object, any X-of subject."""
    tied = [f.object for f in facts if f.predicate.startswith("has-") or f.predicate == "is-married-to"]
    return tied + [f.subject for f in facts if f.predicate.endswith("-of") or f.predicate == "is-married-to"]


def _from_facts(ex: Extraction, speaker: str) -> list[tuple[str, str]]:
    """The kin the rules read for the speaker in this message ("He's my husband" after "Paul
    reckons ...": is-married-to Paul): has-<kin> X, and a spouse for is-married-to."""
    out: list[tuple[str, str]] = []
    for f in ex.facts:
        if f.subject.strip().casefold() != speaker or f.ends:
            continue
        if f.predicate == "is-married-to":
            out += [(word, f.object) for word in sorted(SPOUSE_WORDS)]
        elif f.predicate == "has-child":
            out.append(("child", f.object))
        elif f.predicate.startswith("has-") and f.predicate[4:] in KIN_WORDS:
            out.append((f.predicate[4:], f.object))
    return out


def _without_kin(ex: Extraction) -> Extraction:
    """No kin placeholder outside a user's turn: only the user's "my husband" is theirs."""
    if not any(_has_kin(f) for f in ex.facts):
        return ex
    return ex.model_copy(update={"facts": [f for f in ex.facts if not _has_kin(f)]})


def _has_kin(fact: FactCandidate) -> bool:
    """A kin placeholder for a subject or an object."""
    return fact.subject.startswith(KIN_PREFIX) or fact.object.startswith(KIN_PREFIX)


def _named(value: str, known: dict[str, str | None]) -> str | None:
    """A kin placeholder's name ("__kin__:husband" -> "Tom"), None when the speaker never named one or
    named two; any other value as it is."""
    return known.get(value[len(KIN_PREFIX) :]) if value.startswith(KIN_PREFIX) else value


def owner(msg: Message, scope: str | None) -> str | None:
    """Whose session memory a message is read into: the workspace's scope, else the message's agent."""
    return scope if scope is not None else msg.agent_id


def _one_person(a: str, b: str) -> bool:
    """The same name, or one its first name: the text gives "Tom" where the parse gives "Tom Hardy"."""
    x, y = sorted((a.casefold(), b.casefold()), key=len)
    return x == y or y.startswith(x + " ")


def _a_name(word: str, lower_case: bool) -> bool:
    """A name the map may keep: capitalised, or any in a message written all in lower case (the words
    chat puts after a kin word, "my sister got ...", are no names: `_NOT_NAMES`; nor is an English
    function word there: "living w my mom in newark" names no mom "in")."""
    return word[:1].isupper() or (lower_case and word.casefold() not in STOP_WORDS)
