"""spaCy tier: named entities typed by the statistical model, plus dependency-parse facts.

One nlp.pipe call per batch (batching is what makes spaCy fast); each Doc is used twice: its
entities become Mentions and, when facts are on, extract.dependency turns its parse into
triples. With `workers` set, all of that runs in worker processes (extract.workers). If the
model cannot load, the tier reports itself unavailable and returns empty Extractions, so the
engine keeps running on the regex tier.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal

from knowledge_engine.config import SpacyConfig
from knowledge_engine.extract import (
    answers,
    by_example,
    chatter,
    children_by_context,
    copula,
    dependency,
    lexicon,
    openers,
    places,
    pupils,
    truecase,
)
from knowledge_engine.extract.answers import SessionAnswers
from knowledge_engine.extract.firms import unknown_firm
from knowledge_engine.extract.kids import MAX_CHILD_AGE
from knowledge_engine.extract.kin import KIN_WORDS, KinNames, kin_genders, owner
from knowledge_engine.extract.nlp import (
    LABEL_TYPES,
    exclude_for,
    load_nlp,
    parse,
    warn_unavailable,
    word_index,
)
from knowledge_engine.extract.partners import PartnerTally
from knowledge_engine.extract.regex import CURRENCY_CODES, MONEY, initial_importance
from knowledge_engine.extract.text import worth_extracting
from knowledge_engine.extract.workers import SpacyWorkerPool, acquire, release, resolve_workers
from knowledge_engine.model.extraction import Extraction, FactCandidate, Mention
from knowledge_engine.model.records import EntityType, Message
from knowledge_engine.observe import counters, log

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Doc, Span, Token

# CARDINAL, ORDINAL, PERCENT and QUANTITY are not entities worth remembering.
_DETERMINERS = frozenset(
    {"the", "a", "an", "this", "that", "these", "those", "my", "our", "your", "his", "her", "their", "its"}
)
_POSSESSIVES = frozenset({"'s", "’s", "'", "’"})
_GREETINGS = frozenset({"dear", "hi", "hey", "hello", "hiya", "morning"})
_EDGE_PUNCT = frozenset("\"'“”‘’()[]{}<>,.;:!?-–—*_#")
# Relative dates ("today", "a year", "last week") are not durable entities; keep a DATE/TIME
# only when it names a day, month or number.
_CALENDAR_WORDS = frozenset(
    {
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
        "jan",
        "feb",
        "mar",
        "apr",
        "jun",
        "jul",
        "aug",
        "sep",
        "sept",
        "oct",
        "nov",
        "dec",
        "monday",
        "tuesday",
        "wednesday",
        "thursday",
        "friday",
        "saturday",
        "sunday",
        "christmas",
        "easter",
    }
)
_MAX_VALUE_CHARS = 100
# Thanks, greetings and yes/no of other languages that chatty English text drops in ("no thats
# all. danke"): the small model calls a lone one a PERSON.
_FOREIGN_INTERJECTIONS = frozenset(
    {
        "danke", "bitte", "tschüss", "tschuess", "genau", "prost", "servus", "moin", "hallo", "jawohl",
        "merci", "bonjour", "bonsoir", "salut", "voilà", "voila", "oui", "ouais",
        "gracias", "hola", "adiós", "adios", "vale", "claro", "grazie", "ciao", "prego", "allora",
        "obrigado", "obrigada", "namaste", "shukriya", "dhanyavad", "dhanyavaad", "accha", "acha",
        "arigato", "arigatou", "sayonara", "spasibo", "privet", "dziękuję", "dzięki", "bedankt",
        "doei", "tack", "hej", "skål", "mahalo", "shalom", "salaam", "yalla", "inshallah", "mashallah",
        # and English ones the model still tags ("Congrats on the move!" -> a NORP)
        "congrats", "congratulations", "kudos", "cheers", "thanks", "hooray", "yay", "wow",
    }
)  # fmt: skip
# Parts of speech of the lemmatizer's word index (WordNet) that are not nouns: a word listed
# there is a verb, adjective or adverb of English, rarely a name.
_NOT_NOUN_INDEX = ("verb", "adj", "adv")
_THOUSANDS = re.compile(r"^[$€£¥]?\d+(?:[.,]\d+)?[kK]$")
_K_AMOUNT = re.compile(r"^(\d{2,3}(?:\.\d)?)[kK]$")  # "52k", "48.5k"
# An amount with pence or of hundreds or more per unit of time ("14.50 an hour", "1,200 a month"), not
# "3 a week" (times, tablets)
_RATE_AS_DATE = re.compile(
    r"^[$€£¥₹]?(?:(?:\d{1,3}(?:,\d{3})+|\d{3,})(?:\.\d{2})?|\d{1,2}\.\d{2}) (?:an?|per) "
    r"(?:hour|week|month|year|annum)$",
    re.I,
)
# A DATE/TIME that is a length of time ("20 hours", "up to 4 days", "a 14 year old"), a bare number
# ("Dad's 91", "she is 7") or a clock time ("11pm", "5:30"): no day anyone can look up later.
_DURATION = re.compile(
    r"^(?:(?:up to|about|around|over|under|nearly|almost|only|just|at least|another)\s+)?"
    r"\d+(?:[.,]\d+)?(?:\s*|-)(?:sec(?:ond)?s?|min(?:ute)?s?|h(?:ou)?rs?|days?|nights?|weeks?|fortnights?"
    r"|months?|y(?:ea)?rs?|decades?)(?:[\s-]+old)?$",
    re.IGNORECASE,
)
_NOT_A_DAY = re.compile(r"^(?:\d{1,3}|\d{1,2}(?:[:.]\d{2})?\s*(?:[ap]\.?m\.?)?)$", re.IGNORECASE)
# A DATE the small model makes of an amount in thousands or lakhs ("under 30k", "40k per month",
# "around 1.15L per month"): money.
_AMOUNT_AS_DATE = re.compile(r"(?<![\w.,])[$€£¥₹]?\d+(?:[.,]\d+)?\s?[kKL](?![\w])")
# Words no name ends with: a span cut after a title ("Fantastic Mr" of "Fantastic Mr Fox").
_TITLES = frozenset({"mr", "mrs", "ms", "miss", "dr", "prof", "mr.", "mrs.", "ms.", "dr.", "prof."})
_WEEKDAY_PARTS = frozenset(
    {
        "mon", "monday", "tue", "tues", "tuesday", "wed", "weds", "wednesday", "thu", "thur", "thurs",
        "thursday", "fri", "friday", "sat", "saturday", "sun", "sunday",
    }
)  # fmt: skip
_NAME_TYPES = frozenset({"person", "organization", "location", "product", "concept", "unknown"})
DEFAULT_MAX_CHARS = 32768


class SpacyTier:
    """NER mentions and parse facts from a real spaCy pipeline, loaded once per process.

    With `workers` > 0 the tier runs in a pool of worker processes (extract.workers), started
    on first use (the engine's warm-up thread), so the host process keeps its GIL and spaCy
    uses several cores; results are identical to the in-process tier, which is also the
    fallback when the workers cannot start or keep crashing.
    """

    name = "spacy"
    remembers_sessions = True  # the pipeline gives `extract` and `forget` the workspace's scope

    def __init__(
        self,
        config: SpacyConfig | None = None,
        max_chars: int = DEFAULT_MAX_CHARS,
        embedder: Callable[[], Any] | None = None,
    ) -> None:
        self.config = config or SpacyConfig()
        self._make_embedder = embedder  # builds the model relations by example read with (None: pass off)
        # Parser memory grows with text length; callers prepare() texts, this is a backstop.
        self.max_chars = max_chars
        self.workers = resolve_workers(self.config.workers) if self.config.enabled else 0
        self._pool: SpacyWorkerPool | None = None
        self._pool_lock = threading.Lock()
        self._unavailable = False
        self._closed = False
        self.people = SessionPeople()
        self.answers = SessionAnswers(who=self.people.who)
        self.kin = KinNames()  # "my husband" -> Tom, per speaker, for facts by example about kin
        self.partners = PartnerTally()  # "leanne reckons ...": a partner never called one (partners.py)
        self._sessions_lock = threading.Lock()  # one batch at a time reads the sessions, in order
        self._examples: by_example.Examples | Literal[False] | None = None  # False: unavailable
        self._examples_lock = threading.Lock()

    def forget(
        self, names: Callable[[str], bool], session: str | None = None, scope: str | None = None
    ) -> None:
        """A forget reaches what the sessions remember (people, kin, questions), not just the stores.

        Under the lock a batch screens and learns under: a forget that came after the batch's screen
        but before its sessions learned the names would be undone by them."""
        with self._sessions_lock:
            self.people.forget(names, session, scope)
            self.kin.forget(names, scope)
            self.partners.forget(names, scope)
            self.answers.forget(names, session, scope)

    def memory(self, scope: str | None) -> dict[str, Any]:
        """What the workspace `scope`'s sessions remember between messages, JSON-ready."""
        return {
            "people": self.people.state(scope),
            "kin": self.kin.state(scope),
            "partners": self.partners.state(scope),
            "answers": self.answers.state(scope),
        }

    def restore_memory(self, scope: str | None, memory: dict[str, Any]) -> None:
        """Take back what `memory` gave; raises KeyError/TypeError/ValueError on a malformed one."""
        with self._sessions_lock:
            self.people.restore(scope, memory.get("people", []))
            self.kin.restore(scope, memory.get("kin", []))
            self.partners.restore(scope, memory.get("partners", []))
            self.answers.restore(scope, memory.get("answers", {}))

    @property
    def nlp(self) -> Language | None:
        """The pipeline loaded in this process (the in-process tier, and the pool's fallback)."""
        if not self.config.enabled:
            return None
        return load_nlp(self.config.model, exclude_for(self.config.facts))

    @property
    def available(self) -> bool:
        """False when disabled or when the configured model could not load.

        With workers this starts the pool and waits until it has loaded the model (call it off
        the hook path: the engine does, in its warm-up thread).
        """
        if not self.config.enabled or self._unavailable:
            return False
        if self._ensure_pool() is not None:
            return True
        return not self._unavailable and self.nlp is not None

    @property
    def out_of_process(self) -> bool:
        """True when extraction runs in the worker processes: the caller's thread only waits."""
        return self._pool is not None and not self._closed

    def extract(
        self,
        messages: list[Message],
        scope: str | None = None,
        screen: Callable[[Message, Extraction], Extraction] | None = None,
    ) -> list[Extraction]:
        """Extractions of `messages` in order; `scope` (the workspace) is whose sessions they are, and
        `screen` takes out what a forget made while they were parsed, before the sessions learn it."""
        if not self.config.enabled or self._unavailable or not messages:
            return [Extraction(message_id=m.id) for m in messages]
        pool = self._ensure_pool()
        if pool is None:
            out = self.extract_here(messages)
        else:
            out = pool.extract(messages, self.config.batch_size, self.max_chars, self.extract_here)
        out = self._by_example(messages, out)
        with self._sessions_lock:  # message by message: a question's he/she is who it meant then
            if screen is not None:  # under the lock a forget takes too: none lands between the two
                out = [screen(m, ex) for m, ex in zip(messages, out, strict=False)]
            return [self._read_in_session(m, ex, scope) for m, ex in zip(messages, out, strict=False)]

    def _read_in_session(self, m: Message, ex: Extraction, scope: str | None) -> Extraction:
        """What the session knows settles whom a message's facts are about: kin names, then he/she,
        then who is a child by context (children_by_context.py) and their school (pupils.py), then the
        answer to the assistant's question."""
        ex = self.people.one(m, self.kin.one(m, ex, scope), scope)
        if m.role == "user":
            if kids := children_by_context.own_children(m, ex, self.kin.related(m, scope)):
                ex = ex.model_copy(update={"facts": [*ex.facts, *kids]})
                self.kin.learn(m, kids, scope)
            partnered = self.kin.partnered(m, scope)
            if partner := self.partners.one(m, self.kin.related(m, scope), partnered, scope):
                ex = ex.model_copy(update={"facts": [*ex.facts, *partner]})
                self.kin.learn(m, partner, scope)
            ex = pupils.schooled(m.text, ex, self.kin.children(m, scope))
        return self.answers.one(m, ex, scope)

    def _by_example(self, messages: list[Message], out: list[Extraction]) -> list[Extraction]:
        """Employers and homes the rules missed, read by example in this process (one model for the
        workers' batches; by_example.py)."""
        if not (self.config.by_example and self.config.facts) or self._make_embedder is None:
            return out
        with self._examples_lock:
            if self._examples is None:
                self._examples = by_example.examples_on(self._make_embedder) or False
        if self._examples is False:
            return out
        try:
            return by_example.add_relations(self._examples, messages, out, by_example.Thresholds())
        except Exception as exc:  # a guess that fails must not cost the batch the rules' facts
            counters.inc("extract.by_example.failed")
            log.warning("relations by example failed (%d messages, %s)", len(messages), type(exc).__name__)
            return out

    def extract_here(self, messages: list[Message]) -> list[Extraction]:
        """The tier in this process: what each worker runs, and the fallback."""
        out = [Extraction(message_id=m.id) for m in messages]
        nlp = self.nlp
        if nlp is None:
            return out
        todo = [i for i, m in enumerate(messages) if worth_extracting(m.text)]
        texts = [self._text(messages[i]) for i in todo]
        texts = truecase.restore(nlp, chatter.blank_all(texts), names=self.config.truecase)  # cars always
        texts = chatter.myself_all(openers.lower_all(nlp, texts))
        texts = chatter.close_all(chatter.kin_apart_all(chatter.ask_apart_all(texts)))
        texts = chatter.run_on_all(texts)
        docs = self._parse(nlp, texts)
        for i, doc, said in zip(todo, docs, self._written_out(nlp, texts), strict=True):
            if doc is not None:
                out[i] = self._from_doc(doc, messages[i], said)
        return out

    def _written_out(self, nlp: Language, texts: list[str]) -> list[Doc | None]:
        """For the fact rules, a parse of each text with its "'s" that mean "is" or "has" written out
        (copula.py: names, relations after an owner, costs, he/she); None where nothing was."""
        if not self.config.facts:
            return [None] * len(texts)
        rewritten = [copula.written_out(t) for t in texts]
        changed = [k for k, (a, b) in enumerate(zip(texts, rewritten, strict=True)) if a != b]
        if changed:
            counters.inc("extract.spacy.copula_written_out", len(changed))
        docs = self._parse(nlp, [rewritten[k] for k in changed])
        out: list[Doc | None] = [None] * len(texts)
        for k, doc in zip(changed, docs, strict=True):
            out[k] = doc
        return out

    def pids(self) -> list[int]:
        """Process ids of the live workers (empty in-process)."""
        return self._pool.pids() if self._pool is not None else []

    def close(self, timeout_s: float = 1.0) -> None:
        """Release the worker pool (the last tier using it stops the workers); idempotent.

        If the pool is still starting, the starting thread releases it when the start returns.
        """
        self._closed = True
        if not self._pool_lock.acquire(timeout=timeout_s):
            return
        try:
            pool, self._pool = self._pool, None
        finally:
            self._pool_lock.release()
        if pool is not None:
            release(pool, timeout_s)

    def _ensure_pool(self) -> SpacyWorkerPool | None:
        """The started pool, or None for in-process (workers=0, closed, or the pool failed)."""
        if self.workers <= 0 or self._closed:
            return None
        with self._pool_lock:
            if self._closed:
                return None
            if self._pool is None:
                self._pool = acquire(self.config.model, self.config.facts, self.workers, self.config.truecase)
            pool = self._pool
            status = pool.start()
            if status == "ready" and not self._closed:
                return pool
            self._pool = None
            if not self._closed:
                self._pool_failed(status, pool.reason)
        release(pool, 1.0)
        return None

    def _pool_failed(self, status: str, reason: str) -> None:
        """Model missing: regex-only with the one warning, as in-process. Workers broken: in-process."""
        self.workers = 0
        if status == "unavailable":
            self._unavailable = True
            warn_unavailable(self.config.model, reason)
        else:
            counters.inc("extract.spacy.workers.start_failed")
            log.warning("spaCy workers failed to start (%s); running spaCy in-process", reason)

    def _text(self, message: Message) -> str:
        if len(message.text) > self.max_chars:
            counters.inc("extract.spacy.cut")
            return message.text[: self.max_chars]
        return message.text

    def _parse(self, nlp: Language, texts: list[str]) -> list[Doc | None]:
        """One nlp.pipe call; if the batch fails, retry one by one so one bad text costs only itself."""
        if not texts:
            return []
        try:
            return list(parse(nlp, texts, self.config.batch_size))
        except Exception as exc:
            counters.inc("extract.spacy.batch_failed")
            log.warning("spaCy batch of %d failed (%s); retrying one by one", len(texts), type(exc).__name__)
        docs: list[Doc | None] = []
        for text in texts:
            try:
                docs.append(nlp(text))
            except Exception:
                counters.inc("extract.spacy.failed")
                docs.append(None)
        return docs

    def _from_doc(self, doc: Doc, message: Message, said: Doc | None = None) -> Extraction:
        """Mentions from the text as written; facts from `said` (its "'s" written out) when given."""
        repair_entities(doc)
        mentions = entity_mentions(doc)
        facts: list[FactCandidate] = []
        if self.config.facts:
            try:
                if said is not None:
                    _same_entities(said, doc)
                    repair_entities(said)
                facts = list(dependency.extract_triples(said or doc, message, keep_pronouns=True))
            except Exception as exc:
                counters.inc("extract.spacy.facts_failed")
                log.warning("dependency facts failed for message %s: %s", message.id, type(exc).__name__)
        return Extraction(
            message_id=message.id, mentions=typed_by_facts(mentions, facts, doc.text), facts=facts
        )


def _same_entities(said: Doc, doc: Doc) -> None:
    """The entities of the text as written on its written-out parse: "'s" became one word, so the
    tokens line up, and the model tags a name less surely beside "has" ("Banjo has already found")."""
    if len(said) != len(doc):
        return
    from spacy.tokens import Span as SpanOf  # spaCy is loaded: there is a parse

    spans = []
    for e in doc.ents:
        end = e.end
        while end > e.start and said[end - 1].text != doc[end - 1].text:
            end -= 1  # "Leo's" tagged whole: the written-out "is" is no part of the name
        if end > e.start:
            spans.append(SpanOf(said, e.start, end, label=e.label_))
    try:
        said.ents = spans
    except ValueError:  # overlapping spans cannot happen from doc.ents; keep the parse's own
        counters.inc("extract.spacy.copula_ents_kept")


KNOWN_PER_SESSION = 64  # people a session remembers for an assistant turn the model tags no name in


class SessionPeople:
    """The people each session's user named last, for a he/she that opens a later message.

    "my boyfriend jonas got an offer from airbus" ... (next message) "he said yes to airbus":
    the dependency tier gives the second fact the subject `dependency.PRONOUN` (with the
    pronoun's gender); here, in message order, it becomes the one person the user's last message
    naming people named. When that message named several, a she/he goes to the only one of them
    whose gender the session has shown by a kin word ("my wife Jenna", "Jonas, my brother");
    otherwise it is dropped, as it is when nobody was named, when the one person named has the other
    gender ("my sister Katrin" ... "he"), or the message has no session.
    Kept in memory only (a restart forgets it), for the `limit` sessions that named or gendered
    someone last (one entry per session: its last named people and its kin genders).
    """

    def __init__(self, limit: int = 2048) -> None:
        self.limit = limit
        self._sessions: OrderedDict[tuple[str | None, str], tuple[list[str], dict[str, str]]] = OrderedDict()
        self._users: dict[tuple[str | None, str], set[str]] = {}  # the user's own names, per session
        # the people the user named last in each session (at most KNOWN_PER_SESSION), oldest first
        self._known: dict[tuple[str | None, str], dict[str, None]] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        """Sessions remembered (at most `limit`)."""
        return len(self._sessions)

    def one(self, msg: Message, ex: Extraction, scope: str | None = None) -> Extraction:
        """Read one message of its session; the caller gives each session's messages in order.
        `scope` (the workspace) keeps two workspaces' sessions of one id apart."""
        with self._lock:
            return self._one(msg, ex, owner(msg, scope))

    def state(self, scope: str | None) -> list[dict[str, Any]]:
        """What the workspace `scope`'s sessions remember, oldest first, as JSON-ready records."""
        with self._lock:
            return [
                {
                    "session": key[1],
                    "named": list(named),
                    "genders": dict(genders),
                    "users": sorted(self._users.get(key, ())),
                    "known": list(self._known.get(key, {})),
                }
                for key, (named, genders) in self._sessions.items()
                if key[0] == scope
            ]

    def restore(self, scope: str | None, records: list[dict[str, Any]]) -> None:
        """Take back what `state` gave (after a restart); what this process learnt since wins."""
        with self._lock:
            for rec in reversed(records):  # each goes in front of what this process saw: newest last
                key = (scope, str(rec["session"]))
                if key in self._sessions:
                    continue
                genders = {str(k): str(v) for k, v in rec["genders"].items()}
                self._sessions[key] = ([str(n) for n in rec["named"]], genders)
                self._sessions.move_to_end(key, last=False)
                if rec.get("users"):
                    self._users[key] = {str(u) for u in rec["users"]}
                if rec.get("known"):
                    self._known[key] = {str(n): None for n in rec["known"]}
            while len(self._sessions) > self.limit:
                gone, _ = self._sessions.popitem(last=False)
                self._users.pop(gone, None)
                self._known.pop(gone, None)

    def who(self, key: tuple[str | None, str], gender: str | None) -> str | None:
        """Whom a he/she (`gender` "f"/"m") of session `key` means now, if the session can tell."""
        with self._lock:
            return self._who(key, gender)

    def _one(self, msg: Message, ex: Extraction, scope: str | None) -> Extraction:
        key = (scope, msg.session) if msg.session and msg.role == "user" else None
        if any(dependency.is_pronoun(f.subject) or dependency.is_pronoun(f.object) for f in ex.facts):
            facts = [r for f in ex.facts if (r := self._resolved(f, key)) is not None]
            ex = ex.model_copy(update={"facts": dependency.dedupe_facts(facts)})
        if msg.role == "assistant":
            self._asked(msg, ex, scope)
            return ex
        if key is not None:
            found, named = kin_genders(msg.text), _people_named(msg, ex)
            if found or named:
                last, genders = self._sessions.pop(key, ([], {}))
                genders.update(found)
                self._sessions[key] = (named or last, genders)
                while len(self._sessions) > self.limit:
                    gone, _ = self._sessions.popitem(last=False)
                    self._users.pop(gone, None)
                    self._known.pop(gone, None)
            if key in self._sessions and msg.speaker:  # bounded with the sessions
                self._users.setdefault(key, set()).add(msg.speaker.strip().casefold())
            if key in self._sessions and named:
                known = self._known.setdefault(key, {})
                for name in named:
                    known.pop(name, None)
                    known[name] = None
                for old in list(known)[: max(0, len(known) - KNOWN_PER_SESSION)]:
                    del known[old]
        return ex

    def _resolved(self, fact: FactCandidate, key: tuple[str | None, str] | None) -> FactCandidate | None:
        """The fact with its he/she subject made the person the session means, or None when it cannot
        tell. A he/she object ("hes my jack russell": the model's copula turned round) is dropped:
        the last person named is seldom the dog, and a placeholder is never stored; but a manager's
        he/she is the one first name of its gender the message wrote before it ("Helen is the new head
        of nursing and she's my boss")."""
        if dependency.is_pronoun(fact.object):
            boss = _named_boss(fact)
            if boss is None:
                counters.inc("extract.pronoun_object_dropped")
                return None
            fact = fact.model_copy(update={"object": boss})
        if not dependency.is_pronoun(fact.subject):
            return fact
        gender, hints = dependency.pronoun_gender(fact.subject), dependency.pronoun_hints(fact.subject)
        who = None if key is None else self._hinted(key, hints, gender) if hints else self._who(key, gender)
        if who is None and key is not None and (first := _one(dependency.pronoun_first_names(fact.subject))):
            who = first  # "Maya left Tesco. She's at Aldi now": no person the session knows is named
            counters.inc("extract.pronoun_first_name")
        return fact.model_copy(update={"subject": who}) if who else None

    def _hinted(self, key: tuple[str | None, str], hints: list[str], gender: str | None) -> str | None:
        """The one of `hints` (names the message wrote before its he/she) the session knows as a person
        ("my son Ciarán" earlier), by its whole name or as its short form; None if none or several."""
        named, genders = self._sessions.get(key, ([], {}))
        people = [*self._known.get(key, {}), *named]
        found: dict[str, str] = {}
        for hint in (h.casefold() for h in hints):
            for person in people:
                folded = person.casefold()
                if folded == hint or folded.startswith(hint + " "):
                    found.setdefault(folded, person)
        if len(found) != 1:
            return None
        folded, person = next(iter(found.items()))
        known = genders.get(folded)
        return None if gender and known and known != gender else person

    def _asked(self, msg: Message, ex: Extraction, scope: str | None) -> None:
        """The one person an assistant turn asks or speaks about ("Is Isla's school sorted?") is who
        the user's next he/she means ("She's got a place at Brudenell Primary"). The user's own
        name, and a turn naming several people, change nothing."""
        key = (scope, msg.session) if msg.session else None
        if key is None or key not in self._sessions:
            return
        users = self._users.get(key, set())
        named = [n for n in _people_named(msg, ex) if not _names_user(n.strip().casefold(), users)]
        if not named:  # the model often misses a name in a question ("Is Isla's school sorted?")
            named = [n for n in self._known.get(key, ()) if re.search(rf"\b{re.escape(n)}\b", msg.text)]
        slot = answers.asked(msg.text)
        if not named and slot is not None and slot.subject and not slot.subject.startswith(lexicon.PRONOUN):
            named = [slot.subject]  # "How old is Isla?": asked about by name, though the model missed it
        if len(named) == 1:
            _, genders = self._sessions.pop(key)
            self._sessions[key] = (named, genders)

    def forget(
        self, names: Callable[[str], bool], session: str | None = None, scope: str | None = None
    ) -> None:
        """After a forget: no person it names is whom a later he/she means, and a forgotten
        session is forgotten whole (a forget must not come back through the next pronoun).
        With `scope`, only that workspace's sessions."""
        with self._lock:
            for key in list(self._sessions):
                if scope is not None and key[0] != scope:
                    continue
                if session is not None and key[1] == session:
                    del self._sessions[key]
                    self._users.pop(key, None)
                    self._known.pop(key, None)
                    continue
                last, genders = self._sessions[key]
                self._sessions[key] = (
                    [n for n in last if not names(n)],
                    {n: g for n, g in genders.items() if not names(n)},
                )
                if key in self._known:
                    self._known[key] = {n: None for n in self._known[key] if not names(n)}

    def _who(self, key: tuple[str | None, str], gender: str | None) -> str | None:
        named, genders = self._sessions.get(key, ([], {}))
        if len(named) == 1:
            known = genders.get(named[0].casefold())
            # "my sister Katrin moved to Munich" ... "he said yes to Airbus": not Katrin
            return None if gender and known and known != gender else named[0]
        fits = [n for n in named if gender and genders.get(n.casefold()) == gender]
        return fits[0] if len(fits) == 1 else None


def _named_boss(fact: FactCandidate) -> str | None:
    """The person a manager fact's he/she object means: the one first name of its gender the message
    wrote before it, or None (the session's last person is no safe guess: whether a "he" fits a
    "Karen" it cannot tell)."""
    if fact.predicate not in dependency.MANAGER_PREDICATES:
        return None
    return _one(dependency.pronoun_first_names(fact.object))


def _one(names: list[str]) -> str | None:
    return names[0] if len(names) == 1 else None


def _names_user(name: str, users: set[str]) -> bool:
    """'priya' (or 'priya raman') is the user Priya Raman, whom the assistant greets by name."""
    return any(u == name or u.startswith(name + " ") for u in users)


def _people_named(msg: Message, ex: Extraction) -> list[str]:
    """Distinct people a message names other than its speaker ("Dana" and "Dana Reyes" are one)."""
    me = {(msg.speaker or "").strip().casefold(), "user", "assistant", ""}
    names = [f.object for f in ex.facts if f.object_type == "person"]  # the relations' spelling first
    names += [f.subject for f in ex.facts if f.subject_type == "person"]
    names += [m.value for m in ex.mentions if m.type == "person"]
    folded: dict[str, str] = {}
    for name in names:
        key = name.strip().casefold()
        if key not in me and not dependency.is_pronoun(name):
            folded.setdefault(key, name)
    distinct = [k for k in folded if not any(o != k and o.startswith(k + " ") for o in folded)]
    return [folded[d] for d in distinct]


def repair_entities(doc: Doc) -> None:
    """The model's entities mended where it ran them into what follows a name (each step's why is
    its own), in the order they build on: money, brackets, ages, kin words, counts of days, clauses, then the
    firms it left untagged."""
    for step in (
        money_entities,
        bracketed_entities,
        aged_entities,
        kin_led_entities,
        timed_entities,
        clause_entities,
        untagged_firms,
    ):
        step(doc)


def money_entities(doc: Doc) -> None:
    """Make the amounts the regex tier reads as money MONEY entities of the doc, over whatever the
    small model made of them ("62k euro" a place, "AED 11,500" a product, "R62k" nothing), so the
    mentions and the parse's salary and rent rules see money."""
    from spacy.util import filter_spans

    spans = [
        span
        for m in MONEY.finditer(doc.text)
        if (span := doc.char_span(m.start(), m.end(), label="MONEY", alignment_mode="expand")) is not None
    ]
    spans += [
        span
        for e in doc.ents
        if e.label_ == "CARDINAL" and _thousands_alone(e)
        if (span := doc.char_span(e.start_char, e.end_char, label="MONEY")) is not None
    ]
    if not spans:
        return
    taken = {t.i for span in spans for t in span}
    kept = [e for e in doc.ents if not any(t.i in taken for t in e)]
    doc.ents = filter_spans([*kept, *spans])


def _thousands_alone(ent: Span) -> bool:
    """'giving me 52k', 'offered 48k plus bonus': a bare amount in thousands (15k or more: "a 10k" is a
    run) the model calls a number, that qualifies no noun after it ("50k followers")."""
    match = _K_AMOUNT.match(ent.text)
    if match is None or float(match.group(1)) < 15:
        return False
    return not any(t.dep_ in {"compound", "nummod", "amod"} and t.head.i > t.i for t in ent)


def _reshaped(doc: Doc, counter: str, fix: Callable[[Span], Span | None]) -> None:
    """Each entity through `fix` (the entity itself when it stands, None when it goes, or a new span
    in its place); counted and set on the doc only when one changed."""
    spans, changed = [], False
    for e in doc.ents:
        new = fix(e)
        changed = changed or new is not e
        if new is not None:
            spans.append(new)
    if changed:
        counters.inc(counter)
        doc.ents = spans


def bracketed_entities(doc: Doc) -> None:
    """An entity the model ran into an opening bracket ("Leo (4) started nursery": "Leo (4", an
    organisation) ends before it; a name with a child's age in brackets after it is a person."""
    from spacy.tokens import Span as SpanOf  # spaCy is loaded: there is a parse

    def fix(e: Span) -> Span | None:
        opened = (t.i for t in e if t.text == "(" and not any(u.text == ")" for u in doc[t.i : e.end]))
        cut = next(opened, None)
        if cut is None:
            return e
        if cut == e.start:
            return None
        aged = cut + 2 < len(doc) and doc[cut + 1].like_num and doc[cut + 2].text == ")"
        return SpanOf(doc, e.start, cut, label="PERSON" if aged else e.label_)

    _reshaped(doc, "extract.spacy.bracket_entities", fix)


def aged_entities(doc: Doc) -> None:
    """An entity the model ran into the age after a first name ("Ella 7 and Noah 4": "Noah 4") ends
    before the number, a person: no first name carries a child's age as part of it ("Mazda 3" is no
    first name)."""
    from spacy.tokens import Span as SpanOf  # spaCy is loaded: there is a parse

    def fix(e: Span) -> Span | None:
        last, before = e[-1], e[-2] if len(e) > 1 else None
        aged = last.text.isdigit() and 0 < int(last.text) <= MAX_CHILD_AGE
        if before is None or not aged or not before.is_title or before.lower_ not in truecase.names():
            return e
        return SpanOf(doc, e.start, e.end - 1, label="PERSON")

    _reshaped(doc, "extract.spacy.aged_entities", fix)


def kin_led_entities(doc: Doc) -> None:
    """An entity the model began at "my"/"our" and a kin word ("My niece Ella": an organisation) is the
    name after them, a person: the kin word says who they are, no firm is called "my niece"."""
    from spacy.tokens import Span as SpanOf  # spaCy is loaded: there is a parse

    def fix(e: Span) -> Span | None:
        led = len(e) > 2 and e[0].lower_ in {"my", "our"} and e[1].lower_ in KIN_WORDS
        if not led or not all(t.is_title for t in e[2:]):
            return e
        return SpanOf(doc, e.start + 2, e.end, label="PERSON")

    _reshaped(doc, "extract.spacy.kin_led_entities", fix)


# "3 days a week", "two nights per week": a count of these after a name is how often, no part of the name
_TIME_UNITS = frozenset(
    {"day", "night", "shift", "time", "hour", "week", "weekend", "morning", "afternoon", "evening", "month"}
)
_TIME_LABELS = frozenset({"DATE", "TIME", "CARDINAL"})  # a tag the count gave the whole


def timed_entities(doc: Doc) -> None:
    """An entity the model ran into a count of days after a name ("at Tesco 3 days a week": "Tesco 3
    days") ends before the count; tagged a date for the count's sake, the name is left untagged (for
    `untagged_firms`)."""
    from spacy.tokens import Span as SpanOf  # spaCy is loaded: there is a parse

    def fix(e: Span) -> Span | None:
        cut = next((t.i for t in e[1:] if t.like_num and _counts_time(t)), None)
        if cut is None:
            return e
        if e.label_ in _TIME_LABELS:  # "Barclays three days": the date was the count's, not the name's
            return None
        return SpanOf(doc, e.start, cut, label=e.label_)

    _reshaped(doc, "extract.spacy.timed_entities", fix)


def _counts_time(number: Token) -> bool:
    """'3 days a week', 'two nights per week': the number counts a unit of time, how often (not "2 days
    ago", a date)."""
    doc = number.doc
    if number.i + 2 >= len(doc) or doc[number.i + 1].lemma_.lower() not in _TIME_UNITS:
        return False
    return doc[number.i + 2].lower_ in lexicon.FREQUENCY_WORDS


def clause_entities(doc: Doc) -> None:
    """An entity the model ran over a whole clause ("Leo loves Hillside Primary", "Leo into Riverside
    Academy": one organisation) holds a finite verb or an "into" in lower case, which no name does:
    the name is what follows it, and the words before it are left to the parse (a title, a work of
    art, may hold one)."""
    from spacy.tokens import Span as SpanOf  # spaCy is loaded: there is a parse

    def fix(e: Span) -> Span | None:
        inner = list(e[1:-1]) if e.label_ != "WORK_OF_ART" else []
        verbs = [t.i for t in inner if t.is_lower and (t.tag_ in _FINITE or t.lower_ in _MOTION)]
        return SpanOf(doc, verbs[-1] + 1, e.end, label=e.label_) if verbs else e

    _reshaped(doc, "extract.spacy.clause_entities", fix)


def untagged_firms(doc: Doc) -> None:
    """A capitalised name after "at", "for" or "with" that the model tagged nothing ("hired me at
    Brightwater", "Working for Halden has been great") is an organisation when it is no first name, kin
    word, known place, day, month, holiday or car: the small model leaves a firm it does not know
    untagged there, and then no rule and no reading by example can see it."""
    from spacy.tokens import Span as SpanOf  # spaCy is loaded: there is a parse

    spans = []
    for tok in doc:
        if tok.pos_ != "PROPN" or tok.dep_ != "pobj" or tok.head.lower_ not in {"at", "for", "with"}:
            continue
        start = tok.i
        while start > tok.head.i + 1 and doc[start - 1].pos_ == "PROPN" and doc[start - 1].dep_ == "compound":
            start -= 1
        span = doc[start : tok.i + 1]
        if any(t.ent_type_ or not t.text[:1].isupper() for t in span) or not unknown_firm(span.text):
            continue
        if doc[start - 1].tag_ == "POS":
            continue  # "at The Ottawa Hospital's General Campus": a part of a named whole
        spans.append(SpanOf(doc, start, tok.i + 1, label="ORG"))
    if spans:
        counters.inc("extract.spacy.untagged_firms", len(spans))
        doc.ents = [*doc.ents, *spans]


_FINITE = frozenset({"VBZ", "VBD", "VBP"})
# "got Leo into Riverside Academy", "enrolled Leo at Little Acorns": no name says "into" or "at"
_MOTION = frozenset({"into", "onto", "at"})


def entity_mentions(doc: Doc) -> list[Mention]:
    """Typed mentions of a parsed Doc's entities, trimmed to the name itself."""
    mentions: list[Mention] = []
    for ent in doc.ents:
        type_ = LABEL_TYPES.get(ent.label_)
        if type_ == "date" and (_THOUSANDS.match(ent.text) or _AMOUNT_AS_DATE.search(ent.text)):
            type_ = "money"  # "they offered me 85k", "under 30k": the small model calls it a date
        elif type_ == "date" and _RATE_AS_DATE.match(ent.text):
            type_ = "money"  # "14.50 an hour", "1200 a month": an amount per unit of time, the amount
            ent = ent[: next(i for i, t in enumerate(ent) if t.lower_ in {"a", "an", "per"})]
        elif type_ is not None and ent[0].text in CURRENCY_CODES and any(c.isdigit() for c in ent.text):
            type_ = "money"  # "EUR 1,680" tagged ORG
        if type_ is None:
            continue
        span = _trim(ent, type_)
        if span is None:
            continue
        if type_ in {"organization", "concept"} and span.start > ent.start and ent[0].lower_ in _GREETINGS:
            type_ = "person"  # "Dear Gareth Lloyd,": whom a letter greets is a person
        if type_ == "person" and _the_one(span):
            type_ = "organization"  # "an appointment at the Bürgeramt", "the Kita called"
            counters.inc("extract.spacy.the_person")
        if type_ == "person" and _in_place(span):
            type_ = "location"  # "relatives in Kochi", "the east end of Glasgow"
            counters.inc("extract.spacy.place_person")
        elif type_ in {"organization", "person"} and _big_place_not_name(span):
            type_ = "location"  # "Chennai", "Pune", "Lyon": the small model's ORG or PERSON for a city
            counters.inc("extract.spacy.big_place")
        if type_ in {"person", "organization", "location"} and all(t.text in lexicon.CAR_NAMES for t in span):
            type_ = "product"  # "a used Renault Clio": a car, not someone a later "she" could mean
        value = " ".join(span.text.split())
        if not _keep(value, type_):
            continue
        if type_ in _NAME_TYPES and _not_a_name(span, value, type_):
            counters.inc("extract.spacy.not_a_name")
            continue
        if type_ in _NAME_TYPES and _common_word(span, type_):
            counters.inc("extract.spacy.common_word")
            continue
        mentions.append(
            Mention(
                value=value,
                type=type_,
                tier="spacy",
                start=span.start_char + len(span.text) - len(span.text.lstrip()),
                end=span.start_char + len(span.text.rstrip()),  # a blanked "tbh" after a name (chatter.py)
                importance=initial_importance(type_, value),
            )
        )
    return mentions


def typed_by_facts(mentions: list[Mention], facts: list[FactCandidate], text: str = "") -> list[Mention]:
    """Mentions corrected by the relations they take part in, in the same message.

    A predicate constrains its ends (lexicon.PREDICATE_OBJECT_TYPES): the child in
    "our son Leo" is a person however the model typed "Leo", the city one moves to is a
    location. A job title ("Head of Design", the value of has-role) is no entity at all; the
    year of "2019 Golf" is part of the car's name; "Noah and Ella" are two people. A relation's
    named object the model did not see ("Ghent", "2019 Golf", "city library") becomes a mention
    of the implied type when `text` holds it.
    """
    if not facts:
        return mentions
    implied: dict[str, EntityType] = {}
    values: list[str] = []
    objects: dict[str, str] = {}
    for fact in facts:
        if fact.predicate in lexicon.VALUE_PREDICATES:
            values.append(fact.object.casefold())
        elif fact.object_type and fact.predicate in lexicon.PREDICATE_OBJECT_TYPES:
            implied[fact.object.casefold()] = fact.object_type
            objects[fact.object.casefold()] = fact.object
        if fact.subject_type == "person" and fact.predicate in lexicon.PERSON_SUBJECT_PREDICATES:
            implied.setdefault(fact.subject.casefold(), "person")
    named = [k for k, t in implied.items() if t == "product"]
    out: list[Mention] = []
    for m in mentions:
        key = m.value.casefold()
        if m.type in _NAME_TYPES and any(key == v or key in v.split(" of ") for v in values):
            continue  # "Head of Design" typed organization: a title, not a thing
        if m.type == "date" and any(p.startswith(key + " ") for p in named):
            continue  # "2019" of "2019 Golf"
        if m.type in _NAME_TYPES and any(o.startswith(key + " ") for o in objects):
            continue  # "Helix" of "I accepted the offer from Helix Robotics": the relation names it whole
        parts = _joined_people(m, implied)
        if parts:
            out.extend(parts)
            continue
        type_ = implied.get(key)
        if type_ is not None and type_ != m.type and m.type in _NAME_TYPES:
            m = m.model_copy(update={"type": type_, "importance": initial_importance(type_, m.value)})
        out.append(m)
    seen = {m.value.casefold() for m in out}
    folded = text.casefold()
    for key, value in objects.items():
        at = folded.find(key) if text else -1
        if key not in seen and at >= 0 and len(key) == len(value.casefold()):
            type_ = implied[key]
            out.append(
                Mention(
                    value=value,
                    type=type_,
                    tier="spacy",
                    start=at,
                    end=at + len(value),
                    importance=initial_importance(type_, value),
                )
            )
    return out


def _joined_people(m: Mention, implied: dict[str, EntityType]) -> list[Mention]:
    """'Noah and Ella' as one span, when each name is a person of a fact: two person mentions."""
    parts = re.split(r"(\s+(?:and|&)\s+|,\s*)", m.value)
    names = parts[::2]
    if len(names) < 2 or any(implied.get(n.casefold()) != "person" for n in names):
        return []
    out, offset = [], m.start
    for i, piece in enumerate(parts):
        if i % 2 == 0 and m.start >= 0:
            out.append(
                m.model_copy(
                    update={"value": piece, "type": "person", "start": offset, "end": offset + len(piece)}
                )
            )
        elif i % 2 == 0:
            out.append(m.model_copy(update={"value": piece, "type": "person"}))
        offset += len(piece)
    return out


def _trim(ent: Span, type_: str) -> Any:
    """Drop leading determiners and greetings ("Dear Gareth"), a trailing possessive and edge
    punctuation; add a currency sign."""
    doc = ent.doc
    start, end = ent.start, ent.end
    while end - start > 1 and (doc[start].lower_ in _DETERMINERS or doc[start].lower_ in _GREETINGS):
        start += 1
    while end - start > 1 and (doc[end - 1].text in _POSSESSIVES or doc[end - 1].text in _EDGE_PUNCT):
        end -= 1
    while end - start > 1 and doc[start].text in _EDGE_PUNCT:
        start += 1
    while type_ == "money" and end - start > 1 and doc[start].lower_ in lexicon.APPROXIMATORS:
        start += 1  # "about $900" is the amount $900
    if type_ == "money" and start > 0 and doc[start - 1].is_currency:
        start -= 1  # the small model leaves "$" outside "85,000"
    span = doc[start:end]
    return span if span.text.strip() else None


def _in_place(span: Any) -> bool:
    """A name right after "in", or after "of" in "the east end of", is a place: the small model calls
    a place it does not know a PERSON ("relatives in Kochi", "east end of Glasgow"). Not a name
    with a possessive ("in Tom's car")."""
    doc, start = span.doc, span.start
    if start == 0 or (span.end < len(doc) and doc[span.end].text in _POSSESSIVES):
        return False
    before = doc[start - 1].lower_
    if before == "in":
        return True
    return before == "of" and start > 1 and doc[start - 2].lower_ in lexicon.PLACE_PARTS


def _big_place_not_name(span: Span) -> bool:
    """A big place (places.big_place) no word of which is a first name ("Florence", "Austin" stay
    whatever the model said)."""
    return places.big_place(span.text) and not any(t.lower_ in truecase.names() for t in span)


def _the_one(span: Any) -> bool:
    """One capitalised word after "the" is a place or an institution, not a person: the small model
    calls an unknown foreign noun a PERSON ("the Bürgeramt", "the Rathaus"). A name of more words is
    left alone. Read from the words alone, so the NER-only pipeline (no tagger) types it the same."""
    if len(span) != 1 or span.start == 0:
        return False
    return span.doc[span.start - 1].lower_ == "the" and span[0].text[:1].isupper()


def _common_word(span: Any, type_: str) -> bool:
    """A named span that is a word, not a name: an interjection of another language ("danke",
    any type), or, typed person, an English word written lower-case ("the flat", "a mug"), or one
    capitalised only because it opens a sentence and the tagger reads as a common word ("Sleeps 20
    hours a day", "Skill: I learnt dbt"; see _opening_word). Other capitalised words are left
    alone: a name ("Grace", "Hope", "Banjo") cannot be told from a word without more context.

    Lower-case names in chatty text ("my brother arjun") stay: the test is the lemmatizer's word
    index, which lists no such name as a verb or adjective, and a noun only counts when the tagger
    also reads it as a common noun. A relation that names the word as a person puts it back
    (typed_by_facts adds a relation's named object the model did not see).
    """
    words = [t for t in span if not t.is_punct]
    if not words:
        return False
    if all(t.lower_ in _FOREIGN_INTERJECTIONS for t in words):
        return True
    if type_ != "person":
        return False
    index = word_index(span.doc.vocab)
    if index is None:
        return False
    if len(words) == 1 and _opening_word(words[0], index):
        return True
    return all(t.text == t.lower_ and _english_word(t, index) for t in words)


_OPENING_POS = frozenset({"NOUN", "VERB", "ADJ", "ADV"})
_SENTENCE_ENDS = frozenset(".!?:;")


def _opening_word(token: Any, index: dict[str, frozenset[str]]) -> bool:
    """A Title-case word that opens a sentence, that the tagger reads as a common noun, verb,
    adjective or adverb (not PROPN), that the word index lists and that is no known first name,
    and that the text does not also capitalise mid-sentence: "Sleeps 20 hours a day". Without a
    tagger (the NER-only pipeline) nothing is dropped; a name ("Hope called", "Banjo's asleep")
    is tagged PROPN."""
    text = token.text
    if token.pos_ not in _OPENING_POS or not (text[:1].isupper() and text[1:].islower()):
        return False
    if not _opens_sentence(token):
        return False
    forms = {token.lower_, token.lemma_.lower()}
    if not any(forms & words for words in index.values()) or token.lower_ in truecase.names():
        return False
    return not any(t.text == text and not _opens_sentence(t) for t in token.doc)


def _opens_sentence(token: Any) -> bool:
    """First in the text, or after a sentence's end or a line break (read from the words)."""
    if token.i == 0:
        return True
    before = token.doc[token.i - 1]
    return before.text in _SENTENCE_ENDS or "\n" in before.text_with_ws


def _english_word(token: Any, index: dict[str, frozenset[str]]) -> bool:
    """Listed as an English verb, adjective or adverb; or as a noun the tagger reads as one."""
    forms = {token.lower_, token.lemma_.lower()}
    if any(forms & index.get(pos, frozenset()) for pos in _NOT_NOUN_INDEX):
        return True
    return token.pos_ == "NOUN" and bool(forms & index.get("noun", frozenset()))


def _not_a_name(span: Any, value: str, type_: str) -> bool:
    """A named span that cannot be a name: a person whose every word has a digit ("S1", a school
    year; "Ella 7" stays), a school year of any type ("Grade 10", "Year 3"), a span cut after a title
    ("Fantastic Mr"), a currency code ("EUR"), or weekdays ("Tues/Thurs")."""
    if type_ == "person" and all(any(c.isdigit() for c in word) for word in value.split()):
        return True
    if lexicon.SCHOOL_YEAR.fullmatch(value):
        return True
    if span[-1].lower_ in _TITLES or value in CURRENCY_CODES:
        return True
    parts = re.findall(r"[^\W\d_]+", value.casefold())
    return bool(parts) and all(p in _WEEKDAY_PARTS or p.rstrip("s") in _WEEKDAY_PARTS for p in parts)


_RELATIVE = frozenset({"next", "last", "this", "every", "on", "the", "coming", "a", "each"})


def _weekday_only(value: str) -> bool:
    """ "Friday", "next Monday", "saturdays": a weekday without a date is relative, like "today"."""
    words = re.findall(r"[^\W\d_]+", value.casefold())
    days = [w for w in words if w not in _RELATIVE]
    if not days or any(c.isdigit() for c in value):
        return False
    return all(w in _WEEKDAY_PARTS or w.rstrip("s") in _WEEKDAY_PARTS for w in days)


def _keep(value: str, type_: str) -> bool:
    if not value or len(value) > _MAX_VALUE_CHARS:
        return False
    if type_ == "date":
        if _DURATION.match(value) or _NOT_A_DAY.match(value) or _weekday_only(value):
            counters.inc("extract.spacy.not_a_day")
            return False
        return any(c.isdigit() for c in value) or any(w in _CALENDAR_WORDS for w in value.lower().split())
    if type_ == "money":
        return any(c.isdigit() for c in value)
    return any(c.isalpha() for c in value)
