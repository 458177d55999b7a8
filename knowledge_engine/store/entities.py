"""The entity store and entity resolution.

Names resolve by exact canonical form, then aliases, then a conservative fuzzy match
(rapidfuzz, high threshold, length guard), so "Acme Corp", "Acme" and "ACME Corp." are one
entity while "Alex" and "Alexa" are not. A lone first name joins a full name of a person
when exactly one person carries it. Types are voted by tier strength, so LLM and spaCy
beat regex's `unknown`; a known place becomes a person only when person votes outweigh its
place votes by more than one NER vote, and a relation-implied type (constrain_type) wins outright.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path

from rapidfuzz import fuzz, process

from knowledge_engine.config import StorageConfig
from knowledge_engine.extract.lexicon import CAR_MAKES
from knowledge_engine.model.records import (
    TIER_STRENGTH,
    Entity,
    EntityType,
    Evidence,
    SourceTier,
    canonical,
    entity_id,
    initial_importance,
    utcnow,
)
from knowledge_engine.store import backend as store_backend
from knowledge_engine.store.persistence import WorkspaceLock
from knowledge_engine.store.table import BaseTable

# The lookbehind starts a match only at the beginning of a separator run (linear on long runs).
_LEGAL = re.compile(
    r"(?<![,\s])[,\s]+(inc|llc|ltd|limited|gmbh|ag|corp|corporation|co|company|sas|sa|plc|bv|nv|srl|oy|ab)\.?$",
    re.I,
)
# Types that name things; dates/money/emails/urls never fuzzy-match or merge across types.
_NAMED = {"person", "organization", "location", "product", "concept", "unknown"}


_DIGITS = re.compile(r"\d+")
# Short and long forms merge for these types ("Northwind" / "Northwind Logistics", "Dana" /
# "Dana Reyes", "Golf" / "2019 Golf"); not for places, where the longer name is usually another
# place ("Bristol" / "Bristol Airport").
_ALIASABLE = {"person", "organization", "product", "unknown"}
_NORP_OWNERS = {"organization", "product"}
# What nationalities and languages end with ("German", "Portuguese", "Swiss", "Dutch", "Greek", "Thai"):
# such a word is a real NORP, so it joins only a name already known as an organisation or product.
_DEMONYM = re.compile(r"(?:an|ese|ish|i|ic|ch|ss|ek|ean)$")
_PREFIX_WORDS = 3  # long forms are indexed under their first 1..3 words
# Titles before a surname (match keys: lower-case, without the dot); the surname alone is the person.
_TITLES = frozenset({"mr", "mrs", "ms", "miss", "mx", "dr", "prof", "professor"})
_MAKES = frozenset(m.lower() for m in CAR_MAKES)
# "about $900" is the amount $900.
_APPROX = re.compile(r"^(?:about|around|roughly|approximately|approx\.?|circa|ca\.|~)\s*", re.I)


def normal_value(value: str, type_: str | None) -> str:
    """The value an entity is stored under: an amount without "about"/"around"."""
    value = value.strip()
    if type_ == "money":
        value = _APPROX.sub("", value).strip() or value
    return value


def _short_forms(key: str, type_: str | None = None) -> list[str]:
    """Shorter names a long key may be written as: leading words, and the name without a year; a
    product's without its car make ("Fabia" of "Skoda Fabia", "Octavia" of "Skoda Octavia estate");
    a person's without a title ("Baird" of "Mrs Baird", "Raghavan" of "Prof. Raghavan")."""
    words = key.split()
    if type_ in (None, "person", "unknown") and len(words) > 1 and words[0] in _TITLES:
        words = words[1:]
        forms = [" ".join(words[:n]) for n in range(1, min(len(words), _PREFIX_WORDS) + 1)]
        return list(dict.fromkeys(forms))
    forms = [" ".join(words[:n]) for n in range(1, min(len(words), _PREFIX_WORDS + 1))]
    rest = words
    while len(rest) > 1 and rest[0].isdigit():
        rest = rest[1:]
        forms.append(" ".join(rest))
    if type_ in (None, "product", "unknown") and len(rest) > 1 and rest[0] in _MAKES:
        model = rest[1:]
        forms += [" ".join(model[:n]) for n in range(1, min(len(model), _PREFIX_WORDS) + 1)]
    return list(dict.fromkeys(forms))


def _title(key: str) -> str | None:
    """The honorific a name key opens with ("mrs" of "mrs baird"), if any."""
    first = key.split(" ", 1)[0]
    return first if first in _TITLES else None


def _norp_owner(owner_type: str, key: str) -> bool:
    """Whether a name tagged NORP may be the short form of a long name of this type: an organisation or
    product, or a still untyped name when the word is no demonym ("Helix" of "Helix Robotics", not
    "German" of "German Shepherd")."""
    return owner_type in _NORP_OWNERS or (owner_type == "unknown" and not _DEMONYM.search(key))


def _compatible(a: str | None, b: str | None) -> bool:
    return a in (None, "unknown") or b in (None, "unknown") or a == b


# The small model calls one word of a known organisation's or product's name a person on its own
# ("Tallgrass" beside "Tallgrass Software"): such a word joins the one long name it begins, and its
# person type is no vote. Not the other way round: a person seen first keeps her name when a school
# named like her turns up, and an organisation's word does not join a person ("Bruno" / "Bruno
# Lima"); both cost held-out names their type when tried.
_CROSSING = frozenset({"organization", "product"})


def _crossing(long_type: str | None, short_type: str | None, short_key: str) -> bool:
    return long_type in _CROSSING and short_type == "person" and " " not in short_key


def _cross_vote(ent: Entity, value: str, type_: EntityType) -> EntityType:
    """The vote a mention casts: none for a one-word person form of an organisation or a product
    (see _crossing)."""
    if type_ != "person" or ent.type not in _CROSSING:
        return type_
    key = match_key(value)
    known = key in {match_key(n) for n in (ent.value, *ent.aliases)}
    return "unknown" if " " not in key and not known else type_


def vote_weight(tier: str, type_: str) -> int:
    """A regex type is structural (a legal suffix, an @, a currency sign): as sure as the LLM."""
    if tier == "regex" and type_ != "unknown":
        return TIER_STRENGTH["llm"]
    return TIER_STRENGTH.get(tier, 1)


def match_key(value: str) -> str:
    """Canonical form without legal suffixes or punctuation, for resolution."""
    text = canonical(value)
    text = _LEGAL.sub("", text)
    text = re.sub(r"[^\w\s-]", "", text)
    return re.sub(r"\s+", " ", text).strip()


def _three_way(mine: list[str], theirs: list[str], base: list[str]) -> list[str]:
    """Theirs, less what this side removed since `base`, plus what it added (order kept, no repeats)."""
    removed = set(base) - set(mine)
    return list(
        dict.fromkeys([*(x for x in theirs if x not in removed), *(x for x in mine if x not in base)])
    )


def _mentions(mine: Entity, theirs: Entity, base: Entity | None, cap: int) -> tuple[list[Evidence], int]:
    """Three-way union of mentions by message id, and how many messages both sides counted anew."""
    base_ids = {m.message_id for m in base.mentions} if base else set()
    mine_ids = {m.message_id for m in mine.mentions}
    removed = base_ids - mine_ids
    out = [m for m in theirs.mentions if m.message_id not in removed]
    where = {m.message_id: i for i, m in enumerate(out)}
    both = 0
    for m in mine.mentions:
        if m.message_id in base_ids:
            continue
        i = where.get(m.message_id)
        if i is None:
            where[m.message_id] = len(out)
            out.append(m)
            continue
        both += 1
        out[i] = out[i].model_copy(update={"tiers": sorted({*out[i].tiers, *m.tiers})})
    return out[-cap:], both


def merge_entities(mine: Entity, theirs: Entity, base: Entity | None, cap: int) -> Entity:
    """One entity changed by two writers since `base`: aliases, mentions and sources are unions (a
    removal here, e.g. by forget, holds), and counts, importance and type votes add this side's
    increments to theirs, less the messages both counted."""
    out = theirs.model_copy()
    out.mentions, both = _mentions(mine, theirs, base, cap)
    base_count = base.count if base else 0
    out.count = theirs.count + max(0, mine.count - base_count - both)
    if base is None:  # both created it: each side's importance already counts its first mention
        out.importance = max(mine.importance, theirs.importance)
    else:
        out.importance = min(1.0, theirs.importance + max(0.0, mine.importance - base.importance))
    votes = dict(theirs.type_votes)
    for t, v in mine.type_votes.items():
        votes[t] = votes.get(t, 0) + max(0, v - (base.type_votes.get(t, 0) if base else 0))
    out.type_votes = votes
    if base is not None and (mine.value, mine.type) != (base.value, base.type):
        out.value, out.type = mine.value, mine.type
    if mine.relation_type is not None and (base is None or mine.relation_type != base.relation_type):
        out.relation_type, out.type = mine.relation_type, mine.relation_type
    aliases = _three_way(mine.aliases, theirs.aliases, base.aliases if base else [])
    out.aliases = [a for a in dict.fromkeys([*aliases, theirs.value, mine.value]) if a != out.value][-cap:]
    out.sources = list(dict.fromkeys([*theirs.sources, *mine.sources]))
    out.first_seen = min(mine.first_seen, theirs.first_seen)
    out.last_seen = max(mine.last_seen, theirs.last_seen)
    out.updated_at = max(mine.updated_at, theirs.updated_at)
    return out


class EntityStore:
    """Entities of one workspace, persisted in entities.json."""

    def __init__(
        self,
        folder: Path,
        lock: WorkspaceLock,
        storage: StorageConfig,
        fuzzy_threshold: float = 92,
        agent: str = "default",
    ) -> None:
        self.table: BaseTable[Entity] = store_backend.record_table(
            storage, folder, agent, "entities", Entity, lock
        )
        self.table.merge = lambda mine, theirs, base: merge_entities(mine, theirs, base, storage.max_mentions)
        self._seen: tuple[int, int] = (-1, -1)  # (generation, version) of the table the indexes reflect
        self.storage = storage
        self.fuzzy_threshold = fuzzy_threshold
        self._by_key: dict[str, str] = {}
        self._first_names: dict[str, set[str]] = {}
        self._long_forms: dict[str, set[str]] = {}  # a short form -> ids of entities it may abbreviate

    def load(self) -> None:
        self.table.load()
        self.reindex()

    def reindex(self) -> None:
        with self.table.mutex:
            self._by_key.clear()
            self._first_names.clear()
            self._long_forms.clear()
            for ent in self.table:
                self._index(ent)
            self._seen = (self.table.generation, self.table.version)

    def catch_up(self) -> None:
        """Index what the table took from other writers (a refresh): the changed ids, or everything
        after a reload or when one of them was deleted (the name indexes only ever add)."""
        with self.table.mutex:
            sig = (self.table.generation, self.table.version)
            if sig == self._seen:
                return
            changed = self.table.changed_since(*self._seen)
            now = [self.table.get(i) for i in changed] if changed is not None else [None]
            if any(ent is None for ent in now):
                self.reindex()
                return
            for ent in now:
                if ent is not None:
                    self._index(ent)
            self._seen = sig

    def _index(self, ent: Entity) -> None:
        for name in (ent.value, *ent.aliases):
            key = match_key(name)
            if key:
                self._by_key.setdefault(key, ent.id)
        if ent.type == "person":
            parts = match_key(ent.value).split()
            if len(parts) > 1:
                self._first_names.setdefault(parts[0], set()).add(ent.id)
        if ent.type in _ALIASABLE:
            for form in _short_forms(match_key(ent.value), ent.type):
                self._long_forms.setdefault(form, set()).add(ent.id)

    def __len__(self) -> int:
        return len(self.table)

    def all(self) -> list[Entity]:
        return list(self.table)

    def get(self, eid: str) -> Entity | None:
        return self.table.get(eid)

    # ------------------------------------------------------------------ resolution
    def resolve(self, name: str, type_: EntityType | None = None) -> Entity | None:
        """The existing entity this name refers to, or None (never guesses when ambiguous)."""
        key = match_key(name)
        if not key:
            return None
        if type_ and type_ not in _NAMED:
            return self.table.get(entity_id(type_, normal_value(name, type_)))
        eid = self._by_key.get(key)
        if eid and (ent := self.table.get(eid)) is not None:
            return ent
        if " " not in key:
            owners = self._first_names.get(key, set())
            if len(owners) == 1 and type_ in (None, "person", "unknown"):
                return self.table.get(next(iter(owners)))
        return self._alias(key, type_) or self._fuzzy(key)

    def _alias(self, key: str, type_: str | None) -> Entity | None:
        """A short form of exactly one known long name, or a long form of one known short name.

        "Northwind" resolves to "Northwind Logistics" (and the reverse, when the short form came
        first) only when no other entity of a compatible type carries that short form: with both
        "Dana Reyes" and "Dana White" known, "Dana" stays unresolved.
        """
        # a name the tagger calls a nationality or group (NORP: "the Helix offer") that is the short form
        # of exactly one known organisation or product is that organisation
        norp = type_ == "concept"
        if type_ not in (None, *_ALIASABLE) and not norp:
            return None
        owners = [
            e
            for eid in self._long_forms.get(key, ())
            if (e := self.table.get(eid)) is not None
            and (
                _norp_owner(e.type, key)
                if norp
                else _compatible(e.type, type_) or _crossing(e.type, type_, key)
            )
        ]
        if len(owners) == 1:
            return owners[0]
        if owners or norp:
            return None
        for form in _short_forms(key, type_):  # the long form arrives after the short one
            eid = self._by_key.get(form)
            ent = self.table.get(eid) if eid else None
            if ent is None or ent.type not in _ALIASABLE or not _compatible(ent.type, type_):
                continue
            if match_key(ent.value) != form:
                continue  # already the short form of another long name
            rivals = self._long_forms.get(form, set()) - {ent.id}
            if not rivals:
                return ent
        return None

    def _fuzzy(self, key: str) -> Entity | None:
        if len(key) < 5 or len(set(key)) < 4:
            return None
        hit = process.extractOne(
            key, list(self._by_key), scorer=fuzz.ratio, score_cutoff=self.fuzzy_threshold
        )
        if hit is None:
            return None
        cand = hit[0]
        # the length guard: a close ratio between very different lengths is a different name
        if abs(len(cand) - len(key)) > max(2, len(key) // 5):
            return None
        # numbers name different things: "Company12" is not "Company1", "iPhone 15" not "iPhone 14"
        if _DIGITS.findall(cand) != _DIGITS.findall(key):
            return None
        # titles name different people: "Mrs Baird" is not "Mr Baird"
        if _title(cand) != _title(key):
            return None
        return self.table.get(self._by_key[cand])

    # ------------------------------------------------------------------ updates
    def observe(
        self,
        value: str,
        type_: EntityType,
        tier: SourceTier,
        evidence: Evidence | None = None,
        importance: float | None = None,
        now: datetime | None = None,
    ) -> Entity:
        """Record a mention: merge into the resolved entity or create one."""
        now = now or (evidence.timestamp if evidence and evidence.timestamp else utcnow())
        value = normal_value(value, type_)
        with self.table.mutex:
            ent = self.resolve(value, type_)
            seen = None
            if ent is not None and evidence is not None:
                seen = next((m for m in ent.mentions if m.message_id == evidence.message_id), None)
                if seen is not None and tier in seen.tiers:
                    return ent  # this tier already counted this message (a replay): idempotent
            if ent is None:
                ent = self._create(value, type_, tier, importance, now)
            else:
                vote = _cross_vote(ent, value, type_)
                ent = self._merge(ent, value, vote, tier, now, new_message=seen is None)
            if seen is not None:
                seen.tiers = [*seen.tiers, tier]
            elif evidence is not None:
                mention = evidence.model_copy(update={"tiers": [tier]})
                ent.mentions = [*ent.mentions, mention][-self.storage.max_mentions :]
            self.table.put(ent)
            self._index(ent)
            return ent

    def _create(
        self, value: str, type_: EntityType, tier: SourceTier, importance: float | None, now: datetime
    ) -> Entity:
        clean = value.strip()
        ent = Entity(
            id=entity_id(type_, match_key(clean) if type_ == "organization" else clean),
            type=type_,
            value=clean,
            aliases=[],
            count=1,
            importance=importance if importance is not None else initial_importance(type_, clean),
            first_seen=now,
            last_seen=now,
            sources=[tier],
            type_votes={type_: vote_weight(tier, type_)},
            updated_at=now,
        )
        existing = self.table.get(ent.id)
        return self._merge(existing, value, type_, tier, now) if existing else ent

    def _merge(
        self,
        ent: Entity,
        value: str,
        type_: EntityType,
        tier: SourceTier,
        now: datetime,
        new_message: bool = True,
    ) -> Entity:
        """Fold a mention in; `count` counts messages, so a second tier on the same message only votes."""
        if new_message:
            ent.count += 1
            ent.importance = min(1.0, ent.importance + 0.02)
        ent.last_seen = max(ent.last_seen, now)
        ent.first_seen = min(ent.first_seen, now)
        surface = value.strip()
        if surface and surface != ent.value and surface not in ent.aliases:
            ent.aliases = [*ent.aliases, surface][-self.storage.max_mentions :]
        if tier not in ent.sources:
            ent.sources = [*ent.sources, tier]
        if type_ != "unknown":
            ent.type_votes[type_] = ent.type_votes.get(type_, 0) + vote_weight(tier, type_)
        ent = self._retype(ent)
        if ent.type in _ALIASABLE and match_key(ent.value) in _short_forms(match_key(surface), ent.type):
            # "Alex" then "Alex Smith", "Golf" then "2019 Golf": the fuller name becomes the display value
            ent.aliases = [a for a in ent.aliases if a != surface] + [ent.value]
            ent.value = surface
        ent.updated_at = now
        return ent

    def constrain_type(self, eid: str, type_: EntityType) -> Entity | None:
        """A type implied by a relation the entity takes part in (the object of works-at is an
        organization, a child a person) outweighs the NER guesses, before and after: the vote is
        raised to one more than the strongest other type's, plus what an LLM vote would add, and
        the type is kept as the entity's `relation_type`, which later votes do not change (the
        model calls "Callum" an organisation in the next message too)."""
        with self.table.mutex:
            ent = self.table.get(eid)
            if ent is None or type_ not in _NAMED or type_ == "unknown":
                return ent
            others = max((v for t, v in ent.type_votes.items() if t not in (type_, "unknown")), default=0)
            mine = ent.type_votes.get(type_, 0) + TIER_STRENGTH["llm"]
            ent.type_votes[type_] = max(mine, others + 1)
            ent.type = ent.relation_type = type_  # now the strongest vote, and kept (see _retype)
            self.table.put(ent)
            self._index(ent)
            return ent

    def _retype(self, ent: Entity) -> Entity:
        if ent.relation_type is not None:
            ent.type = ent.relation_type
            return ent
        votes = {t: v for t, v in ent.type_votes.items() if t != "unknown"}
        if not votes:
            return ent
        best = max(votes.items(), key=lambda kv: kv[1])[0]
        if (
            best == "person"
            and ent.type == "location"
            and votes["person"] <= votes.get("location", 0) + TIER_STRENGTH["spacy"]
        ):
            return ent  # a place already known is not made a person by one more NER vote ("from Manchester")
        if best != ent.type:
            ent.type = best  # type: ignore[assignment]
        return ent

    def forget(self, eid: str) -> bool:
        ok = self.table.delete(eid)
        self.reindex()
        return ok

    def prune(
        self, max_entities: int | None = None, keep: set[str] | frozenset[str] = frozenset()
    ) -> list[str]:
        """Drop the least important entities above the limit; ids in `keep` (still used by facts) stay."""
        limit = max_entities or self.storage.max_entities
        with self.table.mutex:
            excess = len(self.table) - limit
            if excess <= 0:
                return []
            candidates = [e for e in self.table if e.id not in keep]
            order = sorted(candidates, key=lambda e: (e.importance, e.count, e.last_seen))
            gone = [e.id for e in order[:excess]]
            for eid in gone:
                self.table.delete(eid)
            self.reindex()
            return gone

    @staticmethod
    def is_shorter(ent: Entity, name: str) -> bool:
        """Whether the entity's name is a short form of `name`, which says more ("QA" of "QA lead")."""
        key, own = match_key(name), match_key(ent.value)
        return own != key and own in _short_forms(key, ent.type)

    def short_forms_of(self, ent: Entity) -> list[Entity]:
        """Other entities stored under a short form of this one's name that no other long name carries:
        "Toyota" and "Highlander" when "Toyota Highlander" arrives (the long form joined one of them;
        the other is the same car). With "Toyota Corolla" also known, "Toyota" is nobody's alone."""
        if ent.type not in _ALIASABLE or " " not in ent.value.strip():
            return []
        out: list[Entity] = []
        for form in _short_forms(match_key(ent.value), ent.type):
            other = self.table.get(self._by_key.get(form, ""))
            if other is None or other.id == ent.id or match_key(other.value) != form:
                continue
            norp = other.type == "concept" and _norp_owner(ent.type, form)  # "the Highlander" tagged NORP
            if not norp and (other.type not in _ALIASABLE or not _compatible(other.type, ent.type)):
                continue
            if not self._long_forms.get(form, set()) - {ent.id, other.id}:
                out.append(other)
        return out

    def merge_into(self, keep_id: str, drop_id: str, manual: bool = True) -> Entity | None:
        """`drop` becomes an alias of `keep` (an operator's merge, or a short form joining its long form)."""
        keep, drop = self.table.get(keep_id), self.table.get(drop_id)
        if keep is None or drop is None or keep_id == drop_id:
            return None
        keep.aliases = list(dict.fromkeys([*keep.aliases, drop.value, *drop.aliases]))
        keep.count += drop.count
        keep.mentions = (keep.mentions + drop.mentions)[-self.storage.max_mentions :]
        by_hand: list[SourceTier] = ["manual"] if manual else []
        keep.sources = list(dict.fromkeys([*keep.sources, *drop.sources, *by_hand]))
        keep.updated_at = utcnow()
        self.table.put(keep)
        self.table.delete(drop_id)
        self.reindex()
        return keep

    def search(self, names: Iterable[str]) -> list[Entity]:
        out: dict[str, Entity] = {}
        for n in names:
            ent = self.resolve(n)
            if ent:
                out[ent.id] = ent
        return list(out.values())

    def flush(self) -> bool:
        return self.table.flush()
