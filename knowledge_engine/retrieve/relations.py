"""Questions about a subject and a relation ("where do I work now?", "who is my manager?") answered
by the facts of that subject and relation, the current one first.

Text similarity alone ranks `Maya works-as product designer` or `Maya moved-to Ghent` above
`Maya works-at Helix Robotics` for "where do I work now?": the question shares no content word with
the predicate `works-at` beyond "work", and "I" is no word at all. So the question is read for:

* its **relation words**, mapped to predicate families (FAMILIES below: work/job/employer -> the
  employer family `works-at`, `works-for`, `joined`, ...; live/home/move -> `lives-in`, `moved-to`,
  ...; manager/boss; husband/wife/partner; son/daughter/kids; school; salary/pay/earn; ...);
* its **subject**: I/me/my/we/our -> the user (the speakers of the log's user messages, and `user`,
  which is how extraction stores a first person without a speaker); a name that is a fact's subject;
  "my husband" / "my son" / "my manager" followed by another relation ("where does my husband
  work?") -> the people the user's current facts of that family name (Tom), one hop;
* whether it asks about the **past** ("used to", "previous", "former", "old", "before", "ex-",
  "originally" want the old value first; past tense or a year, "when did", "last year" allow it).

Facts of the asked subject and family rank first among facts (`scores["relation"]`); among them the
current ones, newest first. A fact superseded in the store (`invalid_at` set) is left out unless
the question asks about the past, and then it comes marked as past. In a single-valued family a
fact that is still valid but older than the subject's newest fact of that family (an old employer
nobody ended: "Tom got a job at the library" while `Tom works-at Riverside Bank` stays valid) is
stale for a present-tense question about that family and is not injected.
"""

from __future__ import annotations

import contextlib
import re
import time
from collections.abc import Container, Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import lru_cache
from typing import TYPE_CHECKING

from knowledge_engine.model import predicates as vocabulary
from knowledge_engine.model.records import Fact, canonical
from knowledge_engine.model.retrieval import as_utc
from knowledge_engine.store.facts import Districts
from knowledge_engine.store.keyword import STOP_WORDS
from knowledge_engine.store.table import TableFollower, post, unpost

if TYPE_CHECKING:
    from knowledge_engine.store.workspace import Workspace

USER_REFRESH_S = 10.0
USER_SAMPLE = 200  # the latest user messages whose speakers are "I"
# Two facts of a single-valued family less than this apart are both current (one message often
# says both: "we live in Bristol, in Clifton"; "Tom works at the university, in the admin office").
SAME_NEWS = timedelta(hours=12)
MAX_RELATION_FACTS = 12


@dataclass(frozen=True)
class Family:
    """A relation a question can ask about: its words in questions and its predicates in facts.

    `single`: a subject has one current value (a newer fact of the family makes older ones stale).
    `person`: a possessive "my <word>" names a person ("my husband") whose own facts can be asked.
    `vocab`: the family of the one vocabulary (model/predicates.py) whose wordings are among `predicates`."""

    name: str
    words: str  # regex (no groups needed) over the lower-cased question
    predicates: str  # regex over the whole predicate (kebab-case)
    single: bool = False
    person: str = ""  # regex of the words that name such a person after "my"/"our"
    weak: str = ""  # predicates that belong to the family but make no other fact stale ("is-in")
    vocab: str = ""


def _f(
    name: str,
    words: str,
    predicates: str,
    single: bool = False,
    person: str = "",
    weak: str = "",
    vocab: str = "",
) -> Family:
    """`predicates`: the free-form wordings beyond the vocabulary family `vocab`, whose wordings are added."""
    if vocab:
        predicates = f"{vocabulary.pattern(vocab)}|{predicates}"
    return Family(name, words, predicates, single, person, weak, vocab)


# chat's short forms too ("where does my bf work?", "who was my mgr before Linh?")
_PARTNER = r"husband|wife|partner|spouse|girlfriend|boyfriend|fianc[eé]e?|hubby|hubs|wifey|missus|bf|gf"
_KIDS = r"sons?|daughters?|kids?|kiddos?|child|children|bab(?:y|ies)|toddlers?|stepsons?|stepdaughters?"
_MANAGER = (
    r"manager|mgr|mngr|boss|supervisor|line manager|team lead|team leader|head of (?:department|dept)|hod|"
    r"gaffer|foreman"
)
_RELATIVES = {
    "sister": r"sisters?|sis", "brother": r"brothers?", "mother": r"mother|mom|mum|mommy|mummy",
    "father": r"father|dad|daddy", "parent": r"parents?", "grandmother": r"grandmother|grandma|granny",
    "grandfather": r"grandfather|grandpa", "aunt": r"aunts?", "uncle": r"uncles?", "cousin": r"cousins?",
    "niece": r"nieces?", "nephew": r"nephews?",
}

# The table (documented in docs/retrieval-ranking.md). Order matters: when a question matches
# several families, facts of the first one come first (so the narrower word leads: rent before pay).
# A family with `vocab` matches every wording of that family of the one vocabulary (model/predicates.py);
# its regex adds only what the vocabulary does not list (past forms, open wordings such as `joined`).
FAMILIES: tuple[Family, ...] = (
    _f("employer",
       r"\b(?:work|works|working|worked|job(?!\s+title)|jobs|employer|employed|employs|company|firm|"
       r"workplace|career|hired|quit|teach|teaches|teaching|taught)\b",
       r"(?:works?|worked|working|teaches|taught|teaching)-(?:at|for|in)|joined|(?:will-start|starting)-at|"
       r"moved-to-company",
       # "works-in AMU", "works in finance": a ward, a field or a town as often as an employer
       single=True, weak=r"(?:works?|working)-in", vocab="employer"),
    _f("role",
       r"\b(?:role|title|position|profession|occupation|job|promot\w*|what do (?:i|you|they|we|he|she) do|"
       r"do for (?:a )?living|work as|works as|rank)\b",
       r"(?:worked|working)-as|has-profession|got-promoted-to",
       single=True, vocab="role"),
    _f("identity",
       r"\b(?:role|title|position|profession|occupation|promot\w*|what do (?:i|you|they|we|he|she) do|"
       r"do for (?:a )?living|rank)\b",
       r"is-a|was-a|became|is-an|was-an"),
    _f("home",
       r"\b(?:live|lives|living|lived|home|house|flat|apartment|address|move|moves|moved|moving|"
       r"relocat\w*|reside\w*|based|neighbou?rhood|area|city|suburb|district|stay|stays|staying)\b",
       r"(?:lives|lived|living|live|stays|stayed)-(?:in|at|on|near)|(?:moving|will-move)-to|"
       r"has-(?:address|home|flat|apartment|house|city)|rents-at",
       single=True, weak=r"is-in|is-based-in|based-in|is-staying-in|stays-with", vocab="residence"),
    _f("origin",
       r"\b(?:where\b.*\bfrom|born|grew up|hometown|raised|nationality)\b",
       r"is-from|comes-from|came-from|born-in|grew-up-in|was-raised-in|has-hometown|has-nationality"),
    _f("manager",
       rf"\b(?:{_MANAGER}|reports? to|reported to|managed by|manag(?:e|es|ed|ing) (?:me|us)|"
       r"supervis(?:e|ed|es|ing|ors?))\b",
       r"has-(?:former-boss|former-manager|old-boss|new-boss|new-manager)|reported-to",
       single=True, person=_MANAGER, vocab="manager"),
    _f("partner",
       rf"\b(?:{_PARTNER}|married|marry|dating|engaged)\b",
       rf"has-(?:{_PARTNER.replace('[eé]', '(?:e|é)')})|dates|got-married-to",
       single=True, person=_PARTNER, vocab="spouse"),
    _f("children",
       rf"\b(?:{_KIDS})\b",
       rf"has-(?:{_KIDS})",
       person=_KIDS, vocab="children"),
    *(_f(name, rf"\b(?:{words})\b", rf"has-(?:{words})", person=words) for name, words in _RELATIVES.items()),
    _f("school",
       r"\b(?:school|schools|study|studies|studying|studied|university|uni|college|class|classes|nursery|"
       r"kindergarten|preschool|daycare|teacher|grade|graduat\w*|enrol\w*|attends?|attending|degree|"
       r"primary|secondary|high school|sixth form|academy|"
       r"masters?|master's|bachelor'?s?|phd|ph\.d|doctorate|mba|mtech|btech|msc|bsc|undergrad\w*|"
       r"postgrad\w*|thesis|dissertation)\b",
       r"(?:goes|went|going)-to|attended|(?:studies|studied|studying)-(?:at|in)|enrolled-(?:in|at)|"
       r"(?:starts|started|will-start|starting)-at|has-(?:school|teacher|university|college|degree)|"
       r"graduated-from|studies",
       single=True, vocab="school"),
    _f("rent",
       r"\b(?:rent|mortgage)\b",
       r"has-mortgage|pays",
       single=True, vocab="rent"),
    _f("salary",
       r"\b(?:salary|pay|paid|earn|earns|earning|earnings|income|wage|wages|raise|bonus|compensation|"
       r"how much do (?:i|you|they|we|he|she) make|makes? a year|ctc|lpa|stipend|ote|package|hourly|"
       r"(?:hourly|day|pay) rate|base|pension|commission|(?:am|was|is|are|were) (?:i|you|he|she|they|we) on|"
       r"(?:make|makes|making|made)(?: \w+){0,2} (?:a|an|per) (?:year|month|week|hour))\b",
       r"has-(?:wage|raise|rate|hourly-rate|bonus|compensation)|earned|gets-paid|makes",
       single=True, vocab="salary"),
    # pay after tax, beside the salary and no newer value of it ("£2,080 a month" beside "£29,970 a year")
    _f("take-home",
       r"\b(?:take[- ]home|payslip|paycheck|paycheque|net pay|after tax)\b",
       r"has-take-home-pay",
       single=True, vocab="take-home"),
    _f("pets",
       r"\b(?:pets?|dogs?|cats?|pupp(?:y|ies)|kittens?|rabbits?|hamsters?|parrots?|horses?)\b",
       r"has-(?:pet|dog|cat|puppy|kitten|rabbit|hamster|parrot|horse|bird|fish)|adopted",
       person=r"dogs?|cats?|pupp(?:y|ies)|kittens?|pets?"),
    _f("friends",
       r"\b(?:friends?|best friend|bff)\b",
       r"has-(?:friend|best-friend|close-friend|old-friend|friends)",
       person=r"friends?|best friend"),
    _f("colleague",
       r"\b(?:colleagues?|co-?workers?|teammates?|works with)\b",
       r"has-(?:colleague|coworker|co-worker|teammate)|works-with",
       person=r"colleagues?|co-?workers?|teammates?"),
    _f("mentor",
       r"\b(?:mentors?|mentored|mentoring)\b",
       r"has-mentor|is-mentored-by",
       person=r"mentors?"),
    _f("car",
       r"\b(?:car|cars|drive|drives|driving|drove|vehicle|bike|motorbike|motorcycle|truck|van|ute|pickup|suv)\b",
       r"has-(?:vehicle|bike|motorbike)|bought-car|owns", vocab="car"),
    _f("health",
       r"\b(?:allerg\w*|condition|diagnos\w*|medication|medicine|doctor|gp|dentist|therapist|health|injur\w*|"
       r"pregnan\w*|due date|illness|sick|symptoms?|prescri\w*|treatment|physio\w*|blood pressure|"
       r"cholesterol|asthma|diabet\w*|migraines?|angina)\b",
       r"is-allergic-to|has-(?:allergy|condition|diagnosis|medication|doctor|dentist|therapist|injury|"
       r"due-date)|takes|is-pregnant-with|is-diagnosed-with|was-diagnosed-with",
       person=r"doctor|gp|dentist|therapist"),
    _f("language",
       r"\b(?:speak|speaks|language|languages|learning|fluent)\b",
       r"speaks|learns|is-learning|studies-language|is-fluent-in"),
    _f("contact",
       r"\b(?:e-?mail|phone|number|contact)\b",
       r"has-(?:email|e-mail|phone|phone-number|number|mobile)"),
    _f("birthday",
       r"\b(?:birthday|how old|age|born on)\b",
       r"has-birthday|born-on|turns|turned", vocab="age"),
    _f("name",
       r"\b(?:name|called|named)\b",
       r"is-called|goes-by", vocab="name"),
)

_PARTNER_NOUN = r"(?:husband|wife|spouse|partner|fianc(?:e|é)e?|girlfriend|boyfriend)"
# Facts that state a family's relation from the other end: "Tom is-married-to Maya" names Maya's
# partner, "Leo has-mother Maya" Maya's child, "Dana manages Maya" Maya's manager. The answer is
# then the fact's subject, and the asked person its object.
INVERSE: dict[str, str] = {
    "partner": rf"{vocabulary.inverse_pattern('spouse')}|is-married-to|is-(?:the-)?{_PARTNER_NOUN}-of|"
               rf"has-{_PARTNER_NOUN}|is-engaged-to",
    "children": rf"{vocabulary.inverse_pattern('children')}|is-(?:the-)?(?:son|daughter|child|kid|baby)-of"
                r"|has-(?:mother|mom|mum|father|dad|parent)s?",
    "parent": r"is-(?:the-)?(?:mother|mom|mum|father|dad|parent)-of"
              r"|has-(?:son|daughter|kid|child|children)s?",
    "mother": r"is-(?:the-)?(?:mother|mom|mum)-of",
    "father": r"is-(?:the-)?(?:father|dad)-of",
    "sister": r"is-(?:the-)?sister-of",
    "brother": r"is-(?:the-)?brother-of",
    "manager": rf"{vocabulary.inverse_pattern('manager')}|is-(?:the-)?(?:manager|boss|supervisor)-of",
    "friends": r"is-friends-with|is-(?:a-|the-)?(?:best-|close-)?friend-of|has-(?:best-|close-)?friends?",
    "colleague": r"works-with|is-(?:a-)?colleague-of|has-(?:colleague|coworker|co-worker)s?",
    "mentor": r"mentors|is-(?:a-|the-)?mentor-(?:of|to)",
}
# A predicate in the past form states a past value ("worked-at", "lived-in", "has-former-boss"): it is
# no answer to a question in the present. (`moved-to` is an event that makes a present state.)
_PAST_FORM = re.compile(
    r"(?:worked|lived|was|were|went|attended|studied|reported|taught|earned|used-to|had|drove|owned)(?:-.+)?"
    r"|has-(?:former|old|ex|previous)-.+|.+-formerly"
)
_FIRST_PERSON = re.compile(r"\b(?:i|i'm|i've|i'd|i'll|me|my|mine|myself|we|we're|we've|us|our|ours)\b")
# Wants the old value first ("my previous job", "where did I live before?", "my ex-boss").
_PAST_STRONG = re.compile(
    r"\b(?:used to|previous(?:ly)?|former(?:ly)?|before|earlier|originally|at first|back then|"
    r"no longer|any ?more|ex|first)\b|\bex-|(?<!how )\bold\b(?! (?:is|are|was|were)\b)"
    # "what was I making when I was still driving?": a state the asker has left
    r"|\b(?:was|were) still\b|\bwhen (?:i|we|he|she|they) (?:was|were)\b"
)
# Allows old values after the current ones (a past tense, a year, "last year", "when did").
_PAST_WEAK = re.compile(
    r"\b(?:did|was|were|had|ago|last (?:year|month|week|time)|in (?:19|20)\d\d|history|changed?|"
    r"since when|how long)\b"
    r"|^(?:who|what|which|where) \w+ed\b"  # "who supervised my PhD?": the verb after the wh-word, past
)
_PRESENT = re.compile(
    r"\b(?:now|currently|current|these days|today|at the moment|right now)\b|(?<!was )(?<!were )\bstill\b"
)
# A question asks about several relations in several tenses ("where does Maya work now, and where did she
# live before?"): each relation takes the tense of the clause that names it. A clause with a present
# auxiliary and no past word is in the present; one with no tense word at all takes the question's.
_CLAUSE = re.compile(r"[,;?!]|\b(?:and|but|while|whereas)\b")
_WHEN = re.compile(r"\b(?:before|after|since|until|till)\b")
_PRESENT_AUX = re.compile(r"\b(?:do|does|is|are|am)\b")
_WORD = re.compile(r"[^\W_][\w'’-]*")


@lru_cache(maxsize=4096)
def families_of(predicate: str) -> frozenset[str]:
    """Names of the families a predicate belongs to."""
    return frozenset(f.name for f in FAMILIES if _PRED[f.name].fullmatch(predicate))


_PRED = {f.name: re.compile(f"{f.predicates}|{f.weak}" if f.weak else f.predicates) for f in FAMILIES}
_INV = {name: re.compile(pattern) for name, pattern in INVERSE.items()}


@lru_cache(maxsize=4096)
def inverse_families_of(predicate: str) -> frozenset[str]:
    """Names of the families a predicate states from the other end (see INVERSE)."""
    return frozenset(name for name, pattern in _INV.items() if pattern.fullmatch(predicate))
_WEAK = {f.name: re.compile(f.weak) for f in FAMILIES if f.weak}
_WORDS = {f.name: re.compile(f.words) for f in FAMILIES}
_PERSON = {f.name: re.compile(rf"\b(?:my|our)\s+(?:(?:current|new|old|former|previous|little|eldest|oldest|"
                              rf"youngest|younger|older|best|dear)\s+|ex-\s*)*(?:{f.person})\b")
           for f in FAMILIES if f.person}


@dataclass
class RelationQuery:
    """What a question asks about: relation families (in order), subjects, the past."""

    families: list[str] = field(default_factory=list)
    first_person: bool = False
    names: list[str] = field(default_factory=list)  # canonical subject keys named in the question
    via: list[str] = field(default_factory=list)  # person families of "my husband"-style references
    past: str = ""  # "" (present), "weak" (history allowed after current), "strong" (history first)
    tenses: dict[str, str] = field(default_factory=dict)  # a family's own tense, where its clause says one

    @property
    def empty(self) -> bool:
        return not self.families

    def tense(self, family: str) -> str:
        """The tense the question asks `family` in (its clause's, else the question's)."""
        return self.tenses.get(family, self.past)


def parse_relation(query: str) -> RelationQuery:
    """The relation families, first-person reference, possessive references and tense of a question."""
    q = " ".join((query or "").lower().replace("’", "'").split())
    out = RelationQuery()
    if not q:
        return out
    out.families = [f.name for f in FAMILIES if _WORDS[f.name].search(q)]
    if not out.families:
        return out
    # a family said only in a time clause is when, not what, the question asks: "what was my salary
    # before the new job?" asks the salary first
    asked = _WHEN.split(q, maxsplit=1)[0]
    out.families.sort(key=lambda name: _WORDS[name].search(asked) is None)
    out.first_person = bool(_FIRST_PERSON.search(q))
    out.via = [name for name, pattern in _PERSON.items() if name in out.families and pattern.search(q)]
    out.past = _tense(q) or ""
    clauses = [c for c in _CLAUSE.split(q) if c.strip()]
    if len(clauses) > 1:
        for name in out.families:
            said = {t for c in clauses if _WORDS[name].search(c)
                    and (t := _tense(c, clause=True)) is not None}
            if len(said) == 1:  # one tense for this relation (two clauses that disagree: the question's)
                out.tenses[name] = said.pop()
    return out


def _tense(text: str, clause: bool = False) -> str | None:
    """"strong", "weak" or "" (present); for a `clause`, None when it says no tense at all."""
    if _PAST_STRONG.search(text):
        return "strong"
    weak = _PAST_WEAK.search(text)
    if weak and not _PRESENT.search(text):
        return "weak"
    if not clause or weak or _PRESENT.search(text) or _PRESENT_AUX.search(text):
        return ""
    return None


def fact_time(fact: Fact) -> datetime:
    """When a fact became true: `valid_at`, else its first evidence's time, else `created_at`."""
    ts = fact.valid_at or (fact.evidence[0].timestamp if fact.evidence and fact.evidence[0].timestamp
                           else None) or fact.created_at
    return as_utc(ts)


class SubjectIndex(TableFollower[Fact]):
    """subject key (canonical subject and subject entity id) -> ids of every fact, superseded ones
    included, of one fact table; follows the table's change log as index/fact_terms.py does."""

    def __init__(self) -> None:
        super().__init__()
        self.by_subject: dict[str, set[str]] = {}
        self.by_object: dict[str, set[str]] = {}  # facts of an INVERSE predicate, by object
        self._keys_of: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {}
        self.facts: dict[str, Fact] = {}
        self.districts = Districts()  # a home there is no older value of the city's

    def _clear(self) -> None:
        self.by_subject, self.by_object, self._keys_of, self.facts = {}, {}, {}, {}
        self.districts = Districts()

    def _add(self, fact: Fact) -> None:
        self.districts.add(fact)
        direct, inverse = families_of(fact.predicate), inverse_families_of(fact.predicate)
        if not direct and not inverse:
            return  # only facts some question can ask about by relation
        subj = tuple({k: None for k in (canonical(fact.subject), fact.subject_id) if k}) if direct else ()
        obj = tuple({k: None for k in (canonical(fact.object), fact.object_id) if k}) if inverse else ()
        self._keys_of[fact.id] = (subj, obj)
        self.facts[fact.id] = fact
        post(self.by_subject, subj, fact.id)
        post(self.by_object, obj, fact.id)

    def _remove(self, fid: str) -> None:
        self.districts.remove(fid)
        self.facts.pop(fid, None)
        subj, obj = self._keys_of.pop(fid, ((), ()))
        unpost(self.by_subject, subj, fid)
        unpost(self.by_object, obj, fid)

    def of(self, keys: set[str]) -> list[Fact]:
        """Facts of a family whose subject is one of `keys`."""
        ids = {fid for k in keys for fid in self.by_subject.get(k, ())}
        return [self.facts[fid] for fid in ids if fid in self.facts]

    def about(self, keys: set[str]) -> list[Fact]:
        """Facts of an inverse predicate whose object is one of `keys`."""
        ids = {fid for k in keys for fid in self.by_object.get(k, ())}
        return [self.facts[fid] for fid in ids if fid in self.facts]

    def named_in(self, query: str) -> list[str]:
        """Subject keys named in the question (1- to 3-word spans, a possessive 's dropped)."""
        words = [w.removesuffix("'s").removesuffix("’s") for w in _WORD.findall(query.lower())]
        found: list[str] = []
        for n in (3, 2, 1):
            for i in range(len(words) - n + 1):
                span = words[i : i + n]
                if n == 1 and (span[0] in STOP_WORDS or len(span[0]) < 2):
                    continue
                key = " ".join(span)
                if (key in self.by_subject or key in self.by_object) and key not in found:
                    found.append(key)
        return found


class UserNames:
    """The subjects "I" stands for: speakers of the latest user messages, and `user` (refreshed at
    most every USER_REFRESH_S seconds)."""

    def __init__(self) -> None:
        self.at = -1e9
        self.keys: set[str] = {"user"}

    def refresh(self, ws: Workspace) -> set[str]:
        now = time.monotonic()
        if now - self.at < USER_REFRESH_S or ws.store_down:  # down: the speakers of the last look
            return self.keys
        self.at = now
        keys = {"user"}
        if ws.has_message_log:
            with contextlib.suppress(Exception):  # a busy or missing log: "I" is `user` only
                latest = ws.messages.iter(role="user", order="desc", limit=USER_SAMPLE)
                keys |= {canonical(m.speaker) for m in latest if m.speaker}
        keys |= _entity_keys(ws, keys - {"user"})
        self.keys = keys
        return keys


def _entity_keys(ws: Workspace, speakers: set[str]) -> set[str]:
    """The entity each speaker's name resolves to, by id and name: "Eamon Duffy" writes "I'm Eamon",
    and the store keeps his facts under the entity "Eamon" that the long name joined."""
    keys: set[str] = set()
    for name in speakers:
        ent = ws.entities.resolve(name, "person")
        if ent is not None:
            keys |= {ent.id, canonical(ent.value)}
    return keys


@dataclass
class RelationHit:
    fact: Fact
    level: float  # 3: subject and family asked; 1: the link of "my X" (who X is)
    past: bool  # superseded (or stale) and shown because the question asks about the past


def relation_facts(
    rq: RelationQuery, index: SubjectIndex, user_keys: set[str], entity_ids: set[str], query: str,
    limit: int = MAX_RELATION_FACTS,
) -> tuple[list[RelationHit], set[str]]:
    """(the facts of the asked subjects and families, best first; ids of valid facts that are stale
    for this question and must not be injected)."""
    if rq.empty:
        return [], set()
    named = set(index.named_in(query))
    named |= {e for e in entity_ids if e in index.by_subject or e in index.by_object}
    subjects = named | (user_keys if rq.first_person else set())
    asked = [f for f in rq.families if f not in rq.via] or list(rq.families)
    link: list[Fact] = []
    if rq.via and rq.first_person and len(asked) < len(rq.families):
        # "where does my husband work?": the user's current partner facts name who is asked about
        via = set(rq.via)
        link = [f for f in index.of(user_keys) if f.invalid_at is None and families_of(f.predicate) & via]
        people = {k for f in link for k in (canonical(f.object), f.object_id) if k}
        back = [f for f in index.about(user_keys)
                if f.invalid_at is None and inverse_families_of(f.predicate) & via]
        people |= {k for f in back for k in (canonical(f.subject), f.subject_id) if k}
        link += back
        named = people | (named - user_keys)
        subjects = named
    if not subjects:
        return [], set()  # a relation of nobody known: the other arms decide
    order = {name: i for i, name in enumerate(asked)}
    # (fact, family rank, whether it states the relation from the other end)
    wanted: dict[str, tuple[Fact, int, bool]] = {}
    for fact in index.of(subjects):
        fams = families_of(fact.predicate) & order.keys()
        if fams:
            wanted[fact.id] = (fact, min(order[f] for f in fams), False)
    for fact in index.about(subjects):
        fams = inverse_families_of(fact.predicate) & order.keys()
        if fams and fact.id not in wanted:
            wanted[fact.id] = (fact, min(order[f] for f in fams), True)
    stale = _stale(wanted.values(), order, index.districts)
    current = _current_values(wanted.values(), stale, asked)
    hits: list[tuple[tuple[int, int, int, int, float, float], RelationHit]] = []
    for fact, rank, inverse in wanted.values():
        old = fact.invalid_at is not None or fact.id in stale
        tense = rq.tense(asked[rank])
        if old and (not tense or (not inverse and _slot(fact, asked[rank]) in current)):
            continue  # not asked in the past, or the old fact restates a current value (no "before")
        first = (0 if old else 1) if tense == "strong" else (1 if old else 0)
        # a named person before "I" ("where did Jenna teach before we moved?"), then the tense, the
        # family order, the family's weak predicates last, the newest, the most confident
        who = (fact.object, fact.object_id) if inverse else (fact.subject, fact.subject_id)
        other = 0 if not named or canonical(who[0]) in named or who[1] in named else 1
        weak = int(any(_WEAK[f].fullmatch(fact.predicate) for f in families_of(fact.predicate) if f in _WEAK))
        # past values by when they ended: "my previous job" is the one that ended last
        when = fact_time(fact) if fact.invalid_at is None else as_utc(fact.invalid_at)
        key = (other, first, rank, weak, -when.timestamp(), -fact.confidence)
        hits.append((key, RelationHit(fact, 3.0, old)))
    hits.sort(key=lambda kv: kv[0])
    out = [h for _, h in hits[:limit]]
    shown = {h.fact.id for h in out}
    link = [f for f in sorted(link, key=fact_time, reverse=True) if f.id not in shown]
    out += [RelationHit(f, 1.0, False) for f in link[:2]]
    return out, {fid for fid in stale if not rq.tense(asked[wanted[fid][1]])}


def _slot(fact: Fact, family: str) -> tuple[str, str, str]:
    return canonical(fact.subject), family, canonical(fact.object)


def _current_values(
    wanted: Iterable[tuple[Fact, int, bool]], stale: set[str], asked: list[str]
) -> set[tuple[str, str, str]]:
    """(subject, family, value) of the valid, not stale facts: a past fact of the same value restates
    what is true now ("moved-to Berlin" ended by "lives-in Berlin"), so it is no answer to "before"."""
    return {_slot(f, asked[rank]) for f, rank, inverse in wanted
            if not inverse and f.invalid_at is None and f.id not in stale}


def _stale(
    wanted: Iterable[tuple[Fact, int, bool]], order: dict[str, int], districts: Container[str] = frozenset()
) -> set[str]:
    """Valid facts of a single-valued family that are no answer in the present because the same
    subject has a newer value in that family: one older than the subject's newest fact of the family,
    or one with a past-form predicate ("worked-at Brightline" beside "works-at Helix"). Weak predicates
    such as "is-in" make nothing stale ("I'm in London this week" does not end "lives-in Leeds"), and
    a past-form fact with no current value beside it is left alone (in a chat most events are told in
    the past tense: "went-to", "attended"). A home in a district is compared with homes in districts
    only: the city said later is where the district is, not a newer home (the store keeps both)."""
    single = {f.name for f in FAMILIES if f.single}
    direct = [f for f, _, inverse in wanted if not inverse and f.invalid_at is None]
    newest: dict[tuple[str, str, bool], tuple[datetime, Fact]] = {}
    for fact in direct:
        if _PAST_FORM.fullmatch(fact.predicate):
            continue
        for fam in families_of(fact.predicate) & single & order.keys():
            if fam in _WEAK and _WEAK[fam].fullmatch(fact.predicate):
                continue
            slot = (canonical(fact.subject), fam, canonical(fact.object) in districts)
            t = fact_time(fact)
            if slot not in newest or t > newest[slot][0]:
                newest[slot] = (t, fact)
    stale: set[str] = set()
    for fact in direct:
        t = fact_time(fact)
        past_form = bool(_PAST_FORM.fullmatch(fact.predicate))
        for fam in families_of(fact.predicate) & single & order.keys():
            slot = (canonical(fact.subject), fam, canonical(fact.object) in districts)
            if slot not in newest:
                continue
            top_time, top = newest[slot]
            # "moving to bangalore on 1 June, HSR Layout": one message, one news, whatever its dates
            if past_form or (t < top_time - SAME_NEWS and not _said_together(fact, top)):
                stale.add(fact.id)
                break
    return stale


def _said_together(a: Fact, b: Fact) -> bool:
    """Two facts first read from the same message (a date in it may give one a later `valid_at`)."""
    return bool(a.evidence and b.evidence and a.evidence[0].message_id == b.evidence[0].message_id)
