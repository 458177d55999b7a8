"""Relations by example: an employer, home, pay, rent or car read from a sentence's meaning, not its wording.

The dependency rules know the forms they were written for; unseen writers word a new job, a move, a
pay rise or a new car in other ways. This pass takes each organisation, place, amount or product of a
user turn that no rule used, masks it ("X") in its clause, and compares the clause's embedding with
example sentences of each relation and of near misses (a visit, a purchase, money spent, a plan,
someone else's job). The nearest relation is taken only when it is close and clearly ahead of every
near miss. Whose relation: the speaker when the sentence names nobody else; the one person it names;
a he/she the session resolves; a kin word the speaker named before ("my husband" -> Tom, kin.py);
otherwise nothing. Never in a clause that asks or supposes ("Should I take the job at X"; the stated
clause of "Just started at X, any tips?" is read). A rule's reading always wins; this one fills the
gaps, with a lower confidence.

The local MiniLM embedder (the engine's offline default) gives the vectors: the examples were
written against it, so another model would need its own thresholds. The engine hands the tier a
factory for it (`SpacyTier(embedder=...)`: extraction sits below the index); without one, or when the
model cannot load, the pass is off.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from knowledge_engine.extract import lexicon
from knowledge_engine.extract.firms import first_name_led, unknown_firm
from knowledge_engine.extract.kin import KIN_PREFIX, KIN_WORDS
from knowledge_engine.extract.lexicon import CAR_NAMES, JOB_TITLE_NOUNS, PRONOUN, SCHOOL_WORDS
from knowledge_engine.extract.places import big_place
from knowledge_engine.extract.text import SENTENCES
from knowledge_engine.model.extraction import Extraction, FactCandidate, Mention
from knowledge_engine.model.predicates import MOVE_PREDICATES, store_families
from knowledge_engine.model.records import EntityType, Message
from knowledge_engine.observe import counters, log

MASK = "X"
MAX_SENTENCE_CHARS = 300  # a longer "sentence" is a run-on paragraph: its meaning is not one relation

# Example sentences per relation, written from no story (generic chat about work and home). A key
# that is no predicate ("-visit", ...) is a near miss: when it is nearest, nothing is said.
EXAMPLES: dict[str, tuple[str, ...]] = {
    "works-at": (
        "I work at X",
        "I got a job at X",
        "I start at X next month",
        "I accepted the offer from X",
        "I joined X as an engineer",
        "my company X is restructuring",
        "I've been at X for three years",
        "my employer is X",
        "I'm a developer at X",
        "X hired me",
        "I'm an engineer at X",
        "first day at X tomorrow",
        "signed the contract with X",
        "I'm on the team at X",
        "I'm with X now",
        "got the job at X!!",
        "new job at X",
        "X took me on",
        "he works at X",
        "she got a job at X",
        "he's starting at X on Monday",
        "she's a nurse at X",
        "he teaches at X",
        "she's been with X since 2019",
        "I love working at X",
    ),
    "lives-in": (
        "I live in X",
        "we live in X",
        "our flat in X",
        "we're renting a place in X",
        "I'm based in X",
        "we are in X now",
        "home is X these days",
        "we settled in X",
        "our house in X",
        "we're in X",
        "our apartment in X",
        "living in X now",
        "she lives in X",
        "they live in X",
    ),
    "moves-to": (
        "we moved to X",
        "we're moving to X",
        "our new place is in X",
        "we bought a house in X",
        "we found a flat in X",
        "relocating to X next month",
        "we got the keys to our place in X",
        "he moved to X",
    ),
    "worked-at": (
        "my last day at X is Friday",
        "I'm leaving X",
        "I handed in my notice at X",
        "I used to work at X",
        "I quit X",
        "I was laid off from X",
        "I worked at X for five years",
        "my old job at X",
        "he left X",
        "she quit her job at X",
    ),
    "lived-in": (
        "we used to live in X",
        "we moved away from X",
        "we left X last year",
        "I grew up in X",
        "back when we lived in X",
        "she used to live in X",
    ),
    "has-salary": (
        "I earn X",
        "my salary is X",
        "they're paying me X",
        "the offer is X a year",
        "X base plus bonus",
        "I'm on X now",
        "got a raise to X",
        "she earns X",
    ),
    "has-take-home-pay": (
        "my take-home is X a month",
        "I take home about X",
        "my payslip came, X",
        "net pay is X",
    ),
    "has-rent": (
        "our rent is X",
        "we pay X a month for the flat",
        "rent went up to X",
        "the flat is X per month",
        "X a month for a two-bed",
        "my mortgage is X",
    ),
    "has-car": (
        "we drive a X",
        "my car is a X",
        "I bought a X",
        "picked up our new X today",
        "the X is at the garage",
        "we got a used X",
        "she drives a X",
    ),
    "sold": ("we sold the X", "traded in the X", "the old X finally died", "got rid of the X"),
    "-spend": (
        "it cost X",
        "I spent X on shoes",
        "the tickets were X",
        "the deposit was X",
        "saved X so far",
        "the bill came to X",
        "X for the repair",
        "the budget is X",
        "I owe X",
    ),
    "-gadget": (
        "I bought a new X phone",
        "my X laptop is slow",
        "playing X tonight",
        "the X app",
        "watching X on Netflix",
        "my X watch",
    ),
    "-visit": (
        "I visited X",
        "we went to X on holiday",
        "we're flying to X",
        "a weekend in X",
        "trip to X",
        "a conference in X",
        "the hotel in X was nice",
        "a care home in X has a room",
        "the hospital in X",
    ),
    "-customer": (
        "I bought it at X",
        "I ordered from X",
        "my bank is X",
        "I called X customer service",
        "X delivered my parcel",
        "I have an appointment at X",
        "a new phone contract with X",
        "signed up for broadband with X",
        "our energy supplier is X",
        "switched my mobile to X",
    ),
    "-other": (
        "X is a great company",
        "what do you think of X",
        "I read about X",
        "X was closed",
        "I watched X",
        "can you help me write to X",
        "X is in the news",
        "the weather in X",
        "I applied to X",
        "an interview at X",
    ),
    "-style": (  # a place as a kind of thing, not where anyone lives
        "X-style pizza",
        "proper X food",
        "X traffic is awful",
        "a strong X accent",
        "X fans are loud",
        "a X beer",
    ),
    "-maybe": (
        "I want to move to X",
        "we might move to X one day",
        "thinking about a job at X",
        "I'd love to work at X",
        "should we live in X",
        "she wants a X",
        "we're thinking of getting a X",
        "looking at buying a X",
    ),
    "-someone": ("my friend works at X", "my kids go to X", "my sister lives in X", "my dad worked at X"),
}

# A mention's type says which relations it can hold (a rule or NER typing it says what it is).
_FITS: dict[str, frozenset[EntityType]] = {
    "works-at": frozenset({"organization"}),
    "worked-at": frozenset({"organization"}),
    "lives-in": frozenset({"location"}),
    "moves-to": frozenset({"location"}),
    "lived-in": frozenset({"location"}),
    "has-salary": frozenset({"money"}),
    "has-take-home-pay": frozenset({"money"}),
    "has-rent": frozenset({"money"}),
    "has-car": frozenset({"product"}),
    "sold": frozenset({"product"}),
}
_TYPES: frozenset[EntityType] = frozenset({"organization", "location", "money", "product"})
_READ: frozenset[EntityType] = _TYPES | {"person"}  # a "person" may be a firm the model does not know
_PLACES: frozenset[EntityType] = frozenset({"organization", "location"})  # a lower-case name may be either
_OBJECT_TYPE: dict[str, EntityType] = {p: next(iter(types)) for p, types in _FITS.items()} | {
    "moved-to": "location",
    "attends": "organization",
}
# Which facts of one message and subject exclude each other: the store's single-valued families (one
# employer, one home, one salary...; `predicates.store_families`) and their past sides, for the rules'
# facts (a family a rule gave the subject is not read again) and this pass's own (one per family).
_PAST: dict[str, str] = {
    "worked-at": "employer-past",
    "left": "employer-past",
    "quit": "employer-past",
    "lived-in": "residence-past",
    "moved-from": "residence-past",
    "sold": "car-past",
}
_RULE_FAMILIES: dict[str, str] = {
    **{p: family for family, members in store_families().items() for p in members},
    **_PAST,
    "joins": "employer",
    "joined": "employer",
    "is-in": "residence",
}
FAMILIES: dict[str, str] = {p: _RULE_FAMILIES[p] for p in (*_FITS, "moved-to", "attends")}
# A family and its past side are one domain: whether the name is a job or a home is the examples'
# call, whether it is held now or was is the clause's (_tense).
_DOMAINS: dict[str, str] = {p: f.removesuffix("-past") for p, f in FAMILIES.items()}
_PAST_SIDE: dict[str, bool] = {p: f.endswith("-past") for p, f in FAMILIES.items()}
_ENDED = re.compile(
    r"\b(?:last day|left|leaving|quit|quitting|used to|old|former|ex|previous|"
    r"retired|laid off|let go|fired|notice|resigned|sold|selling|moved (?:out|away)|no longer|anymore)\b",
    re.I,
)

# A present word: the job or home is held now, whatever the nearest examples' tense ("until now" is not)
_NOW = re.compile(r"(?<!until )(?<!till )\b(?:now|currently|these days|nowadays|at the moment)\b", re.I)
_CLAUSE_CUT = re.compile(r"[,;:()]|\s[-–—]\s")
# A run-on line strings its news with "and", "but", "so": its pieces are its clauses
_RUN_ON_CUT = re.compile(r"[,;:()]|\s[-–—]\s|\s(?:and|but|so|then|which|because|cos|coz)\s", re.I)
# A line or clause that asks, or only supposes: "Should I take the job at X", "If we moved to X"
_ASKING = re.compile(
    r"\A\W*(?:should|would|could|can|do|does|did|is|are|was|were|will|shall|am|may|might|must|have|has|"
    r"what|how|why|where|when|who|whom|which|whose|any|if|whether|unless)\b",
    re.I,
)
MIN_CLAUSE_WORDS = 4
_MY_KIN = re.compile(
    r"\b(?:my|our)\s+(?:(?:new|little|big|older|younger|eldest|oldest|youngest|other)\s+)?("
    + "|".join(sorted(KIN_WORDS, key=len, reverse=True))
    + r")\b",
    re.I,
)
_TEACHING = re.compile(r"\b(?:teach\w*|taught|staff|work\w*|job|employ\w*|hired)\b", re.I)
_MOVED = re.compile(r"\bmoved\b", re.I)
# A step only weighed ("thinking about leaving X"): the examples place it by its verb beside the step
# taken ("I'm leaving X"), and that reading would end the job or home it names.
_WEIGHED = re.compile(
    r"\b(?:(?:thinking|talking|thought|talked|considering|wondering|debating|dreaming) (?:about|of)"
    r"|(?:want|wants|wanted|plan|plans|planning|hope|hoping|hoped) to|tempted|maybe|might"
    r"|next (?:week|month|year))\b",
    re.I,
)
_ENDINGS = frozenset({"worked-at", "lived-in", "sold"})
# A clause with "could"/"would"/"might" and an "if" only supposes what it says
_SUPPOSED = re.compile(r"\b(?:could|would|might|couldn't|wouldn't)\b|\b\w+['’]d\b", re.I)
_IF = re.compile(r"\bif\b", re.I)
# A denial of the relation ("I'm not in London", "we don't live in Leeds", "I'm not based in Dublin"):
# the examples place it beside the statement it denies. "No longer"/"anymore" make it an ending (_ENDED).
_DENIED = re.compile(
    r"(?:\bnot|n't|n’t|\b(?:dont|doesnt|didnt|isnt|arent|aint)|\bnever)\s+"
    r"(?:(?:\w+ing|live|work|based|stay)\s+)?(?:in|at|for|with)\s+X\b",
    re.I,
)
_HOME_SIDE = frozenset({"lives-in", "moves-to", "lived-in", "moved-to"})
# A job sought, not held: "the resume for Siemens job", "a cover letter for PwC", "applying to Monzo",
# "I saw a posting for nurse educator at X" (a job advertised)
_SOUGHT = re.compile(
    r"\b(?:resume|résumé|cv|cover letter|appl(?:y|ying|ied|ication)|interview\w*|"
    r"(?:job )?(?:posting|advert|ad)|vacanc(?:y|ies)|opening)\b",
    re.I,
)
# the place of a school or a workplace named just before it ("nursery on X", "the office in X")
_SITE_OF = re.compile(
    rf"\b(?:{'|'.join(sorted(SCHOOL_WORDS))}|office|hospital|clinic|shop|store|branch|site)\s+(?:on|in|at|off)\s+X\b",
    re.I,
)
_SOLD_HOME = re.compile(
    r"\b(?:sell|sells|selling|sold)\s+(?:\w+\s+){0,3}?"
    r"(?:home|house|flat|apartment|place|condo|cottage|bungalow|terrace|townhouse)\s+in\s+X\b",
    re.I,
)
_I = re.compile(r"\b(?:i|i'm|im|i've|ive|i'll|i'd|me|we|we're|we've|us)\b", re.I)  # the speaker as a subject
_HE_SHE = re.compile(r"\b(he|she)(?:'s|'ll|'d)?\b", re.I)
_AT_FIRM = re.compile(
    r"\b(at|for|with)\s+X\b(?!['’]s)(?!\s+(?:office|offices|branch|site|depot|plant|store|shop|campus|hq|"
    r"hospital|clinic|station|centre|center|area|side|road|street)\b)",
    re.I,
)
# What a "they" beside the speaker may be, by the name's type, and what it may then tell: a firm's
# job, a firm's pay or a landlord's rent ("they're giving me 52k", "they want 1,200 a month for it")
_THEY_READS: dict[str, frozenset[str]] = {
    "organization": frozenset({"employer"}),
    "money": frozenset({"salary", "take-home", "rent"}),
}
_THEY = re.compile(r"\b(?:they|their|theirs|them|they're|they've|they'll|they'd)\b", re.I)
_MINE = re.compile(r"\b(?:my|our)\b", re.I)
_MY_PAY = re.compile(r"\b(?:my|our)\s+(?:pay|salary|wages?|income|rent|mortgage)\b|\bpay(?:ing)? me\b", re.I)
_FIRST_WORD = re.compile(r"\A\W*([A-Za-z']+)")  # \A: linear under search too (the ReDoS scan)
# Capitalised openers of a line whose "I" chat dropped ("Got the job at X!", "Finally settled in X")
_OPENERS = frozenset(
    {
        "got", "had", "been", "just", "finally", "still", "now", "new", "first", "back", "off", "so", "also",
        "and", "but", "start", "today", "yesterday",
    }
)  # fmt: skip
# Words for other people: the kin words of kin.py, and people a speaker has many of
_PEOPLE = KIN_WORDS | {
    "friend", "colleague", "cousin", "neighbour", "neighbor", "kid", "kids", "children", "baby", "parent",
    "parents",
}  # fmt: skip
_KIN = re.compile(r"\b(?:" + "|".join(sorted(_PEOPLE, key=len, reverse=True)) + r")\b", re.I)
_OTHER_PERSON = re.compile(
    r"\b(?:he|she|they|his|her|him|their|them|he's|she's|they're|"
    + "|".join(sorted(_PEOPLE, key=len, reverse=True))
    + r")\b",
    re.I,
)


@dataclass(frozen=True)
class Thresholds:
    """How close an example must be (cosine) and by how much it must beat the nearest near miss."""

    similarity: float = 0.50
    margin: float = 0.08


class Examples:
    """The example vectors, embedded on first use once per process and model."""

    def __init__(self, embedder: Any) -> None:
        self.embedder = embedder
        self._lock = threading.Lock()
        self._labels: list[str] = []
        self._matrix: Any = None

    def scores(self, sentences: Sequence[str]) -> list[dict[str, float]]:
        """Per sentence, the best cosine of each relation's (and near miss's) examples."""
        import numpy as np

        labels, matrix = self._ready()
        vecs = np.asarray(self.embedder.embed(list(sentences)), dtype=np.float32)
        vecs /= np.maximum(np.linalg.norm(vecs, axis=1, keepdims=True), 1e-9)
        sims = vecs @ matrix.T
        out: list[dict[str, float]] = []
        for row in sims:
            best: dict[str, float] = {}
            for label, sim in zip(labels, row, strict=True):
                best[label] = max(best.get(label, -1.0), float(sim))
            out.append(best)
        return out

    def _ready(self) -> tuple[list[str], Any]:
        with self._lock:
            if self._matrix is None:
                model = str(getattr(self.embedder, "model_id", ""))
                if not model:  # an embedder without a model id keeps its own vectors
                    self._labels, self._matrix = self._embed_examples()
                else:
                    with _SHARED_LOCK:  # every engine of a process on one model embeds them once
                        if model not in _SHARED:
                            _SHARED[model] = self._embed_examples()
                        self._labels, self._matrix = _SHARED[model]
            return self._labels, self._matrix

    def _embed_examples(self) -> tuple[list[str], Any]:
        import numpy as np

        texts = [t for ts in EXAMPLES.values() for t in ts]
        m = np.asarray(self.embedder.embed(texts), dtype=np.float32)
        m /= np.maximum(np.linalg.norm(m, axis=1, keepdims=True), 1e-9)
        return [k for k, ts in EXAMPLES.items() for _ in ts], m


_SHARED: dict[str, tuple[list[str], Any]] = {}  # model id -> the example labels and vectors
_SHARED_LOCK = threading.Lock()


def examples_on(make_embedder: Callable[[], Any]) -> Examples | None:
    """Examples on the embedder `make_embedder` builds (the engine gives the packaged MiniLM; this floor
    may not import the index), or None (logged once) when it cannot load."""
    try:
        embedder = make_embedder()
        embedder.embed(["ok"])  # loads the model now: a missing package shows here, not mid-batch
    except Exception as exc:
        log.warning("relations by example are off: local embedder unavailable (%s)", type(exc).__name__)
        return None
    return Examples(embedder)


@dataclass(frozen=True)
class _Candidate:
    index: int  # the message's position in the batch
    mention: Mention
    masked: str
    subject: str  # the speaker, a person the sentence names, or an unresolved he/she (lexicon.PRONOUN)
    own: bool  # the subject is the speaker
    said: frozenset[str]  # the families a rule already gave this subject in this message
    moving: bool  # a rule read a move of the subject in this sentence ("... so we're moving to Y")
    probe: str  # the clause of the name, masked: what is embedded (a long sentence's other clauses blur it)
    lower: bool  # written in lower case: the model's type is a guess (the parse may have seen it truecased)
    they_firm: bool = False  # the subject holds only with "they" read as a firm or landlord (_THEY_READS)


def add_relations(
    examples: Examples, messages: Sequence[Message], extractions: list[Extraction], limits: Thresholds
) -> list[Extraction]:
    """The extractions with the facts the examples add (one embedding call for the whole batch)."""
    todo = [
        c for i, (m, ex) in enumerate(zip(messages, extractions, strict=True)) for c in _candidates(i, m, ex)
    ]
    if not todo:
        return extractions
    try:
        scores = examples.scores([c.probe for c in todo])
    except Exception as exc:
        counters.inc("extract.by_example.failed")
        log.warning("relations by example failed for a batch (%s)", type(exc).__name__)
        return extractions
    out = list(extractions)
    taken: set[tuple[int, str, str]] = set()  # one fact per message, subject and family: the closest
    ranked = sorted(zip(todo, scores, strict=True), key=lambda cs: -max(cs[1].values()))
    for cand, score in ranked:
        predicate = _reading(score, cand, limits)
        slot = (cand.index, cand.subject, FAMILIES.get(predicate or "", ""))
        if predicate is None or slot in taken or FAMILIES[predicate] in cand.said:
            continue
        taken.add(slot)
        out[cand.index] = _with_fact(out[cand.index], cand, predicate)
        counters.inc("extract.by_example.facts")
    return out


def _candidates(index: int, message: Message, ex: Extraction) -> list[_Candidate]:
    """Organisations and places of a user turn that no rule used, each in its sentence, masked, with
    whose job or home the sentence would tell."""
    if message.role != "user" or not ex.mentions:
        return []
    speaker = (message.speaker or "").strip() or "user"
    said = {
        (f.subject.casefold(), _RULE_FAMILIES[f.predicate]) for f in ex.facts if f.predicate in _RULE_FAMILIES
    }
    # said: (subject, family) pairs a rule already gave in this message
    used = {f.object.casefold() for f in ex.facts} | {f.subject.casefold() for f in ex.facts}
    out: list[_Candidate] = []
    seen: set[str] = set()
    for mention in ex.mentions:
        key = mention.value.casefold()
        if mention.type not in _READ or mention.start < 0 or _used(key, used) or key in seen:
            continue
        if key in KIN_WORDS:
            continue  # a kin word the model tagged a firm: "Hubby starts at Greggs" is no job at "Hubby"
        sentence = _sentence_of(message.text, mention.start, mention.end)
        if sentence is None:
            continue
        start, end = sentence
        masked = message.text[start : mention.start] + MASK + message.text[mention.end : end]
        c_start, c_end = _clause(message.text, start, end, mention.start, mention.end)
        probe = message.text[c_start : mention.start] + MASK + message.text[mention.end : c_end]
        others = [m for m in ex.mentions if start <= m.start < end and m is not mention]
        mention = _as_firm(mention, masked, message.text[mention.start : mention.end].islower())
        if mention.type not in _TYPES:
            continue
        subject = _subject(masked, others, speaker, opens_chat=mention.type == "money")
        they_firm = subject is None and mention.type in _THEY_READS
        if they_firm:  # "I love working at X, they treat us well", "they're giving me X": the firm
            subject = _subject(_THEY.sub(" ", masked), others, speaker)
        if subject is not None and subject.startswith(PRONOUN):
            subject = _named_before(ex.mentions, start, speaker) or subject
        lower = message.text[mention.start : mention.end].islower()
        if subject is None or not _open_families(mention, lower, subject, said):
            continue  # nobody the sentence is clearly about, or a rule already said it all
        seen.add(key)
        closed = frozenset(f for who, f in said if who == subject.casefold())
        moving = any(
            f.predicate in MOVE_PREDICATES
            and f.subject.casefold() == subject.casefold()
            and f.object.casefold() in masked.casefold()
            for f in ex.facts
        )
        out.append(
            _Candidate(
                index,
                mention,
                masked.strip(),
                subject,
                subject == speaker,
                closed,
                moving,
                _as_pronoun(probe, subject),
                lower,
                they_firm,
            )
        )
    return out


def _as_firm(mention: Mention, masked: str, lower: bool) -> Mention:
    """The mention as an organisation when the model typed a firm it does not know a place or a
    person ("Been at Ocado three years", "working for Brightwater"): a capitalised name that may be
    one (`firms.unknown_firm`), right after "at", "for" or (not for a person) "with", and before no
    site word ("the X office" is where a job is, not whose)."""
    at = _AT_FIRM.search(masked)
    if mention.type not in {"location", "person"} or lower or at is None:
        return mention
    if mention.type == "person" and at.group(1).casefold() == "with":
        return mention  # "been with Jenkins for ages" may be a partner's surname
    if not unknown_firm(mention.value):
        return mention
    return mention.model_copy(update={"type": "organization"})


def _used(key: str, used: set[str]) -> bool:
    """A name a rule's fact holds, whole or inside a longer phrase ("Micra" in "old Micra", "Model 3"
    in "Tesla Model 3"): read already, so no second reading of it."""
    if key in used:
        return True
    word = re.compile(rf"(?<!\w){re.escape(key)}(?!\w)")
    return any(key in u and word.search(u) for u in used)


def _clause(
    text: str, start: int, end: int, m_start: int, m_end: int, cut: re.Pattern[str] | None = None
) -> tuple[int, int]:
    """The span of the comma/semicolon/dash piece (or `cut`'s) of the sentence [start, end) holding the
    name, widened by the pieces after (then before) it to at least MIN_CLAUSE_WORDS words."""
    cuts = [
        start,
        *(m.end() for m in (cut or _CLAUSE_CUT).finditer(text, start, end) if not m_start < m.end() <= m_end),
        end,
    ]
    cuts = sorted(set(cuts))
    i = max(k for k in range(len(cuts) - 1) if cuts[k] <= m_start)
    lo, hi = i, i + 1
    while len(text[cuts[lo] : cuts[hi]].split()) < MIN_CLAUSE_WORDS and (lo > 0 or hi < len(cuts) - 1):
        if hi < len(cuts) - 1:
            hi += 1
        else:
            lo -= 1
    return cuts[lo], cuts[hi]


def _dropped_i(masked: str) -> bool:
    """A line without "I" is the speaker's when it opens as chat that dropped it: in lower case, with a
    verb in -ed/-ing or an opener ("Settled in X now", "Got the job at X"). A capitalised word of no such
    kind may be a name the model missed ("Isla started at X"): whose, unknown."""
    first = _FIRST_WORD.match(masked)
    if first is None or first.group(1) == MASK:
        return False
    word = first.group(1)
    return word.islower() or word.casefold() in _OPENERS or word.casefold().endswith(("ed", "ing"))


def _sentence_of(text: str, start: int, end: int) -> tuple[int, int] | None:
    """The span of the sentence holding [start, end); in a question or a run-on paragraph, the span of
    the name's clause when that clause states something ("Just started at X, any tips?", a lower-case
    run-on whose commas or "and"s part its news); otherwise None. A name with a stop in it ("St. Luke's",
    "J.P. Morgan") joins the pieces the stop cut."""
    pieces = [m.span() for m in SENTENCES.finditer(text) if m.start() < end and start < m.end()]
    if not pieces:
        return None
    s, e = pieces[0][0], pieces[-1][1]
    sentence = text[s:e]
    if e - s <= MAX_SENTENCE_CHARS and "?" not in sentence:
        return s, e
    if _ASKING.match(sentence):
        return None  # "Should I take the job at X, or stay?": the whole line asks
    cut = _RUN_ON_CUT if e - s > MAX_SENTENCE_CHARS else _CLAUSE_CUT
    c_s, c_e = _clause(text, s, e, start, end, cut)
    clause = text[c_s:c_e]
    if "?" in clause or _ASKING.match(clause) or c_e - c_s > MAX_SENTENCE_CHARS:
        return None
    return c_s, c_e


def _open_families(mention: Mention, lower: bool, subject: str, said: set[tuple[str, str]]) -> bool:
    """Whether a job or home this name could be is still unsaid for the subject in this message."""
    families = {FAMILIES[p] for p in _FITS if _can_hold(mention, lower, p)}
    return any((subject.casefold(), f) not in said for f in families)


def _subject(masked: str, others: Sequence[Mention], speaker: str, opens_chat: bool = False) -> str | None:
    """Whom the sentence is about: the speaker when it names nobody else ("Settled in X now": chat
    drops its "I"; `opens_chat`: a line opening with the value itself, "X a month, not bad", for
    money); the one person it names when the speaker is no subject in it ("Tom got a job at
    X", "my husband Tom ..."); an unresolved he/she, for the session to resolve ("she starts at X
    Monday"). Several people, or a kin word without a name ("my husband got a job at X"): None."""
    people = {m.value for m in others if m.type == "person" and m.value.casefold() != speaker.casefold()}
    pronouns = {w.casefold() for w in _HE_SHE.findall(masked)}
    me = _I.search(masked) is not None
    if opens_chat and not people and _MY_PAY.search(masked) and not _KIN.search(masked):
        return speaker  # "they've frozen my pay at X": an employer's "they" pays the speaker
    if not people and not _OTHER_PERSON.search(masked):
        dropped = _dropped_i(masked) or (opens_chat and masked.lstrip().startswith(MASK))
        return speaker if me or _MINE.search(masked) or dropped else None
    if me:
        return None
    if len(people) == 1:
        return next(iter(people))
    if not people and len(pronouns) == 1 and not _KIN.search(masked):
        return f"{PRONOUN}:{'f' if pronouns == {'she'} else 'm'}"
    kin = {m.group(1).casefold() for m in _MY_KIN.finditer(masked)}
    if not people and len(kin) == 1 and not (pronouns - {_gender_word(next(iter(kin)))}):
        return KIN_PREFIX + next(iter(kin))  # "my husband got a job at X": KinNames gives the name
    return None


def _named_before(mentions: Sequence[Mention], start: int, speaker: str) -> str | None:
    """The one person the message named before this sentence ("Inês is coming to Berlin. She still
    works in Porto"): a he/she means them, not someone of an earlier message, so what a message says
    does not hang on what the host still remembers of its session (a restart forgets it)."""
    people = {
        m.value
        for m in mentions
        if m.type == "person" and 0 <= m.start < start and m.value.casefold() != speaker.casefold()
    }
    folded = {p.casefold() for p in people}
    # "Dana" and "Dana Reyes" are one person
    distinct = {p for p in people if not any(o.startswith(p.casefold() + " ") for o in folded)}
    return next(iter(distinct)) if len(distinct) == 1 else None


def _as_pronoun(probe: str, subject: str) -> str:
    """The probe with another person's subject said as he/she/they, as the examples say it: "my
    husband" or "Tom" is a word the embedding weighs more than the relation ("my husband started at X"
    sits as near "he left X" as "he works at X")."""
    if subject.startswith(KIN_PREFIX):
        kin = subject[len(KIN_PREFIX) :]
        probe = _MY_KIN.sub(_gender_word(kin) or "they", probe, count=1)
    elif not subject.startswith(PRONOUN) and subject in probe:
        probe = probe.replace(subject, "they", 1)
    return probe.strip()


def _gender_word(kin: str) -> str:
    """The pronoun a kin word takes ("my sister ... she"), or "" when it has none ("my partner")."""
    return "she" if kin in lexicon.FEMALE_KIN else "he" if kin in lexicon.MALE_KIN else ""


def _reading(score: dict[str, float], cand: _Candidate, limits: Thresholds) -> str | None:
    """The relation the candidate's sentence states: the examples' choice, then what they cannot tell
    alone (a school, the tense of a move, the home a move leaves)."""
    predicate = _decide(score, cand, limits)
    if cand.they_firm and _DOMAINS.get(predicate or "") not in _THEY_READS[cand.mention.type]:
        return None  # "they" was read as the firm: "They moved to X and I miss them" is no home
    if predicate is not None and _school(cand):
        predicate = _at_school(predicate, cand)
    if predicate in _HOME_SIDE and _SITE_OF.search(cand.masked):
        return None  # "she's at Wee Sparrows nursery on X": where the nursery is, not a home
    if predicate in _ENDINGS and _WEIGHED.search(cand.probe):
        return None  # "thinking about leaving X" would end the job or home it names
    if _SUPPOSED.search(cand.probe) and _IF.search(cand.probe):
        return None  # "we could get a flat for X a month if we moved out of town": only supposed
    if predicate == "works-at" and _SOUGHT.search(cand.masked):
        return None  # "how to make the resume for Siemens job", "saw a posting at X": applying, seeking
    if _DENIED.search(cand.probe) and not _ENDED.search(cand.probe):
        return None  # "I'm not in London": no home there
    if predicate in {"lives-in", "moves-to"} and _SOLD_HOME.search(cand.masked):
        return "lived-in"  # "after selling the family home in X": the home sold is the one left
    if predicate == "moves-to" and _MOVED.search(cand.masked):
        return "moved-to"  # the rules' tense: "he moved back to X"
    if predicate == "lives-in" and cand.moving:
        return "lived-in"  # the home left: "the landlord in X is selling, so we're moving to Y"
    return predicate


def _decide(score: dict[str, float], cand: _Candidate, limits: Thresholds) -> str | None:
    """The relation whose examples are nearest among those the name can hold, if close enough and
    ahead of every near miss and every other family it can hold (for another person's sentence, "my
    friend works at X" is no near miss: it is what they say)."""
    if not cand.own:
        score = {p: s for p, s in score.items() if p != "-someone"}
    fits = {
        p: s for p, s in score.items() if not p.startswith("-") and _can_hold(cand.mention, cand.lower, p)
    }
    if not fits:
        return None
    predicate = max(fits, key=lambda p: fits[p])
    best = fits[predicate]
    misses = [s for p, s in score.items() if p.startswith("-")]
    rivals = [
        *misses,
        *(s for p, s in fits.items() if _DOMAINS[p] != _DOMAINS[predicate]),
    ]  # lives-in ~ moves-to ~ lived-in: one domain, the tense decided below
    if best < limits.similarity or (rivals and best < max(rivals) + limits.margin):
        return None
    return _tense(predicate, fits, cand, limits)


def _tense(predicate: str, fits: dict[str, float], cand: _Candidate, limits: Thresholds) -> str:
    """The examples tell a job from a home well, a job held from a job left badly ("my last day at X"
    sits near "I work at X"): when the other tense of the same domain is within the margin, an ending
    or past word in the clause makes it the past, and a word of the present ("now") the present when
    the past was nearer; without one the nearest examples' tense stands."""
    twins = [p for p in fits if _DOMAINS[p] == _DOMAINS[predicate] and _PAST_SIDE[p] != _PAST_SIDE[predicate]]
    close = [p for p in twins if fits[p] + limits.margin > fits[predicate]]
    if not close:
        return predicate
    if _PAST_SIDE[predicate]:  # "they work at X now" sits near "they used to work at X"
        now = _NOW.search(cand.probe) is not None and _ENDED.search(cand.probe) is None
        return max(close, key=lambda p: fits[p]) if now else predicate
    return max(close, key=lambda p: fits[p]) if _ENDED.search(cand.probe) else predicate


def _can_hold(mention: Mention, lower: bool, predicate: str) -> bool:
    """A capitalised name's type holds ("Leeds" is no employer); the model's type of a name its writer
    wrote in lower case is a guess ("nubank" a place), so it may hold either. A big city the model
    calls a product ("the Manchester bit") is no car, unless a model is named after it (a Tacoma)."""
    if mention.type == "product" and big_place(mention.value) and not set(mention.value.split()) & CAR_NAMES:
        return False
    if predicate in {"works-at", "worked-at"} and _a_title(mention.value):
        return False  # "my job title changed to Lead Engineer": a title, no employer
    if predicate in {"works-at", "worked-at"} and " " not in mention.value and first_name_led(mention.value):
        return False  # "... and helen wants every dept doing learning walks": a colleague, no employer
    if mention.type in _FITS[predicate]:
        return True
    return lower and mention.type in _PLACES and bool(_FITS[predicate] & _PLACES)


def _a_title(name: str) -> bool:
    """'Lead Engineer', 'Head of Design': a job title by its head word (the last word, or the one before
    "of")."""
    words = name.casefold().split()
    head = words[words.index("of") - 1] if "of" in words[1:] else words[-1] if words else ""
    return head in JOB_TITLE_NOUNS


def _school(cand: _Candidate) -> bool:
    """A school, nursery or college: by its name ("Riverside Primary") or the word after it ("X nursery")."""
    after = cand.masked.split(MASK, 1)[1].split()[:1] if MASK in cand.masked else []
    words = [w.casefold().strip(".,!") for w in [*cand.mention.value.split(), *after]]
    return any(w in SCHOOL_WORDS for w in words)


def _at_school(predicate: str, cand: _Candidate) -> str | None:
    """Being at a school is a child's schooling, not a job, unless the sentence speaks of teaching or
    work ("she teaches at X"); the speaker's own school sentences are left to the rules (a parent writes
    "starting at X next week" of their child)."""
    if _TEACHING.search(cand.masked):
        return predicate
    if cand.own or predicate != "works-at":
        return None
    return "attends"


def _with_fact(ex: Extraction, cand: _Candidate, predicate: str) -> Extraction:
    fact = FactCandidate(
        subject=cand.subject,
        predicate=predicate,
        object=cand.mention.value,
        tier="spacy",
        confidence=0.4,
        subject_type="person",
        object_type=_OBJECT_TYPE[predicate],
    )
    return ex.model_copy(update={"facts": [*ex.facts, fact]})
