"""The speaker's partner told by how they are spoken of, never by a kin word: "leanne reckons im mad",
"Étienne says not more", "me and leanne bought the cafe", "Gary finally agreed".

Why: many people never call their partner "my husband" or "my wife" in chat; they name them, in
every session, as the one whose view on the house, the car or the money counts, and as the one they
do things with. The rules then store what the partner does and never who they are. Counted on the
labelled stories, half the partners were never called by a kin word.

A first name (Faker's lists) becomes the speaker's partner (`has-partner`, a low confidence) once it
has opened a clause of opinion (says, reckons, wants, agrees, ...) or stood with the speaker ("me
and X", "X and I") in at least `MIN_CUES` user messages on at least `MIN_DAYS` days, is the
one name so spoken of most, is tied to no other relation the speaker told (a child, a sister, a
mate, a manager: `KinNames.related`), and the speaker has no partner named yet. Per workspace and
speaker, in memory, kept with the sessions' other memory across restarts.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Collection
from typing import Any

from spacy.lang.en.stop_words import STOP_WORDS

from knowledge_engine.extract.kin import restore_oldest
from knowledge_engine.extract.truecase import world_names
from knowledge_engine.model.extraction import FactCandidate
from knowledge_engine.model.records import Message
from knowledge_engine.observe import counters

MIN_CUES = 2  # messages that speak of the name so
MIN_DAYS = 2  # ... on this many days (the host's session key outlives a conversation): not a visitor
_OPINION = (
    r"says?|said|reckons?|thinks?|thought|wants?|wanted|agrees?|agreed|likes?|liked|hates?|loves?|"
    r"insists?|insisted|prefers?|preferred|finally agreed|wins|won't|wouldn't|keeps? saying"
)
# A name opening a clause (the text's start, after a sentence or a comma, "and", "but", "so") with a
# verb of opinion right after it: "carol says im mad", "..., and Gary reckons it's not worth it"
_OPINION_CUE = re.compile(
    rf"(?:^|[.!?,;:\n–-]\s*|\b(?:and|but|so)\s+)([^\W\d_][\w'’]*)\s+(?:{_OPINION})\b", re.IGNORECASE
)
# The speaker and the name together: "me and leanne", "leanne and me", "Priya and I", chat's "me n dev"
_AND = r"(?:and|n|&)"
_TOGETHER_CUE = re.compile(
    rf"\b(?:me|I) {_AND} ([^\W\d_][\w'’]*)\b|\b([^\W\d_][\w'’]*) {_AND} (?:me|I)\b", re.IGNORECASE
)
_MAX_NAMES = 64  # names tallied per speaker
_MAX_KEPT = 16  # message ids and days kept per name: enough to rank, bounded


class PartnerTally:
    """Per workspace and speaker: each first name's cue count and the days it came on."""

    def __init__(self, limit: int = 4096) -> None:
        self.limit = limit
        self._tally: OrderedDict[tuple[str | None, str], dict[str, Any]] = OrderedDict()
        self._lock = threading.Lock()

    def one(
        self, msg: Message, related: Collection[str], partnered: bool, scope: str | None = None
    ) -> list[FactCandidate]:
        """Count the message's cues; `has-partner` for the name that has just become the partner.
        `related`: names (casefolded) the speaker tied to another relation; `partnered`: a partner is
        named already."""
        me = (msg.speaker or "").strip()
        if msg.role != "user" or not me:
            return []
        cues = _cued_names(msg.text, me)
        if not cues:
            return []
        key = (scope, me.casefold())
        with self._lock:
            entry = self._tally.pop(key, {"names": {}, "done": False})
            self._tally[key] = entry
            while len(self._tally) > self.limit:
                self._tally.popitem(last=False)
            names: dict[str, dict[str, Any]] = entry["names"]
            day = msg.timestamp.date().isoformat() if msg.timestamp else msg.session
            for name in cues:  # by message id: a message read again (a journal replay) counts once
                seen = names.setdefault(name.casefold(), {"name": name, "messages": [], "days": []})
                if msg.id not in seen["messages"] and len(seen["messages"]) < _MAX_KEPT:
                    seen["messages"].append(msg.id)
                if day not in seen["days"] and len(seen["days"]) < _MAX_KEPT:
                    seen["days"].append(day)
            while len(names) > _MAX_NAMES:
                names.pop(min(names, key=lambda n: len(names[n]["messages"])))
            if entry["done"] or partnered:
                return []
            chosen = _partner(names, related)
            if chosen is None:
                return []
            entry["done"] = True
        counters.inc("extract.spacy.partner_by_company")
        return [
            FactCandidate(
                subject=me,
                predicate="has-partner",
                object=chosen,
                tier="spacy",
                confidence=0.4,
                object_type="person",
                object_type_implied=True,
            )
        ]

    def forget(self, names: Callable[[str], bool], scope: str | None = None) -> None:
        """After a forget: a forgotten name's cues go, and a forgotten speaker's tally."""
        with self._lock:
            for key in list(self._tally):
                if scope is not None and key[0] != scope:
                    continue
                if key[1] and names(key[1]):
                    del self._tally[key]
                    continue
                kept = self._tally[key]["names"]
                self._tally[key]["names"] = {k: v for k, v in kept.items() if not names(v["name"])}

    def state(self, scope: str | None) -> list[dict[str, Any]]:
        """The workspace `scope`'s tallies, oldest first, as JSON-ready records."""
        with self._lock:
            return [
                {"speaker": key[1], "done": entry["done"], "names": list(entry["names"].values())}
                for key, entry in self._tally.items()
                if key[0] == scope
            ]

    def restore(self, scope: str | None, records: list[dict[str, Any]]) -> None:
        """Take back what `state` gave (after a restart); what this process counted since wins."""
        restored = (((scope, str(rec["speaker"])), _entry(rec)) for rec in records)
        with self._lock:
            restore_oldest(self._tally, self.limit, restored)


def _entry(rec: dict[str, Any]) -> dict[str, Any]:
    """One speaker's tally as `PartnerTally.state` saved it, typed and bounded again."""
    names = {
        str(n["name"]).casefold(): {
            "name": str(n["name"]),
            "messages": [str(m) for m in n["messages"]][:_MAX_KEPT],
            "days": [None if s is None else str(s) for s in n["days"]][:_MAX_KEPT],
        }
        for n in rec["names"]
    }
    return {"names": names, "done": bool(rec["done"])}


def _cued_names(text: str, me: str) -> list[str]:
    """The first names the text speaks of as a partner is spoken of, once each, capitalised."""
    own = me.split()[0].casefold()
    found: dict[str, str] = {}
    for m in [*_OPINION_CUE.finditer(text), *_TOGETHER_CUE.finditer(text)]:
        word = next(g for g in m.groups() if g)
        low = word.casefold()
        if low in world_names() and low not in STOP_WORDS and low != own:  # "Tunde", "Wanjiru" too
            found.setdefault(low, word[:1].upper() + word[1:])
    return list(found.values())


def _partner(names: dict[str, dict[str, Any]], related: Collection[str]) -> str | None:
    """The one untied name spoken of most, when it is spoken of enough."""
    tied = {n.casefold() for n in related}
    counts = sorted(
        ((len(v["messages"]), len(v["days"]), str(v["name"])) for k, v in names.items() if k not in tied),
        reverse=True,
    )
    if not counts:
        return None
    (cues, days, name), runner_up = counts[0], counts[1][0] if len(counts) > 1 else 0
    return name if cues >= MIN_CUES and days >= MIN_DAYS and cues > runner_up else None
